"""``goldcase check``: report findings on every case file."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from goldcase.authoring.editor_schema import refresh_copies
from goldcase.checks import FAMILIES
from goldcase.commands.common import format_option, open_context, relative_paths, repo_option
from goldcase.context import Context
from goldcase.engine import run_checks, selected, staged_focus
from goldcase.errors import GoldcaseError
from goldcase.output import FORMATS, write_findings
from goldcase.versioning import staging


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@repo_option
@format_option(*FORMATS)
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option(
    "--select",
    multiple=True,
    metavar="FAMILY",
    help=f"Run only these check families: {', '.join(FAMILIES)}.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option(
    "--staged",
    is_flag=True,
    help="PATHS are the files a commit stages (as hooks pass them): report on them when they "
    "are all case files and the commit removes none, else on the whole set.",
)
@click.option(
    "--lock",
    "lock_first",
    is_flag=True,
    help="First do what goldcase lock --stage does (rewrite golden.version and golden.lock "
    "when the set changed, and add them to the commit), then check: the version and check "
    "hooks in one process.",
)
def command(
    paths: tuple[Path, ...],
    repo: Path | None,
    fmt: str,
    strict: bool,
    select: tuple[str, ...],
    no_cache: bool,
    staged: bool,
    lock_first: bool,
) -> int:
    """Check case files: schema, verbatim quotes, leakage, version and composition.

    With PATHS, findings are reported for those files only; set-wide rules (duplicate ids,
    leakage) still see the whole set. Exit status: 0 no errors, 1 errors (or warnings with
    --strict), 2 could not run.
    """
    ctx = open_context(repo, cache=not no_cache)
    touched = _inside(ctx, paths) if staged else None
    wanted = relative_paths(ctx, paths) if paths and touched is None else None
    with contextlib.ExitStack() as git_beside:  # git answers while goldcase works
        focus = None if touched is None else git_beside.enter_context(staged_focus(ctx, touched))
        locked = None
        if lock_first:  # the families are imported while the lock's listing is taken
            lock = staging.locked(
                ctx, stage=True, refresh=refresh_copies, imported=selected(select), touched=touched
            )
            locked = git_beside.enter_context(lock)  # git add runs while the checks do
        if focus is not None:
            wanted = focus()
        run = run_checks(ctx, select, wanted, None if locked is None else locked.case_set)
    for line in locked.lines if locked is not None else ():
        click.echo(line, err=True)  # stdout is the findings, in the format asked for
    write_findings(sys.stdout, run.findings, run.files, fmt)
    failing = [f for f in run.findings if f.severity == "error" or strict]
    return 1 if failing or (locked is not None and locked.status) else 0


def _inside(ctx: Context, paths: tuple[Path, ...]) -> list[str]:
    """Staged files as paths of the repository; none when one lies outside it (a file of a
    larger repository the set lives in): the commit then changes more than the set's files."""
    try:
        return relative_paths(ctx, paths)
    except GoldcaseError:
        return []
