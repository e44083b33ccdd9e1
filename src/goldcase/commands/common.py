"""What every command shares: finding the repository, the ``--repo`` and ``--format`` options."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from goldcase.cache import Cache
from goldcase.config import find_root, load_config
from goldcase.context import Context
from goldcase.errors import GoldcaseError

F = TypeVar("F", bound=Callable[..., Any])


def repo_option(func: F) -> F:
    return click.option(
        "--repo",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="The golden-set repository (default: found from the current folder).",
    )(func)


def format_option(*choices: str, default: str | None = None) -> Callable[[F], F]:
    def decorate(func: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(choices),
            default=default or choices[0],
            show_default=True,
            help="Output format.",
        )(func)

    return decorate


def open_context(repo: Path | None, *, cache: bool = True) -> Context:
    root = repo.resolve() if repo is not None else find_root(Path.cwd())
    if repo is not None and not root.is_dir():
        raise GoldcaseError(f"--repo {repo}: no such folder")
    config = load_config(root)
    store = Cache.for_repository(root) if cache else Cache(None)
    return Context(config, store.opened())


def repository_or_none(repo: Path | None) -> Context | None:
    """The golden-set repository when there is one here (or at ``repo``); None otherwise."""
    try:
        return open_context(repo)
    except GoldcaseError:
        return None


def relative_paths(ctx: Context, paths: Iterable[Path]) -> list[str]:
    """PATHS as given on the command line, relative to the repository root."""
    out: list[str] = []
    for path in paths:
        absolute = path if path.is_absolute() else Path.cwd() / path
        if not absolute.exists():
            raise GoldcaseError(f"{path}: no such file")
        try:
            out.append(absolute.resolve().relative_to(ctx.root).as_posix())
        except ValueError:
            raise GoldcaseError(f"{path} is outside the repository {ctx.root}") from None
    return out
