"""Fuzz the case-file parser: ``loader.parse_case`` in-process, and ``goldcase check`` on a
real repository holding the mutated file (in-process, and a few in a bounded subprocess)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import (
    assert_handled,
    assert_handled_subprocess,
    case_seeds,
    deadline,
    examples,
    goldcase,
    mutated,
    mutated_tree,
    run_bounded,
    tiny_repo,
)
from goldcase.loader import parse_case

SEEDS = case_seeds()
CASE_KEYS = (
    "id",
    "question",
    "answerable",
    "expected_answer",
    "support",
    "expect",
    "slice",
    "tags",
    "source",
    "derived_from",
    "labelled_by",
    "notes",
    "doc",
    "quote",
    "contains",
    "lead",
)


def _parsed_seeds() -> list[object]:
    out = []
    for raw in SEEDS:
        try:
            data = yaml.safe_load(raw)
        except (yaml.YAMLError, UnicodeDecodeError, ValueError):
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


PARSED = _parsed_seeds()


@st.composite
def case_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(mutated(SEEDS))
    tree = draw(mutated_tree(draw(st.sampled_from(PARSED)), CASE_KEYS))
    text = yaml.safe_dump(tree, allow_unicode=draw(st.booleans()), sort_keys=False)
    return text.encode("utf-8")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-case") / "repo")


def test_seeds_are_there() -> None:
    assert len(SEEDS) >= 40 and len(PARSED) >= 20


@examples(300)
@given(raw=case_bytes())
def test_parse_case_returns_a_mapping_or_findings(raw: bytes) -> None:
    with deadline():
        data, findings = parse_case("cases/golden/fz.yaml", raw)
    assert (data is None) == bool(findings)
    for finding in findings:
        assert finding.code.startswith("GC1") and finding.line >= 1 and finding.col >= 1


@examples(40)
@given(raw=case_bytes())
def test_check_end_to_end(repo: Path, raw: bytes) -> None:
    (repo / "cases/golden/fz.yaml").write_bytes(raw)
    result = goldcase("check", "--repo", repo, "--no-cache")
    assert_handled(result, allowed=(0, 1))


@examples(3)
@given(raw=case_bytes())
def test_check_in_a_bounded_subprocess(repo: Path, raw: bytes) -> None:
    (repo / "cases/golden/fz.yaml").write_bytes(raw)
    assert_handled_subprocess(run_bounded(["check", "--no-cache"], cwd=repo))


# Inputs the fuzzer found; each crashed goldcase check before the fix.
FOUND = [
    (
        b"? id: hand-written\nquestion: Can I swap a kettle?\nanswerable: false\n",
        (1, 3, "GC107", "a key that is itself a mapping or a list; keys are plain names"),
    ),
    (
        b"id: fz\n? [a, b]\n: 1\n",
        (2, 3, "GC107", "a key that is itself a mapping or a list; keys are plain names"),
    ),
]


@pytest.mark.parametrize(("raw", "expected"), FOUND)
def test_found_inputs(raw: bytes, expected: tuple[int, int, str, str]) -> None:
    data, findings = parse_case("cases/golden/fz.yaml", raw)
    assert data is None
    assert [(f.line, f.col, f.code, f.message) for f in findings] == [expected]
