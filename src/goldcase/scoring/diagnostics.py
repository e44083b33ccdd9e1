"""The report's ``retrieval`` and ``trials`` blocks: which stage failed, and how often.

Both are computed only when the run records them (a trace on some line; several trials of some
case), so a plain run pays nothing for them.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from goldcase.context import Context
from goldcase.corpus import Corpus
from goldcase.labelling.agreement import agreement_summary
from goldcase.model import Case, CaseSet
from goldcase.scoring.outcomes import Graded, in_trial_order
from goldcase.scoring.results import Result
from goldcase.scoring.traces import has_trace, retrieval_section
from goldcase.scoring.trials import CaseTrials, trials_report

_TRACED = operator.attrgetter("traced")


def diagnostics(
    cases: Sequence[Case],
    by_id: Mapping[str, Sequence[Result]],
    graded: Sequence[Graded],
    corpus: Corpus,
    threshold: float | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"retrieval": None, "trials": None}
    # a look at every line first, without the split's ids: most runs have one untraced line
    # per case, and then no case of the split repeats or carries a trace
    if not any(len(rows) != 1 or rows[0].traced for rows in by_id.values()):
        return out
    ids = [case.id for case in cases]
    lines = [by_id.get(case_id, ()) for case_id in ids]
    repeated = any(len(rows) > 1 for rows in lines)
    traced = any(  # the few lines that name a trace field, found in C, then looked at
        has_trace(result.data) or "tool_calls" in result.data
        for result in filter(_TRACED, itertools.chain.from_iterable(lines))
    )
    if not repeated and not traced:
        return out
    by_case = {g.case_id: g for g in graded}
    shown = [by_case[case_id] for case_id in ids]
    if traced:
        out["retrieval"] = retrieval_section(_trace_rows(cases, lines, shown), corpus)
    if repeated:
        out["trials"] = trials_report(
            [
                CaseTrials(
                    case_id, g.slice, int(g.passed) if g.passes is None else g.passes, len(rows)
                )
                for case_id, rows, g in zip(ids, lines, shown, strict=True)
                if rows
            ]
        )
    return out


def _trace_rows(
    cases: Sequence[Case], lines: Sequence[Sequence[Result]], graded: Sequence[Graded]
) -> list[tuple[Case, Mapping[str, Any] | None, bool, str]]:
    """Per case: the line shown (the graded trial) and how it was graded."""
    rows: list[tuple[Case, Mapping[str, Any] | None, bool, str]] = []
    for case, results, g in zip(cases, lines, graded, strict=True):
        ordered = in_trial_order(results)
        data = ordered[g.shown].data if ordered else None
        rows.append((case, data, g.passed, g.outcome))
    return rows


def ceiling(ctx: Context, case_set: CaseSet) -> dict[str, Any] | None:
    """Second-labeller agreement, the ceiling the report prints beside model scores; None when
    the repository has no ``labels/`` folder (or no finished label in it)."""
    if not (ctx.root / "labels").is_dir():
        return None

    return agreement_summary(ctx, case_set)


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
