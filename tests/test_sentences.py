"""Sentences of a document and a quote found in it whatever its white space
(goldcase.sentences), in time linear in the document."""

from __future__ import annotations

import pytest

from goldcase.sentences import Sentences, find_quote
from kit import CountingText


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("One. Two? Three!", [4, 9]),
        ("A line\nwrapped. Next.", [15]),
        ("First.\n\nSecond", [8]),
        ("\n\n\n\nAfter blank lines. Then.", [22]),
        ("First.   \n\n\n\n  Second.", [13]),
        ('He said "stop." Then left.', [15]),
    ],
)
def test_sentence_ends(text: str, ends: list[int]) -> None:
    assert Sentences(text).ends == ends


def test_a_document_opening_with_blank_lines_is_read_once() -> None:
    """A document of blank lines before its first sentence had that white space read again
    at every blank line: here five thousand million characters, for a megabyte, half a
    million million."""
    text = CountingText("\n" * 100_000 + "The first sentence. The second.")
    CountingText.copied = 0
    assert Sentences(text).ends == [100_019]
    assert CountingText.copied <= 2 * len(text)


@pytest.mark.parametrize(
    ("text", "quote", "span"),
    [
        ("We refund within\n  14 days of delivery.", "within 14 days", (10, 26)),
        ("We refund within 14 days.", "within\n14\tdays", (10, 24)),
        ("a refund; the refund is sent", "refund", (2, 8)),
        ("   leading white space", "leading white", (3, 16)),
        ("words run together", "ords run toge", (1, 14)),
        ("within 14 days", "within 15 days", None),
        ("within14 days", "within 14", None),
        ("anything", "  ", None),
        ("non\u00a0breaking\u2003spaces", "non breaking spaces", (0, 19)),
    ],
)
def test_find_quote(text: str, quote: str, span: tuple[int, int] | None) -> None:
    assert find_quote(text, quote) == span


def test_a_long_quote_in_a_long_repetitive_document_is_found_in_linear_time() -> None:
    """A quote of 50,000 words that every position of a 500,000-word document starts to match
    took the document's words times the quote's (minutes) as a regular expression."""
    text = "a " * 500_000 + "b"
    quote = "a " * 50_000 + "b"
    assert find_quote(text, quote) == (900_000, 1_000_001)


def test_a_document_is_folded_once_for_all_its_quotes() -> None:
    """A review, a label page and the trace spans of score quote one document many times:
    its white space is folded once, not once a quote (a megabyte took 50 ms a quote)."""
    from goldcase import sentences

    doc = "Refunds are paid\n\n  within fourteen days.   Exchanges take\tseven days. " * 200
    sentences._spaced.cache_clear()
    quotes = ["within fourteen days.", "Exchanges take seven", "paid within", "not there"]
    found = [sentences.find_quote(doc, q) for q in quotes * 25]
    assert sentences._spaced.cache_info().misses == 1
    assert found[0] == (doc.index("within"), doc.index("days.") + len("days."))
    assert found[1] == (doc.index("Exchanges"), doc.index("seven") + len("seven"))
    assert found[3] is None
