"""``goldcase run`` timings and memory (called by scripts/bench.py, or run alone).

- ``throughput``: 1,000 cases against a fake system that answers each request in 50 ms, with
  ``--jobs 16``: wall-clock time (budget 5 s; the ideal is 1,000 x 0.05 / 16 = 3.1 s).
- ``overhead``: goldcase's own time per case: the same command over N cases against a worker
  that answers at once, ``--jobs 1``, minus the same command when nothing is left to ask
  (start-up, loading the set, reading the file back), divided by N (budget 2 ms). The worker's
  own time (a JSON line in, one out) is inside the figure, so it is an upper bound.
- ``memory``: peak resident memory of ``goldcase run`` over 1,000 and 10,000 cases, beside
  that of ``goldcase check --select schema`` on the same sets (which loads the same cases and
  nothing else): what the run adds must not grow with the number of cases.

The sets are generated under bench-data/ (git-ignored) by ``bench.generate``; the fake system is
a worker script written beside them. Timings are medians of three runs.

    .venv/bin/python scripts/bench_run.py [--cases 1000]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import generate, print_table

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
Budget = tuple[str, float, str]

WORKER = """\
import json, sys, time
delay = float(sys.argv[1])
for line in sys.stdin:
    request = json.loads(line)
    if delay:
        time.sleep(delay)
    sys.stdout.write(json.dumps({"answer": "clause " + request["id"], "confidence": 0.5}) + "\\n")
    sys.stdout.flush()
"""


def _repo(cases: int) -> Path:
    sys.path.insert(0, str(ROOT / "scripts"))

    folder = ROOT / "bench-data" / f"run-{cases}"
    if (
        not (folder / "cases").is_dir()
        or len(list((folder / "cases" / "golden").iterdir())) != cases
    ):
        generate(folder, cases)
    (folder / "worker.py").write_text(WORKER, encoding="utf-8")
    return folder


def _command(repo: Path, delay: float) -> str:
    return shlex.join([sys.executable, str(repo / "worker.py"), str(delay)])


def _run(repo: Path, out: Path, delay: float, jobs: int, fresh: bool = True) -> float:
    if fresh:
        for path in (out, out.with_name(out.name + ".run.json")):
            path.unlink(missing_ok=True)
    args = [str(BIN / "goldcase"), "run", "--repo", str(repo), "--out", str(out),
            "--cmd", _command(repo, delay), "--jobs", str(jobs)]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(args, cwd=repo, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"goldcase run exited {done.returncode}:\n{done.stderr[-2000:]}")
    return seconds


def bench_throughput(cases: int = 1000) -> list[Budget]:
    repo = _repo(cases)
    out = repo / "run-50ms.jsonl"
    _run(repo, out, 0.05, 16)  # warm the case cache
    seconds = statistics.median(_run(repo, out, 0.05, 16) for _ in range(3))
    ideal = cases * 0.05 / 16
    print(f"goldcase run, {cases:,} cases, 50 ms each, --jobs 16: {seconds:.2f} s "
          f"(ideal {ideal:.2f} s; budget 5 s)")  # fmt: skip
    return [(f"run {cases:,} cases x 50 ms, --jobs 16 (s)", seconds, "< 5")]


def bench_overhead(cases: int = 2000) -> list[Budget]:
    repo = _repo(cases)
    out = repo / "run-instant.jsonl"
    _run(repo, out, 0.0, 1)  # warm the case cache
    full = statistics.median(_run(repo, out, 0.0, 1) for _ in range(3))
    nothing = statistics.median(_run(repo, out, 0.0, 1, fresh=False) for _ in range(3))
    per_case = (full - nothing) / cases * 1000
    print(f"goldcase run, {cases:,} cases, an instant worker, --jobs 1: {full:.2f} s; nothing "
          f"left to ask: {nothing:.2f} s; per case {per_case:.3f} ms (budget 2 ms)")  # fmt: skip
    return [("run overhead per case (ms)", per_case, "< 2")]


def _peak_mb(args: list[str], cwd: Path) -> float:
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return int(done.stdout.strip()) / 1024


def bench_memory(sizes: tuple[int, ...] = (1000, 10000)) -> list[Budget]:
    rows: list[Budget] = []
    for cases in sizes:
        repo = _repo(cases)
        out = repo / "run-memory.jsonl"
        _run(repo, out, 0.0, 4)  # warm the case cache
        for path in (out, out.with_name(out.name + ".run.json")):
            path.unlink(missing_ok=True)
        run = _peak_mb([str(BIN / "goldcase"), "run", "--out", str(out), "--jobs", "4",
                        "--cmd", _command(repo, 0.0)], repo)  # fmt: skip
        check = _peak_mb([str(BIN / "goldcase"), "check", "--select", "schema"], repo)
        print(f"{cases:,} cases: goldcase run peak {run:.0f} MB, goldcase check --select schema "
              f"{check:.0f} MB, the run adds {run - check:.0f} MB")  # fmt: skip
        rows.append(
            (f"run peak memory, {cases:,} cases (MB)", run, f"(reference: check {check:.0f})")
        )
    return rows


def bench() -> list[Budget]:
    return bench_throughput() + bench_overhead() + bench_memory()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()
    return print_table(bench_throughput(args.cases) + bench_overhead() + bench_memory())


if __name__ == "__main__":
    raise SystemExit(main())
