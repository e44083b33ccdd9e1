from __future__ import annotations

import pytest

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
