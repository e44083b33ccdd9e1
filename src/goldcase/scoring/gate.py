"""The gate's decision: which slices count, the correction for testing many of them, and why
each slice passed or failed.

- A slice **gates** when it is not ambiguous and holds at least its floor of cases (the larger
  of the two reports' floors). Ambiguous slices and slices under the floor are reported with
  their change and p-value and never fail the gate.
- **Overall** is taken over the cases of the gated slices only, so a slice that cannot gate
  cannot fail the gate through it either.
- The candidates are every gated slice plus overall; each has a one-sided exact p-value for
  "HEAD is worse". Tarone's rule leaves out those too few of whose cases changed to reach
  significance at all, and Holm's step-down correction over the rest keeps the chance that an
  unchanged system fails the gate at or under ``alpha``, however many slices there are
  (``scoring.significance``).
- A gated **slice fails** when its adjusted p-value is at most ``alpha`` *and* it dropped by more
  than ``max_drop`` points: both credible and large. **Overall fails** when its adjusted
  p-value is at most ``alpha`` (it dropped, credibly): a drop spread thinly over every slice
  still blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from goldcase.scoring.significance import min_p, tarone_family, tarone_holm

if TYPE_CHECKING:
    from goldcase.scoring.paired import Delta


class Verdict(Struct, frozen=True):
    status: str  # "fail", "pass" or "not gated"
    reason: str  # short, for a table cell
    p_adjusted: float | None = None  # Holm-adjusted, for rows in the family

    @property
    def gated(self) -> bool:
        return self.status != "not gated"


class Decision(Struct, frozen=True):
    overall: Verdict
    slices: tuple[Verdict, ...]  # in the order given
    failures: tuple[str, ...]  # why the gate fails, overall first
    candidates: int  # gated slices and overall (when it has cases)
    tested: int  # of them, Tarone's family: those that can reach significance


def decide(
    overall: Delta, slices: Sequence[Delta], max_drop: float, alpha: float, trials: bool = False
) -> Decision:
    """The verdict on overall and on each slice, and the reasons the gate fails."""
    rows = [*slices, overall]
    candidates = [i for i, d in enumerate(slices) if not d.ambiguous and not d.under_floor]
    if overall.total:
        candidates.append(len(slices))
    attainable = [min_p(rows[i].changed) for i in candidates]
    values = tarone_holm([rows[i].p_value for i in candidates], attainable, alpha)
    adjusted = dict(zip(candidates, values, strict=True))
    family = {candidates[j] for j in tarone_family(attainable, alpha)}
    verdicts: list[Verdict] = []
    failures: list[str] = []
    for i, d in enumerate(rows):
        limit = None if d is overall else max_drop
        verdict = _verdict(d, adjusted.get(i), i in family, limit, alpha)
        verdicts.append(verdict)
        if verdict.status == "fail":
            failures.append(failure(d, verdict, limit, alpha, trials))
    ordered = failures[-1:] + failures[:-1] if verdicts[-1].status == "fail" else failures
    return Decision(
        verdicts[-1], tuple(verdicts[:-1]), tuple(ordered), len(candidates), len(family)
    )


def _verdict(
    d: Delta, adjusted: float | None, tested: bool, limit: float | None, alpha: float
) -> Verdict:
    if d.ambiguous:
        return Verdict("not gated", "ambiguous: not gated")
    if adjusted is None:
        if d.total == 0:
            return Verdict("not gated", "no gated slice")
        return Verdict("not gated", f"under floor {d.floor}: not gated")
    drop = -d.points
    if adjusted <= alpha and drop > 0 and (limit is None or drop > limit):
        return Verdict("fail", "FAIL", adjusted)
    if drop <= 0:
        return Verdict("pass", "ok: no drop", adjusted)
    if limit is not None and drop <= limit:
        return Verdict("pass", f"ok: drop within {limit:g}", adjusted)
    if not tested:  # left out of Tarone's family: too few changes to be significant
        return Verdict("pass", "ok: too few changes", adjusted)
    return Verdict("pass", "ok: not credible", adjusted)


def failure(d: Delta, verdict: Verdict, limit: float | None, alpha: float, trials: bool) -> str:
    """Why a row fails the gate, in one line."""
    evidence = (
        f"one-sided {'sign-flip' if trials else 'McNemar'} p = {d.p_value:.3g}, "
        f"adjusted {verdict.p_adjusted:.3g} <= {alpha:g}"
    )
    if limit is None:
        what = "mean pass rate" if trials else "task success"
        return (
            f"{what} over the gated slices dropped {-d.points:.1f} points "
            f"({d.regressions} passed->failed, {d.improvements} failed->passed; {evidence})"
        )
    counts = (
        f"{d.total} cases"
        if trials
        else f"{d.base_success}/{d.total} -> {d.head_success}/{d.total}"
    )
    what = " mean pass rate" if trials else ""
    return (
        f"slice {d.name}{what} dropped {-d.points:.1f} points ({counts}; more than {limit:g}; "
        f"{evidence})"
    )
