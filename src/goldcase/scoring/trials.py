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
from collections.abc import Mapping, Sequence
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
    m = len(values)
    mean = sum(values) / m
    upper = max(float(m), float(draws))
    spread = sum((v - mean) ** 2 for v in values) / (m - 1) if m > 1 else 0.0
    if spread == 0:
        return upper if 0 < mean < 1 else float(m)
    return min(upper, max(float(m), mean * (1 - mean) * m / spread))


def clustered_mean(values: Sequence[float], draws: float) -> dict[str, Any]:
    """Mean over cases with a 95% Wilson interval on the effective number of cases."""
    if not values:
        return {"value": None, "interval": None}
    mean = sum(values) / len(values)
    n_eff = effective_cases(values, draws)
    return {"value": mean, "interval": list(wilson_at(min(1.0, max(0.0, mean)), n_eff))}


def summarise(cases: Sequence[CaseTrials]) -> dict[str, Any]:
    if not cases:
        return {"cases": 0, "trials": 0}
    k_max = min(c.trials for c in cases)
    ks = sorted({1, k_max})
    return {
        "cases": len(cases),
        "trials": sum(c.trials for c in cases),
        "mean_pass_rate": clustered_mean([c.rate for c in cases], _draws(cases, 1)),
        "pass_hat_k": {
            str(k): clustered_mean(
                [pass_hat_k(c.passes, c.trials, k) for c in cases], _draws(cases, k)
            )
            for k in ks
        },
        "pass_at_k": {
            str(k): clustered_mean(
                [pass_at_k(c.passes, c.trials, k) for c in cases], _draws(cases, k)
            )
            for k in ks
        },
    }


def _draws(cases: Sequence[CaseTrials], k: int) -> float:
    """Independent draws of k trials the cases hold at most: trials / k per case."""
    return sum(c.trials for c in cases) / k


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
