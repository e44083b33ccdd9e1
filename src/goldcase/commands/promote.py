"""``goldcase promote``: move labelled drafts from cases/inbox/ into the golden or dev set."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.gitview import tracked
from goldcase.output import text_line
from goldcase.traffic.promote import promote


@click.command("promote")
@click.argument("drafts", nargs=-1, required=True)
@click.option(
    "--to",
    "split",
    type=click.Choice(["golden", "dev"]),
    required=True,
    help="The set the cases join.",
)
@repo_option
def command(drafts: tuple[str, ...], split: str, repo: Path | None) -> int:
    """Move each labelled draft (an id such as tr-1h4kq3bz7, or its file) into the golden or
    dev set under its final id, once it passes every check of that set; all of them, or none.
    Exit status: 0 moved, 1 refused (the findings are listed at the drafts' lines), 2 could
    not run (no such draft, a draft not labelled yet)."""
    ctx = open_context(repo, cache=False)
    outcome = promote(ctx, drafts, "golden" if split == "golden" else "dev")
    for finding in [*outcome.refused, *outcome.warnings]:
        click.echo(text_line(finding))
    if outcome.refused:
        n = len(outcome.refused)
        click.echo(f"refused: {n} error{'' if n == 1 else 's'}; fix the drafts and run again")
        return 1
    for draft, case in outcome.promoted:
        click.echo(f"{draft} -> {case}")
    drafts_in_git = tracked(ctx.root, [draft for draft, _ in outcome.promoted])
    files = [
        p
        for draft, case in outcome.promoted
        for p in (draft, case)
        if p != draft or p in drafts_in_git
    ]
    click.echo(f"commit them: git add {' '.join(files)} && git commit")
    if split == "golden":
        click.echo(
            "the golden set changed: the goldcase-version hook bumps golden.version at the "
            "commit (or run goldcase lock and add golden.version and golden.lock)"
        )
    return 0
