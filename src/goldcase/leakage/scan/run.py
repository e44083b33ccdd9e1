"""A contamination scan of the golden set: options in, one report out, whatever the engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from goldcase import progress
from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import GramIndex, Report
from goldcase.leakage.scan.core import PartResult, reduce
from goldcase.leakage.scan.local import Done, default_workers, run_local
from goldcase.leakage.scan.partitions import DEFAULT_PARTITION_MB, MB, Partition, plan

if TYPE_CHECKING:
    from goldcase.context import Context

ENGINES = ("local", "dask")


@dataclass(frozen=True)
class ScanOptions:
    engine: str = "local"
    scheduler: str | None = None  # dask: the scheduler's address; None starts a local cluster
    partition_mb: float = DEFAULT_PARTITION_MB
    workers: int = field(default_factory=default_workers)
    columns: tuple[str, ...] = ()  # Parquet: the text columns (default: every text column)


def scan(
    index: GramIndex, paths: Sequence[Path], options: ScanOptions, done: Done | None = None
) -> Report:
    """The report of ``paths`` against ``index``; ``done`` is told of each finished partition."""
    if options.engine not in ENGINES:
        raise GoldcaseError(f"unknown engine {options.engine!r}; expected local or dask")
    if options.scheduler is not None and options.engine != "dask":
        raise GoldcaseError("--scheduler needs --engine dask")
    if options.workers < 1:
        raise GoldcaseError(f"--workers must be at least 1, got {options.workers}")
    parts = plan(paths, max(1, round(options.partition_mb * MB)), options.columns)
    return reduce(index, paths, parts, _run(index, parts, options, done))


def _run(
    index: GramIndex, parts: list[Partition], options: ScanOptions, done: Done | None
) -> list[PartResult]:
    if options.engine == "dask":
        from goldcase.leakage.scan.dask_engine import run_dask

        return run_dask(index, parts, options.scheduler, options.workers, done)
    return run_local(index, parts, options.workers, done)


def scan_golden(
    ctx: Context, paths: Sequence[Path], ngram: int | None, options: ScanOptions
) -> Report:
    """The golden set of ``ctx`` against ``paths``, with a progress bar on a terminal."""
    from goldcase.engine import load_case_set

    index = GramIndex.build(load_case_set(ctx).golden, ngram or ctx.config.leakage.ngram)
    total = sum(p.stat().st_size for p in paths if p.is_file())
    with progress.task("scanning", total) as advance:
        return scan(index, paths, options, lambda part: advance(part.weight))
