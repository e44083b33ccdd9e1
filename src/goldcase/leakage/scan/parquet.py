"""Parquet input (pyarrow, from the ``dask`` extra): the text columns of a file, its row
groups, and the rows of one row group as records. A record is one row: the values of the
chosen columns that are not null, joined by line breaks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.leakage.scan.sources import open_binary
from goldcase.project import extra_hint

BATCH_ROWS = 4096  # rows decoded at once: bounds memory whatever the row group's size


def _pyarrow() -> Any:
    try:
        import pyarrow.parquet as pq  # optional (goldcase[dask]): only Parquet input needs it
    except ImportError:
        raise GoldcaseError(f"reading Parquet needs pyarrow: {extra_hint('dask')}") from None
    return pq


def _is_text(kind: Any) -> bool:
    import pyarrow as pa  # optional (goldcase[dask]), loaded by _pyarrow already

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


@contextmanager
def _open(path: Path | str, shown: str) -> Iterator[Any]:
    """The Parquet file at a path or URL (a URL through fsspec), open for the block."""
    pq = _pyarrow()
    with open_binary(str(path)) as fh:
        try:
            parquet = pq.ParquetFile(fh)
        except (OSError, ValueError) as exc:
            raise GoldcaseError(f"{shown}: not a readable Parquet file ({exc})") from None
        yield parquet


def text_columns(
    path: Path | str, wanted: Sequence[str], shown: str | None = None
) -> tuple[str, ...]:
    """The columns read: those named (each must hold text), or every text column.
    ``shown``: how messages name the file (default: ``path``)."""
    label = shown if shown is not None else str(path)
    with _open(path, label) as parquet:
        schema = parquet.schema_arrow
    text = {f.name for f in schema if _is_text(f.type)}
    for name in wanted:
        if name not in schema.names:
            raise GoldcaseError(
                f"{label}: no column {name!r}; its columns are {', '.join(schema.names)}"
            )
        if name not in text:
            raise GoldcaseError(
                f"{label}: column {name!r} holds {schema.field(name).type}, not text"
            )
    chosen = tuple(wanted) if wanted else tuple(n for n in schema.names if n in text)
    if not chosen:
        raise GoldcaseError(f"{label}: no text column to scan; name one with --column")
    return chosen


def row_groups(path: Path | str, shown: str | None = None) -> list[int]:
    """The compressed size in bytes of each row group, in order."""
    with _open(path, shown if shown is not None else str(path)) as parquet:
        meta = parquet.metadata
    return [
        sum(meta.row_group(g).column(c).total_compressed_size for c in range(meta.num_columns))
        for g in range(meta.num_row_groups)
    ]


def rows(path: str, group: int, columns: Sequence[str]) -> Iterator[str]:
    """The text of each row of one row group, in order."""
    with _open(path, str(path)) as parquet:
        batches = parquet.iter_batches(
            batch_size=BATCH_ROWS, row_groups=[group], columns=list(columns)
        )
        try:
            for batch in batches:
                values = [batch.column(k).to_pylist() for k in range(batch.num_columns)]
                for row in zip(*values, strict=True):
                    yield "\n".join(v for v in row if v is not None)
        except (OSError, ValueError) as exc:
            raise GoldcaseError(f"{path}: cannot read row group {group}: {exc}") from None
