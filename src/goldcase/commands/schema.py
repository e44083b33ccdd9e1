"""``goldcase schema [--check]``: the case schema in the repository, for editors."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.editor_schema import SCHEMA_REL, copy_state, write_copy
from goldcase.commands.common import open_context, repo_option


@click.command("schema")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Change nothing; exit 1 when the copy is missing or is another goldcase's schema.",
)
@repo_option
def command(check_only: bool, repo: Path | None) -> int:
    """Write schema/case.schema.json, the schema the case files' first line names, so that
    editors validate case files as they are typed.

    Exit status: 0 the copy is current, 1 it was written (with --check: it is missing or
    stale), 2 could not run.
    """
    root = open_context(repo, cache=False).root
    state = copy_state(root)
    if state == "current":
        click.echo(f"{SCHEMA_REL} is current")
        return 0
    if check_only:
        why = "is missing" if state == "missing" else "is another goldcase's schema"
        click.echo(f"{SCHEMA_REL} {why}; run goldcase schema to write it")
        return 1
    write_copy(root)
    click.echo(f"wrote {SCHEMA_REL}; add it to the commit: git add {SCHEMA_REL}")
    return 1
