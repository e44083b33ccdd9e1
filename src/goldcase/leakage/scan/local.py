"""The local engine: the partitions scanned by a pool of worker processes on this machine.

Each worker receives the index once, when it starts, and then only partitions (a path and
a byte range or row group), so memory per worker is the index plus one record, whatever the
input's size. Processes are spawned, not forked: a fork of a process running threads (a
progress bar, a client) is unsafe.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence

from goldcase.leakage.contamination import GramIndex
from goldcase.leakage.scan.core import PartResult, scan_partition
from goldcase.leakage.scan.partitions import Partition

Done = Callable[[Partition], None]

_INDEX: GramIndex | None = None  # the index of this worker process, set when it starts


def default_workers() -> int:
    return os.cpu_count() or 1


def run_local(
    index: GramIndex, parts: Sequence[Partition], workers: int, done: Done | None = None
) -> list[PartResult]:
    """Every partition's result; in this process when one worker is enough."""
    if workers <= 1 or len(parts) <= 1:
        return [_step(index, part, done) for part in parts]
    spawn = multiprocessing.get_context("spawn")
    results: list[PartResult] = []
    by_key = {(p.file, p.part): p for p in parts}
    with spawn.Pool(min(workers, len(parts)), initializer=_start, initargs=(index,)) as pool:
        for result in pool.imap_unordered(_scan, parts, chunksize=1):
            results.append(result)
            if done is not None:
                done(by_key[result.file, result.part])
    return results


def _step(index: GramIndex, part: Partition, done: Done | None) -> PartResult:
    result = scan_partition(index, part)
    if done is not None:
        done(part)
    return result


def _start(index: GramIndex) -> None:
    global _INDEX
    _INDEX = index


def _scan(part: Partition) -> PartResult:
    assert _INDEX is not None, "worker started without an index"
    return scan_partition(_INDEX, part)
