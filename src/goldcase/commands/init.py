"""``goldcase init [DIR]``: scaffold a new golden-set repository."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.git_hooks import describe
from goldcase.authoring.scaffold import HOOK_FORMS, Options, init_repository


@click.command("init")
@click.argument("directory", required=False, default=".", type=click.Path(path_type=Path))
@click.option(
    "--hooks",
    type=click.Choice(HOOK_FORMS),
    default="url",
    show_default=True,
    help="url: pre-commit fetches goldcase's hooks from its repository at this release; "
    "local: the hooks call the goldcase installed here (repo: local), nothing is fetched.",
)
@click.option(
    "--git-hooks",
    is_flag=True,
    help="Also install the plain git hooks in the git directory (goldcase git-hooks --install).",
)
@click.option(
    "--example",
    is_flag=True,
    help="Also write one example case and the corpus document its quote is in.",
)
def command(directory: Path, hooks: str, git_hooks: bool, example: bool) -> int:
    """Scaffold a golden-set repository in DIRECTORY (default: here): folders, goldcase.toml,
    the case schema for editors, .pre-commit-config.yaml, .gitattributes with the merge driver,
    .gitignore and a README. Runs git init when DIRECTORY is not inside a git repository.
    golden.version and golden.lock are written by the first commit (version 1). Never
    overwrites a file (exit 2).
    """
    made = init_repository(directory, Options(hooks=hooks, git_hooks=git_hooks, example=example))
    if made.git_initialised:
        click.echo(f"initialised a git repository in {made.root}")
    for rel in made.written:
        click.echo(f"wrote {rel}")
    click.echo("configured the goldcase merge driver for golden.version and golden.lock")
    for line in describe(made.hooks) if made.hooks is not None else ():
        click.echo(line)
    for line in next_steps(hooks, git_hooks):
        click.echo(line)
    return 0


def next_steps(hooks: str, git_hooks: bool) -> list[str]:
    install = "" if git_hooks else "pre-commit install; "
    local = hooks == "local"
    where = " (with this environment active: the hooks call its goldcase)" if local else ""
    return [
        f"next: {install}add documents to corpus/ and cases with goldcase new{where}; "
        "goldcase check; then commit (the first commit writes golden.version 1 and golden.lock)"
    ]
