"""Find normalised phrases (golden questions, n-grams) inside normalised text, on word
boundaries, with one Aho-Corasick pass (pyahocorasick) whatever the number of phrases."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import ahocorasick
from msgspec import Struct

from goldcase.text import normalise_input

V = TypeVar("V")


class PhraseIndex(Generic[V]):
    """Normalised phrases, each with the values it stands for. A phrase matches only whole
    words: the index stores `` phrase `` and searches `` text ``.

    With ``vocabulary`` (every word of the texts to be searched), a phrase with a word outside
    it is left out: it cannot be found in those texts, and building the automaton is most of
    the cost when many phrases are searched for in a little text (golden questions and quotes
    in a few prompt files)."""

    def __init__(
        self,
        phrases: Iterable[tuple[str, V]],
        vocabulary: set[str] | frozenset[str] | None = None,
    ) -> None:
        grouped: dict[str, list[V]] = {}
        for phrase, value in phrases:
            if phrase and (vocabulary is None or vocabulary.issuperset(phrase.split())):
                grouped.setdefault(phrase, []).append(value)
        self._automaton = ahocorasick.Automaton()
        self._anchors: dict[str, set[str]] = {}
        self.size = 0
        for phrase, values in grouped.items():
            pair = anchors(phrase)
            if pair is None:  # white space alone: no word to match, none to anchor by
                continue
            self._automaton.add_word(f" {phrase} ", (len(phrase), tuple(values)))
            self._anchors.setdefault(pair[0], set()).add(pair[1])
            self.size += 1
        self._firsts = frozenset(self._anchors)  # a set: intersecting it walks the smaller side
        if self.size:
            self._automaton.make_automaton()

    def _may_hold(self, normalised: str) -> bool:
        """False when no phrase can be in the text: every phrase holds both its anchor
        words, and one set operation finds the text's words that are first anchors."""
        words = set(normalised.split())
        return any(not self._anchors[first].isdisjoint(words) for first in words & self._firsts)

    def find(
        self, normalised: str, *, screen: bool = True
    ) -> Iterator[tuple[int, int, tuple[V, ...]]]:
        """(start, end, values) of every phrase in ``normalised`` (offsets into it). With
        ``screen``, a text none of whose words anchors a phrase is passed over without
        walking the automaton: worth it for many short texts, not for one long one."""
        if not self.size or not normalised or (screen and not self._may_hold(normalised)):
            return
        for last, (length, values) in self._automaton.iter(f" {normalised} "):
            # ``last`` indexes the padded text; its closing space is at last, the phrase
            # ends one before, and the padding shifts everything by one.
            end = last - 1
            yield end - length, end, values


def anchors(phrase: str) -> tuple[str, str] | None:
    """The two words of ``phrase`` least likely to occur in ordinary text: the longest (long
    words are rare ones), ties broken alphabetically; a one-word phrase is its own pair, and
    one of no word (white space) has none. A text that lacks either cannot hold the phrase,
    which lets a scan skip most lines."""
    words = sorted(set(phrase.split()), key=lambda w: (-len(w), w))
    if not words:
        return None
    return words[0], words[1] if len(words) > 1 else words[0]


class NormalisedLines(Struct, frozen=True):
    """A file's lines normalised and joined by single spaces, so that a phrase wrapped over
    two lines is still found; ``line_of`` maps an offset back to a 1-based line."""

    text: str
    starts: Sequence[int]  # offset in ``text`` where each kept line begins
    numbers: Sequence[int]  # its 1-based line number

    @classmethod
    def of(cls, lines: Iterable[str]) -> NormalisedLines:
        return cls.of_numbered(enumerate(lines, start=1))

    @classmethod
    def of_numbered(cls, lines: Iterable[tuple[int, str]]) -> NormalisedLines:
        """From (line number, text) pairs: a data file's lines, then its decoded values."""
        parts: list[str] = []
        starts: list[int] = []
        numbers: list[int] = []
        offset = 0
        for number, line in lines:
            folded = normalise_input(line)
            if not folded:
                continue
            starts.append(offset)
            numbers.append(number)
            parts.append(folded)
            offset += len(folded) + 1
        return cls(" ".join(parts), starts, numbers)

    def line_of(self, offset: int) -> int:
        return self.numbers[bisect_right(self.starts, offset) - 1] if self.numbers else 1


def string_values(value: Any) -> Iterator[str]:
    """Every string value of a parsed JSON value (not the keys), at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif isinstance(item, list):
            stack.extend(reversed(item))
