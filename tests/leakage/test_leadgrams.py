"""The contamination scan's bulk prefilter: every line that holds a phrase is picked (a phrase
is never missed), a run of words across a line's end is no line's, and a hash collision only
picks a line more."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.leakage.leadgrams import LeadGrams, word_hashes
from goldcase.text import fold_ascii_lines, normalise_input

LONG = "can a customer who bought a damaged kettle last month still ask us"  # 13 words


def picked(phrases: list[str], text: str) -> list[int]:
    return sorted(LeadGrams(phrases).lines(fold_ascii_lines(text.encode())))


def test_a_line_holding_a_phrase_is_picked_whatever_its_case_and_punctuation() -> None:
    text = "nothing here\nForum: CAN a customer, who bought a damaged-kettle last month...\nno\n"
    assert picked([LONG], text) == [1]


def test_a_short_phrase_is_searched_whole() -> None:
    text = "do you take\ndo you take american express please\nyou take american express\n"
    assert picked(["do you take american express"], text) == [1]


def test_a_lead_across_a_line_end_is_no_lines() -> None:
    assert picked([LONG], "can a customer who\nbought a damaged kettle\n") == []
    assert picked(["do you take american express"], "do you take\namerican express") == []


def test_bytes_above_127_are_word_bytes() -> None:
    """Lines ``normalise_input`` folded (UTF-8): their words hash as the phrase's do."""
    text = "un café au lait noir\ncafe au lait noir\n"
    assert picked(["café au lait noir"], text) == [0]


def test_no_phrases_pick_nothing() -> None:
    assert picked([], "do you take american express\n") == []


def test_a_collision_picks_a_line_more() -> None:
    """Words of one length that end in the same eight bytes hash alike (documented): the
    line is picked, and the record scan then finds nothing in it."""
    assert word_hashes(b"abcdefghijkl")[0][0] == word_hashes(b"zzzzefghijkl")[0][0]
    assert word_hashes(b"abcdefghijkl")[0][0] != word_hashes(b"abcdefghijk")[0][0]
    phrase = "abcdefghijkl one two three four five"
    assert picked([phrase], "x\nzzzzefghijkl one two three four five\n") == [1]


def test_words_hash_as_they_would_anywhere_in_the_block() -> None:
    hashes, starts = word_hashes(b"a bb  a\nbb a")
    assert starts.tolist() == [0, 2, 6, 8, 11]
    assert hashes[0] == hashes[2] == hashes[4] != hashes[1] == hashes[3]


WORDS = ["a", "to", "the", "kettle", "customer", "delivered", "refundable", "notwithstanding"]
SEPARATORS = [" ", "  ", ", ", " - ", "'", "\t", " ... "]
Line = list[tuple[str, str]]


def _text(line: Line) -> str:
    return "".join(word + sep for word, sep in line)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=20),
        min_size=1,
        max_size=8,
    ),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=4, max_size=14), min_size=1, max_size=4),
    st.data(),
)
def test_every_line_holding_a_phrase_is_picked(
    lines: list[Line], phrases: list[list[str]], data: st.DataObject
) -> None:
    # Most examples hold a phrase: plant one, as whole words, in one line.
    target = data.draw(st.integers(0, len(lines) - 1))
    lines[target] = [*lines[target], ("", " "), *((w, " ") for w in phrases[0])]
    texts = [_text(line) for line in lines]
    folded = [normalise_input(p) for p in map(" ".join, phrases)]
    holding = {
        k
        for k, text in enumerate(texts)
        if any(f" {p} " in f" {normalise_input(text)} " for p in folded)
    }
    assert target in holding
    assert holding <= LeadGrams(folded).lines(fold_ascii_lines("\n".join(texts).encode()))
