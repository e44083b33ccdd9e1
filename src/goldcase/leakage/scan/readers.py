"""The records of one partition, as (offset, text) pairs in file order.

``offset`` is the record's first byte in the file (plain text, JSON Lines), in the
decompressed stream (gzip, zstd), or the row's 0-based index in the file's row group order
(Parquet, where bytes mean nothing). Readers stream: memory holds one record (one batch of
rows for Parquet), whatever the file's size.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import record_text
from goldcase.leakage.scan.parquet import rows
from goldcase.leakage.scan.partitions import Partition
from goldcase.leakage.scan.sources import BUFFER, open_binary
from goldcase.project import extra_hint
from goldcase.safeio import bounded_lines

Records = Iterator[tuple[int, str]]


def records(part: Partition) -> Records:
    if part.kind == "lines":
        return _byte_range(part)
    if part.kind == "parquet":
        return enumerate(rows(part.path, part.start, part.columns))
    return _stream(part)


def _byte_range(part: Partition) -> Records:
    with open_binary(part.path) as fh:
        offset = _align(fh, part.start)
        for raw in bounded_lines(fh, part.name, first=None if part.start else 1, offset=offset):
            if part.end is not None and offset >= part.end:
                break
            yield offset, record_text(raw, part.jsonl)
            offset += len(raw)


def _align(fh: BinaryIO, start: int) -> int:
    """Move to the first record that starts at or after ``start``; return its offset."""
    if start <= 0:
        return 0
    fh.seek(start - 1)
    while True:  # the rest of the record byte start - 1 belongs to: the previous range's
        rest = fh.readline(BUFFER)
        if not rest or rest.endswith(b"\n"):
            return fh.tell()


def _stream(part: Partition) -> Records:
    with open_binary(part.path) as raw:
        fh, errors = _decompress(part, raw)
        offset = 0
        try:
            for line in bounded_lines(fh, part.name):  # a stream is read from its start
                yield offset, record_text(line, part.jsonl)
                offset += len(line)
        except errors as exc:
            raise GoldcaseError(f"{part.name}: cannot decompress: {exc}") from None


def _decompress(part: Partition, raw: BinaryIO) -> tuple[Any, tuple[type[Exception], ...]]:
    """A buffered reader of the decompressed stream, and the errors a corrupt one raises."""
    if part.kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb"), (OSError, EOFError, zlib.error)
    try:
        import zstandard  # optional (goldcase[dask]): only .zst input needs it
    except ImportError:
        raise GoldcaseError(
            f"{part.name}: reading zstd needs zstandard: {extra_hint('dask')}"
        ) from None
    reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return io.BufferedReader(reader, BUFFER), (OSError, zstandard.ZstdError)
