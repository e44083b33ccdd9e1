"""The Inspect export run by real Inspect AI: the exported task file, with a solver that calls no
model (scripts/inspect_replay.py replays the sample run's answers), logs written as .eval and as
.json, read back with ``goldcase score --from inspect``. Case by case: Inspect's own score (the
exported scorer is goldcase's pass rule), the converted log, and ``goldcase score`` on the same
answers all agree."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from interchange.kit import as_text, graded, inspect_cli, sample_lines, score, write_lines
from kit import REPO_ROOT, run_cli

pytestmark = pytest.mark.slow
REPLAY = REPO_ROOT / "scripts" / "inspect_replay.py"


@pytest.fixture
def task(tmp_path: Path) -> Path:
    inspect_cli()  # skip early, saying why, when Inspect is not installed
    out = tmp_path / "export" / "golden.jsonl"
    done = run_cli("export", "--repo", REPO_ROOT, "--format", "inspect", "--out", out)
    assert done.exit_code == 0, done.stderr
    return out.with_name("golden_task.py")


def run_inspect(task: Path, results: Path, log_format: str, *solver_args: str) -> Path:
    """``inspect eval`` of the exported task with the replay solver; the log it wrote."""
    logs = task.parent / f"logs-{log_format}"
    done = subprocess.run(
        [str(inspect_cli()), "eval", task.name, "--model", "none",
         "--solver", f"{REPLAY}@replay", "-S", f"results={results}", *solver_args,
         "--log-dir", str(logs), "--log-format", log_format, "--no-fail-on-error"],
        cwd=task.parent,
        env={**os.environ, "INSPECT_DISPLAY": "none", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [log] = logs.iterdir()
    return log


def inspect_verdicts(log: Path) -> dict[str, bool]:
    """Inspect's own score per sample (C or I), read with Inspect's own log reader."""
    from inspect_ai.log import read_eval_log

    samples = read_eval_log(str(log)).samples or []
    return {str(s.id): s.scores["goldcase_scorer"].value == "C" for s in samples if s.scores}


def test_structured_answers_agree_three_ways(task: Path, tmp_path: Path) -> None:
    log = run_inspect(task, REPO_ROOT / "runs" / "baseline-k3.jsonl", "eval")
    assert log.suffix == ".eval"
    converted = score(log, "--from", "inspect")
    direct = score(REPO_ROOT / "runs" / "baseline-k3.jsonl")
    assert graded(converted) == graded(direct)
    assert inspect_verdicts(log) == {c["id"]: c["passed"] for c in direct["cases"]}


def test_text_answers_and_errors_agree_in_a_json_log(task: Path, tmp_path: Path) -> None:
    lines = sample_lines()
    failing = lines[5]["id"]
    lines[5] = {"id": failing, "outcome": "error", "error": "the system failed"}
    results = write_lines(tmp_path / "with-error.jsonl", lines)
    log = run_inspect(task, results, "json", "-S", "structured=false")
    assert log.suffix == ".json"
    assert json.loads(log.read_text(encoding="utf-8"))["samples"]  # a JSON log, with samples
    converted = score(log, "--from", "inspect")
    reference = write_lines(tmp_path / "text.jsonl", [as_text(line) for line in lines])
    direct = score(reference)
    assert graded(converted) == graded(direct)
    assert graded(converted)[failing][0] == "error"
    own = inspect_verdicts(log)
    assert failing not in own  # Inspect scores no sample that errored
    expected: dict[str, Any] = {c["id"]: c["passed"] for c in direct["cases"] if c["id"] != failing}
    assert own == expected
