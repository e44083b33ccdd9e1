"""goldcase.dialect: each placeholder's Python and JavaScript spellings name the same characters
(every code point of Python's Unicode database; the JavaScript side run in Node), escaped text
is literal in both engines, and a JavaScript literal carries no brace."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Callable

import pytest

from goldcase.dialect import (
    JAVASCRIPT,
    PYTHON,
    compiled,
    escape,
    javascript_literal,
    lazy,
    spell,
)
from kit import run_node

EVERYTHING = "".join(map(chr, range(sys.maxunicode + 1)))
# What Python's database assigns (no surrogates: a JSON string cannot carry them alone).
ASSIGNED = "".join(c for c in EVERYTHING if unicodedata.category(c) not in ("Cn", "Cs"))
CLASSES: dict[str, Callable[[str], bool]] = {
    "{W}": str.isalnum,
    "{w}": lambda c: c.isalnum() or c == "_",
    "{D}": str.isdecimal,
    "{s}": str.isspace,
}
LITERALS = ["a.b*c+(d)[e]{f}|g/h\\i^j$k?-l#m n&~'\"", "{W}", "\\{D}", "£5", "x{2}", "(?<!a)"]


@pytest.mark.parametrize("placeholder", CLASSES)
def test_the_python_spelling_is_the_predicate(placeholder: str) -> None:
    found = re.findall(spell(placeholder, PYTHON), EVERYTHING)
    assert found == [c for c in EVERYTHING if CLASSES[placeholder](c)]


def test_letters_and_digits_are_the_categories_l_and_n() -> None:
    # the JavaScript spelling of {W} names categories; Python's str.isalnum is the same set
    assert [c for c in EVERYTHING if c.isalnum()] == [
        c for c in EVERYTHING if unicodedata.category(c)[0] in "LN"
    ]
    assert [c for c in EVERYTHING if c.isdecimal()] == [
        c for c in EVERYTHING if unicodedata.category(c) == "Nd"
    ]


def test_the_javascript_spelling_names_the_same_characters() -> None:
    program = (
        "const [text, patterns] = INPUT;\n"
        "console.log(JSON.stringify(patterns.map((p) =>"
        " (text.match(new RegExp(p, 'gu')) || []).join(''))));"
    )
    spelled = [spell(placeholder, JAVASCRIPT) for placeholder in CLASSES]
    found = run_node(program, [ASSIGNED, spelled])
    assert found == ["".join(c for c in ASSIGNED if test(c)) for test in CLASSES.values()]


def test_escaped_text_is_literal_in_both_engines() -> None:
    for text in LITERALS:
        assert compiled(escape(text)).fullmatch(text), text
    program = (
        "console.log(JSON.stringify(INPUT.map(([pattern, text]) =>"
        " new RegExp('^(?:' + pattern + ')$', 'u').test(text))));"
    )
    items = [[spell(escape(text), JAVASCRIPT), text] for text in LITERALS]
    assert run_node(program, items) == [True] * len(LITERALS)


def test_a_placeholder_is_spelled_and_escaped_text_is_not() -> None:
    assert spell("{W}+", PYTHON) == r"[^\W_]+"
    assert spell(escape("{W}") + "{D}", JAVASCRIPT) == r"\{W\}\p{Nd}"


@pytest.mark.parametrize("value", [["a{{b}}", "{%x%}", "{#c#}"], "}{", [["ß", "ss"]], 7])
def test_a_javascript_literal_holds_no_brace_and_reads_back(value: object) -> None:
    literal = javascript_literal(value)
    assert "{" not in literal and "}" not in literal
    assert literal.isascii()
    assert json.loads(literal) == value
    assert run_node(f"console.log(JSON.stringify({literal}));", None) == value


def test_a_lazy_pattern_is_compiled_on_first_use_and_then_behaves_as_compiled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, int]] = []
    real = re.compile

    def counted(pattern: str, flags: int = 0) -> re.Pattern[str]:
        calls.append((pattern, flags))
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counted)
    pattern = lazy(r"(?P<n>\d+) days?", re.IGNORECASE)
    assert calls == []  # nothing compiled until it is used
    text = "Within 14 DAYS, or 30 days, or 1 day."
    want = real(r"(?P<n>\d+) days?", re.IGNORECASE)
    assert pattern.search(text)[0] == want.search(text)[0]  # type: ignore[index]
    assert [m["n"] for m in pattern.finditer(text)] == ["14", "30", "1"]
    assert pattern.sub("N", text) == want.sub("N", text)
    assert (pattern.pattern, pattern.flags) == (want.pattern, want.flags)
    assert set(calls) == {(r"(?P<n>\d+) days?", re.IGNORECASE)}
