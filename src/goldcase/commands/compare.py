"""``goldcase compare``: the gate between a BASE report and a HEAD report."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import format_option, repository_or_none
from goldcase.scoring.compare import compare
from goldcase.scoring.compare_render import FORMATS, render
from goldcase.scoring.reportfile import load_report


@click.command("compare")
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("head", type=click.Path(path_type=Path))
@format_option(*FORMATS)
@click.option(
    "--max-drop",
    type=float,
    default=5.0,
    show_default=True,
    metavar="POINTS",
    help="A gated slice fails only when it drops by more than this many points (and the drop "
    "is credible at --alpha).",
)
@click.option(
    "--alpha",
    type=float,
    default=0.05,
    show_default=True,
    help="Family-wise error rate of the gate: one-sided exact tests per gated slice and "
    "overall, Holm-corrected at this level.",
)
def command(base: Path, head: Path, fmt: str, max_drop: float, alpha: float) -> int:
    """Compare two reports (from goldcase score --out) case by case, and gate on a drop.

    A slice of at least its floor of cases, not ambiguous, fails when its drop is both larger
    than --max-drop and credible (one-sided exact test, Holm-corrected over the slices and
    overall at --alpha); overall, over those slices, fails on a credible drop. Both reports are
    checked against the report schema and their own case digest, and must share
    golden_version, set_digest, corpus_digest and split (exit 2 otherwise). Exit status: 0 the
    gate passes, 1 it fails, 2 could not run.
    """
    ctx = repository_or_none(None)  # the set, when at hand, to check the reports' cases by
    comparison = compare(
        load_report(base, str(base), ctx),
        load_report(head, str(head), ctx),
        max_drop=max_drop,
        alpha=alpha,
        labels=(str(base), str(head)),
    )
    click.echo(render(comparison, fmt), nl=False)
    return 0 if comparison.passed else 1
