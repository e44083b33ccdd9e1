"""Invariants of any report: random runs over a fixed set always give a report that follows
its schema, whose counts nest the way their definitions say, and whose rates are their
fractions."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldcase.schemas import validator
from goldcase.scoring.report import DIGEST_SLICE, cases_digest
from scoring.kit import case_yaml, score_lines, write_repo

CASES = {
    "a1": case_yaml("a1", "s1", expect={"contains": ["30"]}),
    "a2": case_yaml("a2", "s1", expect={"lead": "no"}),
    "a3": case_yaml("a3", "s2"),
    "a4": case_yaml("a4", "s2", expect={"fact": "k"}),
    "u1": case_yaml("u1", "s2", answerable=False),
    "u2": case_yaml("u2", "s3", answerable=False),
}

outcome = st.one_of(
    st.fixed_dictionaries({"outcome": st.just("abstain")}),
    st.fixed_dictionaries({"outcome": st.just("error"), "error": st.just("boom")}),
    st.fixed_dictionaries(
        {
            "outcome": st.just("answer"),
            "answer": st.sampled_from(["No, 30 days.", "30 days", "Yes", "300", ""]),
        },
        optional={
            "fact": st.sampled_from(["k", "j"]),
            "confidence": st.sampled_from([0.0, 0.3, 0.5, 1.0]),
        },
    ),
)
runs = st.dictionaries(st.sampled_from(sorted(CASES)), outcome)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_repo(tmp_path_factory.mktemp("props"), CASES, "[slices.s1]\ntraffic = 0.5\n")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(runs, st.sampled_from([None, 0.0, 0.5, 1.0]))
def test_any_report_is_consistent(repo: Path, run: dict[str, Any], threshold: float | None) -> None:
    lines: list[dict[str, Any] | str] = [{"id": k, **v} for k, v in sorted(run.items())]
    report = score_lines(repo, lines, threshold=threshold)
    assert list(validator("report.schema.json").iter_errors(report)) == []
    total, answered = report["total"], report["answered"]
    assert total == len(CASES)
    assert report["missing"] == len(CASES) - len(run)
    assert report["correct_answers"] <= answered
    assert report["success"] - report["correct_answers"] <= total - answered  # abstentions
    assert answered + report["errors"] + report["missing"] <= total
    assert report["task_success"] == report["success"] / total
    assert report["answer_coverage"] == answered / total
    expected = None if answered == 0 else report["correct_answers"] / answered
    assert report["answered_accuracy"] == expected
    assert sum(s["total"] for s in report["slices"].values()) == total
    assert sum(s["success"] for s in report["slices"].values()) == report["success"]
    assert report["weighted_task_success"] == report["slices"]["s1"]["rate"]
    ids = [c["id"] for c in report["cases"]]
    assert ids == sorted(ids)
    assert all(c["passed"] is (c["failed_checks"] == []) for c in report["cases"])
    for name, interval in report["intervals"].items():
        rate = report[name]
        assert (interval is None) is (rate is None)
        if interval is not None:
            assert interval[0] <= rate <= interval[1]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@pytest.mark.parametrize(
    "size", [0, 1, DIGEST_SLICE - 1, DIGEST_SLICE, DIGEST_SLICE + 1, 2 * DIGEST_SLICE + 3]
)
def test_cases_digest_is_the_documented_sha256_at_any_length(size: int) -> None:
    """docs/score.md: sha256 of ``json.dumps(cases, sort_keys=True, ensure_ascii=False,
    separators=(",", ":"))`` in UTF-8, whatever the number of cases (it is hashed a slice
    at a time)."""
    cases = [
        {
            "id": f"c-{i}",
            "why": ["é\n\u2028", i / 7, None],
            "passed": i % 2 == 0,
            "z": {"b": 1, "a": 2},
        }
        for i in range(size)
    ]
    assert cases_digest(cases) == documented_digest(cases)


@given(st.lists(st.dictionaries(st.text(), JSON_VALUES, max_size=4), max_size=5))
def test_cases_digest_of_any_json_cases(cases: list[dict[str, Any]]) -> None:
    assert cases_digest(cases) == documented_digest(cases)


def documented_digest(cases: list[dict[str, Any]]) -> str:
    text = json.dumps(cases, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
