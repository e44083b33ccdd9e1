"""Regular expressions written once and spelled for two engines: Python's ``re`` and
JavaScript's ``RegExp`` with the ``u`` flag.

goldcase's text rules (whole-word needles, numbers as numbers, the first word of an answer, the
articles SQuAD removes) are regular expressions built here as templates. Python compiles the
Python spelling; the promptfoo export writes the JavaScript spelling of the very same
expression into its grader, so promptfoo applies the rule goldcase applies, not a copy of it.

A template names its character classes with these placeholders; every other character is
plain regular-expression syntax that both engines read alike (lookbehind, lookahead, groups,
escaped literals from ``escape``):

| placeholder | the class | Python ``re`` | JavaScript (``u``) |
|---|---|---|---|
| ``{W}`` | a letter or digit (``str.isalnum``: L, N) | ``[^\\W_]`` | ``[\\p{L}\\p{N}]`` |
| ``{w}`` | a letter, a digit or ``_`` | ``\\w`` | ``[\\p{L}\\p{N}_]`` |
| ``{D}`` | a decimal digit (``str.isdecimal``: category Nd) | ``\\d`` | ``\\p{Nd}`` |
| ``{s}`` | white space (``str.isspace``: what ``split()`` splits on) | ``\\s`` | the list |

The spellings name the same characters on every code point of the Unicode version Python's
``unicodedata`` has (a test runs through all of them). JavaScript reads the categories from its
own, usually newer, Unicode version: a character assigned since may be a letter there and
unassigned here.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, cast

from msgspec import Struct

# The characters str.isspace() accepts, for the engine that has no class for them.
_SPACE = (
    "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
)


class Dialect(Struct, frozen=True):
    name: str
    classes: dict[str, str]


PYTHON = Dialect("python", {"{W}": r"[^\W_]", "{w}": r"\w", "{D}": r"\d", "{s}": r"\s"})
JAVASCRIPT = Dialect(
    "javascript",
    {"{W}": r"[\p{L}\p{N}]", "{w}": r"[\p{L}\p{N}_]", "{D}": r"\p{Nd}", "{s}": f"[{_SPACE}]"},
)
_PLACEHOLDER = re.compile(r"\{[WwDs]\}")
# What both engines read as syntax outside a class; escaping anything else is an error in a
# JavaScript pattern with the u flag, and harmless in Python.
_SYNTAX = re.compile(r"[\\^$.*+?()\[\]{}|/]")


def escape(text: str) -> str:
    """``text`` as a literal inside a template, in both engines."""
    return _SYNTAX.sub(lambda m: "\\" + m.group(0), text)


def spell(template: str, dialect: Dialect) -> str:
    """The template in ``dialect``'s syntax. Escaped text never reads as a placeholder:
    ``escape`` turns a literal ``{W}`` into ``\\{W\\}``."""
    return _PLACEHOLDER.sub(lambda m: dialect.classes[m.group(0)], template)


@lru_cache(maxsize=1 << 14)
def compiled(template: str) -> re.Pattern[str]:
    """The template compiled for Python (cached: needles repeat across cases and trials)."""
    return re.compile(spell(template, PYTHON))


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used. A large pattern
    costs 1 to 9 million instructions to compile in a fresh process (a date or a street
    address with all its spellings), and a hook run on one case file uses few of the
    patterns its modules hold: for the one changed case of a commit, most of them are ruled
    out by a quick test first. Each method, once asked for, is the compiled pattern's own
    bound method (looked up like any attribute from then on)."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # reached once for each name
        value = getattr(re.compile(*self._source), name)
        self.__dict__[name] = value
        return value


def javascript_literal(value: object) -> str:
    """Strings, numbers and lists of them as a JavaScript literal (JSON, ASCII only), each
    brace written as an escape: every brace of a list's JSON is inside a string, so code that
    embeds the literal holds no ``{{``, ``{%`` or ``{#`` from data, which a template engine
    reading the code (promptfoo renders an assertion's value with Nunjucks) takes for a tag."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("{", "\\u007b").replace("}", "\\u007d")
