"""``goldcase report``: a report as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.errors import GoldcaseError
from goldcase.html.build import render
from goldcase.safeio import refuse_linked_output


@click.command("report")
@click.argument("report", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--compare",
    "base",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A base report: per-slice deltas and the flipped cases.",
)
@click.option("--stats", is_flag=True, help="Add the set's composition against traffic shares.")
@click.option(
    "--html",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the page.",
)
@repo_option
def command(report: Path, base: Path | None, stats: bool, out: Path, repo: Path | None) -> int:
    """Write REPORT.json (from goldcase score --out) as a self-contained HTML page.

    Charts are inline SVG with text alternatives; nothing is fetched when the page opens.
    Failing cases link to their case files when the repository is found and holds the golden
    set the report was scored on.
    """
    try:
        ctx = open_context(repo)
    except GoldcaseError:
        if repo is not None or stats:
            raise
        ctx = None  # a report can be rendered away from its repository, without links
    reads = [(report, "the report"), *([(base, "the base report")] if base else [])]
    root = out.parent if ctx is None else ctx.root
    refuse_linked_output(root, out, "goldcase report", option="--html", reads=reads)

    for warning in render(ctx, report, out, base, stats):
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"wrote {out}")
    return 0
