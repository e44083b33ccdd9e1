"""The promptfoo export run by real promptfoo (0.121.20), offline, with its echo provider and an
``exec:`` provider, and its output read back with ``goldcase score --from promptfoo``: case by
case, the same grades as ``goldcase score`` on the same answers; and promptfoo's own verdict on
every case is goldcase's (no grading model: the exported assertion is goldcase's pass rule, its
whole-word and number checks and the abstention patterns, written in JavaScript), on the
questions echoed, the sample run's answers as text and as goldcase's response JSON, and each
case's probes."""

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
PROVIDER = REPO_ROOT / "scripts" / "promptfoo_replay.py"


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
    assert verdicts(output) == passed
    corrections = [i for i, c in golden.items() if not c.answerable and c.expect]
    assert corrections  # false premises whose correction an answer may give


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
    assert verdicts(output) == passed  # the error fails in promptfoo too


def test_exec_provider_json_responses_are_read_whole(config: Path, tmp_path: Path) -> None:
    provider = exec_provider(REPO_ROOT / "runs" / "baseline-k3.jsonl", "json")
    output = run_promptfoo(config, tmp_path / "json.json", "--providers", provider)
    converted = score(tmp_path / "json.json", "--from", "promptfoo")
    direct = score(REPO_ROOT / "runs" / "baseline-k3.jsonl")
    assert graded(converted) == graded(direct)  # citations and confidence came through
    assert converted["success"] == direct["success"]
    assert verdicts(output) == {c["id"]: c["passed"] for c in direct["cases"]}


@pytest.mark.parametrize("kind", ["pass", "fail"])
def test_each_case_answered_with_its_probe_grades_alike(
    config: Path, tmp_path: Path, golden: dict[str, Any], kind: str
) -> None:
    """Answers written to pass and to fail each case's checks (its first probe of the kind;
    the question where it has none): promptfoo's verdict is goldcase's, case by case."""
    lines = []
    for case_id, case in golden.items():
        probes = (case.data.get("probes") or {}).get(kind) or [case.question]
        lines.append({"id": case_id, "outcome": "answer", "answer": probes[0]})
    results = write_lines(tmp_path / f"{kind}.jsonl", lines)
    output = run_promptfoo(
        config, tmp_path / f"{kind}.json", "--providers", exec_provider(results, "text")
    )
    converted, direct = score(tmp_path / f"{kind}.json", "--from", "promptfoo"), score(results)
    assert graded(converted) == graded(direct)
    passed = {c["id"]: c["passed"] for c in direct["cases"]}
    assert verdicts(output) == passed
    probed = [i for i, case in golden.items() if (case.data.get("probes") or {}).get(kind)]
    assert len(probed) > 100
    assert all(passed[i] is (kind == "pass") for i in probed)  # the probes hold


def test_cases_promptfoo_did_not_run_stay_missing(config: Path, tmp_path: Path) -> None:
    run_promptfoo(config, tmp_path / "some.jsonl", "--providers", "echo", "--filter-first-n", "5")
    converted = score(tmp_path / "some.jsonl", "--from", "promptfoo")  # the JSONL output
    assert converted["missing"] == converted["total"] - 5
    assert sum(c["outcome"] != "missing" for c in converted["cases"]) == 5
