"""goldcase's pass rule as one promptfoo ``javascript`` assertion, for the promptfoo export.

The export writes the assertion once, as ``assertionTemplates.goldcase``, and each test refers
to it with the case's checks in the assertion's ``config`` (``grader_config``)::

    assert:
      - $ref: "#/assertionTemplates/goldcase"
        config:
          accepts: answer
          lead: ["yes"]
          contains: [["(?<![\\p{L}\\p{N}])(?<![\\p{L}\\p{N}]')14(?![\\p{L}\\p{N}])…"]]

The checks arrive as regular expressions goldcase built: the templates of ``goldcase.dialect``
that ``goldcase.scoring.expect`` compiles for Python (whole words, numbers as numbers, the
first word), spelled for JavaScript, over needles folded by goldcase. The code only folds the
output, as ``expect.fold`` does, and applies them; it reads the output as ``goldcase score
--from promptfoo`` does (text, an abstention by ``[run] abstain_patterns``, or an object of
goldcase's response fields) and returns ``{pass, score, reason}``, the reason naming the
failed checks as ``goldcase score`` names them.

The folding is built from Python's own tables: the characters whose ``str.casefold`` is not
their lower case (JavaScript has no case folding), ``expect.FOLDS``, the white space
``str.split`` splits on, ``text.APOSTROPHES`` and the articles. What JavaScript still reads
from its own Unicode data (NFKC, lower case, the categories of ``dialect.JAVASCRIPT``) agrees
with Python on every character of Python's Unicode version (a test runs Node over all of
them); docs/export.md says where the two can still differ.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from goldcase.dialect import JAVASCRIPT, escape, javascript_literal, spell
from goldcase.model import Case
from goldcase.scoring.abstain import javascript_regexp
from goldcase.scoring.expect import (
    CHECKS,
    FIRST_WORD,
    FOLDS,
    NUMBER_SEPARATOR,
    answer_phrase,
    first_word,
    fold,
    needle_pattern,
)
from goldcase.scoring.outcomes import accepts_correction
from goldcase.text import APOSTROPHES, ARTICLES

METRIC = "goldcase"
# The keys of a response goldcase reads as one (run.protocol's rule for a structured output).
RESPONSE_KEYS = ("outcome", "answer", "fact")

_CODE = """\
// goldcase's pass rule (goldcase export --format promptfoo; docs/export.md). The case's
// checks are in this assertion's config, as regular expressions goldcase built.
const CASE = context.config || {};
const SPACE = new RegExp(@SPACE@, 'u');
const EDGE_SPACE = new RegExp(@EDGE_SPACE@, 'gu');
const CASEFOLD = new Map(@CASEFOLD@);
const FOLDS = new Map(@FOLDS@);
const FOLDED = new RegExp(@FOLDED@, 'gu');
const ABSTAIN = @ABSTAIN@;
const FIRST_WORD = new RegExp(@FIRST_WORD@, 'u');
const SEPARATOR = new RegExp(@SEPARATOR@, 'gu');
const APOSTROPHES = new RegExp(@APOSTROPHES@, 'gu');
const ARTICLES = new RegExp(@ARTICLES@, 'gu');
const RESPONSE_KEYS = @RESPONSE_KEYS@;
const OUTCOMES = ['answer', 'abstain', 'error'];
const own = (value, key) => Object.prototype.hasOwnProperty.call(value, key);
const words = (text) => text.split(SPACE).filter((word) => word !== '');
// expect.fold: lower case for ASCII; else NFKC, Python's casefold, the folds table
const fold = (text) => words(/^[\\x00-\\x7f]*$/.test(text) ? text.toLowerCase()
  : Array.from(text.normalize('NFKC'), (c) => CASEFOLD.get(c) ?? c.toLowerCase()).join('')
    .replace(FOLDED, (c) => FOLDS.get(c))).join(' ');
// expect._framed: text.normalise_answer's tokens, a '.' or ',' inside a number kept
const framed = (text) => ' ' + words(text.replace(SEPARATOR, (s) => (s === '.' ? 'd' : 'c'))
  .normalize('NFKC').toLowerCase().replace(APOSTROPHES, '').replace(/[\\p{P}\\p{S}]/gu, '')
  .replace(ARTICLES, ' ')).join(' ') + ' ';
const found = (text, pattern) => new RegExp(pattern, 'u').test(text);
const abstains = (text) => ABSTAIN !== null && ABSTAIN.test(text);
const cited = (citations, key) => (Array.isArray(citations) ? citations : [])
  .filter((c) => c !== null && typeof c === 'object' && typeof c[key] === 'string')
  .map((c) => fold(c[key]));

function structured(r) {
  let outcome = r.outcome;
  if (!own(r, 'outcome')) {
    const text = typeof r.answer === 'string' ? r.answer : null;
    const failed = r.error !== undefined && r.error !== null;
    outcome = failed ? 'error' : text !== null && abstains(text) ? 'abstain' : 'answer';
  }
  if (!OUTCOMES.includes(outcome)) return { outcome: 'error' };
  if (outcome === 'answer' && typeof r.answer !== 'string' && typeof r.fact !== 'string') {
    return { outcome: 'error' };
  }
  return { outcome, answer: r.answer, fact: r.fact, scope: r.scope, citations: r.citations };
}

// converted.Converted.add: goldcase's response fields, or the output as a text answer
function response(output) {
  let value = output;
  if (typeof value === 'string' && value.replace(EDGE_SPACE, '').startsWith('{')) {
    try { value = JSON.parse(value.replace(EDGE_SPACE, '')); } catch (e) { value = output; }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)
      && RESPONSE_KEYS.some((key) => own(value, key))) return structured(value);
  const text = output === null || output === undefined ? ''
    : typeof output === 'string' ? output : JSON.stringify(output);
  return { outcome: abstains(text) ? 'abstain' : 'answer', answer: text };
}

// expect.failed_checks, in its order
function checks(r) {
  const hay = typeof r.answer === 'string' ? fold(r.answer) : '';
  const first = hay.match(FIRST_WORD);
  const failed = [];
  const rules = {
    fact: () => typeof r.fact === 'string' && found(r.fact, CASE.fact),
    scope: () => found(fold(typeof r.scope === 'string' ? r.scope : ''), CASE.scope),
    lead: () => CASE.lead.includes(first ? first[0] : ''),
    contains: () => CASE.contains.every((any) => any.some((p) => found(hay, p))),
    not_contains: () => !CASE.not_contains.some((p) => found(hay, p)),
    cites: () => cited(r.citations, 'text').some((text) => found(text, CASE.cites)),
    cites_id: () => cited(r.citations, 'id').some((id) => found(id, CASE.cites_id)),
  };
  for (const name of @CHECKS@) if (own(CASE, name) && !rules[name]()) failed.push(name);
  if (own(CASE, 'expected')) {
    const ok = CASE.expected !== null && typeof r.answer === 'string'
      && framed(r.answer).includes(CASE.expected);
    if (!ok) failed.push('expected_answer');
  }
  return failed;
}

// outcomes.CaseGrader.verdict
function verdict(r) {
  if (r.outcome === 'error') return ['error'];
  if (r.outcome === 'abstain') return CASE.accepts === 'answer' ? ['abstained'] : [];
  if (CASE.accepts === 'abstention') return ['answered'];
  return checks(r);
}

const failed = verdict(response(output));
const pass = failed.length === 0;
const reason = pass ? 'goldcase: passed' : 'goldcase: failed ' + failed.join(', ');
return { pass, score: pass ? 1 : 0, reason };
"""


def grader_javascript(patterns: Sequence[str]) -> str:
    """The assertion's code, with the abstain patterns of the set's config."""
    values = {
        "SPACE": spell("{s}+", JAVASCRIPT),
        "EDGE_SPACE": spell("^{s}+|{s}+$", JAVASCRIPT),
        "CASEFOLD": _casefold_exceptions(),
        "FOLDS": sorted([chr(code), str(text)] for code, text in FOLDS.items()),
        "FOLDED": "|".join(escape(chr(code)) for code in sorted(FOLDS)),
        "FIRST_WORD": spell(FIRST_WORD, JAVASCRIPT),
        "SEPARATOR": spell(NUMBER_SEPARATOR, JAVASCRIPT),
        "APOSTROPHES": "|".join(escape(c) for c in APOSTROPHES),
        "ARTICLES": spell(ARTICLES, JAVASCRIPT),
        "RESPONSE_KEYS": list(RESPONSE_KEYS),
        "CHECKS": list(CHECKS),
    }
    code = _CODE
    for name, value in values.items():
        code = code.replace(f"@{name}@", javascript_literal(value))
    # the config's patterns last: nothing they hold is read as a placeholder
    code = code.replace("@ABSTAIN@", javascript_regexp(patterns))
    return code.rstrip("\n")  # YAML then writes it as a literal block


@lru_cache(maxsize=1)
def _casefold_exceptions() -> list[list[str]]:
    """[character, its casefold] wherever Python's ``str.casefold`` is not ``str.lower``
    (``ß``: ``ss``); JavaScript's ``toLowerCase`` gives the lower case of the rest."""
    pairs = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        folded = char.casefold()
        if folded != char.lower():
            pairs.append([char, folded])
    return pairs


def grader_config(case: Case) -> dict[str, Any]:
    """The case's pass rule as the assertion's config: what it accepts (an answer, an
    abstention, or either when a false premise's correction may pass), and the checks an
    answer must meet, as JavaScript regular expressions (first words for ``lead``; the framed
    tokens of the expected answer when the case declares no check, null when it has none)."""
    if case.answerable:
        config: dict[str, Any] = {"accepts": "answer"}
    elif accepts_correction(case):
        config = {"accepts": "correction"}
    else:
        return {"accepts": "abstention"}
    expect = case.expect
    if not expect:
        want = case.expected_answer
        config["expected"] = None if want is None else answer_phrase(want)
        return config
    for name in CHECKS:
        value = expect.get(name)
        if value is not None:
            config[name] = _CHECK_CONFIG[name](value)
    return config


def _js(template: str) -> str:
    return spell(template, JAVASCRIPT)


def _contains(value: Any) -> list[list[str]]:
    groups = (entry if isinstance(entry, list) else [entry] for entry in value)
    return [[_js(needle_pattern(fold(str(option)))) for option in group] for group in groups]


def _leads(value: Any) -> list[str]:
    return [first_word(str(word)) for word in (value if isinstance(value, list) else [value])]


_CHECK_CONFIG: dict[str, Callable[[Any], Any]] = {
    "fact": lambda value: "^" + escape(str(value)) + "$",
    "scope": lambda value: "^" + escape(fold(str(value))) + "$",
    "lead": _leads,
    "contains": _contains,
    "not_contains": lambda value: [_js(needle_pattern(fold(str(e)))) for e in value],
    "cites": lambda value: _js(needle_pattern(fold(str(value)), words=False)),
    "cites_id": lambda value: "^" + escape(fold(str(value))),
}
