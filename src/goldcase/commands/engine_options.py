"""The options that choose where ``goldcase contamination`` runs and what it reads: engine,
scheduler, partition size, workers, the Parquet columns read and the files a folder keeps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from goldcase.leakage.scan.local import default_workers
from goldcase.leakage.scan.partitions import DEFAULT_PARTITION_MB
from goldcase.leakage.scan.run import ENGINES, ScanOptions

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = (
    click.option(
        "--engine",
        type=click.Choice(ENGINES),
        default="local",
        show_default=True,
        help="local: processes on this machine; dask: a Dask cluster (goldcase[dask]).",
    ),
    click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a local cluster of --workers).",
    ),
    click.option(
        "--partition-size",
        "partition_mb",
        type=click.FloatRange(min=0, min_open=True),
        default=DEFAULT_PARTITION_MB,
        show_default=True,
        help="MB (10^6 bytes) of plain text or JSONL a partition reads.",
    ),
    click.option(
        "--workers",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes (default: one per core).",
    ),
    click.option(
        "--column",
        "columns",
        multiple=True,
        metavar="NAME",
        help="Parquet column to scan, repeatable (default: every text column).",
    ),
    click.option(
        "--include",
        multiple=True,
        metavar="GLOB",
        help="In a folder (or URL prefix), scan only files whose path below it matches, "
        "e.g. '*.jsonl.zst'; repeatable (default: every file).",
    ),
)


def engine_options(func: F) -> F:
    for option in reversed(_OPTIONS):
        func = option(func)
    return func


def scan_options(
    engine: str,
    scheduler: str | None,
    partition_mb: float,
    workers: int | None,
    columns: tuple[str, ...],
    include: tuple[str, ...],
) -> ScanOptions:
    return ScanOptions(
        engine, scheduler, partition_mb, workers or default_workers(), columns, include
    )
