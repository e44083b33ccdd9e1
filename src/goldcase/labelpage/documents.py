"""Corpus documents as the page shows them: the text, the places a keyboard can step through,
a search over passages, and a quote cut from the text by its offsets.

The browser counts offsets in UTF-16 code units (a JavaScript string); Python counts code
points. The two differ only after a character outside the Basic Multilingual Plane (an emoji),
and ``Offsets`` converts between them exactly, refusing an offset that falls between the two
halves of such a character. A quote is always the document's own text between two offsets,
its white space folded to single spaces (quotes match their document with white space folded,
docs/check.md), and is checked against the document before it is used: it is verbatim by
construction.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from bisect import bisect_left
from functools import cached_property
from typing import Any

from msgspec import Struct

from goldcase.corpus import Corpus, Document
from goldcase.errors import GoldcaseError
from goldcase.sentences import Sentences, Spaced
from goldcase.text import fold_quote, fold_space

MAX_SHOWN = 4 * 1024 * 1024  # characters of a document the page shows; a policy is far less
MAX_QUOTE = 2000  # characters: a quote is the passage that answers, not a section
MAX_QUERY = 500
RESULTS = 12
# A line starting like this begins a piece of its own for the keyboard, sentence or not: a
# heading, a table row, a list item, a numbered clause ("2.1 You can return ...").
_PIECE_START = re.compile(r"^[ \t]*(?:#|\||[-*+>] |\d+(?:\.\d+)*\.?[ \t])", re.MULTILINE)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|[£$€%]")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be by can do does for from have how i if in is it its me my of on "
        "or our so that the their there this to was we what when where which who why will "
        "with you your yours im ive dont cant get got anything something want need please "
        "thanks hi hello just still also would could",
    )
)


class Offsets:
    """Code-point offsets of one text to UTF-16 offsets and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        astral = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]
        self._astral = astral  # code-point offsets of the characters that take two units
        self._astral16 = [p + k for k, p in enumerate(astral)]  # and their UTF-16 offsets
        self.length16 = len(text) + len(astral)

    def to16(self, index: int) -> int:
        return index + bisect_left(self._astral, index)

    def from16(self, offset: int) -> int:
        if not 0 <= offset <= self.length16:
            raise GoldcaseError(
                f"offset {offset} is outside the document (0 to {self.length16}); "
                "select the passage again"
            )
        before = bisect_left(self._astral16, offset)
        if before and self._astral16[before - 1] + 1 == offset:
            raise GoldcaseError(
                "the selection cuts a character in two; select a little more or a little less"
            )
        return offset - before


class _Read:
    """What placing quotes in one document needs, built once for all of them: its UTF-16
    offsets, its white space folded, its sentences (each was rebuilt for every quote, so an
    item of many quotes in a large document took their number times its size)."""

    def __init__(self, text: str) -> None:
        self.offsets = Offsets(text)
        self.spaced = Spaced(text)
        self._text = text

    @cached_property
    def sentences(self) -> Sentences:
        return Sentences(self._text)


_READ: dict[int, tuple[Document, _Read]] = {}  # by id: the entry keeps its document alive
_READ_KEPT = 8
_READ_LOCK = threading.Lock()  # the server answers requests on threads


def _read(document: Document) -> _Read:
    with _READ_LOCK:
        entry = _READ.get(id(document))
        if entry is None or entry[0] is not document:
            while len(_READ) >= _READ_KEPT:
                _READ.pop(next(iter(_READ)))
            entry = _READ[id(document)] = (document, _Read(document.text))
        return entry[1]


def offsets_of(document: Document) -> Offsets:
    """The UTF-16 offsets of ``document``, built once for all the quotes placed in it."""
    return _read(document).offsets


def digest(document: Document) -> str:
    """Names the version of a document the page showed: a quote selected in one version is
    refused in another."""
    return hashlib.sha256(document.raw).hexdigest()[:16]


def shown(corpus: Corpus, name: Any) -> Document:
    """The corpus document called ``name`` (a basename from the corpus's own list: nothing
    the page sends becomes a path), if it can be shown."""
    document = corpus.documents.get(name) if isinstance(name, str) else None
    if document is None:
        raise GoldcaseError(f"no document {str(name)[:80]!r} in the corpus")
    if document.problem is not None:
        raise GoldcaseError(f"{document.rel} cannot be shown: {document.problem}")
    if len(document.raw) > MAX_SHOWN:
        raise GoldcaseError(
            f"{document.rel} is {len(document.raw):,} bytes, more than the page shows "
            f"({MAX_SHOWN:,}); quote it in the case file by hand"
        )
    return document


def pieces(text: str) -> list[int]:
    """Code-point offsets where the keyboard's pieces end: sentence ends, and the starts of
    headings, table rows, list items and numbered clauses (documents put these on lines of
    their own without a full stop)."""
    ends = set(Sentences(text).ends)
    for match in _PIECE_START.finditer(text):
        if match.start() > 0:
            ends.add(match.start())
    ends.add(len(text))
    out: list[int] = []
    for end in sorted(e for e in ends if e > 0):
        if out and not text[out[-1] : end].strip():
            out[-1] = end  # white space alone is no piece: it joins the one before
        elif out or text[:end].strip():  # white space at the top joins the first piece
            out.append(end)
    return out or [len(text)]


def view(document: Document) -> dict[str, Any]:
    """What the page needs to show a document: its text, its digest, and where its pieces
    end (UTF-16 offsets)."""
    text = document.text
    offsets = Offsets(text)
    return {
        "name": document.name,
        "rel": document.rel,
        "digest": digest(document),
        "text": text,
        "pieces": [offsets.to16(e) for e in pieces(text)],
    }


class Cut(Struct, frozen=True):
    """A quote cut from a document: its text (white space folded), where it stands (UTF-16
    offsets) and the sentences around it."""

    doc: str
    quote: str
    start: int
    end: int
    context: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "doc": self.doc,
            "quote": self.quote,
            "start": self.start,
            "end": self.end,
            "context": self.context,
            "found": True,
        }


def cut(document: Document, start16: Any, end16: Any, seen: Any = None) -> Cut:
    """The quote between two UTF-16 offsets of ``document`` (trimmed of white space at either
    end). ``seen``, the digest the page showed, must be the document's own."""
    if seen is not None and seen != digest(document):
        raise GoldcaseError(
            f"{document.name} changed since the page showed it; open it again and select "
            "the passage again"
        )
    if not (isinstance(start16, int) and isinstance(end16, int)) or isinstance(start16, bool):
        raise GoldcaseError("a quote needs a start and an end offset (whole numbers)")
    read = _read(document)
    offsets = read.offsets
    start, end = offsets.from16(start16), offsets.from16(end16)
    text = document.text
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start >= end:
        raise GoldcaseError("the selection is empty; select the words that answer the question")
    if end - start > MAX_QUOTE:
        raise GoldcaseError(
            f"the selection is {end - start:,} characters; a quote is at most {MAX_QUOTE:,}: "
            "select the sentence that answers the question"
        )
    quote = fold_space(text[start:end])
    if fold_quote(quote) not in document.folded:  # a cut inside a combining sequence
        raise GoldcaseError("the selection splits an accented letter; select whole words")
    context = read.sentences.context(start, end)
    return Cut(
        document.name,
        quote,
        offsets.to16(start),
        offsets.to16(end),
        {
            "line": context.line,
            "before": context.before,
            # the folding drops the space between the quote and its sentence; put it back
            "lead": context.lead + (" " if context.lead and text[start - 1].isspace() else ""),
            "tail": (" " if context.tail and text[end].isspace() else "") + context.tail,
            "after": context.after,
        },
    )


def locate(corpus: Corpus, doc: str, quote: str) -> dict[str, Any]:
    """A quote a file already holds, with its place in its document when it is there (a quote
    typed by hand may not be: then ``found`` is false and the checks say why)."""
    document = corpus.documents.get(doc)
    missing = {"doc": doc, "quote": quote, "start": None, "end": None, "context": None}
    if document is None or document.problem is not None or len(document.raw) > MAX_SHOWN:
        return missing | {"found": False}
    read = _read(document)
    span = read.spaced.find(quote)
    if span is None or fold_quote(quote) != fold_quote(document.text[span[0] : span[1]]):
        return missing | {"found": False}
    offsets = read.offsets
    try:
        found = cut(document, offsets.to16(span[0]), offsets.to16(span[1]))
    except GoldcaseError:  # longer than the page cuts: shown, not placed
        return missing | {"found": False}
    return found.as_dict() | {"quote": quote}


# -- search ---------------------------------------------------------------------------------


def terms(text: str) -> list[str]:
    """The words of a query or a passage, lower-cased, for matching: a word of five letters
    or more stands for its first five (delivery, deliveries; restock, restocking)."""
    out = []
    for word in _WORD.findall(text.lower()):
        word = word.replace("’", "'").replace("'", "")
        if word in _STOP:
            continue
        out.append(word[:5] if len(word) >= 5 and word.isalpha() else word)
    return out


class Passage(Struct, frozen=True):
    doc: str
    start: int  # code points
    end: int
    words: frozenset[str]
    heading: bool = False


class Index:
    """The corpus's passages (paragraphs; a table or a list row by row) and their words."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    @cached_property
    def passages(self) -> list[Passage]:
        out: list[Passage] = []
        for name in sorted(self.corpus.documents):
            document = self.corpus.documents[name]
            if document.problem is None and len(document.raw) <= MAX_SHOWN:
                out.extend(_passages(name, document.text))
        return out

    @cached_property
    def frequency(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for passage in self.passages:
            for word in passage.words:
                counts[word] = counts.get(word, 0) + 1
        return counts

    def search(self, query: Any) -> list[dict[str, Any]]:
        """The passages holding the most (and the rarest) of the query's words, best first."""
        if not isinstance(query, str):
            raise GoldcaseError("a search is a text")
        wanted = list(dict.fromkeys(terms(query[:MAX_QUERY])))[:20]
        if not wanted:
            return []
        total = len(self.passages)
        weight = {w: math.log(1 + total / self.frequency[w]) for w in wanted if w in self.frequency}
        scored = []
        for number, passage in enumerate(self.passages):
            score = sum(weight[w] for w in weight if w in passage.words)
            if passage.heading:
                score *= 0.9  # a heading and its paragraph match alike: the paragraph first
            if score > 0:
                scored.append((-score, number, passage))
        scored.sort(key=lambda item: item[:2])
        return [self._result(p, -s, weight) for s, _, p in scored[:RESULTS]]

    def _result(self, passage: Passage, score: float, weight: dict[str, float]) -> dict[str, Any]:
        document = self.corpus.documents[passage.doc]
        offsets = offsets_of(document)  # once a document, not once a result
        text = document.text[passage.start : passage.end]
        return {
            "doc": passage.doc,
            "start": offsets.to16(passage.start),
            "end": offsets.to16(passage.end),
            "line": document.text.count("\n", 0, passage.start) + 1,
            "text": fold_space(text),
            "matched": sorted(w for w in weight if w in passage.words),
            "score": round(score, 3),
        }


def _passages(name: str, text: str) -> list[Passage]:
    out = []
    start = 0
    for match in [*_PARAGRAPH.finditer(text), None]:
        end = len(text) if match is None else match.start()
        out.extend(_rows(name, text, start, end))
        start = len(text) if match is None else match.end()
    return out


def _rows(name: str, text: str, start: int, end: int) -> list[Passage]:
    """A paragraph as one passage; a table or a list (lines that each start a piece) row by
    row, so a search finds the row, not the whole table."""
    block = text[start:end]
    if not block.strip():
        return []
    lines = block.split("\n")
    if len(lines) > 1 and all(_PIECE_START.match(line) for line in lines if line.strip()):
        out, offset = [], start
        for line in lines:
            if line.strip():
                words = frozenset(terms(line))
                heading = line.lstrip().startswith("#")
                out.append(Passage(name, offset, offset + len(line), words, heading))
            offset += len(line) + 1
        return out
    heading = block.lstrip().startswith("#") and "\n" not in block.strip()
    return [Passage(name, start, end, frozenset(terms(block)), heading)]
