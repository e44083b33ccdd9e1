"""``goldcase triage``: draw a week's sample of production traces as drafts in cases/inbox/."""

from __future__ import annotations

import json
from pathlib import Path

import click

from goldcase.authoring.editor_schema import write_copies
from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.safeio import refuse_linked_output
from goldcase.traffic import report
from goldcase.traffic.triage import Options, triage


@click.command("triage")
@click.argument("traces", type=click.Path(dir_okay=True, path_type=Path))
@click.option("--n", "n", type=click.IntRange(min=1, max=100_000), help="Drafts to draw.")
@click.option(
    "--seed", default="0", show_default=True, help="Any text; the same seed draws the same."
)
@click.option(
    "--failed-share",
    type=click.FloatRange(0, 1),
    help="The share drawn from flagged traces (the rest from all traffic).",
)
@click.option(
    "--inbox",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the drafts to this folder instead of cases/inbox/.",
)
@click.option("--dry-run", is_flag=True, help="Draw and report; write nothing.")
@repo_option
@format_option("text", "json")
def command(
    traces: Path,
    n: int | None,
    seed: str,
    failed_share: float | None,
    inbox: Path | None,
    dry_run: bool,
    repo: Path | None,
    fmt: str,
) -> int:
    """Draw a seeded sample of TRACES (JSON Lines), mostly failures plus a share of random
    traffic; replace personal data with tokens; pass over questions the set (or the sample)
    holds already, exactly or nearly; write one draft per trace to cases/inbox/ and estimate
    the labelling time. Bad lines are listed on stderr with their numbers. Exit status: 0
    drawn, 2 could not run."""
    ctx = open_context(repo, cache=False)
    if inbox is not None:  # read and written: never through a link a repository committed
        refuse_linked_output(ctx.root, inbox, "goldcase triage", option="--inbox", what="folder")
    config = ctx.config.triage
    options = Options(
        n=n if n is not None else config.n,
        seed=seed,
        failed_share=failed_share if failed_share is not None else config.failed_share,
        inbox=inbox.resolve() if inbox is not None else None,
        dry_run=dry_run,
    )
    result = triage(ctx, traces, str(traces), options)
    if not dry_run and result.ids:  # each draft's first line names the draft schema
        for rel in write_copies(ctx.root, only_missing=True):
            click.echo(f"wrote {rel}, a schema for editors", err=True)
    for line in report.bad_lines(str(traces), result.log):
        click.echo(line, err=True)
    if fmt == "json":
        click.echo(json.dumps(report.as_json(result, ctx.rel), indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(report.text_lines(result, ctx.rel)))
    return 0
