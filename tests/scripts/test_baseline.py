"""scripts/baseline.py as goldcase run workers: the same answers from fresh processes, results
that goldcase score accepts, every line carrying confidence, citations, retrieved and context,
and a worker that reads the corpus only."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kit import REPO_ROOT, Result, run_cli

SCRIPT = REPO_ROOT / "scripts" / "baseline.py"
pytest.importorskip("rank_bm25")

CASES = {
    "cases/golden/ret-001.yaml": (
        "id: ret-001\nquestion: how many days to ask for a credit on a damaged delivery\n"
        "expected_answer: 14 days\nsupport:\n  - doc: returns-policy.md\n"
        "    quote: A customer has 14 days from delivery to request a credit\nslice: returns\n"
    ),
    "cases/golden/ret-002.yaml": (
        "id: ret-002\nquestion: can custom-printed products use the standard return window\n"
        "expected_answer: 'No'\nexpect:\n  lead: 'no'\nsupport:\n  - doc: returns-policy.md\n"
        "    quote: Custom-printed products are excluded from the standard return window.\n"
        "slice: returns\n"
    ),
    "cases/golden/oos-001.yaml": (
        "id: oos-001\nquestion: zzyzx qwerty plover\nanswerable: false\nslice: out-of-scope\n"
    ),
}


def baseline(repo: Path, out: Path, *args: str) -> Result:
    """scripts/baseline.py as ``goldcase run --cmd`` workers over ``repo``'s golden set."""
    command = shlex.join([sys.executable, str(SCRIPT), "--repo", str(repo), *args])
    return run_cli("run", "--repo", repo, "--out", out, "--cmd", command, "--jobs", "2")


def answers(path: Path) -> dict[str, dict[str, Any]]:
    """Each line by id, without what changes from run to run (the latency)."""
    lines = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return {line["id"]: {k: v for k, v in line.items() if k != "latency_ms"} for line in lines}


def test_the_same_input_gives_the_same_answers(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo(CASES)
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert baseline(repo, first, "--top-k", "2", "--threshold", "0.3").exit_code == 0
    assert baseline(repo, second, "--top-k", "2", "--threshold", "0.3").exit_code == 0
    assert answers(first) == answers(second)


def test_lines_carry_confidence_citations_retrieved_and_context(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo(CASES)
    out = tmp_path / "run.jsonl"
    done = baseline(repo, out, "--top-k", "1", "--threshold", "0.2")
    assert done.exit_code == 0, done.stderr
    lines = answers(out)
    assert sorted(lines) == ["oos-001", "ret-001", "ret-002"]  # one line per case
    credit = lines["ret-001"]
    assert credit["outcome"] == "answer"
    assert "14 days from delivery to request a credit" in credit["answer"]
    assert credit["citations"][0]["text"] == "returns-policy.md"
    assert credit["citations"][0]["id"].startswith("returns-policy.md#")
    assert len(credit["context"]) == 1
    assert credit["context"][0]["doc"] == "returns-policy.md"
    assert 1 <= len(credit["retrieved"]) <= 5
    assert 0 <= credit["confidence"] <= 1
    assert lines["ret-002"]["answer"].startswith("No. ")  # a yes/no question, a negated chunk
    # none of the words is in the corpus: confidence 0, under any positive threshold
    assert lines["oos-001"] == {**lines["oos-001"], "outcome": "abstain", "confidence": 0.0}
    assert run_cli("score", out, "--repo", repo).exit_code == 0


def test_top_k_and_threshold_change_the_run(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repo = make_repo(CASES)
    wide, strict = tmp_path / "wide.jsonl", tmp_path / "strict.jsonl"
    assert baseline(repo, wide, "--top-k", "3", "--threshold", "0").exit_code == 0
    assert baseline(repo, strict, "--top-k", "1", "--threshold", "1").exit_code == 0
    assert all(len(line["context"]) == 3 for line in answers(wide).values())
    assert {line["outcome"] for line in answers(wide).values()} == {"answer"}
    assert {line["outcome"] for line in answers(strict).values()} == {"abstain"}


def test_the_worker_reads_the_corpus_and_never_the_cases(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo(CASES)
    shutil.rmtree(repo / "cases")
    request = {"id": "ret-001", "question": "how many days to ask for a credit", "trial": 1}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--repo", str(repo), "--threshold", "0"],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    response = json.loads(done.stdout)
    assert response["outcome"] == "answer"
    assert "id" not in response  # goldcase adds it


def test_bad_arguments_and_an_empty_corpus(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repo = make_repo(CASES)
    bad = subprocess.run(
        [sys.executable, str(SCRIPT), "--top-k", "0"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2
    assert "--top-k must be at least 1" in bad.stderr
    shutil.rmtree(repo / "corpus")
    (repo / "corpus").mkdir()
    out = tmp_path / "y.jsonl"
    done = baseline(repo, out, "--threshold", "0.3")
    assert done.exit_code == 0
    lines = answers(out)
    assert {line["outcome"] for line in lines.values()} == {"error"}
    assert (
        "the worker exited with status 1: error: no Markdown documents with text"
        in (lines["ret-001"]["error"])
    )
