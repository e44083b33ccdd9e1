"""Find normalised phrases (golden questions, n-grams) inside normalised text, on word
boundaries, with one Aho-Corasick pass (pyahocorasick) whatever the number of phrases."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import ahocorasick

from goldcase.text import normalise_input

V = TypeVar("V")


class PhraseIndex(Generic[V]):
    """Normalised phrases, each with the values it stands for. A phrase matches only whole
    words: the index stores `` phrase `` and searches `` text ``."""

    def __init__(self, phrases: Iterable[tuple[str, V]]) -> None:
        grouped: dict[str, list[V]] = {}
        for phrase, value in phrases:
            if phrase:
                grouped.setdefault(phrase, []).append(value)
        self._automaton = ahocorasick.Automaton()
        for phrase, values in grouped.items():
            self._automaton.add_word(f" {phrase} ", (len(phrase), tuple(values)))
        self.size = len(grouped)
        if self.size:
            self._automaton.make_automaton()

    def find(self, normalised: str) -> Iterator[tuple[int, int, tuple[V, ...]]]:
        """(start, end, values) of every phrase in ``normalised`` (offsets into it)."""
        if not self.size or not normalised:
            return
        for last, (length, values) in self._automaton.iter(f" {normalised} "):
            # ``last`` indexes the padded text; its closing space is at last, the phrase
            # ends one before, and the padding shifts everything by one.
            end = last - 1
            yield end - length, end, values


@dataclass(frozen=True, slots=True)
class NormalisedLines:
    """A file's lines normalised and joined by single spaces, so that a phrase wrapped over
    two lines is still found; ``line_of`` maps an offset back to a 1-based line."""

    text: str
    starts: Sequence[int]  # offset in ``text`` where each kept line begins
    numbers: Sequence[int]  # its 1-based line number

    @classmethod
    def of(cls, lines: Iterable[str]) -> NormalisedLines:
        parts: list[str] = []
        starts: list[int] = []
        numbers: list[int] = []
        offset = 0
        for number, line in enumerate(lines, start=1):
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
