"""Fuzz the hashes file: ``goldcase leakage --against FILE`` on a prompt file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, mutated_tree, tiny_repo

KEYS = (
    "format",
    "version",
    "normaliser",
    "hash",
    "salt",
    "ngram",
    "min_words",
    "golden_version",
    "questions",
    "sha256",
    "words",
    "ngrams",
    "id",
)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    root = tiny_repo(tmp_path_factory.mktemp("fuzz-hashes") / "repo")
    out = [root / "golden.hashes", root / "no-ids.hashes", root / "short.hashes"]
    for path, extra in zip(out, ([], ["--no-ids"], ["--ngram", "8"]), strict=True):
        done = goldcase("hashes", "--repo", root, "--out", path, *extra)
        assert done.exit_code == 0, done.stderr
    return root, [path.read_bytes() for path in out]


@examples(50)
@given(data=st.data())
def test_leakage_against(seeds: tuple[Path, list[bytes]], data: st.DataObject) -> None:
    root, raw_seeds = seeds
    if data.draw(st.booleans()):
        raw = data.draw(mutated(raw_seeds))
    else:
        tree = data.draw(mutated_tree(json.loads(data.draw(st.sampled_from(raw_seeds))), KEYS))
        raw = json.dumps(tree).encode("utf-8", "surrogatepass")
    against = root / "fuzzed.hashes"
    against.write_bytes(raw)
    prompt = root / "prompts" / "fewshot.md"
    assert_handled(goldcase("leakage", "--against", against, "--format", "text", prompt))
