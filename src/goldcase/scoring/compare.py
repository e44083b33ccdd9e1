"""The comparison gate: pair two reports on the same frozen set and decide whether HEAD is worse.

Two reports are comparable only when they measure the same thing: the same golden version, set
digest, corpus digest and split (and, for a calibration or eval split, the same split seed).
Anything else is refused, naming the field and both values. Comparable reports are paired case
by case:

- flips: cases that passed in BASE and fail in HEAD (regressions) and the reverse;
- an exact McNemar test on the discordant pairs (two-sided binomial test of b against c with
  p = 1/2), which is the right test for two systems scored on the same cases;
- per slice and overall, the change in task success with Newcombe's hybrid score interval for
  a difference of paired proportions (Newcombe 1998, method 10).

The gate fails when a slice not marked ambiguous drops by more than ``max_drop`` points, or
when overall task success drops and McNemar's p is at most ``alpha``. When either run repeats
its cases (trials), the cases are also paired on their mean pass rate and the per-case
differences tested with an exact sign-flip permutation test; a significant drop fails too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.scoring.metrics import Z95, wilson
from goldcase.scoring.trials import mean_pass_by_case, paired_sign_flip

COMPARABLE = ("golden_version", "set_digest", "corpus_digest", "split")
SEEDED_SPLITS = ("calibration", "eval")


@dataclass(frozen=True, slots=True)
class Flip:
    id: str
    slice: str
    base: bool  # passed in BASE
    head: bool  # passed in HEAD


@dataclass(frozen=True, slots=True)
class Delta:
    """A change in task success, HEAD minus BASE, on paired cases."""

    name: str
    total: int
    base_success: int
    head_success: int
    regressions: int  # passed -> failed
    improvements: int  # failed -> passed
    low: float | None  # 95% interval of the difference (a proportion, not points)
    high: float | None
    ambiguous: bool = False

    @property
    def base_rate(self) -> float | None:
        return None if self.total == 0 else self.base_success / self.total

    @property
    def head_rate(self) -> float | None:
        return None if self.total == 0 else self.head_success / self.total

    @property
    def points(self) -> float:
        """HEAD minus BASE, in percentage points."""
        return (
            0.0 if self.total == 0 else 100 * (self.head_success - self.base_success) / self.total
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "base_success": self.base_success,
            "head_success": self.head_success,
            "base_rate": self.base_rate,
            "head_rate": self.head_rate,
            "delta_points": round(self.points, 4),
            "interval_points": None
            if self.low is None or self.high is None
            else [round(100 * self.low, 4), round(100 * self.high, 4)],
            "regressions": self.regressions,
            "improvements": self.improvements,
            "ambiguous": self.ambiguous,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    base: Mapping[str, Any]  # the identifying fields of each report
    head: Mapping[str, Any]
    overall: Delta
    slices: tuple[Delta, ...]
    flips: tuple[Flip, ...]
    p_value: float
    max_drop: float
    alpha: float
    failures: tuple[str, ...] = field(default=())
    trials: Mapping[str, Any] | None = None  # the pairing on mean pass rate, for trial runs

    @property
    def passed(self) -> bool:
        return not self.failures

    def ids(self, base: bool) -> list[str]:
        """Flipped case ids: passed -> failed when ``base`` is True, else failed -> passed."""
        return [f.id for f in self.flips if f.base is base]

    def as_dict(self) -> dict[str, Any]:
        return {
            "gate": "pass" if self.passed else "fail",
            "failures": list(self.failures),
            "max_drop": self.max_drop,
            "alpha": self.alpha,
            "base": dict(self.base),
            "head": dict(self.head),
            "overall": self.overall.as_dict(),
            "mcnemar_p": self.p_value,
            "slices": {d.name: d.as_dict() for d in self.slices},
            "passed_to_failed": self.ids(True),
            "failed_to_passed": self.ids(False),
            "trials": None if self.trials is None else dict(self.trials),
        }


def mcnemar_exact(regressions: int, improvements: int) -> float:
    """Two-sided exact McNemar p-value: twice the smaller binomial tail of the discordant
    pairs at p = 1/2, capped at 1. Computed on integers, so it is exact."""
    n = regressions + improvements
    if n == 0:
        return 1.0
    tail, term = 0, 1  # term = C(n, i), stepped exactly: C(n, i + 1) = C(n, i) (n - i) / (i + 1)
    for i in range(min(regressions, improvements) + 1):
        tail += term
        term = term * (n - i) // (i + 1)
    return min(1.0, 2 * tail / 2**n)


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
    p1, p2 = head / n, base / n
    l1, u1 = wilson(head, n, z) or (0.0, 1.0)
    l2, u2 = wilson(base, n, z) or (0.0, 1.0)
    phi = _phi(both, head_only, base_only, neither)
    low = (p1 - p2) - math.sqrt(
        max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    )
    high = (p1 - p2) + math.sqrt(
        max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
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


def check_comparable(base: Mapping[str, Any], head: Mapping[str, Any]) -> None:
    """Refuse two reports that measure different things (GoldcaseError, exit 2)."""
    fields = list(COMPARABLE)
    if base.get("split") in SEEDED_SPLITS:
        fields += ["split_seed", "split_fraction"]
    for name in fields:
        if base.get(name) != head.get(name):
            raise GoldcaseError(
                f"the reports are not comparable: {name} differs "
                f"(base {base.get(name)!r}, head {head.get(name)!r}); "
                "compare runs scored on the same golden set, corpus and split"
            )
    base_ids = {c["id"] for c in base["cases"]}
    head_ids = {c["id"] for c in head["cases"]}
    if base_ids != head_ids:
        only = sorted(base_ids - head_ids) or sorted(head_ids - base_ids)
        side = "base" if base_ids - head_ids else "head"
        raise GoldcaseError(
            f"the reports are not comparable: their case lists differ ({len(base_ids)} cases in "
            f"base, {len(head_ids)} in head; {only[0]!r} is only in {side})"
        )


def _delta(name: str, pairs: Sequence[tuple[bool, bool]], ambiguous: bool = False) -> Delta:
    both = sum(1 for b, h in pairs if b and h)
    head_only = sum(1 for b, h in pairs if h and not b)
    base_only = sum(1 for b, h in pairs if b and not h)
    neither = len(pairs) - both - head_only - base_only
    low = high = None
    if pairs:
        _, low, high = newcombe_paired(both, head_only, base_only, neither)
    return Delta(
        name,
        len(pairs),
        both + base_only,
        both + head_only,
        base_only,
        head_only,
        low,
        high,
        ambiguous,
    )


IDENTITY = ("golden_version", "split", "split_seed", "threshold", "results_file", "task_success")


def compare(
    base: Mapping[str, Any],
    head: Mapping[str, Any],
    max_drop: float = 5.0,
    alpha: float = 0.05,
    labels: tuple[str, str] = ("BASE", "HEAD"),
) -> Comparison:
    """Pair two validated reports and apply the gate; ``labels`` name the report files."""
    if math.isnan(max_drop) or max_drop < 0:
        raise GoldcaseError(f"--max-drop should be 0 or more points, got {max_drop}")
    if not 0 < alpha < 1:
        raise GoldcaseError(f"--alpha should be between 0 and 1, got {alpha}")
    check_comparable(base, head)
    paired = _pair(base, head)
    flips = tuple(Flip(i, name, b, h) for i, name, b, h in paired if b != h)
    slices = tuple(
        _delta(name, [(b, h) for _, s, b, h in paired if s == name], _ambiguous(base, head, name))
        for name in sorted({s for _, s, _, _ in paired})
    )
    overall = _delta("overall", [(b, h) for _, _, b, h in paired])
    p_value = mcnemar_exact(overall.regressions, overall.improvements)
    failures = _failures(overall, slices, p_value, max_drop, alpha)
    trials = paired_trials(base, head)
    if trials is not None and trials["delta_points"] < 0 and trials["p_value"] <= alpha:
        failures += (
            f"mean pass rate over trials dropped {-trials['delta_points']:.1f} points on "
            f"{trials['cases']} paired cases (sign-flip p = {trials['p_value']:.3g} <= {alpha:g})",
        )
    return Comparison(
        {"report": labels[0], **{k: base.get(k) for k in IDENTITY}},
        {"report": labels[1], **{k: head.get(k) for k in IDENTITY}},
        overall,
        slices, flips, p_value, max_drop, alpha, failures, trials,
    )  # fmt: skip


def _rates(report: Mapping[str, Any]) -> dict[str, float]:
    """Each case's pass share over its trials (a run without trials: 0 or 1)."""
    block = report.get("trials")
    if isinstance(block, Mapping) and isinstance(block.get("per_case"), Mapping):
        return mean_pass_by_case(block["per_case"])
    return {c["id"]: float(bool(c["passed"])) for c in report["cases"]}


def paired_trials(base: Mapping[str, Any], head: Mapping[str, Any]) -> dict[str, Any] | None:
    """When either run repeats its cases: the two runs paired case by case on mean pass rate,
    and an exact sign-flip test of the per-case differences (see ``scoring.trials``)."""
    if not (base.get("trials") or head.get("trials")):
        return None
    before, after = _rates(base), _rates(head)
    ids = sorted(set(before) & set(after))
    if not ids:
        return None
    diffs = [after[i] - before[i] for i in ids]
    mean_base = sum(before[i] for i in ids) / len(ids)
    mean_head = sum(after[i] for i in ids) / len(ids)
    return {
        "cases": len(ids),
        "base_mean_pass_rate": mean_base,
        "head_mean_pass_rate": mean_head,
        "delta_points": round(100 * (mean_head - mean_base), 4),
        "p_value": paired_sign_flip(diffs),
        "test": "exact sign-flip permutation test on per-case differences",
    }


def _pair(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[tuple[str, str, bool, bool]]:
    """(id, slice, passed in BASE, passed in HEAD) for every case, in id order."""
    base_passed = {c["id"]: bool(c["passed"]) for c in base["cases"]}
    return [
        (c["id"], str(c["slice"]), base_passed[c["id"]], bool(c["passed"]))
        for c in sorted(head["cases"], key=lambda c: c["id"])
    ]


def _ambiguous(base: Mapping[str, Any], head: Mapping[str, Any], name: str) -> bool:
    return any(bool(r.get("slices", {}).get(name, {}).get("ambiguous")) for r in (base, head))


def _failures(
    overall: Delta, slices: Sequence[Delta], p_value: float, max_drop: float, alpha: float
) -> tuple[str, ...]:
    out: list[str] = []
    if overall.head_success < overall.base_success and p_value <= alpha:
        out.append(
            f"task success dropped {-overall.points:.1f} points "
            f"({overall.regressions} passed->failed, {overall.improvements} failed->passed; "
            f"McNemar p = {p_value:.3g} <= {alpha:g})"
        )
    for d in slices:
        if not d.ambiguous and -d.points > max_drop:
            out.append(
                f"slice {d.name} dropped {-d.points:.1f} points "
                f"({d.base_success}/{d.total} -> {d.head_success}/{d.total}; "
                f"more than {max_drop:g})"
            )
    return tuple(out)
