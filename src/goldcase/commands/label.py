"""``goldcase label sample``: blank label files for a second labeller."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.labelling.agreement import sample_labels


@click.group("label")
def command() -> None:
    """Second-labeller files under labels/<labeller>/<id>.yaml."""


@command.command("sample")
@click.option(
    "--n",
    "n",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="How many golden cases to sample.",
)
@click.option("--seed", required=True, help="Any text; the same seed draws the same sample.")
@click.option(
    "--labeller",
    default="second",
    show_default=True,
    help="The labeller's folder name under labels/.",
)
@repo_option
def sample(n: int, seed: str, labeller: str, repo: Path | None) -> int:
    """Draw a stratified sample (answerable x slice) of golden cases and write a blank label
    file for each. Refuses to overwrite existing label files. Exit status: 0 written, 2 could
    not run (nothing written)."""
    ctx = open_context(repo)
    written = sample_labels(ctx, n, seed, labeller)
    for path in written:
        click.echo(ctx.rel(path))
    click.echo(
        f"wrote {len(written)} blank label file{'' if len(written) == 1 else 's'} for "
        f"{labeller!r}; fill them in, then run goldcase agreement"
    )
    return 0
