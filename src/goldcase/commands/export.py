"""``goldcase export``: the set in the format of another evaluation tool."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.interchange.export import FORMATS, export_set
from goldcase.interchange.inspect_task import task_file, task_path
from goldcase.safeio import refuse_linked_output
from goldcase.writer import atomic_write_text


@click.command("export")
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), required=True, help="The target format."
)
@click.option(
    "--split",
    type=click.Choice(["golden", "dev"]),
    default="golden",
    show_default=True,
    help="Which cases to export.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to FILE (default: standard output).",
)
@click.option(
    "--allow-private", is_flag=True, help="Export a set whose config says private = true."
)
@repo_option
def command(fmt: str, split: str, out: Path | None, allow_private: bool, repo: Path | None) -> int:
    """Export one split as JSONL (reference layout), promptfoo tests, Inspect AI or OpenAI
    evals samples.

    --out writes FILE and nothing else but, with --format inspect, the task file
    (NAME_task.py) whose scorer is goldcase's pass rule. Exit status: 0 exported, 2 refused (a
    private set, broken case files) or could not run.
    """
    ctx = open_context(repo)
    if out is not None:
        for written in (out, task_path(out)) if fmt == "inspect" else (out,):
            refuse_linked_output(ctx.root, written, "goldcase export")
    exported = export_set(
        ctx, fmt, "dev" if split == "dev" else "golden", allow_private=allow_private
    )
    if out is None:
        click.echo(exported.text, nl=False)
        return 0
    atomic_write_text(out, exported.text)
    version = f"golden.version {exported.version}" if exported.version else "no golden.version"
    click.echo(f"wrote {exported.cases} {split} cases to {out} ({version})", err=True)
    if fmt == "inspect":
        task = task_path(out)
        text = task_file(out, split, exported.version, ctx.config.run.abstain_patterns)
        atomic_write_text(task, text)
        click.echo(f"wrote {task} (the Inspect task: goldcase's pass rule as its scorer)", err=True)
    return 0
