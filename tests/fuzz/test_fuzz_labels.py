"""Fuzz the label files: ``goldcase agreement`` on a repository holding a mutated
``labels/<labeller>/<id>.yaml`` beside a well-formed one."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, tiny_repo

FILLED = (
    "# Second label for case {id} (sample seed s).\n"
    "id: {id}\n"
    'question: "How many days does a customer have to request a credit?"  # to read\n'
    "answerable: {answerable}\n"
    "expected_answer: {answer}\n"
    "expect:\n{expect}"
)
SEEDS = [
    FILLED.format(
        id="ret-001",
        answerable="true",
        answer="14 days",
        expect="  contains: ['14', ['fourteen', '14']]\n",
    ).encode(),
    FILLED.format(id="ret-002", answerable="false", answer="", expect="").encode(),
    FILLED.format(id="ret-003", answerable="", answer="", expect="").encode(),
    FILLED.format(id="nope", answerable="yes", answer="[1, 2]", expect="  lead: no\n").encode(),
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tiny_repo(tmp_path_factory.mktemp("fuzz-labels") / "repo")
    (root / "labels/second").mkdir(parents=True)
    (root / "labels/second/ret-002.yaml").write_bytes(SEEDS[1])
    return root


@examples(50)
@given(
    raw=mutated(SEEDS),
    name=st.sampled_from(["ret-001", "ret-003", "unknown"]),
    fmt=st.sampled_from(["text", "json"]),
)
def test_agreement(repo: Path, raw: bytes, name: str, fmt: str) -> None:
    path = repo / "labels/second" / f"{name}.yaml"
    path.write_bytes(raw)
    try:
        result = goldcase("agreement", "--repo", repo, "--format", fmt)
    finally:
        path.unlink()
    assert_handled(result)
