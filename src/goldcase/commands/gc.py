"""``goldcase gc [--all]``: sweep the user cache folder now."""

from __future__ import annotations

import click

from goldcase.cache import user_cache_tracked
from goldcase.cachesweep import repos_folder, sweep_now
from goldcase.errors import GoldcaseError


@click.command("gc")
@click.option("--all", "everything", is_flag=True, help="Remove every repository's cache.")
def command(everything: bool) -> int:
    """Remove the cache folders of repositories that no longer exist or were unused for 30
    days, then the least recently used past 2 GiB: what goldcase does by itself once a day.
    With --all, remove every repository's cache folder (each next check runs cold).

    Exit status: 0 done, 2 could not run.
    """
    if user_cache_tracked():
        raise GoldcaseError(
            f"{repos_folder()} is in a git work tree that tracks a file in it or on the way to "
            "it (a committed link would have gc remove what it leads to), so nothing was "
            "removed; set XDG_CACHE_HOME to a folder outside the repository"
        )
    removed = sweep_now(everything=everything)
    where = repos_folder()
    if not removed:
        click.echo(f"nothing to remove in {where}")
        return 0
    freed = sum(folder.size for folder in removed)
    size = f"{freed / 1024**2:.1f} MiB" if freed >= 1024**2 else f"{freed / 1024:.1f} KiB"
    folders = "folder" if len(removed) == 1 else "folders"
    click.echo(f"removed {len(removed)} cache {folders} ({size}) from {where}")
    return 0
