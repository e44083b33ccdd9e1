"""``goldcase new``: write a new case file, prompting for what is missing in a terminal."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goldcase.authoring.editor_schema import SCHEMA_REL, write_copies
from goldcase.authoring.new import NewCase, create_case, unheld_probes, verify_quote
from goldcase.commands.common import open_context, repo_option
from goldcase.context import Context
from goldcase.errors import GoldcaseError


@click.command("new")
@click.option(
    "--golden",
    "split",
    flag_value="golden",
    default=True,
    help="Write the case under cases/golden/ (the default).",
)
@click.option("--dev", "split", flag_value="dev", help="Write the case under cases/dev/.")
@click.option("--slice", "slice_name", metavar="S", help="The slice the case is reported in.")
@click.option("--question", metavar="Q", help="The question, as a user would type it.")
@click.option("--expected-answer", metavar="A", help="The short right answer.")
@click.option(
    "--unanswerable",
    is_flag=True,
    help="The corpus cannot answer it: abstaining is the right behaviour.",
)
@click.option(
    "--doc",
    "docs",
    multiple=True,
    metavar="D",
    help="The corpus document (basename) of the next --quote; repeatable.",
)
@click.option(
    "--quote", "quotes", multiple=True, metavar="Q", help="A verbatim support quote; repeatable."
)
@click.option(
    "--source", type=click.Choice(["transcript", "hand-written"]), help="Where the case came from."
)
@click.option("--tag", "tags", multiple=True, metavar="T", help="A tag; repeatable.")
@click.option(
    "--pass-probe",
    "pass_probes",
    multiple=True,
    metavar="A",
    help="A right answer the case's checks must pass; repeatable.",
)
@click.option(
    "--fail-probe",
    "fail_probes",
    multiple=True,
    metavar="A",
    help="A wrong answer the case's checks must fail; repeatable.",
)
@click.option(
    "--prompt/--no-prompt",
    "prompt",
    default=None,
    help="Ask for what is missing (default: when stdin is a terminal).",
)
@repo_option
def command(
    split: str,
    slice_name: str | None,
    question: str | None,
    expected_answer: str | None,
    unanswerable: bool,
    docs: tuple[str, ...],
    quotes: tuple[str, ...],
    source: str | None,
    tags: tuple[str, ...],
    pass_probes: tuple[str, ...],
    fail_probes: tuple[str, ...],
    prompt: bool | None,
    repo: Path | None,
) -> int:
    """Write a new case under an id of its slice that no other branch takes.

    Every quote is checked against its document first: a quote that is not there verbatim is
    refused with the closest passage, and nothing is written. --doc may be left out when
    exactly one document holds the quote. A probe that does not hold is a warning (the case
    may need an expect block). Exit status: 0 written, 2 refused or could not run.
    """
    ctx = open_context(repo, cache=False)
    if docs and len(docs) != len(quotes):
        raise GoldcaseError(
            f"{len(docs)} --doc for {len(quotes)} --quote; give one --doc per "
            "--quote, or none to find each quote's document"
        )
    spec = NewCase(
        split="dev" if split == "dev" else "golden",
        question=question or "",
        answerable=not unanswerable,
        expected_answer=expected_answer,
        support=list(zip(docs or [None] * len(quotes), quotes, strict=True)),
        slice=slice_name,
        tags=list(tags),
        source=source,
        pass_probes=list(pass_probes),
        fail_probes=list(fail_probes),
    )
    if sys.stdin.isatty() if prompt is None else prompt:
        _ask(ctx, spec)
    path = create_case(ctx, spec)
    click.echo(f"wrote {ctx.rel(path)}")
    for rel in write_copies(
        ctx.root, only_missing=True, needed=SCHEMA_REL
    ):  # its first line names it
        click.echo(f"wrote {rel}, a schema for editors")
    for problem in unheld_probes(ctx, path):
        click.echo(
            f"warning: {ctx.rel(path)}: {problem}; write an expect block that holds it "
            "(goldcase check reports it as GC601 / GC602)",
            err=True,
        )
    return 0


def _ask(ctx: Context, spec: NewCase) -> None:
    if not spec.slice:
        spec.slice = click.prompt("slice", default="", show_default=False).strip() or None
    if not spec.question.strip():
        spec.question = click.prompt("question, as a user would type it")
    if spec.answerable and not spec.expected_answer:
        answer = click.prompt(
            "expected answer (empty: the corpus cannot answer it)", default="", show_default=False
        ).strip()
        spec.answerable = bool(answer)
        spec.expected_answer = answer or None
    if spec.answerable and not spec.support:
        spec.support.append(_ask_quote(ctx))
    if spec.answerable and not spec.pass_probes:
        spec.pass_probes = _ask_probe("a right answer, worded as a system might (empty: none)")
    if spec.answerable and not spec.fail_probes:
        spec.fail_probes = _ask_probe(
            "a wrong answer the checks must fail: a confusable figure, a negation (empty: none)"
        )


def _ask_probe(text: str) -> list[str]:
    answer = click.prompt(text, default="", show_default=False).strip()
    return [answer] if answer else []


def _ask_quote(ctx: Context) -> tuple[str | None, str]:
    names = sorted(ctx.corpus.documents)
    shown = ", ".join(names[:8]) + (" …" if len(names) > 8 else "")
    for _ in range(3):
        doc = (
            click.prompt(
                f"document ({shown}; empty: find it)", default="", show_default=False
            ).strip()
            or None
        )
        quote = click.prompt("quote, copied verbatim")
        try:
            return verify_quote(ctx.corpus, doc, quote), quote
        except GoldcaseError as exc:
            click.echo(f"error: {exc.message}", err=True)
    raise GoldcaseError("no verbatim quote after three tries; nothing was written")
