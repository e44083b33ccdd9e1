"""``goldcase label``: a second labeller's sample (``sample``) and the labelling page
(``serve``)."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.labelling.agreement import sample_labels
from goldcase.labelpage.app import App
from goldcase.labelpage.items import source_for
from goldcase.labelpage.selfcheck import self_check
from goldcase.labelpage.server import start


@click.group("label")
def command() -> None:
    """Label drafts and a second labeller's sample on a local page; draw that sample."""


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


@command.command("serve")
@click.option(
    "--labeller",
    default=None,
    help="Label this second labeller's sample under labels/NAME/, blind (default: the drafts "
    "in cases/inbox/).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="The port on 127.0.0.1 (0: any free port).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Serve once on a free port, ask the page and its API as a browser and an intruder "
    "would, print the answers and stop.",
)
@repo_option
def serve(labeller: str | None, port: int, check: bool, repo: Path | None) -> int:
    """A local web page to label the drafts in cases/inbox/, or (--labeller NAME) a second
    labeller's sample: search the corpus, select the passage that answers, save; every save
    is checked at once. Bound to 127.0.0.1; the address printed carries the token every
    request needs. Stop it with Ctrl-C. Exit status: 0 stopped (--check: every answer as
    expected), 1 --check saw an unexpected answer, 2 could not run."""
    ctx = open_context(repo)
    app = App(ctx, source_for(ctx, labeller))
    if check:
        lines, ok = self_check(app)
        click.echo("\n".join(lines))
        return 0 if ok else 1
    server = start(app, port)
    click.echo(f"labelling page for {ctx.rel(app.source.folder)}/ at\n  {server.url}")
    click.echo("open that address in a browser on this machine; Ctrl-C stops the page")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()
    return 0
