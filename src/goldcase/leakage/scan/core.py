"""Scan one partition; reduce the partitions' results into one report.

A partition cannot know the line number of its first record without reading everything
before it, so it numbers its records from 0 and returns how many it read; the reduce turns
those into file line numbers by adding the records of the file's earlier partitions. The
reduce sorts every hit, so the report depends on the input alone, not on the engine, the
partition size or the order in which workers finish.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from msgspec import Struct
from msgspec.structs import replace

from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import GramIndex, Hit, Report, merge, record_text, scan_record
from goldcase.leakage.contamination import _hits as record_hits
from goldcase.leakage.scan.partitions import Partition
from goldcase.leakage.scan.readers import BLOCK, records, text_blocks
from goldcase.leakage.scan.sources import Source, resolve
from goldcase.text import fold_ascii_lines, normalise_input

BULK_LIMIT = 4 * BLOCK  # bytes of a block searched in bulk; past it, line by line
Array = npt.NDArray[np.intp]


class PartResult(Struct, frozen=True):
    file: int
    part: int
    records: int  # records read
    rows: bool  # offsets count records (Parquet rows) from the partition's first one
    hits: tuple[Hit, ...]  # line: the record's 0-based index within the partition


def scan_partition(index: GramIndex, part: Partition) -> PartResult:
    """The hits of one partition's records, numbered within it (the task a worker runs).
    A file the worker cannot read (gone, not mounted there, no permission) is an error."""
    hits: list[Hit] = []
    try:
        if part.kind == "lines" and not part.jsonl:
            count = _scan_text(index, part, hits)
        else:
            count = _scan_records(index, part, hits)
    except OSError as exc:
        raise GoldcaseError(f"{part.name}: cannot read: {exc.strerror or exc}") from None
    return PartResult(part.file, part.part, count, part.kind == "parquet", tuple(hits))


def _scan_records(index: GramIndex, part: Partition, hits: list[Hit]) -> int:
    """One record at a time; how many were read."""
    count = 0
    for count, (offset, text) in enumerate(records(part), start=1):
        _scan_one(index, text, (part.name, count - 1, offset), hits)
    return count


def _scan_one(index: GramIndex, text: str, where: tuple[str, int, int], hits: list[Hit]) -> None:
    found = scan_record(index, text)
    if found:
        hits.extend(record_hits(index, found, text, where))


def _scan_text(index: GramIndex, part: Partition, hits: list[Hit]) -> int:
    """Plain text in blocks of lines: the block's lines folded and searched for lead n-grams
    in bulk (in C: a translate pass, a few numpy passes), and only the picked lines scanned
    as records by the rule every other record meets (``_scan_one``). The bulk search only
    picks lines; it decides nothing."""
    count = 0
    for offset, block in text_blocks(part):
        ends = np.flatnonzero(np.frombuffer(block, np.uint8) == ord("\n"))  # of its lines
        if block[-1:] != b"\n":
            ends = np.append(ends, len(block))
        for line in _picked(index, block, ends):
            start, raw = _line(block, ends, line)
            text = record_text(raw, False)  # its newline left off: white space
            _scan_one(index, text, (part.name, count + line, offset + start), hits)
        count += len(ends)
    return count


def _picked(index: GramIndex, block: bytes, ends: Array) -> list[int]:
    """The numbers of the block's lines that may hold a phrase, ascending. ASCII lines are
    folded at once (``fold_ascii_lines``); the others one at a time by ``normalise_input``
    (look-alikes, wide forms), then searched together. A block far larger than the reader's
    (a very long line) has every line picked: the bulk search's memory grows with the
    block, a record's scan with its line."""
    if len(block) > BULK_LIMIT:
        return list(range(len(ends)))
    picked = index.leads.lines(fold_ascii_lines(block))
    if not block.isascii():
        data = np.frombuffer(block, np.uint8)
        other = np.unique(np.searchsorted(ends, np.flatnonzero(data > 127))).tolist()
        folded = [normalise_input(record_text(_line(block, ends, k)[1], False)) for k in other]
        picked.update(other[k] for k in index.leads.lines("\n".join(folded).encode()))
    return sorted(picked)


def _line(block: bytes, ends: Array, line: int) -> tuple[int, bytes]:
    """Where the block's 0-based ``line`` starts, and its bytes (no newline)."""
    start = int(ends[line - 1]) + 1 if line else 0
    return start, block[start : int(ends[line])]


def reduce(
    index: GramIndex,
    inputs: Sequence[Path | str | Source],
    parts: Sequence[Partition],
    results: Iterable[PartResult],
) -> Report:
    """The report of a scan of ``inputs`` (files, folders, URLs or sources) from the results
    of all its ``parts``."""
    sources = resolve(inputs)
    ordered = sorted(results, key=lambda r: (r.file, r.part))
    if [(r.file, r.part) for r in ordered] != [(p.file, p.part) for p in parts]:
        raise GoldcaseError("the scan lost or repeated a partition; run it again")
    placed: list[list[Hit]] = []
    seen = 0
    for k, result in enumerate(ordered):
        if k == 0 or result.file != ordered[k - 1].file:
            seen = 0
        placed.append([_place(hit, seen, result.rows) for hit in result.hits])
        seen += result.records
    size = sum(source.size or 0 for source in sources)
    files = tuple(source.name for source in sources)
    return Report(index.n, len(index.case_ids), files, size, tuple(merge(placed)))


def _place(hit: Hit, before: int, rows: bool) -> Hit:
    offset = hit.offset + before if rows else hit.offset
    return replace(hit, line=before + hit.line + 1, offset=offset)
