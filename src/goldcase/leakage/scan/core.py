"""Scan one partition; reduce the partitions' results into one report.

A partition cannot know the line number of its first record without reading everything
before it, so it numbers its records from 0 and returns how many it read; the reduce turns
those into file line numbers by adding the records of the file's earlier partitions. The
reduce sorts every hit, so the report depends on the input alone, not on the engine, the
partition size or the order in which workers finish.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import GramIndex, Hit, Report, merge, scan_record
from goldcase.leakage.contamination import _hits as record_hits
from goldcase.leakage.scan.partitions import Partition
from goldcase.leakage.scan.readers import records
from goldcase.leakage.scan.sources import Source, resolve


@dataclass(frozen=True, slots=True)
class PartResult:
    file: int
    part: int
    records: int  # records read
    rows: bool  # offsets count records (Parquet rows) from the partition's first one
    hits: tuple[Hit, ...]  # line: the record's 0-based index within the partition


def scan_partition(index: GramIndex, part: Partition) -> PartResult:
    """The hits of one partition's records, numbered within it (the task a worker runs).
    A file the worker cannot read (gone, not mounted there, no permission) is an error."""
    hits: list[Hit] = []
    count = 0
    try:
        for count, (offset, text) in enumerate(records(part), start=1):
            found = scan_record(index, text)
            if found:
                hits.extend(record_hits(index, found, text, (part.name, count - 1, offset)))
    except OSError as exc:
        raise GoldcaseError(f"{part.name}: cannot read: {exc.strerror or exc}") from None
    return PartResult(part.file, part.part, count, part.kind == "parquet", tuple(hits))


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
