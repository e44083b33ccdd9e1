"""The text foldings: quotes, answers, messages, and ``normalise_input``, the contract the
leakage hashes rest on, checked against a slow oracle written from the documented rules."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.text import clip, fold_ascii_lines, fold_quote, normalise_answer, normalise_input


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("A  customer\n has\t14\u00a0days", "A customer has 14 days"),
        ("  edge  ", "edge"),
        ("Cafe\u0301", "Caf\u00e9"),  # NFC composes
        ("customer’s", "customer’s"),  # curly apostrophe is kept
        ("Return", "Return"),  # case is kept
        ("3–5", "3–5"),  # en dash is kept
    ],
)
def test_fold_quote_folds_only_nfc_and_white_space(raw: str, folded: str) -> None:
    assert fold_quote(raw) == folded


@pytest.mark.parametrize(
    "variant",
    [
        "How long do I have to return a sale item?",
        "how long do i have to return a sale item",
        "HOW LONG DO I HAVE TO RETURN A SALE ITEM!!",
        "how  long do i\thave to return a sale\nitem ?",
        "ｈｏｗ long do i have to return a sale item",  # full-width letters (NFKC)
        "how long do i have to return a sale item…",
    ],
)
def test_normalise_input_catches_variants(variant: str) -> None:
    assert normalise_input(variant) == "how long do i have to return a sale item"


def test_normalise_input_drops_apostrophes_and_splits_on_other_punctuation() -> None:
    assert normalise_input("What’s the 14-day rule?") == "whats the 14 day rule"
    assert normalise_input("STRASSE") == normalise_input("straße")  # case-folded


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [("The 14 days.", "14 days"), ("£4.95", "495"), ("an Apple, a day", "apple day")],
)
def test_normalise_answer_is_squad_style(raw: str, normalised: str) -> None:
    assert normalise_answer(raw) == normalised


def test_clip() -> None:
    assert clip("x" * 100) == "x" * 79 + "…"
    assert clip("a\nb") == "a b"


# -- normalise_input against its oracle ----------------------------------------------------------

APOSTROPHES = "'\u2019\u02bc\u2018`´"


# Default_Ignorable_Code_Point, as DerivedCoreProperties-15.0.0.txt lists it.
IGNORABLE = "00AD 034F 061C 115F..1160 17B4..17B5 180B..180F 200B..200F 202A..202E 2060..206F "
IGNORABLE += "3164 FE00..FE0F FEFF FFA0 FFF0..FFF8 1BCA0..1BCA3 1D173..1D17A E0000..E0FFF"
FILLERS = {0x115F, 0x1160, 0x3164, 0xFFA0}  # Hangul fillers: blanks as wide as a letter


def ignorable(code: int) -> bool:
    for item in IGNORABLE.split():
        lo, _, hi = item.partition("..")
        if int(lo, 16) <= code <= int(hi or lo, 16):
            return True
    return False


def prototypes() -> dict[str, str]:
    path = Path(__file__).parent.parent / "src" / "goldcase" / "confusables.txt"
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            source, target = line.split(";")
            out[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return out


PROTOTYPES = prototypes()


def twin(ch: str, category: str, prototype: str) -> str:
    """ASCII stays as it is, so a look-alike of I, 1, 0 or m maps to that character."""
    if prototype == "l" and ch != ch.lower():
        return "I"
    if category == "Nd" and prototype in ("l", "O"):
        return {"l": "1", "O": "0"}[prototype]
    return "m" if prototype == "rn" else prototype


def mapped(ch: str, category: str) -> bool:
    """Punctuation or a symbol takes its prototype only when that is ASCII letters or digits."""
    prototype = PROTOTYPES[ch]
    return category[0] not in "PS" or (prototype.isascii() and prototype.isalnum())


def one_pass(text: str) -> str:
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        code, category = ord(ch), unicodedata.category(ch)
        if code in FILLERS:
            out.append(" ")
        elif ch in APOSTROPHES or ignorable(code) or category == "Cf":
            continue
        elif code > 0x7F and PROTOTYPES.get(ch, ch) != ch and mapped(ch, category):
            out.append(one_pass(twin(ch, category, PROTOTYPES[ch])))
        elif category[0] in "PS" or (category == "Cc" and not ch.isspace()):
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def oracle(text: str) -> str:
    """The documented rules, one character at a time: NFKD, each character dropped, blanked
    or mapped to its confusable prototype, case-folded, again until nothing changes, NFC."""
    folded = text
    for _ in range(4):
        again = one_pass(folded).casefold()
        if again == folded:
            break
        folded = again
    return " ".join(unicodedata.normalize("NFC", folded).split())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("soft\u00adhyphen", "softhyphen"),  # soft hyphen: invisible, inside a word
        ("zero\u200bwidth space", "zerowidth space"),
        ("join\u200der", "joiner"),
        ("\ufeffbom first", "bom first"),
        ("emoji\ufe0f here", "emoji here"),
        ("nul\x00byte", "nul byte"),
        ("I'm `quoted`", "im quoted"),
        ("ﬁnal ＡＢＣ", "final abc"),
        ("line\u2028sep\u0085next", "line sep next"),
        ("cafe\u00ad\u0301", "caf\u00e9"),  # the accent composes once the soft hyphen is gone
        ("0\u02b90", "00"),  # a modifier prime looks like an apostrophe: dropped like one
        ("I\u2032m", "i m"),  # a prime is punctuation, whose look-alike no letter is: a space
    ],
)
def test_invisible_and_control_characters(raw: str, expected: str) -> None:
    assert normalise_input(raw) == expected


def test_a_copy_with_invisible_characters_hashes_like_the_original() -> None:
    original = "How many days do I have to request a credit?"
    pasted = "How many da\u00adys do I\u00a0have to re\u200bquest a credit\u200d?"
    assert normalise_input(pasted) == normalise_input(original)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_matches_the_documented_rules(text: str) -> None:
    assert normalise_input(text) == oracle(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_fast_path_matches_the_rules(text: str) -> None:
    assert normalise_input(text) == oracle(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_idempotent(text: str) -> None:
    once = normalise_input(text)
    assert normalise_input(once) == once


@settings(max_examples=500)
@given(
    st.text(st.sampled_from("aAzZ1 .,'`-_\t\x0b\x0c\r\x1c\x1f\x00\x7f\n"), max_size=40)
    | st.text(st.characters(max_codepoint=127), max_size=80)
)
def test_fold_ascii_lines_folds_each_line_as_normalise_input_does(text: str) -> None:
    folded = fold_ascii_lines(text.encode("ascii"))
    assert set(folded) <= {*range(33, 128), ord(" "), ord("\n")}  # words split at space only
    assert [line.decode().split() for line in folded.split(b"\n")] == [
        normalise_input(line).split() for line in text.split("\n")
    ]


def test_fold_ascii_lines_leaves_bytes_above_127_as_they_are() -> None:
    raw = "Ça\u00a0COÛTE\u0085 'X'\n".encode()
    assert fold_ascii_lines(raw) == "Ça\u00a0coÛte\u0085 x\n".encode()
