"""``goldcase score``: score a results file against the set, with named denominators."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.interchange.sources import SOURCES, score_from
from goldcase.run.manifest import manifest_path
from goldcase.safeio import refuse_linked_output
from goldcase.scoring.report import FORMATS, render_json, render_markdown, render_text
from goldcase.scoring.scorer import (
    SPLITS,
    check_threshold,
    lock_warnings,
    split_warnings,
)
from goldcase.writer import atomic_write_text


@click.command("score")
@click.argument("results", type=click.Path(path_type=Path, dir_okay=True))
@click.option(
    "--from",
    "source",
    type=click.Choice(SOURCES),
    default="results",
    show_default=True,
    help="What RESULTS is: a goldcase results file, promptfoo's output (-o OUTPUT.json) "
    "or an Inspect log (.json or .eval), converted to result lines first.",
)
@repo_option
@click.option(
    "--split",
    type=click.Choice(SPLITS),
    default="golden",
    show_default=True,
    help="Which cases to score: golden, dev, the seeded calibration or eval half of "
    "golden, or all (golden + dev).",
)
@click.option(
    "--threshold",
    type=float,
    default=None,
    metavar="T",
    help="Count answers with confidence under T (or none) as abstentions.",
)
@format_option(*FORMATS)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    metavar="REPORT.json",
    help="Also write the JSON report to this file.",
)
def command(
    results: Path,
    source: str,
    repo: Path | None,
    split: str,
    threshold: float | None,
    fmt: str,
    out: Path | None,
) -> int:
    """Score RESULTS (JSONL, one object per case; or, with --from, promptfoo's output or an
    Inspect log) against the golden set.

    Every line is validated first; any problem stops the run with exit status 2 and nothing is
    scored. Exit status: 0 scored, 2 could not score.
    """
    check_threshold(threshold)
    ctx = open_context(repo, cache=True)
    if out is not None:
        reads = [
            (results, "the results file"),
            (manifest_path(results), "the results file's run manifest"),
            (ctx.config.version_file, "golden.version"),
            (ctx.config.lock_file, "golden.lock"),
        ]
        refuse_linked_output(ctx.root, out, "goldcase score", reads=reads)
    for warning in split_warnings(split, threshold):
        click.echo(f"warning: {warning}", err=True)
    as_json = out is not None or fmt == "json"  # only the JSON report carries cases_digest
    report, warnings = score_from(
        ctx, results, source=source, split=split, threshold=threshold, digest=as_json
    )
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    json_text = render_json(report) if as_json else ""
    if out is not None:
        atomic_write_text(out, json_text)
    if fmt == "json":
        sys.stdout.write(json_text)
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(report))
    else:
        render_text(report, sys.stdout)
    for warning in lock_warnings(ctx, report):  # after the report, where it is seen last
        click.echo(f"warning: {warning}", err=True)
    return 0
