"""Repeated trials: one run that asks each case several times shows which answers are flaky.

Per case: passes out of trials. Per set and per slice: the mean pass rate (the mean over cases
of each case's pass share), pass^k (the chance that k trials drawn from a case all pass) and
pass@k (the chance that at least one of k does), each estimated without bias from a case's c
passes in n trials as C(c, k) / C(n, k) and 1 - C(n - c, k) / C(n, k), then averaged over cases.

Trials of one case are not independent, so intervals treat the case as the unit: a **Wilson
interval on the effective number of cases**. The variance of the mean of m case values (each
in [0, 1]) lies between mu (1 - mu) / N, when every case has the same pass probability and its
trials are independent draws (N draws of k trials in all), and mu (1 - mu) / m, when each case
passes always or never. The observed spread of the per-case values s^2 places it in that range:

    n_eff = mu (1 - mu) m / s^2, clamped to [m, N],

and the interval is the Wilson score interval of the mean on n_eff cases. When every case has
the same value the spread says nothing: n_eff is N for a value inside (0, 1) and m at 0 or 1
(five cases passing 3 of 3 trials: the Wilson interval of 5 of 5 cases, 56.6% to 100%, not
[1, 1]). Unlike the normal interval on the spread, this one never collapses to a point, and
its coverage stays near 95% at 10 cases (``scripts/sim_trials.py``; docs/traces.md). Reported
k: 1 and the smallest number of trials any case has.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from msgspec import Struct

from goldcase.scoring.metrics import wilson_at


class CaseTrials(Struct, frozen=True):
    case_id: str
    slice: str
    passes: int
    trials: int

    @property
    def rate(self) -> float:
        return self.passes / self.trials

    @property
    def flaky(self) -> bool:
        return 0 < self.passes < self.trials


def pass_hat_k(passes: int, trials: int, k: int) -> float:
    """Unbiased estimate that k draws without replacement from the trials all pass."""
    return math.comb(passes, k) / math.comb(trials, k)


def pass_at_k(passes: int, trials: int, k: int) -> float:
    """Unbiased estimate that at least one of k draws passes."""
    return 1 - math.comb(trials - passes, k) / math.comb(trials, k)


def effective_cases(values: Sequence[float], draws: float) -> float:
    """The effective number of cases behind the mean of ``values`` (each in [0, 1], one a
    case), when the cases hold ``draws`` independent draws in all: between len(values) and
    ``draws``, placed by the observed spread."""
    return _spread_and_cases(Counter(values), draws)[1]


def clustered_mean(values: Sequence[float], draws: float) -> dict[str, Any]:
    """Mean over cases with a 95% Wilson interval on the effective number of cases."""
    return _clustered(Counter(values), draws)


Counted = Mapping[float, int]  # each case value, and how many cases have it


def _spread_and_cases(counted: Counted, draws: float) -> tuple[float, float]:
    """The mean of the counted values and the effective number of cases behind it. A set's
    cases take few distinct values (a case's passes out of its trials), so each is counted
    once; each value times its count is summed with ``fsum`` (no rounding but the
    products'), and one distinct value is its own mean."""
    m = sum(counted.values())
    upper = max(float(m), float(draws))
    if len(counted) == 1:
        mean = next(iter(counted))
        return mean, upper if 0 < mean < 1 else float(m)
    mean = math.fsum([value * n for value, n in counted.items()]) / m
    spread = math.fsum([n * (value - mean) ** 2 for value, n in counted.items()]) / (m - 1)
    if spread == 0:
        return mean, upper if 0 < mean < 1 else float(m)
    return mean, min(upper, max(float(m), mean * (1 - mean) * m / spread))


def _clustered(counted: Counted, draws: float) -> dict[str, Any]:
    if not counted:
        return {"value": None, "interval": None}
    mean, n_eff = _spread_and_cases(counted, draws)
    return {"value": mean, "interval": list(wilson_at(min(1.0, max(0.0, mean)), n_eff))}


def summarise(cases: Sequence[CaseTrials]) -> dict[str, Any]:
    """The block of a set or slice: its cases' mean pass rate, pass^k and pass@k, each with
    its interval, worked out once for each (passes, trials) the cases have."""
    if not cases:
        return {"cases": 0, "trials": 0}
    shapes = Counter([(c.passes, c.trials) for c in cases])
    trials = sum(t * n for (_, t), n in shapes.items())
    ks = sorted({1, min(t for _, t in shapes)})
    return {
        "cases": len(cases),
        "trials": trials,
        "mean_pass_rate": _clustered(_counted(shapes, _rate, 1), trials),
        "pass_hat_k": {str(k): _clustered(_counted(shapes, pass_hat_k, k), trials / k) for k in ks},
        "pass_at_k": {str(k): _clustered(_counted(shapes, pass_at_k, k), trials / k) for k in ks},
    }


def _rate(passes: int, trials: int, k: int) -> float:
    return passes / trials


def _counted(
    shapes: Mapping[tuple[int, int], int], value: Callable[[int, int, int], float], k: int
) -> Counter[float]:
    """How many cases have each value of ``value(passes, trials, k)``."""
    counted: Counter[float] = Counter()
    for (passes, trials), n in shapes.items():
        counted[value(passes, trials, k)] += n
    return counted


def flaky_cases(cases: Sequence[CaseTrials]) -> list[dict[str, Any]]:
    """Cases with some passing and some failing trials, the most uncertain (nearest half)
    first."""
    flaky = sorted((c for c in cases if c.flaky), key=lambda c: (abs(c.rate - 0.5), c.case_id))
    return [
        {"id": c.case_id, "slice": c.slice, "passes": c.passes, "trials": c.trials} for c in flaky
    ]


def trials_report(cases: Sequence[CaseTrials]) -> dict[str, Any]:
    by_slice: dict[str, list[CaseTrials]] = {}
    for case in cases:
        by_slice.setdefault(case.slice, []).append(case)
    return {
        **summarise(cases),
        "slices": {name: summarise(rows) for name, rows in sorted(by_slice.items())},
        "flaky": flaky_cases(cases),
        "per_case": {
            c.case_id: [c.passes, c.trials] for c in sorted(cases, key=lambda c: c.case_id)
        },
    }


def mean_pass_by_case(per_case: Mapping[str, Sequence[int]]) -> dict[str, float]:
    return {case_id: passes / trials for case_id, (passes, trials) in per_case.items() if trials}


def render_lines(section: Mapping[str, Any], limit: int = 50) -> list[str]:
    """Plain lines for the text and Markdown reports."""

    def fmt(block: Mapping[str, Any]) -> str:
        value, interval = block["value"], block["interval"]
        if value is None:
            return "n/a"
        text = f"{100 * value:.1f}%"
        return (
            text
            if interval is None
            else (f"{text} ({100 * interval[0]:.1f}% – {100 * interval[1]:.1f}%)")
        )

    lines = [
        f"repeated trials ({section['trials']} trials of {section['cases']} cases; intervals "
        "clustered on cases)",
        f"  mean pass rate: {fmt(section['mean_pass_rate'])}",
    ]
    for k, block in section["pass_hat_k"].items():
        lines.append(f"  pass^{k} (all {k} pass): {fmt(block)}")
    for k, block in section["pass_at_k"].items():
        lines.append(f"  pass@{k} (any of {k} passes): {fmt(block)}")
    flaky = section["flaky"]
    lines.append(f"  flaky cases ({len(flaky)}), most uncertain first:")
    lines += [f"    {row['id']}: {row['passes']} of {row['trials']}" for row in flaky[:limit]]
    if len(flaky) > limit:
        lines.append(f"    … and {len(flaky) - limit} more")
    return lines
