"""The report's ``retrieval`` and ``trials`` blocks: which stage failed, and how often.

Both are computed only when the run records them (a trace on some line; several trials of some
case), so a plain run pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from goldcase.context import Context
from goldcase.corpus import Corpus
from goldcase.model import Case
from goldcase.scoring.outcomes import Graded
from goldcase.scoring.results import Result
from goldcase.scoring.traces import has_trace, retrieval_section
from goldcase.scoring.trials import CaseTrials, trials_report


def diagnostics(
    cases: Sequence[Case],
    by_id: Mapping[str, Sequence[Result]],
    graded: Sequence[Graded],
    corpus: Corpus,
    threshold: float | None,
) -> dict[str, Any]:
    lines = {case.id: by_id.get(case.id, ()) for case in cases}
    repeated = any(len(rows) > 1 for rows in lines.values())
    traced = any(has_trace(r.data) for rows in lines.values() for r in rows)
    out: dict[str, Any] = {"retrieval": None, "trials": None}
    if not repeated and not traced:
        return out
    by_case = {g.case_id: g for g in graded}
    trial_rows: list[CaseTrials] = []
    trace_rows: list[tuple[Case, Mapping[str, Any] | None, bool, str]] = []
    for case in cases:
        result = by_case[case.id]
        ordered = sorted(lines[case.id], key=lambda r: r.trial or 0)
        if repeated and ordered:
            passes = result.passes if result.passes is not None else int(result.passed)
            trial_rows.append(CaseTrials(case.id, case.slice, passes, len(ordered)))
        shown = ordered[result.shown] if ordered else None
        trace_rows.append((case, shown.data if shown else None, result.passed, result.outcome))
    if traced:
        out["retrieval"] = retrieval_section(trace_rows, corpus)
    if repeated:
        out["trials"] = trials_report(trial_rows)
    return out


def ceiling(ctx: Context) -> dict[str, Any] | None:
    """Second-labeller agreement, the ceiling the report prints beside model scores; None when
    the repository has no ``labels/`` folder (or no finished label in it)."""
    if not (ctx.root / "labels").is_dir():
        return None
    from goldcase.agreement import agreement_summary

    return agreement_summary(ctx)


def ceiling_lines(summary: Mapping[str, Any] | None) -> list[str]:
    if not summary or summary.get("rate") is None:
        return []
    interval = summary.get("interval")
    span = (
        ""
        if not interval
        else f"; 95% interval {100 * interval[0]:.1f}% – {100 * interval[1]:.1f}%"
    )
    kappa = summary.get("kappa")
    line = (
        f"labeller agreement (the ceiling for these scores): {100 * summary['rate']:.1f}% "
        f"({summary['agreements']} of {summary['items']} items agree{span})"
    )
    if kappa is not None:
        line += f"; Cohen's kappa on answerable {kappa:.2f}"
    if summary.get("unresolved"):
        line += f"; {summary['unresolved']} disagreements unresolved"
    return [line]
