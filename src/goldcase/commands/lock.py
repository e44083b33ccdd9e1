"""``goldcase lock [--check]``: keep golden.version and golden.lock in step with the set."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase import gitview
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
    outcome = locking.lock_repository(ctx)
    lines = locking.describe(outcome)
    written = list(outcome.wrote)
    refreshed = refresh_copies(ctx.root)
    if refreshed:
        written.extend(refreshed)
        lines.append(
            f"wrote {' and '.join(refreshed)} (the installed goldcase's schemas); add to the "
            f"commit: git add {' '.join(refreshed)}"
        )
    if not written:
        return _echo(lines, 0)
    if not stage:
        return _echo(lines, 1)
    problem = locking.stage_written(ctx.config, written)
    if problem is not None:
        return _echo([*lines, problem], 1)
    kept = [line for line in lines if not line.startswith("wrote ")]
    if gitview.in_merge_hook():  # git merge does not take what its hook stages: stop once
        note = "git merge does not take files a hook stages: complete it with git commit --no-edit"
        return _echo([*kept, f"staged {' and '.join(written)}; {note}"], 1)
    return _echo([*kept, f"staged {' and '.join(written)} in this commit"], 0)


def _echo(lines: list[str], status: int) -> int:
    for line in lines:
        click.echo(line)
    return status
