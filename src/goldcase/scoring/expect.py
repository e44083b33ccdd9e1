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
from typing import Any

from goldcase.dialect import compiled, escape
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
_FOLDED = re.compile("[" + re.escape("".join(map(chr, FOLDS))) + "]")  # what FOLDS changes
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
    head, tail = needle[:1], needle[-1:]
    return "".join(
        (
            "(?<!{W})(?<!{W}')" if words and head.isalnum() else "",
            "(?<!{D})(?<!{D}[.,])" if head.isdecimal() else "",
            escape(needle),
            "(?!{W})(?!'{W})" if words and tail.isalnum() else "",
            "(?!{D})(?![.,]{D})" if tail.isdecimal() else "",
        )
    )


def found(hay: str, needle: str) -> bool:
    """Whether folded ``needle`` occurs in folded ``hay``, numbers matching as numbers (the
    ``cites`` rule)."""
    return needle in hay and compiled(needle_pattern(needle, words=False)).search(hay) is not None


def found_words(hay: str, needle: str) -> bool:
    """Whether folded ``needle`` occurs in folded ``hay`` as whole words and numbers (the
    ``contains`` and ``not_contains`` rule): never inside a word, numbers as numbers."""
    return needle in hay and compiled(needle_pattern(needle)).search(hay) is not None


def first_word(text: str) -> str:
    match = _FIRST_WORD.search(fold(text))
    return match.group(0) if match else ""


_first_word_needle = lru_cache(maxsize=1024)(first_word)


def _option_found(hay: str, entry: Any) -> bool:
    """One ``contains`` entry: a string, or a list met by any one of its strings."""
    if isinstance(entry, list):
        return any(found_words(hay, _needle(option)) for option in entry)
    return found_words(hay, _needle(entry))


def _citations(result: Mapping[str, Any], key: str) -> list[str]:
    return [fold(c[key]) for c in result.get("citations") or () if isinstance(c.get(key), str)]


def _unmet(hay: str, value: Any) -> list[Any]:
    """The ``contains`` entries the answer does not meet (the rule: none may be unmet)."""
    return [entry for entry in value if not _option_found(hay, entry)]


def _forbidden(hay: str, value: Any) -> list[Any]:
    """The ``not_contains`` entries the answer holds (the rule: none may be held)."""
    return [entry for entry in value if found_words(hay, _needle(entry))]


def _lead_word(hay: str) -> str:
    match = _FIRST_WORD.search(hay)  # hay is folded already
    return match.group(0) if match else ""


def _contains(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    return not _unmet(hay, value)


def _not_contains(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    return not _forbidden(hay, value)


def _leads(value: Any) -> list[str]:
    """The first words ``lead`` accepts: one, or any one of a list."""
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _lead(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    first = _lead_word(hay)
    return any(first == _first_word_needle(word) for word in _leads(value))


def _cites(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    needle = _needle(str(value))
    return any(found(text, needle) for text in _citations(result, "text"))


def _cites_id(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    want = _needle(str(value))
    return any(cid.startswith(want) for cid in _citations(result, "id"))


def _scope(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    return fold(str(result.get("scope") or "")) == _needle(str(value))


def _fact(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    return result.get("fact") == value


_RULES: dict[str, Callable[[str, Any, Mapping[str, Any]], bool]] = {
    "fact": _fact,
    "scope": _scope,
    "lead": _lead,
    "contains": _contains,
    "not_contains": _not_contains,
    "cites": _cites,
    "cites_id": _cites_id,
}
assert tuple(_RULES) == CHECKS, "failed checks are listed in CHECKS order"


def failed_checks(
    expect: Mapping[str, Any], expected_answer: str | None, result: Mapping[str, Any]
) -> list[str]:
    """The names of the checks an answer fails, in ``CHECKS`` order (empty: it passes)."""
    answer = result.get("answer")
    hay = fold(answer) if isinstance(answer, str) else ""
    if not expect:
        ok = (
            expected_answer is not None
            and isinstance(answer, str)
            and answer_appears(expected_answer, answer)
        )
        return [] if ok else [DEFAULT_CHECK]
    failed: list[str] = []
    for name, rule in _RULES.items():  # CHECKS order
        value = expect.get(name)
        if value is not None and not rule(hay, value, result):
            failed.append(name)
    return failed


# --- what a failed check wanted and what it saw ---------------------------------------------------
#
# Read from the same helpers the rules use (``_unmet``, ``_forbidden``, ``_lead_word``, the
# citations), so the words cannot say something the rule did not decide.

SHOWN = 60  # characters of user text quoted in an explanation


def _q(value: Any) -> str:
    return f'"{clip(str(value), SHOWN)}"'


def _alternatives(entry: Any) -> str:
    options = entry if isinstance(entry, list) else [entry]
    return "[" + ", ".join(clip(str(option), SHOWN) for option in options) + "]"


def _why_contains(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    return "; ".join(
        f"none of {_alternatives(entry)}" if isinstance(entry, list) else f"{_q(entry)} not found"
        for entry in _unmet(hay, value)
    )


def _why_not_contains(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    return "found " + ", ".join(_q(entry) for entry in _forbidden(hay, value))


def _why_lead(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    seen = _lead_word(hay)
    wanted = [_first_word_needle(word) for word in _leads(value)]
    want = _q(wanted[0]) if len(wanted) == 1 else "one of [" + ", ".join(wanted) + "]"
    return f"{_q(seen) if seen else 'no first word'}, wanted {want}"


def _shown_citations(result: Mapping[str, Any], key: str) -> str:
    shown = [clip(str(c[key]), SHOWN) for c in result.get("citations") or () if c.get(key)]
    return f" (cited: {', '.join(shown[:5])}{', …' if len(shown) > 5 else ''})" if shown else ""


def _why_cites(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    return f"no citation text containing {_q(value)}{_shown_citations(result, 'text')}"


def _why_cites_id(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    return f"no citation starting with {clip(str(value), SHOWN)}{_shown_citations(result, 'id')}"


def _why_scope(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    scope = result.get("scope")
    return f"{_q(scope) if scope else 'no scope'}, wanted {_q(value)}"


def _why_fact(hay: str, value: Any, result: Mapping[str, Any]) -> str:
    fact = result.get("fact")
    return f"{_q(fact) if fact else 'no fact'}, wanted {_q(value)}"


_WHY: dict[str, Callable[[str, Any, Mapping[str, Any]], str]] = {
    "fact": _why_fact,
    "scope": _why_scope,
    "lead": _why_lead,
    "contains": _why_contains,
    "not_contains": _why_not_contains,
    "cites": _why_cites,
    "cites_id": _why_cites_id,
}
assert tuple(_WHY) == CHECKS, "every check says why it failed"


def explain(
    name: str, expect: Mapping[str, Any], expected_answer: str | None, result: Mapping[str, Any]
) -> str:
    """``name: what it wanted and what it saw`` for a check that ``failed_checks`` reported:
    ``contains: none of [30 days, thirty days]``, ``not_contains: found "14 days"``,
    ``lead: "yes", wanted "no"``, ``cites_id: no citation starting with MD-P-16``."""
    answer = result.get("answer")
    hay = fold(answer) if isinstance(answer, str) else ""
    if name == DEFAULT_CHECK:
        return f"{name}: {_q(expected_answer)} is not in the answer"
    return f"{name}: {_WHY[name](hay, expect.get(name), result)}"


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


# --- the same checks, prepared once per case ---------------------------------------------------
#
# A run grades each case's lines (several with repeated trials) against the same ``expect``
# block. ``compile_checks`` folds the block's needles once and returns a function of a result
# line that gives exactly what ``failed_checks`` gives (a property test holds them together).

Checker = Callable[[Mapping[str, Any]], tuple[str, ...]]
_Rule = Callable[[str, Mapping[str, Any]], bool]


def compile_checks(expect: Mapping[str, Any], expected_answer: str | None) -> Checker:
    """``failed_checks(expect, expected_answer, result)`` as a function of ``result``."""
    if not expect:
        return _default_checker(expected_answer)
    if not _well_formed(expect):  # a shape the case schema refuses: keep the plain path
        return lambda result: tuple(failed_checks(expect, expected_answer, result))
    rules = [
        (name, _COMPILERS[name](value))
        for name in CHECKS
        if (value := expect.get(name)) is not None
    ]
    reads_answer = any(name in TEXT_CHECKS for name, _ in rules)

    def check(result: Mapping[str, Any]) -> tuple[str, ...]:
        hay = ""
        if reads_answer:
            answer = result.get("answer")
            if isinstance(answer, str):
                hay = fold(answer)
        failed: list[str] | None = None
        for name, rule in rules:
            if not rule(hay, result):
                if failed is None:
                    failed = [name]
                else:
                    failed.append(name)
        return _PASSED if failed is None else tuple(failed)

    return check


def _well_formed(expect: Mapping[str, Any]) -> bool:
    """Every declared value has the shape case.schema.json allows."""
    for name, value in expect.items():
        if value is None or name not in _RULES:
            continue
        if name == "lead" and isinstance(value, list):
            if not value or not all(type(word) is str for word in value):
                return False
        elif name in ("contains", "not_contains"):
            if not isinstance(value, list):
                return False
            for entry in value:
                options = entry if isinstance(entry, list) and name == "contains" else [entry]
                if not all(type(option) is str for option in options):
                    return False
        elif type(value) is not str:
            return False
    return True


def _finder(needle: str, *, words: bool = False) -> Callable[[str], bool]:
    """``found(hay, needle)`` (``words``: ``found_words``) as a function of ``hay``: a needle
    absent from the answer costs one substring test, and a needle whose expression is the
    plain text (no digit, letter or apostrophe rule at its edges) costs nothing more."""
    template = needle_pattern(needle, words=words)
    if template == escape(needle):
        return lambda hay: needle in hay
    search = compiled(template).search
    return lambda hay: needle in hay and search(hay) is not None


def _word_finder(needle: str) -> Callable[[str], bool]:
    """``found_words(hay, needle)`` as a function of ``hay``."""
    return _finder(needle, words=True)


def _compile_contains(value: list[Any]) -> _Rule:
    groups = [
        tuple(
            _word_finder(_needle(option))
            for option in (entry if isinstance(entry, list) else [entry])
        )
        for entry in value
    ]

    def rule(hay: str, result: Mapping[str, Any]) -> bool:
        for group in groups:
            for finds in group:
                if finds(hay):
                    break
            else:
                return False
        return True

    return rule


def _compile_not_contains(value: list[str]) -> _Rule:
    finders = [_word_finder(_needle(entry)) for entry in value]
    return lambda hay, result: not any(finds(hay) for finds in finders)


def _compile_lead(value: str | list[str]) -> _Rule:
    want = frozenset(_first_word_needle(word) for word in _leads(value))

    def rule(hay: str, result: Mapping[str, Any]) -> bool:
        match = _FIRST_WORD.search(hay)
        return (match.group(0) if match else "") in want

    return rule


def _compile_cites(value: str) -> _Rule:
    finds = _finder(_needle(value))

    def rule(hay: str, result: Mapping[str, Any]) -> bool:
        for citation in result.get("citations") or ():
            text = citation.get("text")
            if isinstance(text, str) and finds(fold(text)):
                return True
        return False

    return rule


def _compile_cites_id(value: str) -> _Rule:
    want = _needle(value)

    def rule(hay: str, result: Mapping[str, Any]) -> bool:
        for citation in result.get("citations") or ():
            cid = citation.get("id")
            if isinstance(cid, str) and fold(cid).startswith(want):
                return True
        return False

    return rule


def _compile_scope(value: str) -> _Rule:
    want = _needle(value)
    return lambda hay, result: fold(str(result.get("scope") or "")) == want


def _compile_fact(value: str) -> _Rule:
    return lambda hay, result: result.get("fact") == value


_COMPILERS: dict[str, Callable[[Any], _Rule]] = {
    "fact": _compile_fact,
    "scope": _compile_scope,
    "lead": _compile_lead,
    "contains": _compile_contains,
    "not_contains": _compile_not_contains,
    "cites": _compile_cites,
    "cites_id": _compile_cites_id,
}
assert tuple(_COMPILERS) == CHECKS, "every check has a compiled form"

_FAILED_DEFAULT = (DEFAULT_CHECK,)
_PASSED: tuple[str, ...] = ()


def _default_checker(expected_answer: str | None) -> Checker:
    """No check declared: the expected answer must appear as a run of whole tokens."""
    want = None if expected_answer is None else answer_phrase(expected_answer)
    if want is None:  # answer_appears is False for no expected answer or an empty one
        return lambda result: _FAILED_DEFAULT

    def check(result: Mapping[str, Any]) -> tuple[str, ...]:
        answer = result.get("answer")
        if isinstance(answer, str) and want in _framed(answer):
            return ()
        return _FAILED_DEFAULT

    return check
