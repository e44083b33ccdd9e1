"""``goldcase schema [--check]``: the case and draft schemas in the repository, for editors."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.editor_schema import copy_states, write_copies
from goldcase.commands.common import open_context, repo_option


@click.command("schema")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Change nothing; exit 1 when a copy is missing or is another goldcase's schema.",
)
@repo_option
def command(check_only: bool, repo: Path | None) -> int:
    """Write schema/case.schema.json and schema/draft.schema.json, the schemas the first line
    of case files and drafts names, so that editors validate them as they are typed.

    Exit status: 0 the copies are current, 1 one was written (with --check: one is missing or
    stale), 2 could not run.
    """
    root = open_context(repo, cache=False).root
    states = copy_states(root)
    behind = {rel: state for rel, state in states.items() if state != "current"}
    if not behind:
        click.echo(f"{' and '.join(states)} are current")
        return 0
    if check_only:
        for rel, state in behind.items():
            why = "is missing" if state == "missing" else "is another goldcase's schema"
            click.echo(f"{rel} {why}; run goldcase schema to write it")
        return 1
    written = write_copies(root)
    click.echo(f"wrote {' and '.join(written)}; add to the commit: git add {' '.join(written)}")
    return 1
