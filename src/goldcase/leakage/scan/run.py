"""A contamination scan of the golden set: options in, one report out, whatever the engine."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

from goldcase import progress
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import GramIndex, Report
from goldcase.leakage.scan.core import PartResult, reduce
from goldcase.leakage.scan.dask_engine import run_dask
from goldcase.leakage.scan.local import Done, default_workers, run_local
from goldcase.leakage.scan.partitions import DEFAULT_PARTITION_MB, MB, Partition, plan
from goldcase.leakage.scan.sources import Source, resolve

if TYPE_CHECKING:
    from goldcase.context import Context

ENGINES = ("local", "dask")


class ScanOptions(Struct, frozen=True):
    engine: str = "local"
    scheduler: str | None = None  # dask: the scheduler's address; None starts a local cluster
    partition_mb: float = DEFAULT_PARTITION_MB
    workers: int = field(default_factory=default_workers)
    columns: tuple[str, ...] = ()  # Parquet: the text columns (default: every text column)
    include: tuple[str, ...] = ()  # folders: globs a file's path below them must match


def scan(
    index: GramIndex,
    inputs: Sequence[Path | str | Source],
    options: ScanOptions,
    done: Done | None = None,
) -> Report:
    """The report of ``inputs`` (files, folders, URLs) against ``index``; ``done`` is told of
    each finished partition."""
    if options.engine not in ENGINES:
        raise GoldcaseError(f"unknown engine {options.engine!r}; expected local or dask")
    if options.scheduler is not None and options.engine != "dask":
        raise GoldcaseError("--scheduler needs --engine dask")
    if options.workers < 1:
        raise GoldcaseError(f"--workers must be at least 1, got {options.workers}")
    sources = resolve(inputs, options.include)
    parts = plan(sources, max(1, round(options.partition_mb * MB)), options.columns)
    return reduce(index, sources, parts, _run(index, parts, options, done))


def _run(
    index: GramIndex, parts: list[Partition], options: ScanOptions, done: Done | None
) -> list[PartResult]:
    if options.engine == "dask":
        return run_dask(index, parts, options.scheduler, options.workers, done)
    return run_local(index, parts, options.workers, done)


def scan_golden(
    ctx: Context, inputs: Sequence[Path | str], ngram: int | None, options: ScanOptions
) -> Report:
    """The golden set of ``ctx`` against ``inputs``, with a progress bar on a terminal."""
    index = GramIndex.build(load_case_set(ctx).golden, ngram or ctx.config.leakage.ngram)
    sources = resolve(inputs, options.include)
    with progress.task("scanning", sum(s.size or 0 for s in sources)) as advance:
        return scan(index, sources, options, lambda part: advance(part.weight))
