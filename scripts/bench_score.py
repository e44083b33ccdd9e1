#!/usr/bin/env python3
"""Benchmark for `goldcase score` (budget in docs/benchmarks.md: 100,000 results under 2 s).

    python scripts/bench_score.py            # 100,000 results: 10,000 cases x 10 trials
    python scripts/bench_score.py --cases 100000 --trials 1

`bench_score(tmpdir)` builds a golden set of free-text cases (contains / any-of / not_contains /
lead / cites checks, a quarter unanswerable) and a results file of `cases x trials` lines with
answers, citations, confidences, abstentions and errors, warms goldcase's case cache with one
run, then times the `goldcase score` command (text output, as a user runs it) end to end:
process start, loading the set, validating every line, grading and rendering. The number is
the median wall-clock time of five runs, each followed by a run of the floor (what any scorer
of these files must do), so the two are measured in the same minutes.

The complete JSON report (`--format json --out`: every case listed with why it failed, the
digest of the list, 29 MB written twice on 100,000 cases) is timed for reference: the budget
is for the report a person reads, as the floor is for reading the inputs alone.
"""

from __future__ import annotations

import argparse
import compileall
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import print_table  # the verdicts, as scripts/bench.py prints them

BIN = Path(sys.executable).parent
BUDGET = 2.0
# CPU time (user + system, both processes when grading is shared with a child) is shown for
# reference: it is steadier than wall-clock time on a busy machine, but the budget is time.
CPU_NOTE = "reference: all processes' CPU"
Budget = tuple[str, float, str]  # (name, seconds, limit description)


def _case(i: int) -> tuple[str, str]:
    case_id = f"c-{i:06d}"
    slice_ = ("returns", "delivery", "billing", "warranty", "accounts", "out-of-scope")[i % 6]
    if i % 4 == 0:
        return case_id, (
            f"id: {case_id}\nquestion: who runs the depot number {i}\nanswerable: false\n"
            f"slice: {slice_}\n"
        )
    days = 10 + i % 50
    return case_id, (
        f"id: {case_id}\nquestion: how many days for request {i}\nexpected_answer: {days} days\n"
        "support:\n  - doc: policy.md\n    quote: Requests are answered within days\n"
        f'expect:\n  contains: ["{days}", ["days", "day"]]\n  not_contains: ["500"]\n'
        f'  cites: "§ {i % 9}"\nslice: {slice_}\n'
    )


def _result(rng: random.Random, case_id: str, i: int, trial: int | None) -> dict[str, object]:
    line: dict[str, object] = {"id": case_id}
    if trial is not None:
        line["trial"] = trial
    roll = rng.random()
    if roll < 0.7:
        days = 10 + i % 50 if rng.random() < 0.8 else 500
        line.update(
            outcome="answer",
            answer=f"You have {days} days from delivery to ask.",
            citations=[{"id": f"P-{i % 9}-1", "text": f"§ {i % 9}"}],
            scope="policy",
            confidence=round(rng.random(), 3),
        )
    elif roll < 0.95:
        line.update(outcome="abstain", confidence=round(rng.random() / 4, 3))
    else:
        line.update(outcome="error", error="timeout")
    return line


def generate(folder: Path, cases: int, trials: int, seed: int = 7) -> Path:
    """A repository with `cases` cases and `results.jsonl` holding `cases x trials` lines."""
    rng = random.Random(seed)
    # a folder used before for another shape keeps no case file of it (10,000 x 10 after
    # 100,000 x 1 in the same folder scored 100,000 cases, 90,000 of them missing)
    shutil.rmtree(folder / "cases", ignore_errors=True)
    (folder / "cases" / "golden").mkdir(parents=True, exist_ok=True)
    (folder / "corpus").mkdir(exist_ok=True)
    (folder / "corpus" / "policy.md").write_text("Requests are answered within days.\n")
    (folder / "goldcase.toml").write_text(
        "[slices.returns]\ntraffic = 0.4\n[slices.delivery]\ntraffic = 0.6\n"
    )
    (folder / "golden.version").write_text("1.0.0\n")
    lines: list[str] = []
    for i in range(cases):
        case_id, text = _case(i)
        (folder / "cases" / "golden" / f"{case_id}.yaml").write_text(text, encoding="utf-8")
        for trial in range(1, trials + 1):
            numbered = trial if trials > 1 else None
            lines.append(json.dumps(_result(rng, case_id, i, numbered), ensure_ascii=False))
    rng.shuffle(lines)
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _run(folder: Path, *extra: str) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of one `goldcase score`; CPU (user + system) is the steadier
    number on a machine that is busy with something else."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "goldcase"), "score", "results.jsonl", *extra],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"goldcase score failed ({done.returncode}): {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


# The floor: what any scorer of these files must do, in a fresh interpreter: read and
# JSON-parse the results, read every case file and hash its bytes.
_FLOOR = """
import hashlib, json, os
with open("results.jsonl", "rb") as fh:
    lines = [json.loads(line) for line in fh if line.strip()]
for folder, _, names in os.walk("cases"):
    for name in names:
        with open(os.path.join(folder, name), "rb") as fh:
            hashlib.blake2b(fh.read(), digest_size=16).digest()
"""


def _floor(folder: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _FLOOR], cwd=folder, check=True)
    return time.perf_counter() - start


ROUNDS = 5  # three let one slow run of the floor or the command set the ratio


def bench_score(tmpdir: Path, cases: int = 10_000, trials: int = 10) -> list[Budget]:
    """Time `goldcase score` on `cases x trials` results (warm case cache), median of
    ``ROUNDS``, alternating with the floor (median of ``ROUNDS``)."""
    folder = generate(Path(tmpdir) / "score-bench", cases, trials)
    _run(folder)  # fills the case cache the way any second run finds it
    runs, floors = [], []
    for _ in range(ROUNDS):
        runs.append(_run(folder))
        floors.append(_floor(folder))
    text, floor = _median(runs), statistics.median(floors)
    out = str(folder / "report.json")
    as_json = _median([_run(folder, "--format", "json", "--out", out) for _ in range(3)])
    label = f"score {cases * trials:,} results ({cases:,} cases x {trials})"
    limit = f"< {BUDGET} s"
    print(f"{label}: text {text[0]:.3f} s, floor {floor:.3f} s, ratio {text[0] / floor:.2f}")
    return [
        (f"{label}, floor (read, parse, hash), wall", floor, "(reference)"),
        (f"{label}, text / floor", text[0] / floor, "<= 1.3"),
        (f"{label}, text, wall", text[0], limit),
        (f"{label}, text, CPU", text[1], CPU_NOTE),
        (f"{label}, json + --out, wall", as_json[0], "(reference: the complete report)"),
        (f"{label}, json + --out, CPU", as_json[1], CPU_NOTE),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=10)
    args = parser.parse_args()
    # byte-compiled first, as an installed copy is (see scripts/bench.py compile_package)
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "src" / "goldcase"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        rows = bench_score(Path(tmp), args.cases, args.trials)
    return print_table(rows)


if __name__ == "__main__":
    sys.exit(main())
