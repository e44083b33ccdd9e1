"""A quote that is not in its document: the closest passage, its line, and where they differ.

The support check (GC202) and ``goldcase new`` word the miss alike, from these functions.
"""

from __future__ import annotations

import difflib
import re
from math import isqrt

from goldcase.corpus import Document
from goldcase.text import clip

_WORD = re.compile(r"\S+")


def not_found(doc: str, folded: str, document: Document) -> str:
    """Why the folded quote is not in ``document`` (named ``doc``): the closest passage, its
    line, and the first word where the two differ."""
    head = f"quote not found verbatim in {doc}"
    passage, start = closest_passage(folded, document.folded)
    if not passage:
        return f"{head}; no passage of it comes close"
    line = document.line_of(start)
    mine, theirs = first_difference(folded[:MAX_SEARCHED], passage)
    return (
        f'{head}; closest passage (line {line}): "{clip(passage)}" — differs at '
        f'"{clip(mine, 30)}" / "{clip(theirs, 30)}"'
    )


# The search for the closest passage takes up to the document's length times the square of
# the quote's (a quote of 800 "x" in a megabyte of "x": 19 s). It is made with the quote's
# first MAX_SEARCHED characters (the labelling page's longest quote), fewer in a document of
# over 16 KiB: 256 in 1 MiB, 64 from 16 MiB on; a few seconds at worst.
MAX_SEARCHED = 2000
_MIN_SEARCHED = 64
_BUDGET = 2**36  # searched characters squared times the document's
MAX_WIDENED = 64  # characters added at each end to finish the passage's first and last words


def searched(quote: str, text: str) -> str:
    """The start of ``quote`` that the closest passage in ``text`` is looked for with."""
    most = max(_MIN_SEARCHED, min(MAX_SEARCHED, isqrt(_BUDGET // max(1, len(text)))))
    return quote[:most]


def closest_passage(quote: str, text: str) -> tuple[str, int]:
    """The stretch of ``text`` most like ``quote`` (its start, as ``searched`` cuts it, then
    as long as the quote's first ``MAX_SEARCHED`` characters), widened to whole words, and its
    offset."""
    from rapidfuzz import fuzz  # 25 ms to import: only a check that found a missing quote pays

    head = searched(quote, text)
    if not head or not text:
        return "", 0
    alignment = fuzz.partial_ratio_alignment(head, text)
    if alignment is None or alignment.score < 40:
        return "", 0
    start, end = _trim(head, text, alignment.dest_start, alignment.dest_end)
    if len(head) < len(quote):  # the rest of the quote is compared where its head stands
        end = max(end, min(len(text), start + len(quote[:MAX_SEARCHED])))
    first, last = max(0, start - MAX_WIDENED), min(len(text), end + MAX_WIDENED)
    while start > first and not text[start - 1].isspace():
        start -= 1
    while end < last and not text[end].isspace():
        end += 1
    return text[start:end], start


def _trim(quote: str, text: str, start: int, end: int) -> tuple[int, int]:
    """Settle the aligned window on the stretch that matches the quote: look a little beyond
    it on both sides, then run from the first to the last block the two share."""
    margin = max(12, len(quote) // 3)
    low, high = max(0, start - margin), min(len(text), end + margin)
    matcher = difflib.SequenceMatcher(None, quote, text[low:high], autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= 4]
    if not blocks:
        return start, end
    first, last = blocks[0], blocks[-1]
    new_start = low + max(0, first.b - first.a)
    new_end = low + last.b + last.size + (len(quote) - last.a - last.size)
    return new_start, min(high, new_end)


def first_difference(quote: str, passage: str) -> tuple[str, str]:
    """The word of each side at the first place the two differ ("" where one side ends)."""
    matcher = difflib.SequenceMatcher(None, quote, passage, autojunk=False)
    for tag, i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return _word_at(quote, i1), _word_at(passage, j1)
    return "", ""


def _word_at(text: str, offset: int) -> str:
    for match in _WORD.finditer(text):
        if match.start() <= offset < match.end() or match.start() >= offset:
            return match.group()
    return "(end)"
