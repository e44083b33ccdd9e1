"""Phrases found inside normalised text on word boundaries, with and without a vocabulary."""

from __future__ import annotations

import pytest

from goldcase.leakage.textmatch import PhraseIndex

PHRASES = [
    ("how long do i have", "q1"),
    ("return a sale item", "q2"),
    ("have to return", "q3"),
    ("sale", "q4"),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("how long do i have to return it", [(0, 18, ("q1",)), (14, 28, ("q3",))]),
        ("can i return a sale item today", [(6, 24, ("q2",)), (15, 19, ("q4",))]),
        ("wholesale items", []),  # never inside a word
        ("", []),
    ],
)
def test_phrases_are_found_on_word_boundaries(text: str, expected: list[object]) -> None:
    assert sorted(PhraseIndex(PHRASES).find(text)) == expected


@pytest.mark.parametrize(
    "text",
    ["how long do i have to return it", "can i return a sale item today", "a sale"],
)
def test_a_vocabulary_of_the_texts_words_finds_what_the_full_index_finds(text: str) -> None:
    index = PhraseIndex(PHRASES, vocabulary=set(text.split()))
    assert sorted(index.find(text)) == sorted(PhraseIndex(PHRASES).find(text))


def test_a_phrase_with_a_word_outside_the_vocabulary_is_left_out() -> None:
    index = PhraseIndex(PHRASES, vocabulary={"have", "to", "return", "sale"})
    assert index.size == 2  # "have to return" and "sale"
    assert list(index.find("how long do i have to return it")) == [(14, 28, ("q3",))]


@pytest.mark.parametrize("vocabulary", [None, {"sale", "a"}])
def test_a_phrase_of_white_space_alone_is_left_out(vocabulary: set[str] | None) -> None:
    """A phrase is words: one of none (a damaged cache's unit, say) matches nothing, is not
    counted, and does not stop the others being found."""
    index = PhraseIndex([(" ", "blank"), ("  \t ", "tabs"), ("sale", "q4")], vocabulary)
    assert index.size == 1
    assert list(index.find("a sale")) == [(2, 6, ("q4",))]
