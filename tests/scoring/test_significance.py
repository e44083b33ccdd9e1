"""The gate's paired tests and family correction, by hand: the sign-flip test exact at any n
(the issue's 21 differences), McNemar as its special case, the approximation past the size
budget, and Holm's step-down."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from goldcase.scoring import significance
from goldcase.scoring.significance import (
    binomial_half_cdf,
    holm,
    mcnemar_exact,
    mcnemar_lower,
    min_p,
    sign_flip_lower,
    sign_flip_two_sided,
    tarone_family,
    tarone_holm,
)


def test_twenty_one_differences_give_the_exact_p_not_the_normal_one() -> None:
    # 15 down and 6 up: P(X <= 6) for X ~ Binomial(21, 1/2) = (1 + 21 + 210 + 1330 + 5985 +
    # 20349 + 54264) / 2^21 = 82160 / 2097152
    diffs = [-1] * 15 + [1] * 6
    assert sign_flip_lower(diffs).p == 82160 / 2**21  # 0.0392, one-sided
    two_sided = sign_flip_two_sided(diffs)
    assert two_sided.p == pytest.approx(0.0784, abs=5e-5)  # the exact value in the issue
    assert two_sided.exact
    # what the normal approximation without continuity correction gave: 0.0495
    assert math.erfc(9 / math.sqrt(21) / math.sqrt(2)) == pytest.approx(0.0495, abs=5e-5)


def test_fractional_differences_by_enumeration() -> None:
    # differences -1/2, -1/4, +1/4 (scaled: -2, -1, +1; sum -2). The 8 sums of the sign
    # patterns: +-2 +-1 +-1 = 4, 2, 2, 0, 0, -2, -2, -4; at most -2: 3 of 8
    assert sign_flip_lower([Fraction(-1, 2), Fraction(-1, 4), Fraction(1, 4)]).p == 3 / 8
    # zeros carry no evidence and leave the test
    assert sign_flip_lower([Fraction(-1, 2), 0, Fraction(-1, 4), Fraction(1, 4), 0]).p == 3 / 8
    assert sign_flip_lower([]).p == 1.0
    assert sign_flip_lower([0, 0]).p == 1.0


def test_two_sided_is_twice_the_smaller_tail() -> None:
    assert sign_flip_two_sided([1, 1, 1, 0]).p == pytest.approx(2 / 8)
    assert sign_flip_two_sided([Fraction(1, 2), Fraction(-1, 2)]).p == 1.0
    assert sign_flip_two_sided([]).p == 1.0


@pytest.mark.parametrize(("b", "c"), [(0, 0), (5, 0), (15, 6), (6, 15), (40, 31), (1, 9)])
def test_single_runs_make_it_the_exact_mcnemar_test(b: int, c: int) -> None:
    # b regressions (-1) and c improvements (+1): P(X >= b) = P(X <= c), X ~ Bin(b + c, 1/2)
    assert sign_flip_lower([-1] * b + [1] * c).p == mcnemar_lower(b, c)
    assert mcnemar_lower(b, c) == float(binomial_half_cdf(c, b + c))


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [(1, 9, 22 / 1024), (6, 0, 2 / 64), (5, 5, 1.0), (0, 0, 1.0)],
)
def test_two_sided_mcnemar(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == expected


def test_past_the_size_budget_it_is_a_labelled_approximation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    diffs = [Fraction(-2, 3)] * 7 + [Fraction(1, 3)] * 5 + [Fraction(-1, 3)] * 4
    exact = sign_flip_lower(diffs)
    assert exact.exact and exact.method == "exact"
    monkeypatch.setattr(significance, "EXACT_BITS", 10)
    approx = sign_flip_lower(diffs)
    assert not approx.exact
    assert approx.method == "normal approximation, continuity-corrected"
    # scaled: 7 x -2, 5 x +1, 4 x -1: sum -13, variance 7 * 4 + 5 + 4 = 37;
    # P(S <= -13) ~ Phi((-13 + 1) / sqrt(37))
    assert approx.p == pytest.approx(0.5 * math.erfc(12 / math.sqrt(37) / math.sqrt(2)))
    assert approx.p == pytest.approx(exact.p, abs=0.01)


def test_a_thousand_cases_with_five_trials_stay_exact() -> None:
    diffs = [Fraction((i * 7) % 11 - 5, 5) for i in range(1000)]
    diffs = [max(Fraction(-1), min(Fraction(1), d)) for d in diffs]
    assert sign_flip_lower(diffs).exact


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04, 0.2 times 4, 3, 2, 1: 0.04, 0.09, 0.08 -> 0.09 (monotone), 0.2
    assert holm([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([]) == []


def test_min_p_is_the_all_negative_pattern() -> None:
    assert (min_p(0), min_p(1), min_p(6)) == (1.0, 0.5, 1 / 64)
    assert sign_flip_lower([-1] * 6).p == min_p(6)
    assert sign_flip_lower([Fraction(-1, 3), Fraction(-2, 3), -1]).p == min_p(3)


def test_tarone_leaves_out_tests_that_cannot_reach_alpha() -> None:
    # K = 1: two tests can reach 0.05 (too many for K = 1); K = 2: the same two can reach
    # 0.025: the family is those two, and the unchanged one (min p 1) is left out
    assert tarone_family([1 / 64, 1.0, 1 / 64], 0.05) == [0, 2]
    # nothing can reach 0.05 with two changed cases (min p 1/4): an empty family
    assert tarone_family([0.25, 1.0], 0.05) == []
    # 1/32 reaches 0.05 but not 0.05 / 2: with two such tests, K = 2 and neither counts
    assert tarone_family([1 / 32, 1 / 32], 0.05) == []
    assert tarone_family([1 / 32, 1 / 32], 0.1) == [0, 1]
    # ten tests that can all reach anything: K = 10, as plain Holm
    assert tarone_family([1e-9] * 10, 0.05) == list(range(10))


def test_tarone_holm_adjusts_within_the_family_and_gives_1_outside() -> None:
    p_values = [1 / 64, 0.9, 1 / 64]
    adjusted = tarone_holm(p_values, [1 / 64, 1.0, 1 / 64], 0.05)
    assert adjusted == [2 / 64, 1.0, 2 / 64]
    # with every test in the family it is Holm
    assert tarone_holm([0.01, 0.04, 0.03, 0.2], [0.0] * 4, 0.05) == holm([0.01, 0.04, 0.03, 0.2])
