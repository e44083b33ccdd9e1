"""``goldcase fmt``: bring case files to the canonical key order and quoting."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.authoring.formatting import expand, format_files
from goldcase.commands.common import open_context, repo_option
from goldcase.engine import case_paths
from goldcase.output import text_line


@click.command("fmt")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@repo_option
@click.option("--check", is_flag=True, help="Change nothing; list the files that would change.")
def command(paths: tuple[Path, ...], repo: Path | None, check: bool) -> int:
    """Rewrite case files in the canonical key order and quoting, comments kept.

    PATHS are case files or folders (default: every file under cases/). Exit status: 0 nothing
    to change, 1 a file was changed (or, with --check, would be) or could not be parsed, 2 could
    not run.
    """
    ctx = open_context(repo, cache=False)
    rels = expand(ctx.root, paths, case_paths(ctx))
    result = format_files(ctx.config, rels, check=check)
    for finding in result.findings:
        click.echo(text_line(finding) + " (file left as it is)")
    for rel in result.changed:
        click.echo(f"{'would reformat' if check else 'reformatted'} {rel}")
    changed = len(result.changed)
    unchanged = result.files - changed - len({f.path for f in result.findings})
    files = f"{changed} file{'s' if changed != 1 else ''}"
    verb = "would be reformatted" if check else "reformatted"
    click.echo(f"{files} {verb}, {unchanged} unchanged")
    return 1 if result.changed or result.findings else 0
