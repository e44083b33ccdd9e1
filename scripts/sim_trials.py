#!/usr/bin/env python3
"""Coverage of the case-clustered 95% intervals of repeated trials, by simulation: the figures
in docs/traces.md.

    python scripts/sim_trials.py               # 4,000 replicates a cell
    python scripts/sim_trials.py --reps 1000   # quicker

A run asks each of m cases T times. Each case has its own pass probability, drawn from a Beta
distribution with mean mu and concentration c (c = 0.1: nearly every case passes always or
never; c = 50: every case passes with probability close to mu), and its T trials are
independent draws. The estimand is mu, the mean pass rate of the population of cases the set
samples. Grid: m = 5, 10, 20, 50 cases; T = 3, 5, 10 trials; mu = 0.5, 0.8, 0.95; c = 0.1, 1, 5,
50 (144 cells).

Two intervals for the mean pass rate are compared:

- **goldcase**: the Wilson interval on the effective number of cases
  (``goldcase.scoring.trials.clustered_mean``, what ``goldcase score`` reports);
- **normal**: the mean +- 1.96 x the standard error of the case means, clipped to [0, 1] (what
  goldcase reported before; it collapses to a point when every case agrees).

Then the interval of a change in mean pass rate between two runs on the same cases (what
``goldcase compare`` shows for trial runs): HEAD is BASE with each case broken (never passing)
with probability b, for b = 0 and 0.2, on the same grid at mu = 0.8.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections.abc import Sequence
from fractions import Fraction

from goldcase.scoring.metrics import Z95
from goldcase.scoring.paired import Pair, measure
from goldcase.scoring.trials import clustered_mean

CASES = (5, 10, 20, 50)
TRIALS = (3, 5, 10)
MEANS = (0.5, 0.8, 0.95)
CONCENTRATIONS = (0.1, 1.0, 5.0, 50.0)


def _probability(rng: random.Random, mu: float, c: float) -> float:
    return rng.betavariate(mu * c, (1 - mu) * c)


def _passes(rng: random.Random, p: float, trials: int) -> int:
    return sum(rng.random() < p for _ in range(trials))


def normal_interval(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return max(0.0, mean - half), min(1.0, mean + half)


def mean_coverage(
    m: int, trials: int, mu: float, c: float, reps: int
) -> tuple[float, float, float, float]:
    """(goldcase coverage, normal coverage, share of goldcase intervals of zero width, share
    of normal intervals of zero width) for one cell."""
    rng = random.Random(f"mean:{m}:{trials}:{mu}:{c}")
    ours = normal = ours_collapsed = collapsed = 0
    for _ in range(reps):
        values = [_passes(rng, _probability(rng, mu, c), trials) / trials for _ in range(m)]
        low, high = clustered_mean(values, m * trials)["interval"]
        ours += low - 1e-12 <= mu <= high + 1e-12
        ours_collapsed += high - low == 0
        n_low, n_high = normal_interval(values)
        normal += n_low - 1e-12 <= mu <= n_high + 1e-12
        collapsed += n_high - n_low == 0
    return ours / reps, normal / reps, ours_collapsed / reps, collapsed / reps


def change_coverage(m: int, trials: int, c: float, broken: float, reps: int) -> float:
    """Coverage of the compare interval for the change in mean pass rate (mu = 0.8)."""
    rng = random.Random(f"change:{m}:{trials}:{c}:{broken}")
    truth = -0.8 * broken
    hits = 0
    for _ in range(reps):
        pairs = []
        for i in range(m):
            p = _probability(rng, 0.8, c)
            after = 0.0 if rng.random() < broken else p
            b, h = _passes(rng, p, trials), _passes(rng, after, trials)
            pairs.append(
                Pair(
                    str(i),
                    "s",
                    b == trials,
                    h == trials,
                    Fraction(b, trials),
                    Fraction(h, trials),
                    trials,
                    trials,
                )
            )
        delta = measure("s", pairs, True)
        assert delta.low is not None and delta.high is not None
        hits += delta.low - 1e-12 <= truth <= delta.high + 1e-12
    return hits / reps


def _summary(values: Sequence[float]) -> str:
    ordered = sorted(values)
    return (
        f"{ordered[0]:.3f} | {ordered[len(ordered) // 10]:.3f} | "
        f"{statistics.median(ordered):.3f} | {statistics.fmean(ordered):.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000, help="replicates a cell")
    args = parser.parse_args(argv)
    print("Mean pass rate: coverage over the 36 cells (T, mu, c) at each number of cases\n")
    print("| cases | interval | min | 10th percentile | median | mean | zero-width | worst cell |")
    print("|---|---|---|---|---|---|---|---|")
    grid = [(t, mu, c) for t in TRIALS for mu in MEANS for c in CONCENTRATIONS]
    for m in CASES:
        cells = [mean_coverage(m, t, mu, c, args.reps) for t, mu, c in grid]
        for label, column in (("goldcase", 0), ("normal", 1)):
            covered = [cell[column] for cell in cells]
            zero = statistics.fmean(cell[column + 2] for cell in cells)
            t, mu, c = grid[covered.index(min(covered))]
            worst = f"T {t}, mu {mu:g}, c {c:g}"
            print(f"| {m} | {label} | {_summary(covered)} | {zero:.3f} | {worst} |")
    print("\nChange in mean pass rate (compare, mu = 0.8): coverage over the 12 cells (T, c)\n")
    print("| cases | cases broken | min | 10th percentile | median | mean |")
    print("|---|---|---|---|---|---|")
    for m in CASES:
        for broken in (0.0, 0.2):
            cells = [
                change_coverage(m, t, c, broken, args.reps // 4)
                for t in TRIALS
                for c in CONCENTRATIONS
            ]
            print(f"| {m} | {broken:.0%} | {_summary(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
