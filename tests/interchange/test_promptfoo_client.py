"""The promptfoo export run by real promptfoo (0.121.20), offline, with its echo provider and an
``exec:`` provider, and its output read back with ``goldcase score --from promptfoo``: case by
case, the same grades as ``goldcase score`` on the same answers; and promptfoo's own verdict on
every unanswerable case is goldcase's (no grading model: the export asserts the abstention by
the same patterns)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from goldcase.commands.common import open_context
from goldcase.engine import load_case_set
from interchange.kit import (
    as_text,
    graded,
    promptfoo,
    run_promptfoo,
    sample_lines,
    score,
    write_lines,
)
from kit import REPO_ROOT, run_cli

pytestmark = pytest.mark.slow
PROVIDER = Path(__file__).with_name("replay_provider.py")


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return {c.id: c for c in load_case_set(open_context(REPO_ROOT)).golden}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    promptfoo()  # skip early, saying why, when it is not installed
    out = tmp_path / "promptfooconfig.yaml"
    done = run_cli("export", "--repo", REPO_ROOT, "--format", "promptfoo", "--out", out)
    assert done.exit_code == 0, done.stderr
    return out


def verdicts(output: dict[str, Any]) -> dict[str, bool]:
    """promptfoo's own pass or fail, by case id."""
    return {r["testCase"]["metadata"]["id"]: r["success"] for r in output["results"]["results"]}


def exec_provider(results: Path, mode: str, failing: str = "") -> str:
    args = [sys.executable, str(PROVIDER), str(results), mode, *([failing] if failing else [])]
    return "exec: " + shlex.join(args)


def test_echo_provider_grades_agree_case_by_case(
    config: Path, tmp_path: Path, golden: dict[str, Any]
) -> None:
    output = run_promptfoo(config, tmp_path / "echo.json", "--providers", "echo")
    reference = write_lines(
        tmp_path / "echo.jsonl",
        [{"id": i, "outcome": "answer", "answer": c.question} for i, c in golden.items()],
    )
    converted, direct = score(tmp_path / "echo.json", "--from", "promptfoo"), score(reference)
    assert graded(converted) == graded(direct)
    assert converted["total"] == len(golden) and converted["missing"] == 0
    passed = {c["id"]: c["passed"] for c in direct["cases"]}
    unanswerable = [i for i, c in golden.items() if not c.answerable]
    assert unanswerable  # the sample set has them, and echo never abstains
    assert {i: verdicts(output)[i] for i in unanswerable} == {i: passed[i] for i in unanswerable}


def test_exec_provider_text_answers_agree_and_errors_stay_errors(
    config: Path, tmp_path: Path, golden: dict[str, Any]
) -> None:
    failing = sorted(golden)[3]
    provider = exec_provider(REPO_ROOT / "runs" / "baseline-k3.jsonl", "text", failing)
    output = run_promptfoo(config, tmp_path / "text.json", "--providers", provider)
    lines = [as_text(line) for line in sample_lines()]
    for line in lines:
        if line["id"] == failing:
            line.update(outcome="error", error="the system failed")
    reference = write_lines(tmp_path / "text.jsonl", lines)
    converted, direct = score(tmp_path / "text.json", "--from", "promptfoo"), score(reference)
    assert graded(converted) == graded(direct)
    assert graded(converted)[failing] == ("error", False, ["error"])
    assert converted["errors"] == 1
    passed = {c["id"]: c["passed"] for c in direct["cases"]}
    unanswerable = [i for i, c in golden.items() if not c.answerable]
    abstained = [i for i in unanswerable if graded(direct)[i][0] == "abstain"]
    assert abstained and len(abstained) < len(unanswerable)  # both kinds are there
    assert {i: verdicts(output)[i] for i in unanswerable} == {i: passed[i] for i in unanswerable}


def test_exec_provider_json_responses_are_read_whole(config: Path, tmp_path: Path) -> None:
    provider = exec_provider(REPO_ROOT / "runs" / "baseline-k3.jsonl", "json")
    run_promptfoo(config, tmp_path / "json.json", "--providers", provider)
    converted = score(tmp_path / "json.json", "--from", "promptfoo")
    direct = score(REPO_ROOT / "runs" / "baseline-k3.jsonl")
    assert graded(converted) == graded(direct)  # citations and confidence came through
    assert converted["success"] == direct["success"]


def test_cases_promptfoo_did_not_run_stay_missing(config: Path, tmp_path: Path) -> None:
    run_promptfoo(config, tmp_path / "some.jsonl", "--providers", "echo", "--filter-first-n", "5")
    converted = score(tmp_path / "some.jsonl", "--from", "promptfoo")  # the JSONL output
    assert converted["missing"] == converted["total"] - 5
    assert sum(c["outcome"] != "missing" for c in converted["cases"]) == 5
