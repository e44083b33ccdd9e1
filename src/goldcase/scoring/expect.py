"""The partial checks a case declares under ``expect``, applied to one free-text answer.

Matching is case-insensitive and folds white space, Unicode compatibility forms (NFKC), curly
apostrophes and quotes, and dashes. Numbers match as numbers: a needle that starts or ends with
a digit matches only where the answer's number starts or ends too, so "15" is not found in
"150", "1.5" or "15,000", while "15." at the end of a sentence is. Separators are not folded:
"1,000" and "1000" are different strings, and a case that accepts both lists both
(``contains: [["1,000", "1000"]]``).

| check | passes when |
|---|---|
| contains | every entry appears in the answer; an entry that is a list is met by any one of it |
| not_contains | no entry appears in the answer |
| lead | the answer's first word, lower-cased, punctuation stripped, equals it |
| cites | some shown citation's text contains it |
| cites_id | some shown citation's id starts with it |
| scope | the result's scope equals it (case-insensitive) |
| fact | the result's fact key equals it exactly |
| expected_answer | (only when no check is declared) the normalised expected answer appears |

The ``expected_answer`` check normalises both sides as SQuAD does and looks for the expected
answer as a run of whole tokens of the answer; a '.' or ',' inside a number is kept, so "1.5"
does not become "15".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from goldcase.text import fold_space, normalise_answer

# The order failed checks are listed in.
CHECKS = ("fact", "scope", "lead", "contains", "not_contains", "cites", "cites_id")
DEFAULT_CHECK = "expected_answer"

_FOLDS = str.maketrans(
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
_FIRST_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_NUMBER_SEPARATOR = re.compile(r"(?<=\d)([.,])(?=\d)")


def fold(text: str) -> str:
    """The folding every text check uses on both sides."""
    if text.isascii():
        return " ".join(text.lower().split())  # str.split() and fold_space agree on spaces
    return fold_space(unicodedata.normalize("NFKC", text).casefold().translate(_FOLDS))


# Needles (what a case expects) repeat across cases and trials; answers do not.
_needle = lru_cache(maxsize=1 << 16)(fold)


def _number_edge_ok(hay: str, start: int, end: int, needle: str) -> bool:
    if needle[0].isdigit() and start > 0:
        before = hay[start - 1]
        if before.isdigit() or (before in ".," and start > 1 and hay[start - 2].isdigit()):
            return False
    if needle[-1].isdigit() and end < len(hay):
        after = hay[end]
        if after.isdigit() or (after in ".," and end + 1 < len(hay) and hay[end + 1].isdigit()):
            return False
    return True


def found(hay: str, needle: str) -> bool:
    """Whether folded ``needle`` occurs in folded ``hay``, numbers matching as numbers."""
    if not needle:
        return True
    if not (needle[0].isdigit() or needle[-1].isdigit()):
        return needle in hay
    start = hay.find(needle)
    while start >= 0:
        if _number_edge_ok(hay, start, start + len(needle), needle):
            return True
        start = hay.find(needle, start + 1)
    return False


def first_word(text: str) -> str:
    match = _FIRST_WORD.search(fold(text))
    return match.group(0) if match else ""


_first_word_needle = lru_cache(maxsize=1024)(first_word)


def _option_found(hay: str, entry: Any) -> bool:
    """One ``contains`` entry: a string, or a list met by any one of its strings."""
    if isinstance(entry, list):
        return any(found(hay, _needle(option)) for option in entry)
    return found(hay, _needle(entry))


def _citations(result: Mapping[str, Any], key: str) -> list[str]:
    return [fold(c[key]) for c in result.get("citations") or () if isinstance(c.get(key), str)]


def _contains(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    return all(_option_found(hay, entry) for entry in value)


def _not_contains(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    return all(not found(hay, _needle(entry)) for entry in value)


def _lead(hay: str, value: Any, result: Mapping[str, Any]) -> bool:
    match = _FIRST_WORD.search(hay)  # hay is folded already
    return (match.group(0) if match else "") == _first_word_needle(str(value))


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


def _protected_tokens(text: str) -> list[str]:
    """SQuAD-normalised tokens, except that a '.' or ',' inside a number survives as a letter
    (so "1.5" does not become the token "15")."""
    marked = _NUMBER_SEPARATOR.sub(lambda m: "d" if m.group(1) == "." else "c", text)
    return normalise_answer(marked).split()


def answer_appears(expected: str, answer: str) -> bool:
    """Whether the normalised expected answer is a run of whole tokens of the answer."""
    want = _protected_tokens(expected)
    have = _protected_tokens(answer)
    if not want:
        return False
    width = len(want)
    return any(have[i : i + width] == want for i in _starts(have, want[0]))


def _starts(tokens: Sequence[str], first: str) -> Iterator[int]:
    return (i for i, token in enumerate(tokens) if token == first)
