"""``goldcase agreement``: how far a second labeller agrees with the set's labels."""

from __future__ import annotations

import json
from pathlib import Path

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.engine import load_case_set
from goldcase.labelling.agreement import build_report, render_text


@click.command("agreement")
@click.option("--labeller", default=None, help="Compare this labeller only (default: all).")
@repo_option
@format_option("text", "json")
def command(labeller: str | None, repo: Path | None, fmt: str) -> int:
    """Items compared, percent agreement, Cohen's kappa on answerable and agreement on expected
    answers, each with a 95% interval, and the disagreements. Exit status: 0 no unresolved
    disagreement, 1 unresolved disagreements or malformed label files, 2 could not run."""
    ctx = open_context(repo)
    report = build_report(ctx, load_case_set(ctx), labeller)
    if fmt == "json":
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(report), nl=False)
    unresolved = any(not d["resolved"] for d in report["disagreements"])
    return 1 if unresolved or report["label_findings"] else 0
