"""The reported slices: the golden set's slices that numbers are given for."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import Case


def reported_slices(golden: list[Case], ctx: Context) -> dict[str, list[Case]]:
    """Slice name -> its golden cases, for every slice not listed as ambiguous (configured
    slices with no case included)."""
    ambiguous = set(ctx.config.ambiguous_slices)
    groups: dict[str, list[Case]] = {name: [] for name in ctx.config.slices}
    for case in golden:
        groups.setdefault(case.slice, []).append(case)
    return {name: cases for name, cases in sorted(groups.items()) if name not in ambiguous}
