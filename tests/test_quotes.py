"""A quote not in its document: the closest passage and where they differ (goldcase.quotes),
in work bounded by the document's length whatever the quote."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz

from goldcase import quotes
from goldcase.corpus import Document
from goldcase.quotes import MAX_SEARCHED, closest_passage, not_found


def document(text: str) -> Document:
    return Document("d.md", "corpus/d.md", Path("d.md"), text.encode("utf-8"))


@pytest.fixture
def sizes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """The lengths of what each search and each comparison is given."""
    seen: list[tuple[str, int, int]] = []
    real = fuzz.partial_ratio_alignment

    def alignment(quote: str, text: str) -> Any:
        seen.append(("search", len(quote), len(text)))
        return real(quote, text)

    class Matcher(difflib.SequenceMatcher[str]):
        def __init__(self, junk: None, a: str, b: str, autojunk: bool) -> None:
            seen.append(("compare", len(a), len(b)))
            super().__init__(junk, a, b, autojunk)

    monkeypatch.setattr(fuzz, "partial_ratio_alignment", alignment)
    monkeypatch.setattr(quotes.difflib, "SequenceMatcher", Matcher)
    return seen


def test_a_word_changed_names_the_passage_and_the_difference() -> None:
    text = "Returns.\n\nA customer has 14 days from delivery\nto request a refund.\n"
    message = not_found(
        "d.md", "A customer has 14 days from delivery to request a credit", document(text)
    )
    assert message == (
        'quote not found verbatim in d.md; closest passage (line 3): "A customer has 14 days '
        'from delivery to request a refund." — differs at "credit" / "refund."'
    )


@pytest.mark.parametrize(
    ("text_length", "searched"),
    [(4096, MAX_SEARCHED), (2**20, 256), (4 * 2**20, 128), (16 * 2**20, 64)],
)
def test_a_long_quote_is_searched_with_its_start(
    sizes: list[tuple[str, int, int]], text_length: int, searched: int
) -> None:
    """A 100,000-character quote missing from a document of repeated letters: the search took
    the document's length times the square of the quote's (a 5,000-character quote in 20 kB
    of prose took 10 s; this one, days). Every search and comparison is bounded now."""
    text = ("x" * 99 + " ") * (text_length // 100)
    closest_passage("x" * 99_999 + "y", text)
    assert sizes[0] == ("search", searched, len(text))
    compared = [max(a, b) for kind, a, b in sizes if kind == "compare"]
    assert compared and max(compared) <= MAX_SEARCHED * 2


def test_a_difference_past_the_searched_start_is_still_named() -> None:
    words = [f"w{i}" for i in range(20_000)]
    text = " ".join(words)  # over 16 KiB: fewer than MAX_SEARCHED characters are searched
    quote = " ".join(words[100:300]) + " changed " + " ".join(words[301:400])
    message = not_found("d.md", quote, document(text))
    assert message.endswith('differs at "changed" / "w300"'), message


def test_a_document_without_white_space_is_not_shown_whole() -> None:
    passage, start = closest_passage("x" * 20 + "y", "x" * 1_000_000)
    assert start == 0 and len(passage) <= 21 + 2 * quotes.MAX_WIDENED
