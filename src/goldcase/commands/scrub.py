"""``goldcase scrub``: propose redactions of personal data, show the diff, apply on consent."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase.output import plain
from goldcase.privacy import scrub


@click.command("scrub")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--yes", is_flag=True, help="Apply without asking.")
def command(paths: tuple[Path, ...], yes: bool) -> int:
    """Replace personal data in case files with [EMAIL], [PHONE], [CARD], [IBAN],
    [NATIONAL_ID] or [ADDRESS], keeping comments and layout. Shows the diff first and asks on a
    terminal; without a terminal and without --yes nothing changes. Exit status: 0 nothing to
    redact, 1 redactions proposed or applied, 2 could not run."""
    files = scrub.expand(paths)
    keep = scrub.published_near(paths)
    proposals = [p for p in (scrub.propose(path, keep=keep) for path in files) if p is not None]
    if not proposals:
        click.echo(f"nothing to redact in {len(files)} file{'' if len(files) == 1 else 's'}")
        return 0
    for proposal in proposals:
        click.echo(proposal.diff(), nl=False)
    count = f"{len(proposals)} file{'' if len(proposals) == 1 else 's'}"
    if not yes:
        if not sys.stdin.isatty():
            click.echo(f"not applied to {count}: no terminal to ask; rerun with --yes", err=True)
            return 1
        if not click.confirm(f"apply these redactions to {count}?", default=False):
            click.echo("nothing changed")
            return 1
    left = [proposal for proposal in proposals if not proposal.apply()]
    for proposal in left:
        shown = plain(proposal.shown)
        click.echo(
            f"{shown}: changed since the diff above was made; nothing written to it: "
            f"rerun goldcase scrub {shown}",
            err=True,
        )
    applied = len(proposals) - len(left)
    if applied:
        click.echo(f"redacted {applied} file{'' if applied == 1 else 's'}; review and commit them")
    return 1
