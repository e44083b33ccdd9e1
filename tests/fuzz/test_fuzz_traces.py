"""Fuzz the trace log reader and the draw: ``goldcase triage TRACES --dry-run`` on the
three-case repository, and ``goldcase check`` on drafts in its inbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, mutated_tree, tiny_repo

TRACES = [
    {
        "id": "t-1",
        "time": "2026-03-02T09:14:00Z",
        "question": "how long do i have to ask for a credit, mail jo@example.co.uk",
        "answer": "You have 30 days.",
        "failed_check": True,
        "cap_hit": False,
        "thumbs_down": True,
    },
    {"id": 2, "time": 1772442840, "question": "Where are credits paid back to?", "answer": None},
    {"question": "which orders ship free", "cap_hit": 1, "extra": {"nested": [1, 2]}},
]
SEEDS = [
    b"".join(json.dumps(t).encode() + b"\n" for t in TRACES),
    b"".join(json.dumps(t).encode() + b"\r\n" for t in TRACES[::-1]),
    json.dumps(TRACES[0]).encode(),
]
KEYS = ("id", "time", "question", "answer", "failed_check", "cap_hit", "thumbs_down")
DRAFT = b"""id: tr-00000000a
question: where is my parcel
answerable:
expected_answer:
support:
slice:
source: transcript
asked_at: "2026-03-02T09:14:00Z"
trace:
  answer: It is on its way.
  flags: [failed_check]
  drawn: flagged
  file: week.jsonl
  line: 3
  repeats: 0
"""


@st.composite
def trace_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(mutated(SEEDS))
    rows = draw(st.lists(st.sampled_from(TRACES), min_size=1, max_size=6))
    out = [json.dumps(draw(mutated_tree(row, KEYS))) for row in rows]
    return ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-traces") / "repo")


@examples(50)
@given(raw=trace_bytes(), n=st.integers(1, 5), share=st.sampled_from(["0", "0.5", "1"]))
def test_triage(repo: Path, raw: bytes, n: int, share: str) -> None:
    log = repo / "week.jsonl"
    log.write_bytes(raw)
    result = goldcase(
        "triage", log, "--repo", repo, "--dry-run", "--n", str(n), "--failed-share", share
    )
    assert_handled(result, allowed=(0, 2))


@examples(30)
@given(raw=mutated([DRAFT]))
def test_check_a_draft(repo: Path, raw: bytes) -> None:
    draft = repo / "cases" / "inbox" / "tr-00000000a.yaml"
    draft.parent.mkdir(exist_ok=True)
    draft.write_bytes(raw)
    try:
        assert_handled(goldcase("check", "--repo", repo, "--no-cache"))
    finally:
        draft.unlink()
