"""The regular expressions a repository's config gives goldcase to search texts with
(``[run] abstain_patterns``), searched in time linear in the text.

Python's ``re`` backtracks: on a line of sixty letters ``\\w*\\w*\\w*\\w*\\w*\\w*\\w*\\w*!``
takes time polynomial in the line's length, ``(a|aa)+$`` exponential, and even ``\\w*x`` is
quadratic in a 64 MiB answer. A config is a stranger's input, so goldcase searches with RE2
(``google-re2``), whose automaton reads the text once, whatever the pattern. RE2 reads no
backreferences and no lookarounds: the config refuses them when it is read (``refusal``).

The matching is the one JavaScript's ``RegExp`` with the ``i`` flag does, the engine of the
exported promptfoo grader: case-insensitive; ``\\w``, ``\\d``, ``\\b`` ASCII; ``^`` and ``$``
at the very start and end of the text (``$`` does not match before a final line break, as
Python's does); a non-ASCII letter matches its other case (``é`` and ``É``, ``я`` and ``Я``).
Where they still differ is written in docs/run.md ("Abstentions given as text"): RE2 folds
case by Unicode's simple case folding, which also joins a few signs and letters JavaScript
keeps apart (the Kelvin sign with ``k`` and the long s ``ſ`` with ``s``, so ``\\w`` takes
those two; ``ẞ`` with ``ß``); ``.`` matches ``\\r``, U+2028 and U+2029 in RE2 and not in
JavaScript; ``\\s`` is ``[\\t\\n\\f\\r ]`` in RE2 and every Unicode space (``\\v``, the
no-break space…) in JavaScript.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

from goldcase.errors import GoldcaseError

# RE2 instructions of every pattern together (scripts/bench_patterns.py measures the cost). The
# time to search a text is linear in its length; at worst (RE2's automaton outgrows its cache
# and it walks the program instead: a pattern such as a[ab]{20}! on a text made to defeat it)
# it is also proportional to this size: about 2.5 s per MB of answer at this cap, 4 to 8 s at
# 1000. The defaults take 243, which leaves room for five or six phrases of the user's own
# (300, the first cap tried, refused the defaults and two ordinary phrases).
MAX_PROGRAM = 600

# The cache RE2's automaton may fill before it gives up for the program walk. Its default
# (8 MiB) let a pattern that defeats it rebuild it on every answer, twice the program walk's
# cost on answers of a few kilobytes; a small cache gives up at once, and a set of phrases
# (the defaults) still fits in it and is searched at its full speed.
_CACHE = 256 * 1024


def _options(cache: int | None = None) -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False  # a refused pattern is a message to the user, not a log line
    # only whether a pattern matches counts: groups are not kept, so they cost no instructions
    options.never_capture = True
    if cache is not None:
        options.max_mem = cache
    return options


_SIZING = _options()  # RE2's default memory: refuses only sets far over MAX_PROGRAM
_SEARCH = _options(_CACHE)


def alternation(patterns: Sequence[str]) -> str:
    """One expression that matches where any of ``patterns`` does."""
    return "|".join(f"(?:{pattern})" for pattern in patterns)


def refusal(patterns: Sequence[str]) -> str | None:
    """Why RE2 cannot read ``patterns`` (a backreference, a lookaround…), or None."""
    try:
        _compile(patterns)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        return reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
    return None


def program_size(patterns: Sequence[str]) -> int:
    """RE2's instructions for ``patterns`` together (RE2 reads them: ``refusal`` is None)."""
    return int(_compile(patterns).programsize)


def compiled(patterns: Sequence[str]) -> Any:
    """The RE2 expression of ``alternation(patterns)``; a ``GoldcaseError`` when RE2 cannot
    read it or it is over ``MAX_PROGRAM`` (the config refuses such patterns, so only a list
    that did not come from one meets it)."""
    reason = refusal(patterns)
    if reason is None and program_size(patterns) > MAX_PROGRAM:
        reason = f"over {MAX_PROGRAM} RE2 instructions"
    if reason is not None:
        raise GoldcaseError(f"cannot search with the patterns {list(patterns)!r}: {reason}")
    return _compile(patterns, _SEARCH)


def _compile(patterns: Sequence[str], options: Any = _SIZING) -> Any:
    return re2.compile(alternation(patterns).encode("utf-8", "surrogatepass"), options)


def found(expression: Any, text: str) -> bool:
    """True when ``expression`` (from ``compiled``) matches somewhere in ``text``."""
    # a lone surrogate (JSON may carry one) is no UTF-8: passed through as bytes that match
    # no letter, where strict encoding would raise
    return expression.search(text.encode("utf-8", "surrogatepass")) is not None
