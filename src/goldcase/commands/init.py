"""``goldcase init [DIR] [--git-hooks]``: scaffold a new golden-set repository."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.scaffold import init_repository


@click.command("init")
@click.argument("directory", required=False, default=".", type=click.Path(path_type=Path))
@click.option(
    "--git-hooks",
    is_flag=True,
    help="Also write hooks/pre-commit and hooks/pre-push and set core.hooksPath.",
)
def command(directory: Path, git_hooks: bool) -> int:
    """Scaffold a golden-set repository in DIRECTORY (default: here): folders, goldcase.toml,
    one example case and document, golden.version, golden.lock, .pre-commit-config.yaml,
    .gitattributes with the merge driver, .gitignore and a README. Runs git init when
    DIRECTORY is not inside a git repository. Never overwrites a file (exit 2).
    """
    made = init_repository(directory, git_hooks=git_hooks)
    if made.git_initialised:
        click.echo(f"initialised a git repository in {made.root}")
    for rel in made.written:
        click.echo(f"wrote {rel}")
    click.echo("configured the goldcase merge driver for golden.version and golden.lock")
    if git_hooks:
        click.echo("git hooks enabled: core.hooksPath = hooks")
    click.echo("next: pre-commit install (or use --git-hooks), then goldcase check")
    return 0
