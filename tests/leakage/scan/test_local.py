"""The local engine's memory does not grow with the input: the peak resident set of a scan of
a file sixteen times the partition size, in a fresh process, is that of a file under two
partitions, give or take a few MB, with one process and with two."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from leakage.kit import FILLER, LONG_Q

TESTS = Path(__file__).parents[2]  # the folder leakage.kit is imported from
PARTITION_MB = 1.0
_MEASURE = """
import resource, sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from leakage.kit import index
from goldcase.leakage.scan.run import ScanOptions, scan
report = scan(index(), [Path({path!r})], ScanOptions(partition_mb={mb}, workers={workers}))
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(len(report.hits), own, children)  # kB on Linux
"""


def _file(path: Path, megabytes: int) -> int:
    """At least ``megabytes`` MB of 200-word lines, the golden question once in every block
    of 1,000 lines; the number of blocks."""
    rng = random.Random(2)
    lines = [" ".join(rng.choice(FILLER) for _ in range(200)) for _ in range(999)]
    block = "\n".join([*lines, LONG_Q]) + "\n"
    blocks = 0
    with path.open("w", encoding="utf-8") as fh:
        while fh.tell() < megabytes * 1_000_000:
            fh.write(block)
            blocks += 1
    return blocks


# Linux carries a process's peak RSS over fork and exec: a child of this (large) test process
# would report the test process's peak. The scan runs as a grandchild, forked from a small
# launcher, so its figure is its own.
_LAUNCH = "import subprocess, sys; subprocess.run([sys.executable, '-c', sys.argv[1]], check=True)"


def _peak_kb(path: Path, workers: int) -> tuple[int, int, int]:
    """Hits, and the peak resident set in kB of the scanning process and of its largest
    worker process (0 with one worker: it scans in-process)."""
    code = _MEASURE.format(tests=str(TESTS), path=str(path), mb=PARTITION_MB, workers=workers)
    command = [sys.executable, "-c", _LAUNCH, code]
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    hits, own, children = proc.stdout.split()
    return int(hits), int(own), int(children)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kB on Linux")
@pytest.mark.parametrize("workers", [1, 2])
def test_peak_memory_does_not_grow_with_the_file(tmp_path: Path, workers: int) -> None:
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    small_blocks, large_blocks = _file(small, 2), _file(large, 32)
    assert large.stat().st_size > 16 * PARTITION_MB * 1_000_000
    small_hits, *small_peaks = _peak_kb(small, workers)
    large_hits, *large_peaks = _peak_kb(large, workers)
    # one hit a block: the scans read every line
    assert (small_hits, large_hits) == (small_blocks, large_blocks)
    print(f"peak RSS (parent, worker) kB: {small_peaks} on 2 MB, {large_peaks} on 32 MB")
    for small_peak, large_peak in zip(small_peaks, large_peaks, strict=True):
        assert large_peak - small_peak < 8_000  # kB, while the file grew by 30 MB
        # kB: about 41 MB once imported (numpy's 16 MB included); reading the 32 MB file
        # whole would pass 72 MB
        assert large_peak < 56_000
    assert (large_peaks[1] > 0) == (workers > 1)
