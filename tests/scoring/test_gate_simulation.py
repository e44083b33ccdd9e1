"""The gate's stated error rates, by the simulation in scripts/sim_gate.py (seeded): unchanged
systems fail it at most alpha of the time for 6 and 10 slices of 20 cases, and a 40-point
collapse of one 20-case slice fails it.

A simulated rate is a count out of REPS replicates, so the bound allows for simulation noise:
the count may reach, but not pass, the largest value a Binomial(REPS, alpha) count exceeds
with probability 1 in 1,000. The margin is computed below, not chosen."""

from __future__ import annotations

import importlib.util
import math
import sys
from fractions import Fraction
from types import ModuleType

import pytest
from scipy import stats

from goldcase.scoring.compare import judge
from goldcase.scoring.paired import Pair, measure
from kit import REPO_ROOT

ALPHA = 0.05
REPS = 1000
RISK = 0.001  # the chance that the bound fails a gate whose true rate is exactly alpha


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sim_gate", REPO_ROOT / "scripts" / "sim_gate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sim_gate"] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


sim = _load()


def upper_bound(reps: int, rate: float, risk: float = RISK) -> int:
    """The largest count c with P(X > c) <= risk for X ~ Binomial(reps, rate)."""
    tail = 1.0
    for c in range(reps + 1):
        tail -= math.comb(reps, c) * rate**c * (1 - rate) ** (reps - c)
        if tail <= risk:
            return c
    return reps


def lower_bound(reps: int, rate: float, risk: float = RISK) -> int:
    """The largest count c with P(X < c) <= risk for X ~ Binomial(reps, rate)."""
    below = 0.0
    for c in range(reps + 1):
        below += math.comb(reps, c) * rate**c * (1 - rate) ** (reps - c)
        if below > risk:
            return c
    return reps


def test_the_noise_bounds_are_scipys_binomial_quantiles() -> None:
    # 1,000 replicates at 5%: mean 50, sd 6.9; P(X > 73) = 0.00065 <= 0.001 < P(X > 72)
    assert upper_bound(REPS, ALPHA) == stats.binom.isf(RISK, REPS, ALPHA) == 73
    assert lower_bound(400, 0.75) == stats.binom.ppf(RISK, 400, 0.75) == 273


@pytest.mark.parametrize("system", ["coin", "stable"])
@pytest.mark.parametrize("slices", [6, 10])
def test_an_unchanged_system_fails_the_gate_at_most_alpha_of_the_time(
    system: str, slices: int
) -> None:
    failed, old = sim.rates(sim.Cell(system, slices, 20, 0, 1), REPS, old=True)
    assert failed <= upper_bound(REPS, ALPHA)
    # the old rule (point estimate past --max-drop, no correction) failed it most of the time
    assert old > REPS // 3


@pytest.mark.parametrize("slices", [6, 10])
def test_the_same_holds_for_trial_runs(slices: int) -> None:
    failed, _ = sim.rates(sim.Cell("coin", slices, 20, 0, 5), 400)
    assert failed <= upper_bound(400, ALPHA)


def _pairs(slices: int, lost: int, noise: int) -> list[Pair]:
    """Slices of 20 cases. The first passes 18 in BASE and loses ``lost`` of them in HEAD;
    in every other slice ``noise`` cases go passed -> failed and ``noise`` failed -> passed
    (run-to-run flips), 18 - 2 x noise pass in both and 2 fail in both."""
    pairs = []
    for s in range(slices):
        for i in range(20):
            if s == 0:
                base, head = i >= 2, i >= 2 + lost
            else:
                steady = 2 * noise <= i < 18
                base, head = i < noise or steady, noise <= i < 2 * noise or steady
            pairs.append(Pair(f"s{s}-{i}", f"s{s}", base, head, Fraction(base), Fraction(head)))
    return pairs


def _fails(pairs: list[Pair]) -> bool:
    names = sorted({p.slice for p in pairs})
    measured = [measure(n, [p for p in pairs if p.slice == n], False, floor=20) for n in names]
    return not judge(pairs, measured, False, 5.0, ALPHA).passed


@pytest.mark.parametrize("slices", [6, 10])
@pytest.mark.parametrize("noise", [0, 1, 2, 3])
def test_a_40_point_collapse_of_one_20_case_slice_fails(slices: int, noise: int) -> None:
    # 18/20 -> 10/20: 8 regressions, p = 2^-8 = 0.0039. A slice trading k cases each way can
    # reach no p under 2^-2k, so for k <= 3 Tarone's family is the collapsed slice and
    # overall, and Holm compares 0.0039 with 0.05 / 2
    assert _fails(_pairs(slices, 8, noise))
    assert not _fails(_pairs(slices, 0, noise))


def test_a_40_point_collapse_fails_the_gate_in_simulation() -> None:
    # the stable system (80% of cases pass 97% of the time, 20% pass 5%), 6 slices of 20: in
    # HEAD each case of one slice breaks with probability 0.4 / 0.786
    failed, _ = sim.rates(sim.Cell("stable", 6, 20, 40, 1), 400)
    assert failed >= lower_bound(400, 0.75)
