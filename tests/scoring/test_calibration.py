"""Calibration: the Clopper-Pearson bound against published values, the threshold search on
synthetic scores whose risk is known, and the too-few-cases refusal."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.errors import GoldcaseError
from goldcase.scoring.calibration import (
    binomial_cdf,
    calibrate,
    cases_needed,
    clopper_pearson_upper,
    search_tests,
)


@pytest.mark.parametrize(
    ("k", "n", "p", "expected"),
    [
        (1, 3, 0.5, 0.5),  # (1 + 3) / 8
        (0, 4, 0.25, 0.31640625),  # 0.75 ** 4
        (2, 4, 0.5, 11 / 16),  # (1 + 4 + 6) / 16
        (4, 4, 0.3, 1.0),
        (-1, 4, 0.3, 0.0),
    ],
)
def test_binomial_cdf_by_hand(k: int, n: int, p: float, expected: float) -> None:
    assert binomial_cdf(k, n, p) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        # upper ends of the exact two-sided 95% Clopper-Pearson intervals in published tables:
        # 1/10 -> (0.0025, 0.4450), 5/20 -> (0.0866, 0.4910)
        (1, 10, 0.4450),
        (5, 20, 0.4910),
    ],
)
def test_clopper_pearson_matches_published_tables(k: int, n: int, expected: float) -> None:
    assert clopper_pearson_upper(k, n, 0.025) == pytest.approx(expected, abs=5e-5)


def test_clopper_pearson_edges() -> None:
    assert clopper_pearson_upper(0, 30, 0.05) == pytest.approx(1 - 0.05 ** (1 / 30))
    assert clopper_pearson_upper(7, 7, 0.05) == 1.0
    assert clopper_pearson_upper(0, 0, 0.05) == 1.0
    # the bound solves P(X <= k) = delta
    bound = clopper_pearson_upper(12, 200, 0.01)
    assert binomial_cdf(12, 200, bound) == pytest.approx(0.01, rel=1e-6)


def test_search_tests_and_cases_needed_by_hand() -> None:
    assert [search_tests(m) for m in (0, 1, 2, 3, 7, 8)] == [1, 1, 2, 2, 3, 4]
    # ln(0.05) / ln(0.9) = 28.43 -> 29 answers with none wrong are needed for a 10% bound
    assert cases_needed(0.1, 0.05) == 29


def test_a_small_table_worked_by_hand() -> None:
    answers = [(0.9, True)] * 30 + [(0.5, False)] * 10
    result = calibrate(answers, total=50, target_risk=0.1, delta=0.1)
    # two candidates -> two tests at 0.1 / 2; 0.9 keeps 30 right answers: bound 1 - 0.05^(1/30)
    assert result.certified
    assert result.threshold == 0.9
    assert (result.answered, result.wrong) == (30, 0)
    assert result.coverage == pytest.approx(0.6)
    assert result.bound == pytest.approx(1 - 0.05 ** (1 / 30))
    assert [(s.threshold, s.certified) for s in result.steps] == [(0.9, True), (0.5, False)]


def test_synthetic_scores_with_a_known_risk_curve() -> None:
    # 400 right answers at confidence 0.6..0.9995; 600 at 0..0.599, every second one wrong.
    answers = [(0.6 + i * 0.4 / 400, True) for i in range(400)]
    answers += [(i / 1000, i % 2 == 0) for i in range(600)]
    result = calibrate(answers, total=1000, target_risk=0.1, delta=0.05)
    # the empirical risk reaches 0.1 only once 100 of the lower cases are answered (t = 0.5);
    # the certified threshold must sit between that and 0.6
    assert result.certified
    assert 0.5 < result.threshold <= 0.6
    assert result.risk is not None and result.risk <= 0.1
    assert result.bound is not None and result.bound <= 0.1


def test_the_bound_holds_on_fresh_draws_at_least_one_minus_delta_of_the_time() -> None:
    # confidence c ~ U(0, 1) and P(wrong | c) = 1 - c: the selective risk at t is (1 - t) / 2,
    # so the threshold is safe for a 0.2 target exactly when t >= 0.6
    rng = random.Random(20261130)
    target, delta, trials = 0.2, 0.1, 40
    certified = violations = 0
    for _ in range(trials):
        answers = []
        for _ in range(1000):
            c = round(rng.random(), 4)
            answers.append((c, rng.random() < c))
        result = calibrate(answers, total=1000, target_risk=target, delta=delta)
        certified += result.certified
        violations += result.certified and (1 - result.threshold) / 2 > target
    assert violations <= delta * trials
    assert certified == trials  # 1,000 cases are plenty to certify 0.2 on this curve


def test_too_few_cases_abstains_from_everything() -> None:
    result = calibrate([(0.8, True)] * 10, total=12, target_risk=0.1, delta=0.05)
    assert not result.certified
    assert result.threshold == 1.0
    assert (result.answered, result.coverage, result.bound) == (0, 0.0, None)
    # one candidate, one test: 10 right answers still bound the risk at 1 - 0.05^(1/10)
    assert result.reason.startswith("too few answered calibration cases to certify 0.1: 10 ")
    assert f"{1 - 0.05**0.1:.3f}" in result.reason
    assert "about 29 are needed" in result.reason


def test_a_confidence_of_one_gets_a_threshold_above_it() -> None:
    result = calibrate([(1.0, True)] * 3, total=3, target_risk=0.1)
    assert result.threshold > 1.0
    assert not result.certified


def test_enough_cases_but_too_many_wrong() -> None:
    answers = [(i / 100, i % 3 != 0) for i in range(100)]  # a third wrong at every level
    result = calibrate(answers, total=100, target_risk=0.1, delta=0.05)
    assert not result.certified
    assert result.reason.startswith("no tested threshold keeps the bound within 0.1")


def test_nothing_answered() -> None:
    result = calibrate([], total=20, target_risk=0.2)
    assert not result.certified
    assert result.coverage == 0.0
    assert result.steps == ()


@pytest.mark.parametrize(
    ("answers", "total", "risk", "delta", "message"),
    [
        ([], 5, 0.0, 0.05, "--target-risk should be between 0 and 1"),
        ([], 5, 0.1, 1.0, "--delta should be between 0 and 1"),
        ([(0.5, True)] * 3, 2, 0.1, 0.05, "3 answers for only 2 calibration cases"),
        ([(1.5, True)], 2, 0.1, 0.05, "a confidence should be between 0 and 1"),
    ],
)
def test_bad_arguments(
    answers: list[tuple[float, bool]], total: int, risk: float, delta: float, message: str
) -> None:
    with pytest.raises(GoldcaseError, match=message):
        calibrate(answers, total, risk, delta)


def test_result_is_the_same_whatever_the_order() -> None:
    answers = [(round(math.sin(i) ** 2, 3), i % 5 != 0) for i in range(200)]
    first = calibrate(answers, 200, 0.3)
    assert calibrate(list(reversed(answers)), 200, 0.3) == first


ANSWERS = st.lists(st.tuples(st.integers(0, 20).map(lambda i: i / 20), st.booleans()), max_size=120)


@settings(max_examples=200, deadline=None)
@given(ANSWERS, st.integers(0, 40), st.sampled_from([0.05, 0.1, 0.3, 0.5]))
def test_what_calibrate_reports_is_what_the_answers_say(
    answers: list[tuple[float, bool]], extra: int, target: float
) -> None:
    total = len(answers) + extra
    result = calibrate(answers, total, target, 0.05)
    if result.certified:
        kept = [passed for confidence, passed in answers if confidence >= result.threshold]
        assert (result.answered, result.wrong) == (len(kept), kept.count(False))
        assert result.bound is not None and result.bound <= target
        assert result.coverage == pytest.approx(len(kept) / total)
        assert result.bound == pytest.approx(
            clopper_pearson_upper(
                result.wrong, result.answered, 0.05 / search_tests(len({c for c, _ in answers}))
            )
        )
    else:
        assert all(confidence < result.threshold for confidence, _ in answers)
        assert (result.answered, result.bound) == (0, None)
    assert len(result.steps) <= search_tests(len({c for c, _ in answers}))
