"""``goldcase contamination``: golden questions and answers inside training or other text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.commands.engine_options import engine_options, scan_options
from goldcase.leakage.contamination import Report
from goldcase.leakage.scan.run import scan_golden


@click.command("contamination")
@click.argument("paths", nargs=-1, required=True)
@repo_option
@format_option("text", "json")
@click.option(
    "--ngram",
    type=click.IntRange(min=1),
    default=None,
    help="Words per n-gram (default: [leakage] ngram, 13).",
)
@engine_options
def command(
    paths: tuple[str, ...], repo: Path | None, fmt: str, ngram: int | None, **engine: Any
) -> int:
    """Scan PATHS (plain text, JSON Lines, gzip or zstd compressed, Parquet text columns) for
    the golden set's questions and answers, on this machine's cores or a Dask cluster. A PATH
    is a file, a folder (every file under it, see --include) or an fsspec URL (s3://, gs://,
    https://; goldcase[remote]).

    Reports each contaminated case with the file, line and byte offset of every record that
    holds it. Streams: memory does not grow with the files' size. Exit status: 0 nothing
    found, 1 contamination found, 2 could not run.
    """
    ctx = open_context(repo)
    options = scan_options(**engine)
    report = scan_golden(ctx, list(paths), ngram, options)
    if fmt == "json":
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        _text(report)
    return 1 if report.hits else 0


def _text(report: Report) -> None:
    for hit in sorted(report.hits, key=lambda h: (h.path, h.offset, h.case, h.part)):
        grams = (
            f"{hit.matched}/{hit.total} {report.n}-grams"
            if hit.total > 1 or hit.matched > 1
            else "whole"
        )
        unit = "row" if hit.path.lower().endswith((".parquet", ".pq")) else "byte"
        click.echo(f"{hit.path}:{hit.line}: {hit.case} {hit.part} ({grams}, {unit} {hit.offset})")
    files = len(report.files)
    click.echo(
        f"{len(report.contaminated)} of {report.cases} golden cases found in "
        f"{files} file{'' if files == 1 else 's'} ({report.bytes:,} bytes)"
    )
