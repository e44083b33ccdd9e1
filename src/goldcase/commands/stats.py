"""``goldcase stats``: the set's composition, and what each slice can detect."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.composition import stats


@click.command("stats")
@repo_option
@format_option("text", "json", "markdown")
def command(repo: Path | None, fmt: str) -> int:
    """Counts by split, slice, source, tag and answerability; each golden slice against its
    floor, synthetic cap and traffic share, with the standard error a 90% pass rate has on
    that many items. Exit status: 0 shown, 2 could not run."""
    data = stats.compute(open_context(repo))
    if fmt == "json":
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(stats.render_markdown(data), nl=False)
    else:
        stats.render_text(data, sys.stdout, color=sys.stdout.isatty())
    return 0
