"""``goldcase hashes``: the golden questions as salted hashes, for ``leakage --against``."""

from __future__ import annotations

from pathlib import Path

import click

from goldcase.commands.common import open_context, repo_option
from goldcase.leakage.hashes import write_hashes


@click.command("hashes")
@repo_option
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("golden.hashes"),
    show_default=True,
    help="The hashes file to write.",
)
@click.option(
    "--ngram",
    type=click.IntRange(min=1),
    default=None,
    help="Words per n-gram (default: [leakage] ngram, 13).",
)
@click.option("--no-ids", is_flag=True, help="Leave case ids out of the file.")
@click.option("--new-salt", is_flag=True, help="Draw a new salt instead of keeping the file's.")
def command(repo: Path | None, out: Path, ngram: int | None, no_ids: bool, new_salt: bool) -> int:
    """Write the golden set's normalised-question hashes and word n-gram hashes, salted.

    The file lets a repository that must not see the golden set (the application and its
    prompts) run `goldcase leakage --against FILE`. It holds no question text. Exit status:
    0 written, 2 could not run.
    """
    ctx = open_context(repo)
    hashes, left_out = write_hashes(ctx, out, ngram=ngram, ids=not no_ids, fresh=new_salt)
    grams = sum(len(q.ngrams) for q in hashes.questions)
    click.echo(
        f"wrote {out}: {len(hashes.questions)} golden questions, {grams} {hashes.ngram}-gram hashes"
    )
    if left_out:
        click.echo(
            f"warning: {len(left_out)} golden case file(s) left out, they do not pass the "
            f"schema (first: {left_out[0]}); run goldcase check",
            err=True,
        )
    return 0
