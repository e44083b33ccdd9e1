"""Input files to partitions: the units of work an engine hands to its workers.

- Plain text and JSON Lines: byte ranges of about ``partition_size`` bytes. A partition owns
  the records (lines) that start inside its range, so ranges need not fall on line breaks.
- gzip (``.gz``) and zstd (``.zst``, ``.zstd``): one partition per file, since a compressed
  stream cannot be entered in the middle without decompressing what comes before.
- Parquet (``.parquet``, ``.pq``): one partition per row group.

Planning reads only file sizes and Parquet footers, never the data. Files, folders and URLs
are resolved to sources first (``goldcase.leakage.scan.sources``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from goldcase.errors import GoldcaseError
from goldcase.leakage.scan.parquet import row_groups, text_columns
from goldcase.leakage.scan.sources import Source, file_name, resolve

GZIP_SUFFIXES = (".gz",)
ZSTD_SUFFIXES = (".zst", ".zstd")
PARQUET_SUFFIXES = (".parquet", ".pq")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
DEFAULT_PARTITION_MB = 64.0
MB = 1_000_000


class Partition(Struct, frozen=True):
    file: int  # index of the file among the scanned paths
    part: int  # index of the partition within its file
    path: str  # where a worker reads the file (absolute)
    name: str  # how hits name the file (as given to the scan)
    kind: str  # "lines", "gzip", "zstd" or "parquet"
    jsonl: bool  # records are JSON lines (their string values are read)
    start: int = 0  # lines: first byte of the range; parquet: the row group
    end: int | None = None  # lines: one past the last byte of the range
    columns: tuple[str, ...] = ()  # parquet: the text columns read
    weight: int = 0  # bytes this partition stands for (progress only)


def kind_of(path: str) -> tuple[str, bool]:
    """(kind, jsonl) of a file from its name: ``train.jsonl.zst`` is zstd-compressed JSONL."""
    lower = path.lower()
    for kind, suffixes in (("gzip", GZIP_SUFFIXES), ("zstd", ZSTD_SUFFIXES)):
        for suffix in suffixes:
            if lower.endswith(suffix):
                return kind, lower[: -len(suffix)].endswith(JSONL_SUFFIXES)
    if lower.endswith(PARQUET_SUFFIXES):
        return "parquet", False
    return "lines", lower.endswith(JSONL_SUFFIXES)


def plan(
    inputs: Sequence[Path | str | Source],
    partition_size: int = int(DEFAULT_PARTITION_MB * MB),
    columns: Sequence[str] = (),
) -> list[Partition]:
    """Every partition of every file, in file order then partition order (``inputs``: files,
    folders or URLs, or sources already resolved)."""
    if partition_size < 1:
        raise GoldcaseError(f"partition size must be at least 1 byte, got {partition_size}")
    out: list[Partition] = []
    for number, source in enumerate(resolve(inputs)):
        out.extend(_plan_file(number, source, partition_size, columns))
    return out


def _plan_file(
    number: int, source: Source, partition_size: int, columns: Sequence[str]
) -> list[Partition]:
    kind, jsonl = kind_of(file_name(source.where))
    where, name, size = source.where, source.name, source.size
    if kind == "parquet":
        chosen = text_columns(where, columns, name)
        return [
            Partition(number, group, where, name, kind, False, group, None, chosen, weight)
            for group, weight in enumerate(row_groups(where, name))
        ]
    if kind != "lines" or size is None:  # a stream, or a size the server did not give
        return [Partition(number, 0, where, name, kind, jsonl, 0, None, (), size or 0)]
    starts = range(0, max(size, 1), partition_size)
    return [
        Partition(
            number,
            k,
            where,
            name,
            kind,
            jsonl,
            a,
            min(a + partition_size, size),
            (),
            min(partition_size, size - a),
        )
        for k, a in enumerate(starts)
    ]
