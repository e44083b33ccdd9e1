"""Fuzz the report reader: ``goldcase compare BASE HEAD`` and ``goldcase report --html``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import DATA, assert_handled, examples, goldcase, mutated, mutated_tree, report_seeds

SEEDS = report_seeds()
PARSED = [json.loads(raw) for raw in SEEDS]
KEYS = tuple(sorted({key for report in PARSED for key in report}))


@st.composite
def report_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(mutated(SEEDS))
    tree = draw(mutated_tree(draw(st.sampled_from(PARSED)), KEYS))
    return json.dumps(tree).encode("utf-8", "surrogatepass")


def test_seeds_are_there() -> None:
    assert len(SEEDS) >= 2


@examples(40)
@given(raw=report_bytes(), base_first=st.booleans())
def test_compare(tmp_path_factory: pytest.TempPathFactory, raw: bytes, base_first: bool) -> None:
    folder = tmp_path_factory.mktemp("compare")
    fuzzed = folder / "fuzzed.json"
    fuzzed.write_bytes(raw)
    other = DATA / "reports" / "six-case-base.json"
    pair = (fuzzed, other) if base_first else (other, fuzzed)
    assert_handled(goldcase("compare", *pair, "--format", "text"))


@examples(25)
@given(raw=report_bytes(), with_base=st.booleans())
def test_report_html(tmp_path_factory: pytest.TempPathFactory, raw: bytes, with_base: bool) -> None:
    folder = tmp_path_factory.mktemp("html")
    fuzzed = folder / "fuzzed.json"
    fuzzed.write_bytes(raw)
    extra = ["--compare", str(DATA / "reports" / "six-case-base.json")] if with_base else []
    result = goldcase("report", fuzzed, "--html", folder / "page.html", "--repo", folder, *extra)
    assert_handled(result, allowed=(0, 2))
    if result.exit_code == 0:
        assert (
            (folder / "page.html").read_text(encoding="utf-8").lower().startswith("<!doctype html>")
        )
