"""Fuzz the readers of other tools' results: ``goldcase score --from promptfoo`` (JSON and JSONL
outputs) and ``--from inspect`` (JSON logs and .eval archives) on the three-case repository."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, mutated_tree, tiny_repo

PF_RESULT: dict[str, Any] = {
    "testIdx": 0,
    "promptIdx": 0,
    "provider": {"id": "echo", "label": ""},
    "testCase": {"vars": {"question": "q"}, "metadata": {"id": "ret-001", "golden_version": "1"}},
    "response": {"output": "You have 14 days."},
    "latencyMs": 3,
    "failureReason": 0,
    "error": None,
}
PF_OUTPUT = {"evalId": "e", "results": {"version": 3, "results": [PF_RESULT]}}
SAMPLE: dict[str, Any] = {
    "id": "ret-002",
    "epoch": 1,
    "metadata": {"id": "ret-002"},
    "output": {"completion": "I don't know.", "choices": [{"message": {"content": "x"}}]},
    "store": {"goldcase": {"outcome": "answer", "answer": "the original payment method"}},
    "error": None,
    "total_time": 0.5,
}
LOG = {"version": 2, "status": "success", "eval": {"task": "golden"}, "samples": [SAMPLE]}
KEYS = ("id", "metadata", "response", "output", "failureReason", "epoch", "store", "samples")


def _eval_archive(sample: Any) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"status": "success"}))
        archive.writestr("samples/ret-002_epoch_1.json", json.dumps(sample))
    return buffer.getvalue()


SEEDS = [
    json.dumps(PF_OUTPUT).encode(),
    (json.dumps(PF_RESULT) + "\n" + json.dumps(PF_RESULT) + "\n").encode(),
    json.dumps(LOG).encode(),
    _eval_archive(SAMPLE),
    b"",
]


@st.composite
def output_bytes(draw: st.DrawFn) -> bytes:
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(mutated(SEEDS))
    if choice == 1:
        return json.dumps(draw(mutated_tree(PF_OUTPUT, KEYS))).encode("utf-8", "surrogatepass")
    if choice == 2:
        return json.dumps(draw(mutated_tree(LOG, KEYS))).encode("utf-8", "surrogatepass")
    return _eval_archive(draw(mutated_tree(SAMPLE, KEYS)))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-score-from") / "repo")


@examples(60)
@given(raw=output_bytes(), source=st.sampled_from(["promptfoo", "inspect"]))
def test_score_from(repo: Path, raw: bytes, source: str) -> None:
    path = repo / "output.bin"
    path.write_bytes(raw)
    assert_handled(goldcase("score", path, "--repo", repo, "--from", source), allowed=(0, 2))
