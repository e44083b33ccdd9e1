"""The CPU of each check family on a cold `goldcase check` (called by scripts/bench.py, or run
alone).

Each round is a fresh process, as a cold check is: the repository's cache folder is deleted,
the set is loaded as `check` loads it (the parse, on a process per core from 2,000 files,
where the families' per-file work is done too: "parse workers" is their CPU together), then
each family runs in turn and its CPU (user + sys of this process, `time.process_time`) is
taken. Rounds are
medians and minimums over a few runs, so a busy machine shows less in the minimum.

    .venv/bin/python scripts/bench_families.py bench-data/check-10000 [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

_ROUND = """
import json, resource, shutil, sys, time
from pathlib import Path
from goldcase import checks
from goldcase.cache import location
from goldcase.commands.common import open_context
from goldcase.engine import load_case_set
repo = Path(sys.argv[1])
cache = location(repo)
if cache is not None:
    shutil.rmtree(cache, ignore_errors=True)
ctx = open_context(repo, cache=True)
started = time.process_time()
case_set = load_case_set(ctx, prepare=list(checks.FAMILIES))  # as run_checks loads it
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
spent = {
    "load (this process)": time.process_time() - started,
    "parse workers (all)": workers.ru_utime + workers.ru_stime,
}
for name in checks.FAMILIES:
    started = time.process_time()
    for _ in checks.family(name).check(case_set, ctx):
        pass
    spent[name] = time.process_time() - started
print(json.dumps(spent))
"""


def one_round(repo: Path) -> dict[str, float]:
    """The CPU seconds of each family (and of loading the set) in one cold process."""
    out = subprocess.run(
        [sys.executable, "-c", _ROUND, str(repo)], capture_output=True, text=True, check=True
    )
    spent: dict[str, float] = json.loads(out.stdout)
    return spent


def bench(repo: Path, rounds: int) -> list[tuple[str, float, str]]:
    samples: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, seconds in one_round(repo).items():
            samples.setdefault(name, []).append(seconds)
    rows = []
    for name, values in samples.items():
        low, middle = min(values), statistics.median(values)
        print(f"{name:20s} CPU {low:.3f} s min, {middle:.3f} s median ({rounds} cold runs)")
        rows.append((f"{name} CPU, cold (s, median)", middle, "(reported)"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    started = time.perf_counter()
    bench(args.repo.resolve(), args.rounds)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
