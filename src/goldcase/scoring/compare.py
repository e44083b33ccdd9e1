"""The comparison: pair two reports on the same frozen set, measure what changed, and gate.

Two reports are comparable only when they measure the same thing: the same golden version, set
digest, corpus digest and split (and, for a calibration or eval split, the same split seed).
Anything else is refused, naming the field and both values. Comparable reports are paired case
by case, and for every slice, and overall, the comparison gives:

- the change in task success (single runs) or in the mean pass rate over trials (when either
  run repeats its cases), HEAD minus BASE, in points;
- its 95% interval: Newcombe's hybrid score interval for paired proportions (Newcombe 1998,
  method 10) for single runs; for trial runs the same construction (MOVER: Zou and Donner 2008)
  on each run's case-clustered interval and the correlation of the paired case means;
- a one-sided exact paired test of "HEAD is worse": the sign-flip test on the per-case
  differences, which for single runs is the exact McNemar test (``scoring.significance``).

The gate itself (which rows count, the correction for many slices, the verdicts) is
``scoring.gate``. The flips and the two-sided McNemar p-value over every case are shown as a
description of what changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

from goldcase.errors import GoldcaseError
from goldcase.scoring.gate import Decision, Verdict, decide
from goldcase.scoring.paired import DEFAULT_FLOOR, Delta, Pair, measure, pair
from goldcase.scoring.significance import mcnemar_exact
from goldcase.text import clip

COMPARABLE = ("golden_version", "set_digest", "corpus_digest", "split")
SEEDED_SPLITS = ("calibration", "eval")
FORMAT = 2  # of the compare JSON (schema/compare.schema.json)


class Flip(Struct, frozen=True):
    id: str
    slice: str
    base: bool  # passed in BASE
    head: bool  # passed in HEAD


class Comparison(Struct, frozen=True):
    base: Mapping[str, Any]  # the identifying fields of each report
    head: Mapping[str, Any]
    overall: Delta  # over the cases of the gated slices
    everything: Delta  # over every paired case, for the description
    slices: tuple[Delta, ...]
    flips: tuple[Flip, ...]
    p_value: float  # two-sided exact McNemar over every case: a description, not the gate
    max_drop: float
    alpha: float
    decision: Decision
    trials: bool = False  # the measure is the mean pass rate over trials

    @property
    def failures(self) -> tuple[str, ...]:
        return self.decision.failures

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def measure(self) -> str:
        return "mean_pass_rate" if self.trials else "task_success"

    def ids(self, base: bool) -> list[str]:
        """Flipped case ids: passed -> failed when ``base`` is True, else failed -> passed."""
        return [f.id for f in self.flips if f.base is base]

    @property
    def overall_verdict(self) -> Verdict:
        return self.decision.overall

    def rows(self) -> list[tuple[Delta, Verdict]]:
        """Each slice with its verdict, in name order."""
        return list(zip(self.slices, self.decision.slices, strict=True))

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "gate": "pass" if self.passed else "fail",
            "failures": list(self.failures),
            "max_drop": self.max_drop,
            "alpha": self.alpha,
            "measure": self.measure,
            "test": "one-sided exact sign-flip test on per-case pass shares"
            if self.trials
            else "one-sided exact McNemar test",
            "correction": "tarone-holm",
            "candidates": self.decision.candidates,
            "family": self.decision.tested,
            "base": dict(self.base),
            "head": dict(self.head),
            "overall": self.overall.as_dict(self.overall_verdict),
            "all_cases": {
                "total": self.everything.total,
                "base_success": self.everything.base_success,
                "head_success": self.everything.head_success,
                "regressions": self.everything.regressions,
                "improvements": self.everything.improvements,
            },
            "mcnemar_p": self.p_value,
            "slices": {d.name: d.as_dict(v) for d, v in self.rows()},
            "passed_to_failed": self.ids(True),
            "failed_to_passed": self.ids(False),
        }


def check_comparable(base: Mapping[str, Any], head: Mapping[str, Any]) -> None:
    """Refuse two reports that measure different things (GoldcaseError, exit 2)."""
    fields = list(COMPARABLE)
    if base.get("split") in SEEDED_SPLITS:
        fields += ["split_seed", "split_fraction"]
    for name in fields:
        if base.get(name) != head.get(name):
            raise GoldcaseError(
                f"the reports are not comparable: {name} differs "
                f"(base {clip(repr(base.get(name)))}, head {clip(repr(head.get(name)))}); "
                "compare runs scored on the same golden set, corpus and split"
            )
    base_ids = {c["id"] for c in base["cases"]}
    head_ids = {c["id"] for c in head["cases"]}
    if base_ids != head_ids:
        only = sorted(base_ids - head_ids) or sorted(head_ids - base_ids)
        side = "base" if base_ids - head_ids else "head"
        raise GoldcaseError(
            f"the reports are not comparable: their case lists differ ({len(base_ids)} cases in "
            f"base, {len(head_ids)} in head; {clip(repr(only[0]))} is only in {side})"
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
    pairs = pair(base, head)
    trials = bool(base.get("trials") or head.get("trials"))
    slices = tuple(
        measure(
            name,
            [p for p in pairs if p.slice == name],
            trials,
            ambiguous=_ambiguous(base, head, name),
            floor=_floor(base, head, name),
        )
        for name in sorted({p.slice for p in pairs})
    )
    return judge(
        pairs,
        slices,
        trials,
        max_drop,
        alpha,
        {"report": labels[0], **_identity(base)},
        {"report": labels[1], **_identity(head)},
    )


def judge(
    pairs: Sequence[Pair],
    slices: Sequence[Delta],
    trials: bool,
    max_drop: float,
    alpha: float,
    base: Mapping[str, Any] | None = None,
    head: Mapping[str, Any] | None = None,
) -> Comparison:
    """The comparison of measured slices: the overall row over the gated slices' cases, and
    the gate's verdicts. (``scripts/sim_gate.py`` calls this on simulated runs.)"""
    gated = {d.name for d in slices if not d.ambiguous and not d.under_floor}
    overall = measure("overall", [p for p in pairs if p.slice in gated], trials, floor=0)
    everything = overall if len(gated) == len(slices) else measure("all", pairs, trials, floor=0)
    decision = decide(overall, slices, max_drop, alpha, trials)
    return Comparison(
        base or {},
        head or {},
        overall,
        everything,
        tuple(slices),
        tuple(Flip(p.id, p.slice, p.base, p.head) for p in pairs if p.base != p.head),
        mcnemar_exact(everything.regressions, everything.improvements),
        max_drop,
        alpha,
        decision,
        trials,
    )


def _identity(report: Mapping[str, Any]) -> dict[str, Any]:
    weighted = report.get("weighted")
    return {
        **{k: report.get(k) for k in IDENTITY},
        "weighted_task_success": report.get("weighted_task_success"),
        "weighted_interval": weighted.get("interval") if isinstance(weighted, Mapping) else None,
    }


def _slice_field(report: Mapping[str, Any], name: str, key: str) -> Any:
    slices = report.get("slices")
    row = slices.get(name) if isinstance(slices, Mapping) else None
    return row.get(key) if isinstance(row, Mapping) else None


def _ambiguous(base: Mapping[str, Any], head: Mapping[str, Any], name: str) -> bool:
    return any(bool(_slice_field(r, name, "ambiguous")) for r in (base, head))


def _floor(base: Mapping[str, Any], head: Mapping[str, Any], name: str) -> int:
    """The larger of the two reports' floors for the slice (a report that does not say: 20)."""
    floors = [_slice_field(r, name, "floor") for r in (base, head)]
    return max((f for f in floors if isinstance(f, int)), default=DEFAULT_FLOOR)
