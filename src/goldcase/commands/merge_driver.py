"""``goldcase merge-driver -- %O %A %B %P``: git's merge driver for golden.version and
golden.lock.

Enabled by ``.gitattributes`` (``golden.version merge=goldcase``, ``golden.lock merge=goldcase``)
and ``git config merge.goldcase.driver "goldcase merge-driver -- %O %A %B %P"``; ``goldcase
init`` writes both, and ``goldcase merge-driver --install`` sets the git config in a fresh
clone. The ``--`` keeps a %P that starts with ``-`` an operand; a clone configured before it
(``goldcase merge-driver %O %A %B %P``) is read the same way (``_Operands``).
"""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.scaffold import install_merge_driver
from goldcase.commands.common import repo_option
from goldcase.errors import GoldcaseError
from goldcase.versioning.merge import run_driver


class _Operands(click.Command):
    """The driver as git calls it without ``--`` (the driver string of older versions): three
    or four words none of the first three an option (git's temporary files are named
    ``.merge_file_…``) are all operands, so a %P starting with ``-`` is still a path."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if len(args) in (3, 4) and not any(a.startswith("-") for a in args[:3]):
            args = ["--", *args]
        return super().parse_args(ctx, args)


@click.command("merge-driver", cls=_Operands)
@click.argument("base", required=False, type=click.Path(path_type=Path))
@click.argument("ours", required=False, type=click.Path(path_type=Path))
@click.argument("theirs", required=False, type=click.Path(path_type=Path))
@click.argument("name", required=False)
@click.option(
    "--install",
    is_flag=True,
    help="Set merge.goldcase.driver in this clone's git config instead of merging.",
)
@repo_option
def command(
    base: Path | None,
    ours: Path | None,
    theirs: Path | None,
    name: str | None,
    install: bool,
    repo: Path | None,
) -> int:
    """Merge golden.version or golden.lock: git passes the ancestor's, our and their copy and the
    file's name (-- %O %A %B %P); the result is written over our copy.

    Exit status: 0 merged, 1 left as a conflict (the reason on stderr), 2 could not run.
    """
    if install:
        where = install_merge_driver(repo or Path.cwd())
        click.echo(f"merge.goldcase.driver set in {where}")
        return 0
    if base is None or ours is None or theirs is None:
        raise GoldcaseError("merge-driver needs %O %A %B [%P] from git; see docs/version.md")

    return run_driver(base, ours, theirs, name or ours.name)
