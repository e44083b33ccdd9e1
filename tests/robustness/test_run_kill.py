"""Nothing lost by ``goldcase run``: it is killed (SIGKILL, from outside, after a random delay)
several times over one results file, and rerun after each kill. After every kill the file holds
whole valid lines, except at most an unfinished last one; the same command continues it; and
once it completes every (case, trial) is in the file exactly once.

The delay is drawn uniformly over 20 % to 110 % of the time one uninterrupted run takes, as in
test_kill.py; ``GOLDCASE_KILLS`` sets the number of kills (CI: 6)."""

from __future__ import annotations

import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from goldcase.scoring.results import parse_results
from robustness.kit import GOLDCASE, canonical, env, make_set

KILLS = int(os.environ.get("GOLDCASE_KILLS", "6"))
WORKER = """\
import json, sys, time
for line in sys.stdin:
    request = json.loads(line)
    time.sleep(0.01)
    print(json.dumps({"answer": "14 days", "confidence": 0.7}), flush=True)
"""


def command(root: Path, out: Path) -> list[str]:
    worker = shlex.join([sys.executable, str(root / "worker.py")])
    return [GOLDCASE, "run", "--out", str(out), "--cmd", worker, "--jobs", "3", "--trials", "2"]


def state_of(out: Path) -> str:
    """'empty', 'whole' or 'torn' (an unfinished last line); fails on anything else."""
    raw = out.read_bytes() if out.exists() else b""
    if not raw:
        return "empty"
    whole = raw[: raw.rfind(b"\n") + 1]
    results, problems = parse_results(whole, str(out))
    assert not problems, problems
    assert all(r.trial in (1, 2) for r in results)
    return "whole" if whole == raw else "torn"


def test_killed_runs_leave_whole_lines_and_continue(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_set(root, 60, canonical)
    (root / "worker.py").write_text(WORKER, encoding="utf-8")
    reference = tmp_path / "reference.jsonl"
    started = time.perf_counter()
    done = subprocess.run(command(root, reference), cwd=root, env=env(), capture_output=True)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr.decode()
    out = tmp_path / "killed.jsonl"
    rng = random.Random(18)
    counts: Counter[str] = Counter()
    for _ in range(KILLS):
        proc = subprocess.Popen(
            command(root, out), cwd=root, env=env(),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(rng.uniform(0.2, 1.1) * elapsed)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        counts[state_of(out)] += 1
    final = subprocess.run(command(root, out), cwd=root, env=env(), capture_output=True)
    assert final.returncode == 0, final.stderr.decode()
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    pairs = Counter((line["id"], line["trial"]) for line in lines)
    expected = [json.loads(line) for line in reference.read_text(encoding="utf-8").splitlines()]
    assert set(pairs) == {(line["id"], line["trial"]) for line in expected}
    assert set(pairs.values()) == {1}  # each (case, trial) once
    print(f"\ngoldcase run: {KILLS} kills, one run {elapsed:.2f} s: {dict(counts)}")
