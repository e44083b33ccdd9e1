"""``goldcase import``: build a golden-set repository from another tool's file."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.interchange.importing import FORMATS, import_file
from goldcase.output import summary_line, text_line


@click.command("import")
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), required=True, help="The format of FILE."
)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The new repository's folder (absent or empty).",
)
@click.option(
    "--split",
    type=click.Choice(["golden", "dev"]),
    default="golden",
    show_default=True,
    help="Where the imported cases go.",
)
@click.option(
    "--corpus",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="jsonl: the folder holding the documents (default: corpus/ beside FILE).",
)
def command(fmt: str, file: Path, out: Path, split: str, corpus: Path | None) -> int:
    """Build a golden-set repository (cases, corpus, config, version, lock) from JSONL in
    the reference layout, SQuAD 1.1/2.0 JSON, or a promptfoo config.

    The new repository is checked at once: every quote that does not verify is reported.
    Exit status: 0 imported and clean, 1 imported with findings, 2 refused or could not run.
    """
    outcome = import_file(fmt, file, out, split=split, corpus=corpus)
    for note in outcome.notes:
        click.echo(f"note: {note}", err=True)
    for finding in outcome.findings:
        click.echo(text_line(finding))
    click.echo(f"wrote {outcome.cases} cases and {outcome.documents} documents to {out}")
    click.echo(summary_line(outcome.findings, outcome.cases))
    return 1 if any(f.severity == "error" for f in outcome.findings) else 0
