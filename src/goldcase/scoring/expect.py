"""The partial checks a case declares under ``expect``, applied to one free-text answer.

Matching is case-insensitive and folds white space, Unicode compatibility forms (NFKC), curly
apostrophes and quotes, and dashes.

``contains`` and ``not_contains`` match whole words: an entry is found only as a run of whole
words and numbers of the answer, never inside a word. "lose" is not in "close", "inc" is not
in "since", "RW" is not in "otherwise", and "can" is not in "can't" (an apostrophe between
letters joins a word). Punctuation, symbols and hyphens separate words, so "14" is in "14-day"
and "£19" in "(£19)". A needle's edge that is not a letter or digit needs no boundary: "£5"
is found after any character, "10%" before any.

Numbers match as numbers, in ``cites`` too: a needle that starts or ends with a digit (a
decimal digit, Unicode category Nd) matches only where the answer's number starts or ends, so
"15" is not found in "150", "1.5" or "15,000", while "15." at the end of a sentence is.
Separators are not folded: "1,000" and "1000" are different strings, and a case that accepts
both lists both (``contains: [["1,000", "1000"]]``). ``cites`` keeps substring matching for
words: a citation's text "returns-and-credits-policy.md" contains "returns-and-credits".

| check | passes when |
|---|---|
| contains | every entry appears as whole words; a list entry is met by any one of it |
| not_contains | no entry appears as whole words |
| lead | the answer's first word, lower-cased, punctuation stripped, equals it (a list: any one) |
| cites | some shown citation's text contains it |
| cites_id | some shown citation's id starts with it |
| scope | the result's scope equals it (case-insensitive) |
| fact | the result's fact key equals it exactly |
| expected_answer | (only when no check is declared) the normalised expected answer appears |

The ``expected_answer`` check normalises both sides as SQuAD does and looks for the expected
answer as a run of whole tokens of the answer; a '.' or ',' inside a number is kept, so "1.5"
does not become "15".

Each matching rule is a regular expression built from a template of ``goldcase.dialect``
(``needle_pattern``, ``FIRST_WORD``, ``NUMBER_SEPARATOR``): the promptfoo export writes the
JavaScript spelling of the same expressions into its grader.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from goldcase.dialect import compiled, escape, lazy
from goldcase.text import clip, normalise_answer

# The order failed checks are listed in.
CHECKS = ("fact", "scope", "lead", "contains", "not_contains", "cites", "cites_id")
# The checks that read the answer's text alone (the others need citations, a scope or a fact).
TEXT_CHECKS = ("lead", "contains", "not_contains")
DEFAULT_CHECK = "expected_answer"

# What fold reads as what, after case folding (a translate table: code point -> text).
FOLDS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u02bc": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }
)
_FOLDED = lazy("[" + re.escape("".join(map(chr, FOLDS))) + "]")  # what FOLDS changes
# Templates (``goldcase.dialect``): Python compiles them here, and the promptfoo export writes
# them into its grader, so both engines apply the same expressions.
FIRST_WORD = "{W}+(?:'{W}+)*"  # a run of letters and digits, apostrophes inside it
NUMBER_SEPARATOR = "(?<={D})([.,])(?={D})"  # a '.' or ',' inside a number
_FIRST_WORD = compiled(FIRST_WORD)
_NUMBER_SEPARATOR = compiled(NUMBER_SEPARATOR)


def fold(text: str) -> str:
    """The folding every text check uses on both sides. (``" ".join(s.split())`` is
    ``fold_space(s)``: str.split and the regular expression's ``\\s`` agree on every code
    point; a test holds them together.)"""
    if text.isascii():
        return " ".join(text.lower().split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    if _FOLDED.search(folded):  # else translate (slow) would change nothing
        folded = folded.translate(FOLDS)
    return " ".join(folded.split())


# Needles (what a case expects) repeat across cases and trials; answers do not.
_needle = lru_cache(maxsize=1 << 16)(fold)


def needle_pattern(needle: str, *, words: bool = True) -> str:
    """The template (``goldcase.dialect``) of an expression that finds folded ``needle`` in
    folded text. Numbers match as numbers: a needle that starts (ends) with a digit is not
    found after (before) a digit, nor after (before) a '.' or ',' next to one. With ``words``
    (the ``contains`` rule) it is never found inside a word either: a needle that starts
    (ends) with a letter or digit is not found after (before) one, nor after (before) an
    apostrophe next to one (``can't`` is one word). An edge that is neither needs nothing."""
    before, after = _edges(needle, words)
    return before + escape(needle) + after


def _edges(needle: str, words: bool) -> tuple[str, str]:
    """The templates of what must not stand before and after ``needle`` (zero-width: they
    look around the needle and match nothing)."""
    head, tail = needle[:1], needle[-1:]
    before = ("(?<!{W})(?<!{W}')" if words and head.isalnum() else "") + (
        "(?<!{D})(?<!{D}[.,])" if head.isdecimal() else ""
    )
    after = ("(?!{W})(?!'{W})" if words and tail.isalnum() else "") + (
        "(?!{D})(?![.,]{D})" if tail.isdecimal() else ""
    )
    return before, after


@lru_cache(maxsize=1 << 16)
def _finder(needle: str, words: bool) -> Callable[[str], bool]:
    """Whether folded ``needle`` occurs in a folded text, as the template of
    ``needle_pattern`` says. The expression is the needle between two zero-width edges, so it
    matches exactly where the needle occurs with both edges holding there: each occurrence is
    found as a substring and only the edges are tested by an expression, the two edges and
    the needle's length between them (any characters: the substring is known), compiled once
    for every needle of that length that shares them (compiling an expression per needle
    cost more than all the searching)."""
    before, after = _edges(needle, words)
    if not before and not after:
        return lambda hay: needle in hay
    clear = compiled(f"{before}(?s:.{{{len(needle)}}}){after}").match

    def finds(hay: str) -> bool:
        at = hay.find(needle)
        while at >= 0:
            if clear(hay, at):
                return True
            at = hay.find(needle, at + 1)
        return False

    return finds


def found(hay: str, needle: str) -> bool:
    """Whether folded ``needle`` occurs in folded ``hay``, numbers matching as numbers (the
    ``cites`` rule)."""
    return _finder(needle, False)(hay)


def found_words(hay: str, needle: str) -> bool:
    """Whether folded ``needle`` occurs in folded ``hay`` as whole words and numbers (the
    ``contains`` and ``not_contains`` rule): never inside a word, numbers as numbers."""
    return _finder(needle, True)(hay)


def first_word(text: str) -> str:
    return _lead_word(fold(text))


_first_word_needle = lru_cache(maxsize=1024)(first_word)


def _lead_word(hay: str) -> str:
    match = _FIRST_WORD.search(hay)  # hay is folded already
    return match.group(0) if match else ""


# --- the checks ------------------------------------------------------------------------------
#
# Each check of an ``expect`` block is prepared once per value (its needles folded, their
# expressions found; see ``_rule``) into whether an answer passes it and, for one that fails,
# what it wanted and saw: one definition, which ``failed_checks``, ``explain`` and a run's
# grading all use, so the words cannot say something the rule did not decide. ``hay`` is the
# folded answer ("" when there is none); a value of a shape the case schema refuses is read
# as the nearest shape it allows (one entry for a list, text for text).

SHOWN = 60  # characters of user text quoted in an explanation
Verdict = Callable[[str, Mapping[str, Any]], bool]
Why = Callable[[str, Mapping[str, Any]], str]


class Rule(NamedTuple):
    passes: Verdict
    why: Why


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _q(value: Any) -> str:
    return f'"{clip(str(value), SHOWN)}"'


def _contains(value: Any) -> Rule:
    """Every entry appears as whole words; a list entry is met by any one of it."""
    groups = [
        (entry, [_finder(_needle(str(option)), True) for option in _listed(entry)])
        for entry in _listed(value)
    ]

    def unmet(hay: str) -> list[Any]:  # loops, not generators: a run calls it once a line
        missing = []
        for entry, finders in groups:
            for finds in finders:
                if finds(hay):
                    break
            else:
                missing.append(entry)
        return missing

    def why(hay: str, result: Mapping[str, Any]) -> str:
        return "; ".join(
            f"none of {_alternatives(entry)}"
            if isinstance(entry, list)
            else f"{_q(entry)} not found"
            for entry in unmet(hay)
        )

    return Rule(lambda hay, result: not unmet(hay), why)


def _alternatives(entry: Any) -> str:
    return "[" + ", ".join(clip(str(option), SHOWN) for option in _listed(entry)) + "]"


def _not_contains(value: Any) -> Rule:
    """No entry appears as whole words."""
    finders = [(entry, _finder(_needle(str(entry)), True)) for entry in _listed(value)]

    def held(hay: str) -> list[Any]:
        return [entry for entry, finds in finders if finds(hay)]

    def why(hay: str, result: Mapping[str, Any]) -> str:
        return "found " + ", ".join(_q(entry) for entry in held(hay))

    return Rule(lambda hay, result: not held(hay), why)


def _lead(value: Any) -> Rule:
    """The answer's first word is the (or one of the) word(s) given."""
    wanted = [_first_word_needle(str(word)) for word in _listed(value)]
    accepted = frozenset(wanted)

    def why(hay: str, result: Mapping[str, Any]) -> str:
        seen = _lead_word(hay)
        want = _q(wanted[0]) if len(wanted) == 1 else "one of [" + ", ".join(wanted) + "]"
        return f"{_q(seen) if seen else 'no first word'}, wanted {want}"

    return Rule(lambda hay, result: _lead_word(hay) in accepted, why)


def _cited(result: Mapping[str, Any], key: str) -> list[str]:
    """The folded ``key`` (text or id) of each citation that has one."""
    return [
        _fold_cited(v) for c in result.get("citations") or () if isinstance(v := c.get(key), str)
    ]


def _fold_cited(text: str) -> str:
    """``fold(text)``; a short text (a document's name, a section, an id) is cited by many
    lines, and is folded once for all of them (with the needles: one bounded table)."""
    return _needle(text) if len(text) <= SHORT_CITED else fold(text)


SHORT_CITED = 80


def _shown_citations(result: Mapping[str, Any], key: str) -> str:
    shown = [clip(str(c[key]), SHOWN) for c in result.get("citations") or () if c.get(key)]
    return f" (cited: {', '.join(shown[:5])}{', …' if len(shown) > 5 else ''})" if shown else ""


def _cites(value: Any) -> Rule:
    """Some citation's text contains it (numbers as numbers)."""
    finds = _finder(_needle(str(value)), False)

    def why(hay: str, result: Mapping[str, Any]) -> str:
        return f"no citation text containing {_q(value)}{_shown_citations(result, 'text')}"

    return Rule(lambda hay, result: any(map(finds, _cited(result, "text"))), why)


def _cites_id(value: Any) -> Rule:
    """Some citation's id starts with it."""
    want = _needle(str(value))

    def why(hay: str, result: Mapping[str, Any]) -> str:
        shown = _shown_citations(result, "id")
        return f"no citation starting with {clip(str(value), SHOWN)}{shown}"

    return Rule(lambda hay, result: any(c.startswith(want) for c in _cited(result, "id")), why)


def _scope(value: Any) -> Rule:
    """The result's scope equals it, folded."""
    want = _needle(str(value))

    def why(hay: str, result: Mapping[str, Any]) -> str:
        scope = result.get("scope")
        return f"{_q(scope) if scope else 'no scope'}, wanted {_q(value)}"

    return Rule(lambda hay, result: fold(str(result.get("scope") or "")) == want, why)


def _fact(value: Any) -> Rule:
    """The result's fact key equals it exactly."""

    def why(hay: str, result: Mapping[str, Any]) -> str:
        fact = result.get("fact")
        return f"{_q(fact) if fact else 'no fact'}, wanted {_q(value)}"

    return Rule(lambda hay, result: result.get("fact") == value, why)


_RULES: dict[str, Callable[[Any], Rule]] = {
    "fact": _fact,
    "scope": _scope,
    "lead": _lead,
    "contains": _contains,
    "not_contains": _not_contains,
    "cites": _cites,
    "cites_id": _cites_id,
}
assert tuple(_RULES) == CHECKS, "failed checks are listed in CHECKS order"
_DECLARED: dict[tuple[str, ...], tuple[tuple[str, ...], bool]] = {}


def _declared(expect: Mapping[str, Any]) -> tuple[tuple[str, ...], bool]:
    """The checks ``expect`` declares, in ``CHECKS`` order, and whether one of them reads the
    answer's text: found once for each order of keys (a set writes its blocks' keys in a few
    orders; a case's checks are prepared for every case a run grades)."""
    keys = tuple(expect)
    declared = _DECLARED.get(keys)
    if declared is None:
        names = tuple(name for name in CHECKS if name in expect)
        declared = (names, not TEXT_CHECKS_SET.isdisjoint(names))
        if len(_DECLARED) < PREPARED_KEPT:
            _DECLARED[keys] = declared
    return declared


TEXT_CHECKS_SET = frozenset(TEXT_CHECKS)


_FAILED_DEFAULT = (DEFAULT_CHECK,)
_PASSED: tuple[str, ...] = ()


Checker = Callable[[Mapping[str, Any]], tuple[str, ...]]
RuleKey = str | tuple[str | tuple[str, ...], ...]
_PREPARED: dict[tuple[str, RuleKey], Rule] = {}
PREPARED_KEPT = 4096  # rules kept for other cases; the whole table is let go when it is full


def _rule(name: str, value: Any) -> Rule:
    """The rule of check ``name`` for ``value``, prepared once for every case that declares
    the same value: a set repeats its ``not_contains``, ``cites``, ``scope`` and ``lead``
    values across many cases, and preparing a rule costs as much as applying it once. A rule
    is a function of its value alone; a value of a shape the case schema refuses is prepared
    afresh each time."""
    key = rule_key(value)
    if key is None:
        return _RULES[name](value)
    rule = _PREPARED.get((name, key))
    if rule is None:
        if len(_PREPARED) >= PREPARED_KEPT:
            _PREPARED.clear()
        rule = _PREPARED[(name, key)] = _RULES[name](value)
    return rule


def rule_key(value: Any) -> RuleKey | None:
    """``value`` as a key equal only to the keys of equal values of the same types, for the
    shapes the case schema allows (text, a list of texts and lists of texts); None for any
    other. Types count: ``str()`` of 1, 1.0 and True differ, though they compare equal."""
    if type(value) is str:
        return value
    if type(value) is not list:
        return None
    key: list[str | tuple[str, ...]] = []
    for entry in value:  # loops, not generators: a case's checks are prepared once a case
        if type(entry) is str:
            key.append(entry)
        elif type(entry) is list:
            for option in entry:
                if type(option) is not str:
                    return None
            key.append(tuple(entry))
        else:
            return None
    return tuple(key)


class Checks:
    """The pass rule of one case's checks, prepared once (needles folded, their expressions
    found) and applied to each of its result lines: ``failed(result)`` gives the names of the
    checks a line fails, in ``CHECKS`` order (empty: it passes), and ``why`` says what a
    failed one wanted and saw, from the same prepared rules. A case that declares no check is
    graded by its expected answer (``answer_appears``, its phrase found once)."""

    __slots__ = ("_by_answer", "_expected_answer", "_passing", "_reads_answer", "_rules")

    def __init__(self, expect: Mapping[str, Any], expected_answer: str | None) -> None:
        self._expected_answer = expected_answer
        self._rules: list[tuple[str, Rule]] = []
        self._passing: list[tuple[str, Verdict]] = []
        self._by_answer: Checker | None = None
        if not expect:
            self._by_answer = _by_answer(expected_answer)
            return
        names, self._reads_answer = _declared(expect)
        rules, passing = self._rules, self._passing
        for name in names:  # a loop, not a comprehension: prepared once a case
            value = expect[name]
            if value is not None:
                rule = _rule(name, value)
                rules.append((name, rule))
                passing.append((name, rule.passes))

    def failed(self, result: Mapping[str, Any]) -> tuple[str, ...]:
        """The names of the checks ``result`` fails, in ``CHECKS`` order (empty: it passes)."""
        if self._by_answer is not None:
            return self._by_answer(result)
        hay = ""
        if self._reads_answer:
            answer = result.get("answer")
            if isinstance(answer, str):
                hay = fold(answer)
        failed = None  # a loop, not a comprehension: no frame made for each line
        for name, passes in self._passing:
            if not passes(hay, result):
                if failed is None:
                    failed = [name]
                else:
                    failed.append(name)
        return _PASSED if failed is None else tuple(failed)

    def why(self, name: str, result: Mapping[str, Any]) -> str:
        """``name: what it wanted and what it saw`` for a check this line failed."""
        if name == DEFAULT_CHECK:
            return f"{name}: {_q(self._expected_answer)} is not in the answer"
        rule = next(rule for rule_name, rule in self._rules if rule_name == name)
        answer = result.get("answer")
        hay = fold(answer) if isinstance(answer, str) else ""
        return f"{name}: {rule.why(hay, result)}"


def _by_answer(expected_answer: str | None) -> Checker:
    """No check declared: the expected answer must appear as a run of whole tokens
    (``answer_appears``, its phrase found once)."""
    want = None if expected_answer is None else answer_phrase(expected_answer)
    if want is None:  # answer_appears is False for no expected answer or an empty one
        return lambda result: _FAILED_DEFAULT

    def check(result: Mapping[str, Any]) -> tuple[str, ...]:
        answer = result.get("answer")
        if isinstance(answer, str) and want in _framed(answer):
            return _PASSED
        return _FAILED_DEFAULT

    return check


def failed_checks(
    expect: Mapping[str, Any], expected_answer: str | None, result: Mapping[str, Any]
) -> list[str]:
    """The names of the checks an answer fails, in ``CHECKS`` order (empty: it passes)."""
    return list(Checks(expect, expected_answer).failed(result))


def explain(
    name: str, expect: Mapping[str, Any], expected_answer: str | None, result: Mapping[str, Any]
) -> str:
    """``name: what it wanted and what it saw`` for a check that ``failed_checks`` reported:
    ``contains: none of [30 days, thirty days]``, ``not_contains: found "14 days"``,
    ``lead: "yes", wanted "no"``, ``cites_id: no citation starting with MD-P-16``."""
    return Checks(expect, expected_answer).why(name, result)


def _protected_tokens(text: str) -> list[str]:
    """SQuAD-normalised tokens, except that a '.' or ',' inside a number survives as a letter
    (so "1.5" does not become the token "15")."""
    marked = _NUMBER_SEPARATOR.sub(lambda m: "d" if m.group(1) == "." else "c", text)
    return normalise_answer(marked).split()


def _framed(text: str) -> str:
    """``text``'s tokens joined by spaces, a space before and after: one text's tokens are a
    run of whole tokens of another's exactly when its framed form is inside the other's."""
    return f" {' '.join(_protected_tokens(text))} "


def answer_phrase(expected: str) -> str | None:
    """What ``answer_appears`` looks for in an answer's framed tokens (None: ``expected`` has
    no token, and no answer holds it)."""
    want = _framed(expected)
    return None if want == "  " else want


def answer_appears(expected: str, answer: str) -> bool:
    """Whether the normalised expected answer is a run of whole tokens of the answer."""
    want = answer_phrase(expected)
    return want is not None and want in _framed(answer)
