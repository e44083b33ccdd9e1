"""``goldcase split``: show which golden cases go to calibration and which to eval."""

from __future__ import annotations

import json
from pathlib import Path

import click

from goldcase.commands.common import format_option, open_context, repo_option
from goldcase.engine import load_case_set
from goldcase.scoring.split import CALIBRATION, EVAL, SplitSummary, summarise_split


@click.command("split")
@click.option("--seed", type=int, default=None, help="Hash key (default: [split] seed).")
@click.option(
    "--fraction",
    type=click.FloatRange(0, 1),
    default=None,
    help="Share of each stratum for calibration (default: [split] fraction).",
)
@click.option("--list", "list_ids", is_flag=True, help="Text output: list the ids of each half.")
@format_option("text", "json")
@repo_option
def command(
    seed: int | None, fraction: float | None, list_ids: bool, fmt: str, repo: Path | None
) -> int:
    """Split the golden set into calibration and eval halves, stratified on answerable x slice.

    The split is a pure function of the case ids, the seed and the fraction: it is the same on
    every machine, and `goldcase score --split calibration|eval` uses the same one.
    Exit status: 0 done, 2 could not run.
    """
    ctx = open_context(repo)
    config = ctx.config.split
    case_set = load_case_set(ctx)
    left_out = sum(1 for f in case_set.files if f.split == "golden" and not f.valid)
    if left_out:
        click.echo(
            f"warning: {left_out} golden case file(s) failed the schema and are left out of "
            "the split; run goldcase check",
            err=True,
        )
    summary = summarise_split(
        case_set.golden,
        config.seed if seed is None else seed,
        config.fraction if fraction is None else fraction,
    )
    click.echo(_json(summary) if fmt == "json" else _text(summary, list_ids), nl=False)
    return 0


def _json(summary: SplitSummary) -> str:
    return json.dumps(summary.as_dict(), indent=2, ensure_ascii=False) + "\n"


def _text(summary: SplitSummary, list_ids: bool) -> str:
    total = len(summary.assignment)
    calibration = len(summary.ids(CALIBRATION))
    lines = [
        f"split of {total} golden cases: seed {summary.seed}, fraction {summary.fraction:g} "
        f"-> {calibration} calibration, {total - calibration} eval",
        f"{'slice':<24} {'answerable':<10} {'size':>5} {'calibration':>11} {'eval':>5}",
    ]
    for s in summary.strata:
        kind = "yes" if s.answerable else "no"
        lines.append(f"{s.slice:<24} {kind:<10} {s.size:>5} {s.calibration:>11} {s.eval:>5}")
    if list_ids:
        for name in (CALIBRATION, EVAL):
            lines.append(f"{name}: {' '.join(summary.ids(name)) or '(none)'}")
    return "\n".join(lines) + "\n"
