"""Helpers for the check family tests: a family's findings on a repository, in brief."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import run_checks
from goldcase.model import Finding


def family_findings(root: Path, family: str) -> list[Finding]:
    ctx = Context(load_config(root), Cache(None))
    return run_checks(ctx, [family]).findings


def brief(found: list[Finding]) -> list[tuple[str, int, int, str, str]]:
    return [(f.path, f.line, f.col, f.code, f.severity) for f in found]


Repo = Callable[..., Path]
