"""``goldcase lock [--check]``: keep golden.version and golden.lock in step with the set."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase.authoring.editor_schema import refresh_copies
from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.output import FORMATS, write_findings
from goldcase.versioning import locking


@click.command("lock")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Change nothing; exit 1 with GC4xx findings when files differ from the lock.",
)
@repo_option
@format_option(*FORMATS)
def command(check_only: bool, repo: Path | None, fmt: str) -> int:
    """Recompute golden.lock; bump golden.version when the golden set or the corpus changed.

    Exit status: 0 nothing to change, 1 files rewritten (add them and commit again) or, with
    --check, the files differ from the lock; 2 could not run.
    """
    ctx = open_context(repo)
    if check_only:
        findings, files = locking.check_repository(ctx)
        write_findings(sys.stdout, findings, files, fmt)
        return 1 if findings else 0
    outcome = locking.lock_repository(ctx)
    for line in locking.describe(outcome):
        click.echo(line)
    refreshed = refresh_copies(ctx.root)
    if refreshed:
        click.echo(
            f"wrote {' and '.join(refreshed)} (the installed goldcase's schemas); add to the "
            f"commit: git add {' '.join(refreshed)}"
        )
    return 1 if outcome.wrote or refreshed else 0
