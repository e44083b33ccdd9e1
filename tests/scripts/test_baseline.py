"""scripts/baseline.py: byte-identical output from a fresh process, results that goldcase score
accepts, and every line carrying what issue 3 asks (confidence, retrieved, context)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kit import REPO_ROOT, run_cli

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


def baseline(repo: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--repo", str(repo), "--out", str(out), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_same_input_gives_byte_identical_output(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo(CASES)
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert baseline(repo, first, "--top-k", "2", "--threshold", "0.3").returncode == 0
    assert baseline(repo, second, "--top-k", "2", "--threshold", "0.3").returncode == 0
    assert first.read_bytes() == second.read_bytes()


def test_lines_carry_confidence_citations_retrieved_and_context(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo(CASES)
    out = tmp_path / "run.jsonl"
    done = baseline(repo, out, "--top-k", "1", "--threshold", "0.2")
    assert done.returncode == 0, done.stderr
    lines = {line["id"]: line for line in map(json.loads, out.read_text().splitlines())}
    assert sorted(lines) == ["oos-001", "ret-001", "ret-002"]  # one line per case, id order
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
    assert baseline(repo, wide, "--top-k", "3", "--threshold", "0").returncode == 0
    assert baseline(repo, strict, "--top-k", "1", "--threshold", "1").returncode == 0
    wide_lines = [json.loads(line) for line in wide.read_text().splitlines()]
    strict_lines = [json.loads(line) for line in strict.read_text().splitlines()]
    assert all(len(line["context"]) == 3 for line in wide_lines)
    assert {line["outcome"] for line in wide_lines} == {"answer"}
    assert {line["outcome"] for line in strict_lines} == {"abstain"}


def test_bad_arguments_and_an_empty_corpus(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repo = make_repo(CASES)
    bad = baseline(repo, tmp_path / "x.jsonl", "--top-k", "0")
    assert bad.returncode == 2
    assert "--top-k must be at least 1" in bad.stderr
    shutil.rmtree(repo / "corpus")
    done = baseline(repo, tmp_path / "y.jsonl")
    assert done.returncode == 1
    assert "no Markdown documents with text" in done.stderr
