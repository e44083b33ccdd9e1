"""``goldcase calibrate``: fit an abstention threshold with a bound on the risk of wrong answers."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.scoring.fitting import fit, render_json, render_text, warnings


@click.command("calibrate")
@click.argument("results", type=click.Path(path_type=Path))
@click.option(
    "--target-risk",
    type=float,
    required=True,
    metavar="A",
    help="The largest acceptable share of wrong answers among answered cases (0..1).",
)
@click.option(
    "--split",
    type=click.Choice(("calibration", "dev", "golden", "all")),
    default="calibration",
    show_default=True,
    help="The cases to fit on: the calibration half of golden (seeded), or dev.",
)
@click.option(
    "--delta",
    type=float,
    default=0.05,
    show_default=True,
    metavar="D",
    help="The bound holds with probability at least 1 - D.",
)
@format_option("text", "json")
@repo_option
def command(
    results: Path, target_risk: float, split: str, delta: float, fmt: str, repo: Path | None
) -> int:
    """Choose the lowest confidence threshold whose share of wrong answers is certified under
    the target risk on the calibration split (Clopper-Pearson bound, guaranteed-risk search).

    Prints the threshold, the coverage it gives and the bound, and the goldcase score command
    that measures it on the eval split. Exit status: 0 a threshold was certified, 1 the target
    cannot be certified (the threshold abstains from everything), 2 could not run.
    """
    for warning in warnings(split):
        click.echo(f"warning: {warning}", err=True)
    ctx = open_context(repo)
    result = fit(
        ctx,
        results,
        shown=str(results),
        repo=None if repo is None else str(repo),
        split=split,
        target_risk=target_risk,
        delta=delta,
    )
    click.echo(render_json(result) if fmt == "json" else render_text(result), nl=False)
    return 0 if result.calibration.certified else 1
