"""Fuzz the results reader: ``goldcase score RESULTS`` on the three-case repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, mutated_tree, tiny_repo

LINES = [
    {
        "id": "ret-001",
        "outcome": "answer",
        "answer": "You have 14 days.",
        "confidence": 0.83,
        "citations": [{"id": "MD-P-16-112", "text": "14 days"}],
        "scope": "returns",
    },
    {"id": "ret-002", "outcome": "abstain"},
    {"id": "ret-003", "outcome": "error", "error": "timeout"},
    {"id": "ret-001", "outcome": "answer", "fact": "return_window_14_days", "trial": 2},
    {
        "id": "ret-002",
        "outcome": "answer",
        "answer": "the original payment method",
        "retrieved": [{"doc": "returns-policy.md", "text": "Credits are paid back"}],
        "context": [{"doc": "returns-policy.md", "text": "Credits"}],
    },
]
SEEDS = [
    b"".join(json.dumps(line).encode() + b"\n" for line in LINES[:3]),
    b"".join(json.dumps(line).encode() + b"\r\n" for line in LINES[1:]),
    json.dumps(LINES[0]).encode(),
    b"",
    b"\n\n",
]
KEYS = (
    "id",
    "outcome",
    "answer",
    "fact",
    "confidence",
    "citations",
    "scope",
    "retrieved",
    "context",
    "trial",
    "error",
    "doc",
    "text",
)


@st.composite
def results_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(mutated(SEEDS))
    lines = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=5))
    out = [json.dumps(draw(mutated_tree(line, KEYS))) for line in lines]
    return ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-results") / "repo")


@examples(50)
@given(
    raw=results_bytes(),
    fmt=st.sampled_from(["text", "json", "markdown"]),
    split=st.sampled_from(["golden", "all", "eval"]),
)
def test_score(repo: Path, raw: bytes, fmt: str, split: str) -> None:
    results = repo / "run.jsonl"
    results.write_bytes(raw)
    assert_handled(
        goldcase("score", results, "--repo", repo, "--format", fmt, "--split", split),
        allowed=(0, 2),
    )
