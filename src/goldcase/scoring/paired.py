"""A change between two runs on the same cases, HEAD minus BASE: what it is, its interval and
its one-sided paired test.

- **Single runs** (each case passed or failed): the measure is task success; its 95% interval
  is Newcombe's hybrid score interval for paired proportions (Newcombe 1998, method 10): the
  Wilson interval of each rate, combined with the continuity-corrected correlation of the paired
  outcomes (the MOVER construction of Zou and Donner 2008).
- **Trial runs** (either run repeats its cases): the measure is the mean pass rate, the mean
  over cases of passes / trials; its interval is the same construction on each run's
  case-clustered interval (``scoring.trials.clustered_mean``) and the continuity-corrected
  correlation of the paired case means (on 0/1 outcomes, Newcombe's phi).
- The test is the one-sided exact sign-flip test on the per-case differences of pass shares
  (``scoring.significance``); for single runs that is the exact McNemar test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from msgspec import Struct

from goldcase.scoring.gate import Verdict
from goldcase.scoring.metrics import Z95, wilson
from goldcase.scoring.significance import sign_flip_lower
from goldcase.scoring.trials import clustered_mean

DEFAULT_FLOOR = 20


class Pair(Struct, frozen=True):
    """One case in both runs: its headline pass (every trial passed) and its pass share."""

    id: str
    slice: str
    base: bool
    head: bool
    base_share: Fraction  # passes / trials; 0 or 1 for a run without trials
    head_share: Fraction
    base_trials: int = 1
    head_trials: int = 1

    @property
    def difference(self) -> Fraction:
        return self.head_share - self.base_share


class Delta(Struct, frozen=True):
    """A change, HEAD minus BASE, on paired cases: a slice, or overall."""

    name: str
    total: int
    base_success: int  # headline passes
    head_success: int
    regressions: int  # passed -> failed
    improvements: int  # failed -> passed
    low: float | None  # 95% interval of the difference of the measure (a proportion)
    high: float | None
    ambiguous: bool = False
    floor: int = DEFAULT_FLOOR
    base_value: float | None = None  # the measure: task success, or the mean pass rate
    head_value: float | None = None
    p_value: float = 1.0  # one-sided, "HEAD is worse"
    exact: bool = True
    changed: int = 0  # cases whose pass share changed: the test's non-zero differences

    @property
    def base_rate(self) -> float | None:
        return None if self.total == 0 else self.base_success / self.total

    @property
    def head_rate(self) -> float | None:
        return None if self.total == 0 else self.head_success / self.total

    @property
    def under_floor(self) -> bool:
        return self.total < self.floor

    @property
    def points(self) -> float:
        """The change in the measure, HEAD minus BASE, in percentage points."""
        if self.base_value is None or self.head_value is None:
            return 0.0
        return 100 * (self.head_value - self.base_value)

    def as_dict(self, verdict: Verdict) -> dict[str, Any]:
        return {
            "total": self.total,
            "base_success": self.base_success,
            "head_success": self.head_success,
            "base_rate": self.base_rate,
            "head_rate": self.head_rate,
            "base_value": self.base_value,
            "head_value": self.head_value,
            "delta_points": round(self.points, 4),
            "interval_points": None
            if self.low is None or self.high is None
            else [round(100 * self.low, 4), round(100 * self.high, 4)],
            "regressions": self.regressions,
            "improvements": self.improvements,
            "ambiguous": self.ambiguous,
            "floor": self.floor,
            "changed": self.changed,
            "p_value": self.p_value,
            "p_exact": self.exact,
            "p_adjusted": verdict.p_adjusted,
            "gated": verdict.gated,
            "status": verdict.status,
            "reason": verdict.reason,
        }


def measure(
    name: str,
    pairs: Sequence[Pair],
    trials: bool,
    *,
    ambiguous: bool = False,
    floor: int = DEFAULT_FLOOR,
) -> Delta:
    """The change over ``pairs``: headline counts, the measure, its interval and the one-sided
    paired test."""
    both = sum(1 for p in pairs if p.base and p.head)
    head_only = sum(1 for p in pairs if p.head and not p.base)
    base_only = sum(1 for p in pairs if p.base and not p.head)
    low = high = base_value = head_value = None
    differences = [p.difference if trials else p.head - p.base for p in pairs]
    tail = sign_flip_lower(differences)
    if pairs and trials:
        base_value, head_value, low, high = _trial_interval(pairs)
    elif pairs:
        n = len(pairs)
        base_value, head_value = (both + base_only) / n, (both + head_only) / n
        _, low, high = newcombe_paired(both, head_only, base_only, n - both - head_only - base_only)
    return Delta(
        name=name,
        total=len(pairs),
        base_success=both + base_only,
        head_success=both + head_only,
        regressions=base_only,
        improvements=head_only,
        low=low,
        high=high,
        ambiguous=ambiguous,
        floor=floor,
        base_value=base_value,
        head_value=head_value,
        p_value=tail.p,
        exact=tail.exact,
        changed=sum(1 for d in differences if d),
    )


def _trial_interval(pairs: Sequence[Pair]) -> tuple[float, float, float, float]:
    """(base mean, head mean, low, high): each run's case-clustered interval, combined with
    the continuity-corrected correlation of the paired case means."""
    before = [float(p.base_share) for p in pairs]
    after = [float(p.head_share) for p in pairs]
    base = clustered_mean(before, sum(p.base_trials for p in pairs))
    head = clustered_mean(after, sum(p.head_trials for p in pairs))
    _, low, high = _mover(
        head["value"],
        tuple(head["interval"]),
        base["value"],
        tuple(base["interval"]),
        _correlation(before, after),
    )
    return base["value"], head["value"], low, high


def _correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The correlation of the paired case means with Newcombe's continuity correction: the
    cross-product sum S_xy less 1/2 when above it, 0 between 0 and 1/2, S_xy when negative,
    over sqrt(S_xx S_yy). On 0/1 outcomes this is the phi of method 10; without it, cases that
    all agree (nothing changed in this sample) would give r = 1 and an interval of no width."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return 0.0
    corrected = sxy - 0.5 if sxy > 0.5 else (sxy if sxy < 0 else 0.0)
    return corrected / math.sqrt(sxx * syy)


def newcombe_paired(
    both: int, head_only: int, base_only: int, neither: int, z: float = Z95
) -> tuple[float, float, float]:
    """(difference, low, high) of HEAD's minus BASE's success rate on paired cases, by
    Newcombe's method 10: Wilson intervals of each rate, combined with the continuity-corrected
    correlation of the paired outcomes. Cells: passed in both, in HEAD only, in BASE only, in
    neither."""
    n = both + head_only + base_only + neither
    if n == 0:
        raise ValueError("no paired cases")
    head, base = both + head_only, both + base_only
    l1, u1 = wilson(head, n, z) or (0.0, 1.0)
    l2, u2 = wilson(base, n, z) or (0.0, 1.0)
    phi = _phi(both, head_only, base_only, neither)
    return _mover(head / n, (l1, u1), base / n, (l2, u2), phi)


def _mover(
    p1: float, head: tuple[float, float], p2: float, base: tuple[float, float], r: float
) -> tuple[float, float, float]:
    """The MOVER interval of p1 - p2 from each one's interval and their correlation r."""
    (l1, u1), (l2, u2) = head, base
    low = (p1 - p2) - math.sqrt(
        max(0.0, (p1 - l1) ** 2 - 2 * r * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    )
    high = (p1 - p2) + math.sqrt(
        max(0.0, (p2 - l2) ** 2 - 2 * r * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    )
    return p1 - p2, max(-1.0, low), min(1.0, high)


def _phi(a: int, b: int, c: int, d: int) -> float:
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    cross = a * d - b * c
    n = a + b + c + d
    corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
    return corrected / math.sqrt(margins)


def pair(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[Pair]:
    """Every case of two comparable reports in both runs, in id order."""
    base_passed = {c["id"]: bool(c["passed"]) for c in base["cases"]}
    before, after = _shares(base), _shares(head)
    out = []
    for case in sorted(head["cases"], key=lambda c: c["id"]):
        case_id = case["id"]
        (b_share, b_trials), (h_share, h_trials) = before[case_id], after[case_id]
        out.append(
            Pair(
                case_id,
                str(case["slice"]),
                base_passed[case_id],
                bool(case["passed"]),
                b_share,
                h_share,
                b_trials,
                h_trials,
            )
        )
    return out


def _shares(report: Mapping[str, Any]) -> dict[str, tuple[Fraction, int]]:
    """Each case's (passes / trials, trials); a case without trials: 0 or 1 of 1."""
    out = {c["id"]: (Fraction(int(bool(c["passed"]))), 1) for c in report["cases"]}
    block = report.get("trials")
    per_case = block.get("per_case") if isinstance(block, Mapping) else None
    if isinstance(per_case, Mapping):
        for case_id, row in per_case.items():
            if case_id in out and _valid_row(row):
                out[case_id] = (Fraction(row[0], row[1]), row[1])
    return out


def _valid_row(row: Any) -> bool:
    return (
        isinstance(row, Sequence)
        and len(row) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in row)
        and 0 <= row[0] <= row[1]
        and row[1] > 0
    )
