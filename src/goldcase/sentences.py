"""Sentences of a document: the sentence around a span (SQuAD import) and the sentences
before and after a quote (review).

A sentence ends after ``.``, ``!`` or ``?`` (and any closing quotes or brackets) before white
space, or at a blank line. A single line break is not an end: documents wrap lines mid-sentence.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from functools import cached_property, lru_cache

from msgspec import Struct

from goldcase.text import fold_space

_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?=\s)|\n[ \t]*\n")
_SPACE = re.compile(r"\s+")
_BREAK = re.compile("\n")


class InContext(Struct, frozen=True):
    """A quote in its document: the sentence before, the text of the sentences holding the
    quote split around it, the sentence after (white space folded), and its line."""

    line: int
    before: str
    lead: str  # the start of the quote's first sentence, before the quote
    quote: str  # the quote as the document writes it
    tail: str  # the end of the quote's last sentence, after the quote
    after: str


class Sentences:
    """Sentence boundaries of one text (no sentence is blank)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ends: list[int] = []
        last = 0
        blank = 0  # text[last:blank] is white space: a blank lead is not read again at each end
        for match in _END.finditer(text):
            if text[max(last, blank) : match.end()].strip():
                self.ends.append(match.end())
                last = match.end()
            elif self.ends:
                self.ends[-1] = last = match.end()  # white space joins the sentence before
            else:
                blank = match.end()

    def bounds(self, start: int, end: int) -> tuple[int, int]:
        """Start and end of the sentences that the span touches."""
        before = bisect_right(self.ends, start)
        first = self.ends[before - 1] if before else 0
        after = bisect_left(self.ends, end)
        last = self.ends[after] if after < len(self.ends) else len(self.text)
        return first, last

    def around(self, start: int, end: int) -> str:
        """The sentence(s) holding the span, white space folded."""
        first, last = self.bounds(start, end)
        return fold_space(self.text[first:last])

    def context(self, start: int, end: int) -> InContext:
        """The quote at ``start:end`` in its sentences, in time independent of the text's
        length once the text's line breaks are known: a document holds many quotes."""
        first, last = self.bounds(start, end)
        at_first, at_last = self._mark_at(first), self._mark_at(last)
        prev_first = self._mark(at_first - 1) if at_first > 0 else first
        next_last = self._mark(at_last + 1) if at_last + 1 < len(self.ends) + 2 else last
        return InContext(
            line=bisect_left(self._breaks, start) + 1,
            before=fold_space(self.text[prev_first:first]),
            lead=fold_space(self.text[first:start]),
            quote=fold_space(self.text[start:end]),
            tail=fold_space(self.text[end:last]),
            after=fold_space(self.text[last:next_last]),
        )

    # The marks are 0, the ends, and the text's length: read in place, not copied per quote.
    def _mark_at(self, offset: int) -> int:
        """Where ``offset`` would go among the marks (``bisect_left``)."""
        return (offset > 0) + bisect_left(self.ends, offset) + (offset > len(self.text))

    def _mark(self, index: int) -> int:
        if index == 0:
            return 0
        return self.ends[index - 1] if index <= len(self.ends) else len(self.text)

    @cached_property
    def _breaks(self) -> array[int]:
        """The offset of each line break, found once for every quote's line."""
        return array("q", (m.start() for m in _BREAK.finditer(self.text)))


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text`` when runs of white space may differ (the quote folding
    without NFC, which a review display does not need): the first place, as a regular
    expression of the quote's words joined by ``\\s+`` would find it, in time linear in the
    text (such an expression takes the text's length times the quote's words). Placing many
    quotes in one text: ``Spaced(text).find``, the text read once; the last two texts given
    here are kept folded, for the next quote of the same document."""
    return _spaced(text).find(quote)


@lru_cache(maxsize=2)
def _spaced(text: str) -> Spaced:
    return Spaced(text)


class Spaced:
    """A text with each run of white space made one space, and the way back to the text's
    offsets: built in one pass, then each quote is a plain search and two look-ups, however
    many quotes one document holds."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = _SPACE.sub(" ", text)
        # each run longer than one character: the folded offset of its space, and how many
        # characters the runs up to it dropped (a one-character run drops none)
        kind = "i" if len(text) < 2**31 else "q"
        self._at, self._dropped = array(kind), array(kind)
        dropped = 0
        for run in _SPACE.finditer(text):
            if run.end() - run.start() > 1:
                self._at.append(run.start() - dropped)
                dropped += run.end() - run.start() - 1
                self._dropped.append(dropped)

    def find(self, quote: str) -> tuple[int, int] | None:
        """Where ``quote`` first stands in the text, as ``find_quote`` says."""
        words = quote.split()
        if not words:
            return None
        needle = " ".join(words)
        found = self.folded.find(needle)
        if found < 0:
            return None
        return self._unfolded(found), self._unfolded(found + len(needle) - 1) + 1

    def _unfolded(self, folded: int) -> int:
        """The offset in the text of the character at ``folded`` in the folded text (the
        character is not white space)."""
        runs = bisect_right(self._at, folded)
        return folded + (self._dropped[runs - 1] if runs else 0)
