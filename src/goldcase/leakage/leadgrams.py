"""Which lines of a block of folded text may hold a phrase: the contamination scan's bulk
prefilter, a few numpy passes over the whole block (loops in C) in place of a search per
line or per character.

A phrase (a normalised golden n-gram or short question) is registered by its lead: its
first ``LEAD`` words, or all of it when shorter. A line that holds the phrase holds its lead
as consecutive words, so a line is picked when one of its runs of consecutive words hashes
like a registered lead. Hashes stand in for words, so two different words may collide: a
collision picks a line that holds no phrase, never misses one. The prefilter only picks
lines; the scan then searches each picked line by the one record rule, which decides. Text
made to collide on every line costs what a record-by-record scan costs, no more.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

LEAD = 6  # words a phrase is registered by (6: few chance matches in ordinary text)
SPACE = 32  # after folding, the only bytes at or below it are the space and the newline
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd constants: multiplication spreads the bits
_STEP = np.uint64(0xC2B2AE3D27D4EB4F)
_FILL = 6  # the table has 2**6 slots a lead: few runs of words look up the exact set
_MOST_BITS = 26  # a 64 MB table at most (a million leads); past it, more exact look-ups
Array = npt.NDArray[np.uint64]


def word_hashes(folded: bytes) -> tuple[Array, npt.NDArray[np.intp]]:
    """A hash of each word of ``folded`` (its runs of bytes above the space) and where each
    word starts. The hash is of the word's length and its last eight bytes (at most): words
    that share both collide, which only picks a line more."""
    word = np.zeros(len(folded) + 2, np.bool_)  # one byte that is not a word's each side
    np.greater(np.frombuffer(folded, np.uint8), SPACE, out=word[1:-1])
    bounds = np.flatnonzero(word[1:] != word[:-1])  # a word's first byte, the byte after it
    starts, ends = bounds[0::2], bounds[1::2]
    # At q, the eight bytes before offset q of the text, as one little-endian integer
    # (unaligned reads; zeros before the text's start).
    tails = np.ndarray((len(folded) + 1,), "<u8", buffer=bytes(8) + folded, strides=(1,))[ends]
    length = (ends - starts).view(np.uint64)
    outside = (8 - np.minimum(length, 8)) << 3  # bits of the bytes before the word
    return (tails >> outside) * _MIX + length, starts


def gram_hashes(hashes: Array, k: int) -> Array:
    """The hash of each run of ``k`` consecutive words, from the words' hashes."""
    count = len(hashes) - k + 1
    if count <= 0:
        return np.zeros(0, np.uint64)
    grams = hashes[:count].copy()
    for j in range(1, k):
        grams *= _STEP
        grams += hashes[j : count + j]
    return grams


class LeadGrams:
    """The leads of a set of normalised phrases (words split by single spaces), searchable
    in bulk. Pickles (numpy arrays), so it travels with the index to workers."""

    def __init__(self, phrases: Iterable[str]) -> None:
        leads: dict[int, set[int]] = {}  # lead length -> lead hashes
        for phrase in phrases:
            hashes, _ = word_hashes(phrase.encode("utf-8"))
            k = min(len(hashes), LEAD)
            if k:
                leads.setdefault(k, set()).add(int(gram_hashes(hashes[:k], k)[0]))
        every = sorted({h for found in leads.values() for h in found})
        bits = min(max(16, len(every).bit_length() + _FILL), _MOST_BITS)
        self._shift = np.uint64(64 - bits)
        self._table = np.zeros(1 << bits, np.bool_)
        self._exact: Array = np.array(every, np.uint64)
        self._table[self._exact >> self._shift] = True
        self._lengths = tuple(sorted(leads))

    def lines(self, folded: bytes) -> set[int]:
        """The 0-based numbers of the lines of ``folded`` (lines that ``normalise_input``
        folded, or ``text.fold_ascii_lines``) where some run of consecutive words hashes
        like a lead. A run that crosses a line's end is no line's."""
        if not self._lengths:
            return set()
        breaks = np.flatnonzero(np.frombuffer(folded, np.uint8) == ord("\n"))
        hashes, starts = word_hashes(folded)
        found: set[int] = set()
        for k in self._lengths:
            grams = gram_hashes(hashes, k)
            at = np.flatnonzero(self._table[grams >> self._shift])
            at = at[self._holds(grams[at])]
            first = np.searchsorted(breaks, starts[at])
            last = np.searchsorted(breaks, starts[at + k - 1])
            found.update(first[first == last].tolist())
        return found

    def _holds(self, grams: Array) -> npt.NDArray[np.bool_]:
        """Which of ``grams`` are leads."""
        slot = np.minimum(np.searchsorted(self._exact, grams), len(self._exact) - 1)
        return np.asarray(self._exact[slot] == grams)
