"""The ``goldcase`` command: a click group whose commands live in ``goldcase.commands``.

Commands are imported only when they run, so ``goldcase --help`` stays fast. Each command
turns its options into one library call; expected failures are ``GoldcaseError`` and print
``error: …`` with exit status 2, and a traceback only with ``--traceback``.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import sys
import threading
from typing import Any

import click

from goldcase import progress
from goldcase.collector import ending_without_teardown
from goldcase.errors import GoldcaseError

# name -> (module in goldcase.commands, one-line help shown by --help)
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("new", "Write a new case under an id no branch shares; refuse a quote not verbatim."),
    "fmt": ("fmt", "Rewrite case files in the canonical key order and quoting, comments kept."),
    "triage": ("triage", "Draw production traces (mostly failures) as drafts in cases/inbox/."),
    "promote": ("promote", "Move a labelled draft into the golden or dev set under its final id."),
    "review": ("review", "Summarise the cases a branch adds, changes, moves or removes."),
    "export": ("export", "Export the set as JSONL, promptfoo, Inspect or OpenAI evals data."),
    "import": ("importer", "Build a golden-set repository from JSONL, SQuAD or promptfoo."),
    "check": ("check", "Check case files: schema, verbatim quotes, leakage, version, composition."),
    "run": ("run", "Ask the system under test every case and write its results file."),
    "score": ("score", "Score a run's results against the set, every rate with its denominator."),
    "stats": ("stats", "Show the set's composition: slice sizes against floors, shares, errors."),
    "label": ("label", "Label drafts and a second labeller's sample on a local page; draw it."),
    "agreement": ("agreement", "Second-labeller agreement: percent, Cohen's kappa, disagreements."),
    "scrub": ("scrub", "Redact personal data in case files, comments and layout kept."),
    "lock": ("lock", "Bump golden.version and rewrite golden.lock when the set or corpus changed."),
    "merge-driver": ("merge_driver", "Git merge driver: resolve golden.version and golden.lock."),
    "git-hooks": ("git_hooks", "Install the plain git hooks in this clone's git directory."),
    "init": ("init", "Scaffold a new golden-set repository (cases, corpus, hooks, version, lock)."),
    "report": ("report", "Write a report as a self-contained HTML page with charts."),
    "schema": ("schema", "Write the case schema into the repository, for editors."),
    "split": (
        "split",
        "Split the golden set into calibration and eval halves (stratified, seeded).",
    ),
    "compare": ("compare", "Compare two reports case by case and gate on a drop (exit 1)."),
    "calibrate": ("calibrate", "Fit an abstention threshold with a bound on wrong answers."),
    "hashes": ("hashes", "Write the golden questions as salted hashes for leakage --against."),
    "leakage": ("leakage", "Find golden questions in prompts from a hashes file (--against)."),
    "gc": ("gc", "Remove the cache of repositories that are gone or unused, now."),
    "contamination": (
        "contamination",
        "Scan training or other text for golden questions and answers (word n-grams).",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(f"goldcase.commands.{COMMANDS[cmd_name][0]}")
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="goldcase", message="goldcase %(version)s")
@click.option("--traceback", is_flag=True, help="Show the traceback of an unexpected error.")
@click.pass_context
def cli(ctx: click.Context, traceback: bool) -> None:
    """Keep an evaluation golden set honest: check it, version it, score runs against it."""
    ctx.obj = {"traceback": traceback}


def _run(args: list[str]) -> Any:
    try:
        return cli.main(args=args, prog_name="goldcase", standalone_mode=False)
    finally:
        cache = sys.modules.get("goldcase.cache")  # a command that never opened it: no import
        if cache is not None:
            cache.save_opened()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and turn every failure into an exit status. Called as the
    console script (no ``argv``), the process ends here (``leave``)."""
    if argv is None:
        ending_without_teardown()
    code = _main(sys.argv[1:] if argv is None else argv)
    if argv is None:
        leave(code)
    return code


def leave(code: int) -> None:
    """End the process with ``code`` once its output is out and its exit handlers have run,
    without the interpreter's own teardown: freeing every object one by one, modules and
    the set with them, cost a hook run 10-20 ms (docs/benchmarks.md), which the kernel
    does at once when the process ends. Every file goldcase writes is closed by then
    (``writer``, and ``with`` blocks); a thread still running (the label page's server, a
    run's workers) leaves it to the usual exit, which waits for what it must."""
    if threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
    except OSError:  # the reader went away (a closed pipe): as a command that met it
        code = code or 1
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(code)


def _main(args: list[str]) -> int:
    progress.enable(sys.stderr.isatty())  # a bar for long jobs, never in a log or a pipe
    try:
        result: Any = _run(args)
    except GoldcaseError as exc:
        if "--traceback" in args:
            raise
        click.echo(f"error: {exc.message}", err=True)
        return exc.exit_code
    except click.exceptions.Abort as exc:
        # click turns a Ctrl-C inside any command (and at a prompt) into Abort: it is still
        # an interruption, ended as the shell's 130, as one before click has started
        if isinstance(exc.__context__, KeyboardInterrupt):
            click.echo("error: interrupted", err=True)
            return 130
        click.echo("error: aborted", err=True)  # click's Abort for any other cause
        return 2
    except click.ClickException as exc:
        exc.show()
        return 2
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # the last line of defence: never a bare traceback
        if "--traceback" in args:
            raise
        click.echo(
            f"error: internal error: {type(exc).__name__}: {exc}; "
            "rerun with --traceback and report it",
            err=True,
        )
        return 2
    return int(result or 0)
