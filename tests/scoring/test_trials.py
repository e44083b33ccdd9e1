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
    effective_cases,
    pass_at_k,
    pass_hat_k,
    summarise,
    trials_report,
)

Z = 1.959963984540054


def wilson(p: float, n: float) -> list[float]:
    """The Wilson score interval written out: centre and half-width over 1 + z^2 / n."""
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return [centre - half, centre + half]


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


def test_interval_is_wilson_on_the_effective_number_of_cases() -> None:
    # per-case rates 0.75, 0.5, 0.25 from 4 trials each: s^2 = 0.0625, so
    # n_eff = 0.5 * 0.5 * 3 / 0.0625 = 12, as many as the trials (independent draws)
    assert effective_cases([0.75, 0.5, 0.25], 12) == pytest.approx(12)
    result = clustered_mean([0.75, 0.5, 0.25], 12)
    assert result["interval"] == pytest.approx(wilson(0.5, 12))
    # rates 1, 0.5, 0: s^2 = 0.25, n_eff = 0.25 * 3 / 0.25 = 3, one draw a case
    assert clustered_mean([1.0, 0.5, 0.0], 12)["interval"] == pytest.approx(wilson(0.5, 3))


def test_the_interval_does_not_collapse_when_every_case_agrees() -> None:
    # five cases passing 3 of 3: the spread is 0 and says nothing, so n_eff is the 5 cases:
    # the Wilson interval of 5 of 5, [5 / (5 + z^2), 1], not [1, 1]
    low, high = clustered_mean([1.0] * 5, 15)["interval"]
    assert (low, high) == (pytest.approx(5 / (5 + Z * Z)), 1.0)
    assert clustered_mean([0.0] * 5, 15)["interval"] == [0.0, pytest.approx(Z * Z / (5 + Z * Z))]
    # every case at 2 of 3: inside (0, 1) with no spread, the trials count: n_eff = 15
    assert clustered_mean([2 / 3] * 5, 15)["interval"] == pytest.approx(wilson(2 / 3, 15))


def test_effective_cases_stay_between_the_cases_and_the_draws() -> None:
    # one flaky case among nine that always pass: s^2 = 0.004, n_eff would be 49 of 50 draws
    values = [1.0] * 9 + [0.8]
    assert effective_cases(values, 50) == pytest.approx(0.98 * 0.02 * 10 / 0.004)
    assert effective_cases(values, 20) == 20  # capped at the draws
    assert effective_cases([1.0, 0.0, 1.0, 0.0], 40) == 4  # never fewer than the cases


def test_cases_of_other_shapes_with_one_value_count_as_that_many_cases() -> None:
    # rates 1/2, 5/10, 5/10 and 1/1: four cases, 23 trials; mean (0.5 * 3 + 1) / 4 = 0.625,
    # s^2 = (3 * 0.125^2 + 0.375^2) / 3 = 0.0625, n_eff = 0.625 * 0.375 * 4 / 0.0625 = 15
    cases = [
        CaseTrials("A", "s", 1, 2),
        CaseTrials("B", "s", 5, 10),
        CaseTrials("C", "s", 5, 10),
        CaseTrials("D", "s", 1, 1),
    ]
    summary = summarise(cases)
    assert summary["cases"] == 4 and summary["trials"] == 23
    assert summary["mean_pass_rate"]["value"] == 0.625
    assert summary["mean_pass_rate"]["interval"] == pytest.approx(wilson(0.625, 15))
    # k is 1 (D has one trial): pass^1 and pass@1 are the rates themselves
    assert summary["pass_hat_k"] == {"1": summary["mean_pass_rate"]}
    assert summary["pass_at_k"] == {"1": summary["mean_pass_rate"]}


def test_flaky_cases_most_uncertain_first() -> None:
    report = trials_report([*CASES, CaseTrials("D", "t", 3, 4)])
    assert [row["id"] for row in report["flaky"]] == ["B", "D"]
    assert report["per_case"]["B"] == [2, 4]
    assert report["slices"]["t"]["cases"] == 2


def test_compare_pairs_trial_runs_on_mean_pass_rate() -> None:
    from goldcase.scoring.compare import judge, measure, pair

    def report(per_case: dict[str, list[int]]) -> dict[str, object]:
        cases = [{"id": i, "slice": "s", "passed": p == n} for i, (p, n) in per_case.items()]
        return {"cases": cases, "trials": {"per_case": per_case}}

    base = report({"A": [4, 4], "B": [2, 4], "C": [0, 4]})
    head = report({"A": [3, 4], "B": [1, 4], "C": [0, 4]})
    pairs = pair(base, head)
    delta = measure("s", pairs, trials=True, floor=3)
    # means 0.5 -> 1/3; differences -1/4, -1/4, 0: of the 4 sign patterns of the two non-zero
    # ones, 1 sums to -1/2 or less
    assert delta.points == pytest.approx(-100 / 6)
    assert delta.p_value == pytest.approx(1 / 4)
    assert delta.low is not None and delta.high is not None
    assert delta.low < delta.points / 100 < delta.high
    comparison = judge(pairs, [delta], True, 5.0, 0.05)
    assert comparison.measure == "mean_pass_rate"
    assert comparison.passed  # 2 cases that moved cannot make p <= 0.05
