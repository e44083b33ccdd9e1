"""``goldcase report``: read one or two report JSON files and write the page."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from goldcase.composition import stats
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.html.page import Composition, PageInput, build_page
from goldcase.loader import set_digest
from goldcase.model import CaseSet
from goldcase.scoring.compare import check_comparable
from goldcase.scoring.reportfile import load_report
from goldcase.writer import atomic_write_text


def composition_rows(ctx: Context) -> list[Composition]:
    rows = stats.compute(ctx)["slices"]
    return [
        Composition(r["slice"], r["cases"], r["set_share"] or 0.0, r["traffic_share"]) for r in rows
    ]


def case_links(case_set: CaseSet, root: Path, out: Path) -> dict[str, str]:
    """Case id -> the case file as a URL relative to the page, so the links work where it is
    saved. Each path component is percent-encoded: a ``#``, ``?``, ``%`` or space in a folder
    name is part of the path, not a fragment, a query or an escape. A path in the page's own
    folder starts ``./``: a file named ``javascript:x.yaml`` must be a path, not a URL with a
    scheme."""
    folder = out.resolve().parent
    links = {}
    for case in case_set.parsed:
        href = Path(os.path.relpath(root / case.path, folder)).as_posix()
        href = href if href.startswith("../") else f"./{href}"
        links[case.id] = quote(href, safe="/")
    return links


def other_set(case_set: CaseSet, data: dict[str, Any], report: Path) -> str | None:
    """None when the repository's golden set is the one the report was scored on (same
    ``set_digest``); else a sentence naming the report and both digests."""
    current = set_digest(case_set.golden)
    if current == data["set_digest"]:
        return None
    version = data.get("golden_version")
    named = "" if version is None else f", golden version {version!r}"
    return (
        f"{report}: scored on another golden set (set_digest {data['set_digest']!r}{named}) "
        f"than the repository holds (set_digest {current!r})"
    )


def unlinked_note(data: dict[str, Any], case_set: CaseSet) -> str:
    return (
        "Case ids are not linked to case files: this report was scored on golden set "
        f"{data['set_digest'][:12]}…, and the repository now holds "
        f"{set_digest(case_set.golden)[:12]}…."
    )


def repository_links(
    ctx: Context, data: dict[str, Any], report: Path, out: Path, stats: bool
) -> tuple[dict[str, str], str, str]:
    """The links to case files, a warning and the page's note: links only when the repository
    holds the golden set the report was scored on, else a warning and a note saying why.
    ``--stats`` on another set is refused: its composition is not the report's set's."""
    case_set = load_case_set(ctx)
    mismatch = other_set(case_set, data, report)
    if mismatch is None:
        return case_links(case_set, ctx.root, out), "", ""
    if stats:
        raise GoldcaseError(
            f"{mismatch}; --stats would show that set's composition beside this report: "
            "check out the version scored, or leave out --stats"
        )
    warning = f"{mismatch}; the page does not link case files: check out the version scored"
    return {}, warning, unlinked_note(data, case_set)


def render(
    ctx: Context | None, report: Path, out: Path, base: Path | None = None, stats: bool = False
) -> list[str]:
    """Write the page to ``out``; the warnings to print."""
    data = load_report(report, ctx=ctx)
    base_data = load_report(base, ctx=ctx) if base is not None else None
    if base_data is not None:
        check_comparable(base_data, data)
    if stats and ctx is None:
        raise GoldcaseError("--stats needs the golden-set repository: run inside it or pass --repo")
    links: dict[str, str] = {}
    warning = note = ""
    if ctx is not None:
        links, warning, note = repository_links(ctx, data, report, out, stats)
    page = PageInput(
        report=data,
        base=base_data,
        composition=composition_rows(ctx) if stats and ctx is not None else (),
        links=links,
        unlinked=note,
        title=f"goldcase report: {report.name}",
    )
    atomic_write_text(out, build_page(page))
    return [warning] if warning else []
