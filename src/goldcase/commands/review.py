"""``goldcase review``: what a branch does to the set, for a pull-request comment."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.errors import GoldcaseError
from goldcase.review.build import review
from goldcase.review.render import render
from goldcase.safeio import read_regular_text, refuse_linked_output
from goldcase.writer import atomic_write_text


@click.command("review")
@click.option(
    "--base",
    metavar="REF",
    default=None,
    help="Compare with this commit (default: the merge base of HEAD and origin/main, else main).",
)
@click.option(
    "--head", metavar="REF", default=None, help="Review this commit (default: the working tree)."
)
@format_option("markdown", "text", "json")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also append the output to FILE (e.g. $GITHUB_STEP_SUMMARY).",
)
@repo_option
def command(
    base: str | None, head: str | None, fmt: str, out: Path | None, repo: Path | None
) -> int:
    """List every case added, changed, moved (golden <-> dev) or removed since the base: each
    field's old and new value, its quotes in their document's context, and the findings on it.

    Exit status: 0 the review was written (findings are shown, not failed on; goldcase check
    is the gate), 2 could not run (not a git repository, an unknown ref).
    """
    ctx = open_context(repo)
    if out is not None:  # read, then written whole
        refuse_linked_output(ctx.root, out, "goldcase review", whole=False)  # appended to
    text = render(review(ctx, base, head), fmt)
    click.echo(text, nl=False)
    if out is not None:
        _append(out, text)
    return 0


def _append(path: Path, text: str) -> None:
    """Append, as a step summary file wants (it may hold earlier steps' output)."""
    try:  # never a blocking read: a FIFO given as --out would wait for a writer forever
        before = read_regular_text(path) if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(
            f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}"
        ) from exc
    atomic_write_text(path, before + text)
