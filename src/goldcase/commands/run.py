"""``goldcase run``: ask the system under test every case, write its results file."""

from __future__ import annotations

import os
from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.run.adapters import build_system
from goldcase.run.progress import progress_for
from goldcase.run.runner import RunOptions, run
from goldcase.scoring.scorer import SPLITS

INTERRUPTED = 130


@click.command("run")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    metavar="RESULTS.jsonl",
    help="The results file: created, or continued where an earlier run stopped.",
)
@click.option("--cmd", default=None, metavar="COMMAND", help="Worker processes: JSON lines.")
@click.option("--http", default=None, metavar="URL", help="A JSON POST per request.")
@click.option("--python", "python", default=None, metavar="MODULE:FUNCTION", help="A callable.")
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="NAME=VARIABLE",
    help="With --http: send header NAME with the value of environment variable VARIABLE.",
)
@click.option("--system", "name", default=None, help="The system's name in the manifest.")
@click.option("--split", type=click.Choice(SPLITS), default="golden", show_default=True)
@click.option("--trials", type=click.IntRange(1, 1000), default=1, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
)
@click.option("--retries", type=click.IntRange(0, 20), default=2, show_default=True)
@repo_option
def command(
    out: Path,
    cmd: str | None,
    http: str | None,
    python: str | None,
    headers: tuple[str, ...],
    name: str | None,
    split: str,
    trials: int,
    jobs: int,
    timeout: float,
    retries: int,
    repo: Path | None,
) -> int:
    """Ask the system every case of a split (id, question and trial only) and write one
    result line per answer to RESULTS.jsonl, with a manifest beside it.

    Exit status: 0 done, 2 refused (a golden question in a few-shot file or in a prompt the
    system sent, a file begun on another set or system) or could not run, 130 interrupted
    (the file is whole: the same command continues it).
    """
    system = build_system(cmd, http, python, headers, os.environ)
    ctx = open_context(repo)
    options = RunOptions(out, str(out), split, trials, jobs, timeout, retries, name)
    summary = run(ctx, system, options, progress_for())
    for line in summary.lines(str(out)):
        click.echo(line, err=True)
    return INTERRUPTED if summary.ended_by == "interrupted" else 0
