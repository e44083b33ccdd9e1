"""Fuzz the training-text reader: ``goldcase contamination FILE`` on plain text, JSON Lines,
gzip and zstd files built from the golden questions, then mutated."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, tiny_repo

zstandard = pytest.importorskip("zstandard")

QUESTION = "How many days does a customer have to request a credit?"
TEXT = (f"Some training text.\n{QUESTION} About 14 days.\nMore text.\n").encode()
JSONL = b"".join(
    json.dumps({"text": t, "meta": {"n": i}}).encode() + b"\n"
    for i, t in enumerate(["plain line", QUESTION, "A customer has 14 days from delivery"])
)
SEEDS = {
    "txt": [TEXT, b"", b"\n" * 50],
    "jsonl": [JSONL, b'{"text": 1}\n[1, 2]\n"a string"\n'],
    "gz": [gzip.compress(TEXT), gzip.compress(JSONL)],
    "zst": [zstandard.ZstdCompressor().compress(TEXT)],
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-contamination") / "repo")


@examples(25)
@given(data=st.data(), suffix=st.sampled_from(["txt", "jsonl", "gz", "zst", "jsonl.gz"]))
def test_contamination(repo: Path, data: st.DataObject, suffix: str) -> None:
    kind = "gz" if suffix == "jsonl.gz" else suffix
    raw = data.draw(mutated(SEEDS[kind]))
    target = repo / f"train.{suffix}"
    target.write_bytes(raw)
    try:
        result = goldcase("contamination", target, "--repo", repo, "--workers", "1")
    finally:
        target.unlink()
    assert_handled(result)
