"""goldcase.patterns: the config's regular expressions are searched in time linear in the text
(RE2), matching as JavaScript's ``RegExp`` with the ``i`` flag does, apart from the differences
docs/run.md lists; a pattern set RE2 cannot read, or too large, is an error."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

import pytest
import re2

from goldcase.errors import GoldcaseError
from goldcase.patterns import MAX_PROGRAM, compiled, found, program_size, refusal
from goldcase.scoring.abstain import abstains, javascript_regexp
from kit import run_node

POLYNOMIAL = "\\w*" * 12 + "!"  # in Python's re: 60 letters took over a minute


@pytest.mark.parametrize(
    ("pattern", "unit", "count"),
    [
        (POLYNOMIAL, "a", 60),
        (POLYNOMIAL, "a", 2_000_000),
        ("\\w*x", "a", 2_000_000),  # quadratic in Python's re
        ("(?:a|b)*c", "ab", 1_000_000),
    ],
)
def test_a_search_reads_the_text_once_whatever_the_pattern(
    pattern: str, unit: str, count: int
) -> None:
    """Run in a child process under a timeout far above what a linear search needs: a hang
    (as in a backtracking engine) is the failure, not a slow machine."""
    program = (
        "import sys\n"
        "from goldcase.scoring.abstain import abstains\n"
        "print(abstains(sys.argv[2] * int(sys.argv[3]), [sys.argv[1]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, pattern, unit, str(count)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "False\n"), done.stderr[-2000:]


@pytest.mark.parametrize(
    ("text", "pattern", "matches"),
    [
        ("I DON'T KNOW", "i don't know", True),
        ("ÉTÉ", "été", True),  # a letter outside ASCII matches its other case, as in JavaScript
        ("НЕ ЗНАЮ", "не знаю", True),
        ("é", "\\w", False),  # \w, \d and \b are ASCII
        ("١", "\\d", False),
        ("éa", "\\ba", True),  # é is no word character: a word starts at a
        ("I don't know\n", "know$", False),  # $ is the end of the text, not before a last \n
        ("I don't know", "know$", True),
        ("well\nI don't know", "^i don't", False),  # ^ is the start of the text only
        ("\u212a", "k", True),  # documented: Unicode folds the Kelvin sign, JavaScript does not
        ("\u017f", "s", True),  # and the long s
        ("\u212a", "\\w", True),  # so \w takes them too
        ("\u212a", "\\W", False),
    ],
)
def test_matching_is_case_insensitive_with_ascii_classes(
    text: str, pattern: str, matches: bool
) -> None:
    assert abstains(text, [pattern]) is matches


def test_a_lone_surrogate_in_an_answer_is_read_not_raised() -> None:
    assert abstains("I don't know \ud800", ["know"])
    assert not abstains("\ud800", ["\\w"])


@pytest.mark.parametrize("pattern", ["(?=a)", "(?<!a)b", "(a)\\1", "\\u2019", "a{1001}", "(?>a)"])
def test_what_re2_cannot_read_is_a_refusal(pattern: str) -> None:
    assert refusal([pattern]) is not None
    with pytest.raises(GoldcaseError, match="cannot search with the patterns"):
        compiled([pattern])


def test_a_pattern_set_over_the_program_size_is_an_error() -> None:
    patterns = ["[a-z]{100}", "\\w{100}"]
    assert refusal(patterns) is None
    assert program_size(patterns) > MAX_PROGRAM
    with pytest.raises(GoldcaseError, match=f"over {MAX_PROGRAM} RE2 instructions"):
        compiled(patterns)


def test_the_default_patterns_leave_room_under_the_program_size() -> None:
    from goldcase.config import ABSTAIN_PATTERNS

    assert program_size([*ABSTAIN_PATTERNS, "^no idea", "n/a"]) <= MAX_PROGRAM
    assert found(compiled(ABSTAIN_PATTERNS), "Sorry, I don’t know.")


@pytest.mark.parametrize(
    ("grouped", "plain"),
    [
        ("(a)(b)", "ab"),
        ("(no|not) (idea|sure)", "(?:no|not) (?:idea|sure)"),
        ("a([ab]){50}!", "a[ab]{50}!"),
    ],
)
def test_a_group_costs_no_instruction(grouped: str, plain: str) -> None:
    """Only whether a pattern matches counts: a group is read as a non-capturing one, and the
    search keeps no submatch (which cost two instructions a group and, at worst, twice the
    time a byte)."""
    assert program_size([grouped]) == program_size([plain])
    assert found(compiled([grouped]), "no idea") is found(compiled([plain]), "no idea")


def _cased() -> list[str]:
    """Every character of the Basic Multilingual Plane that has another case, and those
    cases (JavaScript without the ``u`` flag compares UTF-16 units)."""
    out: set[str] = set()
    for code in range(0x10000):
        char = chr(code)
        if unicodedata.category(char) == "Cs":
            continue
        for other in (char.lower(), char.upper(), char.casefold(), char.title()):
            if other != char:
                out.add(char)
                out.update(other if len(other) == 1 else "")
    return sorted(out)


# RE2 folds case by Unicode's simple case folding; JavaScript's ``i`` compares upper cases and
# keeps a character apart from an ASCII letter, and from one whose upper case is more than one
# character. These characters are joined to another only by RE2 (docs/run.md).
UNICODE_ONLY = set(
    "\u212aKk"  # the Kelvin sign, k
    "\u017fSs"  # the long s, s
    "\u212b\u00c5\u00e5"  # the Angstrom sign, å
    "\u2126\u03a9\u03c9"  # the Ohm sign, ω
    "\u1e9e\u00df"  # ẞ, ß
    "\u03f4\u0398\u03b8\u03d1"  # ϴ, θ, ϑ
    "\u0390\u03b0"  # ΐ and ΰ with tonos, as with oxia (in Greek Extended)
    "\ufb05\ufb06"  # the ligatures ſt and st
)
GREEK_EXTENDED = range(0x1F80, 0x2000)  # capitals with prosgegrammeni, small with ypogegrammeni

JS_FOLDS = """\
const escape = (s) => s.replace(/[.*+?^${}()|[\\]\\\\\\/-]/g, '\\\\$&');
console.log(JSON.stringify(INPUT.map((a) => {
  const r = new RegExp(escape(a), 'i');
  return INPUT.filter((b) => b !== a && r.test(b));
})));
"""


def test_case_folding_is_javascripts_apart_from_the_documented_characters() -> None:
    cased = _cased()
    theirs = dict(zip(cased, run_node(JS_FOLDS, cased), strict=True))
    text = "\n".join(cased).encode()
    differ: set[str] = set()
    for char in cased:
        expression = compiled([re2.escape(char)])
        ours = {m.group().decode() for m in expression.finditer(text)} - {char}
        assert set(theirs[char]) <= ours, char  # JavaScript never folds where goldcase does not
        for other in ours - set(theirs[char]):
            differ.update((char, other))
    assert {c for c in differ if ord(c) not in GREEK_EXTENDED} == UNICODE_ONLY


def test_the_javascript_grader_agrees_on_letters_outside_ascii() -> None:
    patterns = ["été", "не знаю", "\\bno\\b", "know$", "^\\W*i don’t"]
    texts = ["ÉTÉ", "Été", "НЕ ЗНАЮ", "nо", "no", "ñno", "I know\n", "I KNOW", "¡I DON’T", "é"]
    program = (
        f"const abstain = {javascript_regexp(patterns)};\n"
        "console.log(JSON.stringify(INPUT.map((t) => abstain.test(t))));"
    )
    assert run_node(program, texts) == [abstains(t, patterns) for t in texts]
