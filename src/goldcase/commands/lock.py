"""``goldcase lock [--check]``: keep golden.version and golden.lock in step with the set."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase.authoring.editor_schema import refresh_copies
from goldcase.authoring.git_hooks import legacy_warning
from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.output import FORMATS, write_findings
from goldcase.versioning import locking, staging


@click.command("lock")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Change nothing; exit 1 with GC4xx findings when files differ from the lock.",
)
@click.option(
    "--stage",
    is_flag=True,
    help="Add the files it rewrites to the commit being made (for hooks): one commit attempt.",
)
@repo_option
@format_option(*FORMATS)
def command(check_only: bool, stage: bool, repo: Path | None, fmt: str) -> int:
    """Recompute golden.lock; move golden.version when the golden set or the corpus changed
    (once per branch: see docs/version.md).

    Exit status: 0 nothing to change (or, with --stage, the rewritten files were staged), 1
    files rewritten (add them and commit again) or, with --check, the files differ from the
    lock or the version does not follow the base; 2 could not run.
    """
    if check_only and stage:
        raise click.UsageError("--check changes nothing, so there is nothing to --stage")
    ctx = open_context(repo)
    if check_only:
        findings, files = locking.check_repository(ctx)
        write_findings(sys.stdout, findings, files, fmt)
        return 1 if findings else 0
    with staging.locked(ctx, stage=stage, refresh=refresh_copies) as locked:
        pass
    warning = legacy_warning(ctx.root) if stage else None
    if warning is not None:
        click.echo(warning, err=True)
    return _echo(locked.lines, locked.status)


def _echo(lines: list[str], status: int) -> int:
    for line in lines:
        click.echo(line)
    return status
