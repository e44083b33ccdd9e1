"""Repeated trials on a fixture whose pass^k and pass@k were worked by hand:
A passes 4 of 4, B 2 of 4, C 0 of 4.

mean pass rate = (1 + 0.5 + 0) / 3 = 0.5
pass^4 = (1 + 0 + 0) / 3 = 1/3           pass@4 = (1 + 1 + 0) / 3 = 2/3
pass^2 = (C(4,2)/C(4,2) + C(2,2)/C(4,2) + 0) / 3 = (1 + 1/6) / 3 = 7/18
pass@2 = (1 + (1 - C(2,2)/C(4,2)) + 0) / 3 = (1 + 5/6) / 3 = 11/18
"""

from __future__ import annotations

import math

import pytest

from goldcase.scoring.trials import (
    CaseTrials,
    clustered_mean,
    paired_sign_flip,
    pass_at_k,
    pass_hat_k,
    summarise,
    trials_report,
)

CASES = [
    CaseTrials("A", "s", 4, 4),
    CaseTrials("B", "s", 2, 4),
    CaseTrials("C", "t", 0, 4),
]


def test_estimators_by_hand() -> None:
    assert pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)
    assert pass_at_k(2, 4, 2) == pytest.approx(5 / 6)
    assert pass_at_k(0, 4, 4) == 0 and pass_hat_k(4, 4, 4) == 1


def test_set_summary() -> None:
    summary = summarise(CASES)
    assert summary["cases"] == 3 and summary["trials"] == 12
    assert summary["mean_pass_rate"]["value"] == pytest.approx(0.5)
    assert summary["pass_hat_k"]["4"]["value"] == pytest.approx(1 / 3)
    assert summary["pass_at_k"]["4"]["value"] == pytest.approx(2 / 3)
    assert set(summary["pass_hat_k"]) == {"1", "4"}


def test_k_two_when_a_case_has_two_trials() -> None:
    summary = summarise([*CASES[:2], CaseTrials("C", "t", 0, 4), CaseTrials("D", "t", 1, 2)])
    # D: pass^2 = C(1,2)/C(2,2) = 0; pass@2 = 1 - C(1,2)/C(2,2) = 1
    assert summary["pass_hat_k"]["2"]["value"] == pytest.approx((1 + 1 / 6 + 0 + 0) / 4)
    assert summary["pass_at_k"]["2"]["value"] == pytest.approx((1 + 5 / 6 + 0 + 1) / 4)


def test_interval_is_clustered_on_cases() -> None:
    # per-case rates 0.75, 0.5, 0.25: sd = 0.25, se = 0.25 / sqrt(3)
    result = clustered_mean([0.75, 0.5, 0.25])
    half = 1.959963984540054 * 0.25 / math.sqrt(3)
    assert result["interval"] == pytest.approx([0.5 - half, 0.5 + half])
    # per-case rates 1, 0.5, 0: the interval is clipped to [0, 1]
    assert clustered_mean([1.0, 0.5, 0.0])["interval"] == [0.0, 1.0]


def test_flaky_cases_most_uncertain_first() -> None:
    report = trials_report([*CASES, CaseTrials("D", "t", 3, 4)])
    assert [row["id"] for row in report["flaky"]] == ["B", "D"]
    assert report["per_case"]["B"] == [2, 4]
    assert report["slices"]["t"]["cases"] == 2


def test_paired_sign_flip_exact() -> None:
    # differences +1, +1, +1: of the 8 sign patterns, 2 reach |sum| >= 3
    assert paired_sign_flip([1, 1, 1, 0]) == pytest.approx(2 / 8)
    assert paired_sign_flip([0, 0]) == 1.0
    assert paired_sign_flip([0.5, -0.5]) == pytest.approx(1.0)


def test_compare_pairs_trial_runs_on_mean_pass_rate() -> None:
    from goldcase.scoring.compare import paired_trials

    def report(per_case: dict[str, list[int]]) -> dict[str, object]:
        cases = [{"id": i, "passed": p == n} for i, (p, n) in per_case.items()]
        return {"cases": cases, "trials": {"per_case": per_case}}

    base = report({"A": [4, 4], "B": [2, 4], "C": [0, 4]})
    head = report({"A": [3, 4], "B": [1, 4], "C": [0, 4]})
    paired = paired_trials(base, head)
    assert paired is not None
    # means 0.5 -> 1/3; differences -0.25, -0.25, 0: of 4 sign patterns, 2 reach |sum| 0.5
    assert paired["delta_points"] == pytest.approx(-100 / 6, abs=1e-4)
    assert paired["p_value"] == pytest.approx(0.5)
    assert paired["cases"] == 3
    assert paired_trials({"cases": []}, {"cases": []}) is None  # neither run has trials
