#!/usr/bin/env python3
"""Coverage of the traffic-weighted task success's 95% interval, by simulation: the figures
in docs/score.md.

    python scripts/sim_weighted.py               # 20,000 replicates a scenario, 200 random
    python scripts/sim_weighted.py --reps 5000   # quicker

For each scenario (slices with traffic shares, cases and true pass rates) the script draws
every slice's passes from its binomial, computes goldcase's weighted rate and its stratified
Wilson interval (``goldcase.scoring.weighted.weighted_rate``, the function ``goldcase score``
calls), and counts how often the interval holds the true weighted rate. Beside it, the Wald
interval on the same stratified variance (p_w +- 1.96 sqrt(sum W^2 p_s (1 - p_s) / n_s)), the
textbook choice, for comparison.

Scenarios: the sample set's six slices and shares at several pass rates; a few shapes that
stress the method (a heavy slice beside a light one, many small slices, slices of unequal
size); then 200 random configurations (2 to 10 slices, shares from a Dirichlet, 20 to 100 cases
a slice, pass rates anywhere, near 1, or alike), summarised by their minimum, 5th percentile
and median coverage.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections.abc import Sequence

from goldcase.scoring.metrics import Z95
from goldcase.scoring.weighted import Stratum, weighted_rate

SAMPLE_SHARES = (0.25, 0.25, 0.15, 0.12, 0.15, 0.08)  # goldcase.toml: returns ... general
SAMPLE_CASES = (27, 30, 26, 26, 26, 28)
Scenario = tuple[str, Sequence[float], Sequence[int], Sequence[float]]

SCENARIOS: list[Scenario] = [
    *(
        (f"sample set, every slice at {p:.0%}", SAMPLE_SHARES, SAMPLE_CASES, [p] * 6)
        for p in (0.3, 0.5, 0.8, 0.9, 0.95, 0.98)
    ),
    (
        "sample set, the baseline's slice rates",
        SAMPLE_SHARES,
        SAMPLE_CASES,
        [0.22, 0.30, 0.31, 0.62, 0.54, 0.39],
    ),
    (
        "sample set, high and uneven",
        SAMPLE_SHARES,
        SAMPLE_CASES,
        [0.99, 0.97, 0.9, 0.95, 0.99, 0.8],
    ),
    ("2 slices, shares 0.9 / 0.1, rates 0.9 / 0.5", (0.9, 0.1), (20, 20), (0.9, 0.5)),
    ("2 slices, shares 0.97 / 0.03, rates 0.9 / 0.2", (0.97, 0.03), (20, 20), (0.9, 0.2)),
    ("10 slices of 20, equal shares, rates 0.9", [0.1] * 10, [20] * 10, [0.9] * 10),
    (
        "3 slices of 200 / 50 / 20, shares 0.1 / 0.3 / 0.6",
        (0.1, 0.3, 0.6),
        (200, 50, 20),
        (0.95, 0.9, 0.85),
    ),
]


def _binomial(rng: random.Random, n: int, p: float) -> int:
    return sum(rng.random() < p for _ in range(n))


def coverage(
    shares: Sequence[float], cases: Sequence[int], rates: Sequence[float], reps: int, seed: str
) -> tuple[float, float, float]:
    """(stratified Wilson coverage, Wald coverage, mean Wilson width) over ``reps`` draws."""
    rng = random.Random(seed)
    weight = sum(shares)
    truth = sum(w * p for w, p in zip(shares, rates, strict=True)) / weight
    wilson_hits = wald_hits = 0
    width = 0.0
    for _ in range(reps):
        strata = [
            Stratum(str(i), n, _binomial(rng, n, p), w)
            for i, (w, n, p) in enumerate(zip(shares, cases, rates, strict=True))
        ]
        value, (low, high), _ = weighted_rate(strata)
        wilson_hits += low - 1e-12 <= truth <= high + 1e-12
        width += high - low
        half = Z95 * math.sqrt(
            sum(
                (s.share / weight) ** 2
                * (s.success / s.total)
                * (1 - s.success / s.total)
                / s.total
                for s in strata
            )
        )
        wald_hits += value - half - 1e-12 <= truth <= value + half + 1e-12
    return wilson_hits / reps, wald_hits / reps, width / reps


def random_scenario(rng: random.Random) -> Scenario:
    k = rng.randint(2, 10)
    concentration = rng.choice((0.3, 1.0, 5.0))
    raw = [rng.gammavariate(concentration, 1.0) + 1e-9 for _ in range(k)]
    shares = [r / sum(raw) for r in raw]
    cases = [rng.choice((20, 20, 20, 25, 30, 50, 100)) for _ in range(k)]
    kind = rng.randrange(3)
    if kind == 0:
        rates = [rng.uniform(0.02, 0.98) for _ in range(k)]
    elif kind == 1:
        rates = [1 - rng.betavariate(0.5, 8) for _ in range(k)]
    else:
        rates = [rng.uniform(0.6, 0.995)] * k
    return ("random", shares, cases, rates)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20_000, help="replicates a scenario")
    parser.add_argument("--random", type=int, default=200, help="random configurations")
    args = parser.parse_args(argv)
    print("| scenario | stratified Wilson | Wald | mean width (Wilson) |")
    print("|---|---|---|---|")
    for name, shares, cases, rates in SCENARIOS:
        wilson, wald, width = coverage(shares, cases, rates, args.reps, name)
        print(f"| {name} | {wilson:.3f} | {wald:.3f} | {100 * width:.1f} points |")
    rng = random.Random(23)
    sweep = [
        coverage(s, c, r, args.reps // 5, f"random-{i}")
        for i, (_, s, c, r) in enumerate(random_scenario(rng) for _ in range(args.random))
    ]
    for label, column in (("stratified Wilson", 0), ("Wald", 1)):
        values = sorted(row[column] for row in sweep)
        print(
            f"\n{args.random} random configurations ({args.reps // 5} replicates each), {label}: "
            f"min {values[0]:.3f}, 5th percentile {values[len(values) // 20]:.3f}, "
            f"median {statistics.median(values):.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
