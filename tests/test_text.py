"""The text foldings: quotes, answers, messages, and ``normalise_input``, the contract the
leakage hashes rest on, checked against a slow oracle written from the documented rules."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.text import clip, fold_quote, normalise_answer, normalise_input


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


def oracle(text: str) -> str:
    """The documented rules, one character at a time."""
    out = []
    for ch in unicodedata.normalize("NFKC", text).casefold():
        category = unicodedata.category(ch)
        invisible = 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF
        if ch in APOSTROPHES or category == "Cf" or invisible:
            continue
        if category[0] in "PS" or (category == "Cc" and not ch.isspace()):
            out.append(" ")
        else:
            out.append(ch)
    return " ".join(unicodedata.normalize("NFC", "".join(out)).split())


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
