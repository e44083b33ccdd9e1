"""Documents as the page shows them (goldcase.labelpage.documents): UTF-16 offsets, pieces for
the keyboard, a quote cut from offsets, a quote placed back in its document, the search."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldcase.corpus import Corpus, Document, load_corpus
from goldcase.errors import GoldcaseError
from goldcase.labelpage import documents
from goldcase.labelpage.documents import (
    MAX_QUOTE,
    Index,
    Offsets,
    cut,
    digest,
    locate,
    pieces,
    terms,
    view,
)
from kit import write
from labelpage.kit import DELIVERY, RETURNS, counted_offsets


def document(text: str, name: str = "d.md") -> Document:
    return Document(name, f"corpus/{name}", Path(name), text.encode("utf-8"))


def corpus(tmp_path: Path, files: dict[str, str]) -> Corpus:
    for name, text in files.items():
        write(tmp_path, f"corpus/{name}", text)
    return load_corpus(tmp_path / "corpus", tmp_path)


def js_length(text: str) -> int:
    """What ``text.length`` is in a browser: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def test_offsets_count_as_a_browser_does() -> None:
    text = "a😀b 😀 c"
    offsets = Offsets(text)
    assert offsets.length16 == js_length(text) == 9
    for index in range(len(text) + 1):
        assert offsets.to16(index) == js_length(text[:index])
        assert offsets.from16(offsets.to16(index)) == index


@pytest.mark.parametrize("offset", [2, 6])
def test_an_offset_inside_a_two_unit_character_is_refused(offset: int) -> None:
    with pytest.raises(GoldcaseError, match="cuts a character in two"):
        Offsets("a😀b 😀 c").from16(offset)


@pytest.mark.parametrize("offset", [-1, 10])
def test_an_offset_outside_the_text_is_refused(offset: int) -> None:
    with pytest.raises(GoldcaseError, match=r"offset -?\d+ is outside the document \(0 to 9\)"):
        Offsets("a😀b 😀 c").from16(offset)


def test_a_quote_after_an_emoji_is_cut_where_the_browser_selected() -> None:
    text = "Gifts 🎁 come wrapped for £3.\nCards never expire.\n"
    doc = document(text)
    start = js_length(text[: text.index("come")])
    end = js_length(text[: text.index("£3.") + 3])
    found = cut(doc, start, end)
    assert found.quote == "come wrapped for £3."
    assert (found.start, found.end) == (start, end)


def test_a_cut_trims_and_folds_white_space() -> None:
    doc = document("One.\n\n  Two words\nwrapped here.  \n\nThree.")
    found = cut(doc, 4, 34)
    assert found.quote == "Two words wrapped here."
    assert found.context["before"] == "One."
    assert found.context["after"] == "Three."


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        (3, 3, "the selection is empty"),
        (5, 7, "the selection is empty"),  # white space only
        ("1", 3, "a start and an end offset"),
        (True, 3, "a start and an end offset"),
        (None, 3, "a start and an end offset"),
    ],
)
def test_a_cut_needs_words(start: object, end: object, message: str) -> None:
    with pytest.raises(GoldcaseError, match=message):
        cut(document("One.  \n Two."), start, end)


def test_a_cut_is_at_most_a_passage() -> None:
    text = "word " * 1000
    with pytest.raises(GoldcaseError, match=f"a quote is at most {MAX_QUOTE:,}"):
        cut(document(text), 0, len(text))


def test_a_cut_never_splits_an_accented_letter() -> None:
    text = "Cafe\u0301 open daily."  # e and a combining accent: é in NFC
    with pytest.raises(GoldcaseError, match="splits an accented letter"):
        cut(document(text), 0, 4)
    assert cut(document(text), 0, 5).quote == "Cafe\u0301"


def test_a_cut_names_the_version_it_was_selected_in() -> None:
    doc = document("One. Two.")
    assert cut(doc, 0, 4, digest(doc)).quote == "One."
    with pytest.raises(GoldcaseError, match=r"d\.md changed since the page showed it"):
        cut(doc, 0, 4, "0" * 16)


def test_pieces_end_at_sentences_and_at_lines_of_their_own() -> None:
    text = "# Title\n\n1.1 First rule. Second\nline.\n| a | b |\n| c | d |\n- item\n"
    ends = pieces(text)
    shown = [text[a:b].strip() for a, b in zip([0, *ends], ends, strict=False)]
    assert shown == [
        "# Title",
        "1.1 First rule.",
        "Second\nline.",
        "| a | b |",
        "| c | d |",
        "- item",
    ]


def test_a_view_gives_utf16_piece_ends() -> None:
    shown = view(document("😀 One. Two."))
    assert shown["pieces"] == [js_length("😀 One."), js_length("😀 One. Two.")]
    assert shown["digest"] == digest(document("😀 One. Two."))


def test_locate_places_a_quote_written_in_a_file(tmp_path: Path) -> None:
    found = corpus(tmp_path, {"returns-policy.md": RETURNS})
    placed = locate(found, "returns-policy.md", "A customer has 14 days from delivery to request")
    assert placed["found"] is True
    assert RETURNS[placed["start"] : placed["end"]] == (
        "A customer has 14 days from delivery to request"
    )
    wrapped = locate(found, "returns-policy.md", "request a credit for a damaged delivery")
    assert (
        wrapped["found"] is True and wrapped["quote"] == "request a credit for a damaged delivery"
    )
    for doc, quote in [("returns-policy.md", "15 days"), ("nothing.md", "14 days")]:
        assert locate(found, doc, quote)["found"] is False


def test_search_finds_the_passage_with_the_rarest_words(tmp_path: Path) -> None:
    index = Index(corpus(tmp_path, {"returns-policy.md": RETURNS, "delivery.md": DELIVERY}))
    results = index.search("how long do I have to claim for a damaged delivery?")
    assert results[0]["doc"] == "returns-policy.md" and results[0]["line"] == 5
    assert results[0]["text"].startswith("A customer has 14 days")
    assert "damag" in results[0]["matched"]
    assert index.search("large items two person")[0]["doc"] == "delivery.md"


def test_search_finds_a_table_row_not_the_table(tmp_path: Path) -> None:
    table = "# Prices\n\n| Item | Price |\n|---|---|\n| Kettle | £20 |\n| Toaster | £30 |\n"
    [first, *_] = Index(corpus(tmp_path, {"prices.md": table})).search("toaster")
    assert first["text"] == "| Toaster | £30 |"


@pytest.mark.parametrize("query", ["", "the and of", "?!", 42, None])
def test_a_search_of_nothing_finds_nothing(tmp_path: Path, query: object) -> None:
    index = Index(corpus(tmp_path, {"returns-policy.md": RETURNS}))
    if isinstance(query, str):
        assert index.search(query) == []
    else:
        with pytest.raises(GoldcaseError, match="a search is a text"):
            index.search(query)


def test_terms_fold_case_words_and_stems() -> None:
    assert terms("Deliveries, DELIVERY and don't restocking £29!") == [
        "deliv",
        "deliv",
        "restock"[:5],
        "£",
        "29",
    ]


def test_a_search_counts_a_document_s_offsets_once_for_all_its_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of a search's twelve results counted its whole document's UTF-16 offsets again:
    4.7 s a search in a 4 MB document, under the page's one lock. Now once."""
    text = "".join(f"Paragraph {i} says returns take 30 days.\n\n" for i in range(100))
    index = Index(corpus(tmp_path, {"a.md": text}))
    built = counted_offsets(monkeypatch)
    results = index.search("returns days")
    assert len(results) == 12
    assert len(built) == 1, built


def test_many_quotes_in_one_document_read_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Placing each quote of an item counted the document's UTF-16 offsets twice and split it
    into sentences again: 200 quotes in a 240 kB document read it 600 times. Now once."""
    text = "A sentence. " * 20_000
    found = corpus(tmp_path, {"a.md": text})
    built: list[str] = []

    class CountingOffsets(documents.Offsets):
        def __init__(self, text: str) -> None:
            built.append("offsets")
            super().__init__(text)

    class CountingSentences(documents.Sentences):
        def __init__(self, text: str) -> None:
            built.append("sentences")
            super().__init__(text)

    monkeypatch.setattr(documents, "Offsets", CountingOffsets)
    monkeypatch.setattr(documents, "Sentences", CountingSentences)
    placed = [locate(found, "a.md", "A sentence. A sentence.") for _ in range(200)]
    assert all(p["found"] for p in placed)
    assert sorted(built) == ["offsets", "sentences"]
