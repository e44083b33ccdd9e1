"""``goldcase git-hooks [--install]``: the plain git hooks, in this clone's git directory."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.git_hooks import HOOKS_PATH, describe, status
from goldcase.authoring.git_hooks import install as install_hooks
from goldcase.commands.common import repo_option
from goldcase.config import find_root


@click.command("git-hooks")
@click.option(
    "--install",
    is_flag=True,
    help="Install the hooks in this clone's git directory (again: goldcase's are updated).",
)
@repo_option
def command(install: bool, repo: Path | None) -> int:
    """The plain git hooks (pre-commit, pre-merge-commit, pre-push) for teams without the
    pre-commit framework. Without --install, show whether they are installed.

    They are installed in the git directory (git rev-parse --git-path hooks), which no clone or
    branch carries, and run only the goldcase on PATH or the Python that installed them. A
    hook goldcase did not write is never replaced; an older goldcase's core.hooksPath (the
    tracked hooks/ folder) is unset.

    One clone's hooks guard one golden set: --install for another set of the same
    repository refuses, naming the set they guard.

    Exit status: 0 installed, 1 (without --install) not all installed for this set, 2 could
    not run.
    """
    root = find_root(repo or Path.cwd())
    if install:
        for line in describe(install_hooks(root)):
            click.echo(line)
        return 0
    states = status(root)
    for name, state in states:
        click.echo(f"{name}: {state}")
    hooks = [state for name, state in states if name != HOOKS_PATH]
    pointed = any(name == HOOKS_PATH for name, _ in states)
    return 0 if all(state == "installed" for state in hooks) and not pointed else 1
