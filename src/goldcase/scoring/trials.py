"""Repeated trials: one run that asks each case several times shows which answers are flaky.

Per case: passes out of trials. Per set and per slice: the mean pass rate (the mean over cases
of each case's pass share), pass^k (the chance that k trials drawn from a case all pass) and
pass@k (the chance that at least one of k does), each estimated without bias from a case's c
passes in n trials as C(c, k) / C(n, k) and 1 - C(n - c, k) / C(n, k), then averaged over cases.

Trials of one case are not independent, so intervals treat the case as the unit: the standard
error is the spread of the per-case values over the number of cases (a cluster-robust
estimate), and the interval is the normal one, clipped to [0, 1]. Reported k: 1 and the smallest
number of trials any case has.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goldcase.scoring.metrics import Z95


@dataclass(frozen=True, slots=True)
class CaseTrials:
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


def clustered_mean(values: Sequence[float]) -> dict[str, Any]:
    """Mean over cases with a 95% interval from the between-case spread."""
    m = len(values)
    if m == 0:
        return {"value": None, "interval": None}
    mean = sum(values) / m
    if m == 1:
        return {"value": mean, "interval": None}
    variance = sum((v - mean) ** 2 for v in values) / (m - 1)
    half = Z95 * math.sqrt(variance / m)
    return {"value": mean, "interval": [max(0.0, mean - half), min(1.0, mean + half)]}


def summarise(cases: Sequence[CaseTrials]) -> dict[str, Any]:
    if not cases:
        return {"cases": 0, "trials": 0}
    k_max = min(c.trials for c in cases)
    ks = sorted({1, k_max})
    return {
        "cases": len(cases),
        "trials": sum(c.trials for c in cases),
        "mean_pass_rate": clustered_mean([c.rate for c in cases]),
        "pass_hat_k": {
            str(k): clustered_mean([pass_hat_k(c.passes, c.trials, k) for c in cases]) for k in ks
        },
        "pass_at_k": {
            str(k): clustered_mean([pass_at_k(c.passes, c.trials, k) for c in cases]) for k in ks
        },
    }


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


def paired_sign_flip(differences: Sequence[float], max_exact: int = 20) -> float:
    """Two-sided p-value that paired per-case differences centre on zero: an exact sign-flip
    permutation test over the non-zero differences (all 2^n flips up to ``max_exact``; beyond,
    a normal approximation to the same statistic)."""
    diffs = [d for d in differences if d != 0]
    n = len(diffs)
    if n == 0:
        return 1.0
    observed = abs(sum(diffs))
    if n <= max_exact:
        hits = 0
        for mask in range(1 << n):
            total = sum(d if mask >> i & 1 else -d for i, d in enumerate(diffs))
            hits += abs(total) >= observed - 1e-12
        return hits / (1 << n)
    sd = math.sqrt(sum(d * d for d in diffs))
    return math.erfc(observed / sd / math.sqrt(2))


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
