"""Every interval and test goldcase reports, checked against a reference implementation
(statsmodels, scipy, numpy) on random inputs drawn by hypothesis.

Where no released library has the method itself (Newcombe's paired interval, the stratified
and clustered Wilson intervals), its building blocks are checked: each Wilson interval against
statsmodels, the correlation against scipy, the binomial variances against scipy, and the
weighted mean against numpy."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from goldcase.scoring.calibration import clopper_pearson_upper
from goldcase.scoring.metrics import Z95, wilson, wilson_at
from goldcase.scoring.paired import newcombe_paired
from goldcase.scoring.significance import holm, mcnemar_exact, mcnemar_lower, sign_flip_lower
from goldcase.scoring.trials import clustered_mean, effective_cases
from goldcase.scoring.weighted import Stratum, weighted_rate

TIGHT = {"rel": 1e-9, "abs": 1e-12}
counts = st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@settings(max_examples=200)
@given(counts)
def test_wilson_is_statsmodels_wilson(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert wilson(k, n) == (pytest.approx(low, **TIGHT), pytest.approx(high, **TIGHT))


@settings(max_examples=200)
@given(st.floats(0, 1), st.floats(1, 5000))
def test_wilson_on_an_effective_number_is_statsmodels_wilson(p: float, n: float) -> None:
    low, high = proportion_confint(p * n, n, alpha=0.05, method="wilson")
    got = wilson_at(p, n)
    assert got[0] == pytest.approx(max(0.0, low), **TIGHT)
    assert got[1] == pytest.approx(min(1.0, high), **TIGHT)


@settings(max_examples=150)
@given(counts, st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_clopper_pearson_upper_is_the_beta_quantile(kn: tuple[int, int], delta: float) -> None:
    k, n = kn
    want = 1.0 if k == n else stats.beta.ppf(1 - delta, k + 1, n - k)
    assert clopper_pearson_upper(k, n, delta) == pytest.approx(want, abs=1e-9)


discordant = st.tuples(st.integers(0, 300), st.integers(0, 300))


@settings(max_examples=200)
@given(discordant)
def test_exact_mcnemar_is_statsmodels_and_scipy(bc: tuple[int, int]) -> None:
    b, c = bc
    table = [[10, b], [c, 10]]
    assert mcnemar_exact(b, c) == pytest.approx(mcnemar(table, exact=True).pvalue, **TIGHT)
    one_sided = 1.0 if b + c == 0 else stats.binomtest(b, b + c, 0.5, "greater").pvalue
    assert mcnemar_lower(b, c) == pytest.approx(one_sided, **TIGHT)


small_differences = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from([1, 2, 3, 4])).map(
        lambda pt: Fraction(min(pt), pt[1])
    ),
    min_size=4,
    max_size=24,
).map(lambda shares: [shares[i] - shares[i + 1] for i in range(0, len(shares) - 1, 2)])


@settings(max_examples=120, deadline=None)
@given(small_differences)
def test_sign_flip_is_scipys_exact_permutation_test(diffs: list[Fraction]) -> None:
    # scaled by 12 (every denominator divides it) so that scipy's float sums are exact: with
    # thirds, -1 + 2/3 + 1/3 is not 0 in floating point and a tie would be missed
    data = np.array([float(d * 12) for d in diffs])
    result = stats.permutation_test(
        (data,),
        lambda x, axis: np.sum(x, axis=axis),
        permutation_type="samples",
        alternative="less",
        n_resamples=np.inf,
    )
    assert sign_flip_lower(diffs).p == pytest.approx(result.pvalue, **TIGHT)


def _enumerated(diffs: list[Fraction]) -> Fraction:
    """P(S <= observed) by convolving the distribution of the sum one difference at a time,
    in exact fractions: slow, plain, and independent of the packed-integer product."""
    sums: Counter[Fraction] = Counter({Fraction(0): 1})
    for d in diffs:
        step: Counter[Fraction] = Counter()
        for total, ways in sums.items():
            step[total + d] += ways
            step[total - d] += ways
        sums = step
    observed = sum(diffs, Fraction(0))
    return Fraction(sum(w for s, w in sums.items() if s <= observed), sum(sums.values()))


trial_shares = st.integers(1, 10).flatmap(
    lambda t: st.lists(
        st.tuples(st.integers(0, t), st.integers(0, t)), min_size=1, max_size=60
    ).map(lambda rows: [Fraction(h, t) - Fraction(b, t) for b, h in rows])
)


@settings(max_examples=60, deadline=None)
@given(trial_shares)
def test_sign_flip_is_the_enumerated_distribution_at_larger_n(diffs: list[Fraction]) -> None:
    assert sign_flip_lower(diffs).p == pytest.approx(float(_enumerated(diffs)), **TIGHT)


@settings(max_examples=30)  # statsmodels' multipletests takes about 80 ms a call
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_is_statsmodels_holm(p_values: list[float]) -> None:
    want = multipletests(p_values, alpha=0.05, method="holm")[1]
    assert holm(p_values) == pytest.approx(list(want), **TIGHT)


tables = st.tuples(*[st.integers(0, 40)] * 4).filter(lambda t: sum(t) > 0)


def _expanded(a: int, b: int, c: int, d: int) -> tuple[list[int], list[int]]:
    """The paired outcomes behind a 2x2 table: (passed in HEAD, passed in BASE) per case."""
    head = [1] * a + [1] * b + [0] * c + [0] * d
    base = [1] * a + [0] * b + [1] * c + [0] * d
    return head, base


@settings(max_examples=200)
@given(tables)
def test_newcombe_paired_is_statsmodels_newcombe_when_uncorrelated(
    cells: tuple[int, int, int, int],
) -> None:
    # with the continuity-corrected phi at 0 (0 <= ad - bc <= n/2, or a margin empty) method
    # 10 for paired data is method 10 for independent samples of the same size
    a, b, c, d = cells
    n, cross = sum(cells), a * d - b * c
    if not (0 <= cross <= n / 2 or (a + b) * (c + d) * (a + c) * (b + d) == 0):
        return
    low, high = confint_proportions_2indep(a + b, n, a + c, n, method="newcomb", compare="diff")
    diff, got_low, got_high = newcombe_paired(a, b, c, d)
    assert diff == pytest.approx((b - c) / n, **TIGHT)
    assert (got_low, got_high) == (pytest.approx(low, **TIGHT), pytest.approx(high, **TIGHT))


@settings(max_examples=200)
@given(tables)
def test_newcombe_paired_from_statsmodels_wilson_and_scipy_correlation(
    cells: tuple[int, int, int, int],
) -> None:
    # negatively correlated tables take phi uncorrected: the Pearson correlation of the paired
    # outcomes (scipy), combined with each rate's Wilson interval (statsmodels)
    a, b, c, d = cells
    n = sum(cells)
    if a * d - b * c >= 0 or (a + b) * (c + d) * (a + c) * (b + d) == 0:
        return
    head, base = _expanded(a, b, c, d)
    phi = stats.pearsonr(head, base).statistic
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, method="wilson")
    l2, u2 = proportion_confint(a + c, n, method="wilson")
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    high = p1 - p2 + math.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    _, got_low, got_high = newcombe_paired(a, b, c, d)
    assert got_low == pytest.approx(max(-1.0, low), rel=1e-9, abs=1e-9)
    assert got_high == pytest.approx(min(1.0, high), rel=1e-9, abs=1e-9)


strata = st.lists(
    st.tuples(st.integers(1, 200), st.floats(0.01, 1), st.floats(0, 1)).map(
        lambda t: Stratum("s", t[0], round(t[2] * t[0]), t[1])
    ),
    min_size=1,
    max_size=10,
)


@settings(max_examples=200)
@given(strata)
def test_the_stratified_interval_from_its_building_blocks(rows: list[Stratum]) -> None:
    weights = np.array([s.share for s in rows])
    rates = np.array([s.success / s.total for s in rows])
    value, (low, high), n_eff = weighted_rate(rows)
    assert value == pytest.approx(np.average(rates, weights=weights), **TIGHT)
    # the adjusted rates' binomial variance (scipy), weighted; n_eff = p~ (1 - p~) / it
    w = weights / weights.sum()
    adjusted = [(s.success + Z95**2 / 2) / (s.total + Z95**2) for s in rows]
    variance = sum(
        wi**2 * stats.binom.var(s.total, p) / s.total**2
        for wi, s, p in zip(w, rows, adjusted, strict=True)
    )
    centre = float(np.dot(w, adjusted))
    cases = sum(s.total for s in rows)
    assert n_eff == pytest.approx(min(cases, centre * (1 - centre) / variance), **TIGHT)
    want_low, want_high = proportion_confint(value * n_eff, n_eff, method="wilson")
    assert low == pytest.approx(max(0.0, want_low), rel=1e-9, abs=1e-12)
    assert high == pytest.approx(min(1.0, want_high), rel=1e-9, abs=1e-12)
    assert low <= value <= high


def test_one_stratum_is_its_own_wilson_interval() -> None:
    value, interval, n_eff = weighted_rate([Stratum("only", 23, 9, 0.4)])
    assert (value, n_eff) == (9 / 23, pytest.approx(23))
    assert interval == pytest.approx(proportion_confint(9, 23, method="wilson"), **TIGHT)


case_values = st.integers(1, 10).flatmap(
    lambda t: st.tuples(
        st.lists(st.integers(0, t), min_size=1, max_size=60).map(lambda c: [x / t for x in c]),
        st.just(t),
    )
)


@settings(max_examples=200)
@given(case_values)
def test_the_clustered_interval_from_its_building_blocks(
    values_trials: tuple[list[float], int],
) -> None:
    values, trials = values_trials
    m, draws = len(values), len(values) * trials
    mean = float(np.mean(values))
    spread = float(np.var(values, ddof=1)) if m > 1 else 0.0
    if spread > 1e-12:
        want = min(draws, max(m, mean * (1 - mean) * m / spread))
        assert effective_cases(values, draws) == pytest.approx(want, rel=1e-9)
    n_eff = effective_cases(values, draws)
    assert m <= n_eff <= max(m, draws)
    low, high = proportion_confint(mean * n_eff, n_eff, method="wilson")
    got = clustered_mean(values, draws)["interval"]
    assert got[0] == pytest.approx(max(0.0, low), rel=1e-9, abs=1e-12)
    assert got[1] == pytest.approx(min(1.0, high), rel=1e-9, abs=1e-12)


@settings(max_examples=100)
@given(tables)
def test_the_trial_interval_on_single_runs_is_newcombes(cells: tuple[int, int, int, int]) -> None:
    # case means of 0 and 1 (one trial each): the clustered intervals are the Wilson intervals
    # of the two rates and the corrected correlation is Newcombe's phi
    from goldcase.scoring.paired import Pair, measure

    head, base = _expanded(*cells)
    pairs = [
        Pair(str(i), "s", bool(b), bool(h), Fraction(b), Fraction(h))
        for i, (b, h) in enumerate(zip(base, head, strict=True))
    ]
    trial = measure("s", pairs, trials=True)
    single = measure("s", pairs, trials=False)
    assert (trial.low, trial.high) == (
        pytest.approx(single.low, abs=1e-9),
        pytest.approx(single.high, abs=1e-9),
    )
