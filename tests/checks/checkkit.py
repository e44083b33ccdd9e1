"""Helpers for the check family tests: case files, a healthy golden slice, a family's
findings on a repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import run_checks
from goldcase.model import Finding


def case(
    case_id: str,
    *,
    slice_name: str = "returns",
    answerable: bool = True,
    answer: str = "14 days",
    source: str = "hand-written",
    tags: tuple[str, ...] = (),
    extra: str = "",
) -> str:
    lines = [f"id: {case_id}", f"question: how long do i have for case {case_id}"]
    if answerable:
        lines += [
            f"expected_answer: {answer}",
            "support:",
            "  - doc: returns-policy.md",
            "    quote: A customer has 14 days from delivery to request a credit",
        ]
    else:
        lines.append("answerable: false")
    lines += [f"slice: {slice_name}", f"source: {source}"]
    if source == "synthetic":
        lines.append("derived_from: dev-001")
    if tags:
        lines.append(f"tags: [{', '.join(tags)}]")
    if extra:
        lines.append(extra)
    return "\n".join(lines) + "\n"


def healthy(prefix: str = "r", n: int = 20, slice_name: str = "returns") -> dict[str, str]:
    """n cases: 4 synthetic (1/5), 5 unanswerable (1/4) of which 2 with a false premise."""
    files = {}
    for i in range(n):
        kwargs: dict[str, object] = {"slice_name": slice_name}
        if i < 5:
            kwargs["answerable"] = False
            kwargs["tags"] = ("false_premise",) if i < 2 else ()
        elif i < 9:
            kwargs["source"] = "synthetic"
        files[f"cases/golden/{prefix}{i:02d}.yaml"] = case(f"{prefix}{i:02d}", **kwargs)  # type: ignore[arg-type]
    return files


def family_findings(root: Path, family: str) -> list[Finding]:
    ctx = Context(load_config(root), Cache(None))
    return run_checks(ctx, [family]).findings


def brief(found: list[Finding]) -> list[tuple[str, int, int, str, str]]:
    return [(f.path, f.line, f.col, f.code, f.severity) for f in found]


Repo = Callable[..., Path]
