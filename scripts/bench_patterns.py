#!/usr/bin/env python3
"""The worst time per MB of answer to search ``[run] abstain_patterns`` at a program size.

RE2 reads a text once, but when its automaton outgrows its cache (a pattern such as
``a[ab]{20}!`` on a text of ``a`` and ``b`` drawn at random) it walks the program instead, and
a byte then costs time in proportion to the program's size. For each size this builds the
patterns that cost most per instruction we know of (one ``a[ab]{k}!`` with ``k`` as large as
the size allows, two such patterns sharing it, and the first with a group), sized as goldcase
sizes them (``goldcase.patterns.program_size``; its cap is raised to the largest size asked
for), and times ``goldcase.scoring.abstain.abstains`` over
answers of several lengths, 2 MB of answers in all; the default patterns are timed on the same
answers for reference. Each figure is the median of three runs, in CPU seconds per MB of
answer (CPU time is steadier than wall-clock time on a shared machine; the search is one
thread, so on an idle machine the two agree).

    .venv/bin/python scripts/bench_patterns.py                  # sizes 1000, 300, 250
    .venv/bin/python scripts/bench_patterns.py --sizes 300 --total 4000000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from goldcase import patterns as goldcase_patterns
from goldcase.config import ABSTAIN_PATTERNS
from goldcase.patterns import program_size
from goldcase.scoring.abstain import abstains

LENGTHS = (1_000, 64_000, 1_000_000)
Family = Callable[[int], list[str]]
FAMILIES: dict[str, Family] = {
    "a[ab]{k}!": lambda k: [f"a[ab]{{{k}}}!"],
    "a[ab]{k}!, b[ab]{k}#": lambda k: [f"a[ab]{{{k}}}!", f"b[ab]{{{k}}}#"],
    "a([ab]){k}!": lambda k: [f"a([ab]){{{k}}}!"],  # a group once cost two instructions
}


def largest(family: Family, size: int) -> list[str]:
    """The family's patterns with the largest ``k`` (at most 1000) within ``size``."""
    low, high = 1, 1000
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if program_size(family(middle)) <= size else (low, middle - 1)
    return family(low)


def answers(length: int, total: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices("ab", k=length)) for _ in range(max(1, total // length))]


def seconds_per_mb(patterns: Sequence[str], texts: Sequence[str], runs: int = 3) -> float:
    abstains("", patterns)  # compile outside the timing
    times = []
    for _ in range(runs):
        start = time.process_time()
        for text in texts:
            abstains(text, patterns)
        times.append(time.process_time() - start)
    return statistics.median(times) / (sum(map(len, texts)) / 1e6)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 300, 250])
    parser.add_argument("--total", type=int, default=2_000_000, help="bytes of answers")
    args = parser.parse_args(argv)
    goldcase_patterns.MAX_PROGRAM = max(goldcase_patterns.MAX_PROGRAM, *args.sizes)
    texts = {length: answers(length, args.total) for length in LENGTHS}
    head = "".join(f"{f'{length:,} B answers':>20}" for length in LENGTHS)
    print(f"{'patterns':<34}{'instructions':>12}{head}")
    rows = [("defaults", list(ABSTAIN_PATTERNS))]
    for size in args.sizes:
        rows += [(f"{name} <= {size}", largest(f, size)) for name, f in FAMILIES.items()]
    for name, patterns in rows:
        cells = "".join(f"{seconds_per_mb(patterns, texts[n]):>16.2f} s/MB" for n in LENGTHS)
        print(f"{name:<34}{program_size(patterns):>12}{cells}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
