"""``goldcase leakage --against FILE``: GC301/GC302 without the golden set."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase.commands.common import format_option
from goldcase.config import load_config
from goldcase.leakage.against import check_against, expand_paths
from goldcase.output import FORMATS, github_line, summary_line, text_line, write_findings


@click.command("leakage")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--against",
    "hashes_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The hashes file written by `goldcase hashes` in the golden-set repository.",
)
@format_option(*FORMATS)
def command(paths: tuple[Path, ...], hashes_file: Path, fmt: str) -> int:
    """Report golden questions in prompt files, knowing the golden set only by its hashes.

    Scans PATHS (files, or folders: every file under them), or with none the files matched by
    `[leakage] fewshot` (default `prompts/**`) under the current folder. Exit status: 0 none
    found, 1 found, 2 could not run.
    """
    root = Path.cwd()
    rels = expand_paths(root, paths)
    findings, files = check_against(hashes_file, root, rels, load_config(root).leakage.fewshot)
    if fmt == "json":
        write_findings(sys.stdout, findings, files, fmt)
    else:
        line = github_line if fmt == "github" else text_line
        for finding in findings:
            click.echo(line(finding))
        click.echo(summary_line(findings, files, noun="file"))
    return 1 if any(f.severity == "error" for f in findings) else 0
