"""``goldcase report``: read one or two report JSON files and write the page."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from goldcase.composition import stats
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.html.page import Composition, PageInput, build_page
from goldcase.jsonmemory import refuse_costly
from goldcase.safeio import read_regular
from goldcase.schemas import validator
from goldcase.scoring.reportfile import (
    REPORT_FIX,
    check_consistency,
    corrections_allowed,
    no_constant,
    refuse_half_surrogates,
)
from goldcase.writer import atomic_write_text


def read_report(path: Path, ctx: Context | None = None) -> dict[str, Any]:
    """A report file, parsed and checked against ``schema/report.schema.json``."""
    try:
        raw = read_regular(path)
        refuse_costly(raw, str(path), REPORT_FIX)
        text = raw.decode("utf-8")
        del raw
        data = json.loads(text, parse_constant=no_constant)
    except OSError as exc:
        raise GoldcaseError(f"{path}: cannot read the report: {exc.strerror or exc}") from exc
    except (ValueError, RecursionError) as exc:  # bad UTF-8, bad JSON, NaN, a number too long
        raise GoldcaseError(
            f"{path}: not a report (invalid JSON: {exc}); make one with goldcase score --out"
        ) from exc
    if not isinstance(data, dict):
        raise GoldcaseError(f"{path}: not a report (expected a JSON object)")
    refuse_half_surrogates(data, text.encode(), str(path))
    errors = sorted(validator("report.schema.json").iter_errors(data), key=lambda e: e.path)
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top level)"
        raise GoldcaseError(f"{path}: not a goldcase report: {where}: {errors[0].message}")
    check_consistency(data, str(path), corrections_allowed(data, ctx))
    return data


def composition_rows(ctx: Context) -> list[Composition]:
    rows = stats.compute(ctx)["slices"]
    return [
        Composition(r["slice"], r["cases"], r["set_share"] or 0.0, r["traffic_share"]) for r in rows
    ]


def case_links(ctx: Context, out: Path) -> dict[str, str]:
    """Case id -> the case file, relative to the page, so the links work where it is saved.
    A path in the page's own folder starts ``./``: a file named ``javascript:x.yaml`` must be
    a path, not a URL with a scheme."""
    folder = out.resolve().parent
    links = {}
    for case in load_case_set(ctx).parsed:
        target = ctx.root / case.path
        href = Path(os.path.relpath(target, folder)).as_posix()
        links[case.id] = href if href.startswith("../") else f"./{href}"
    return links


def render(
    ctx: Context | None, report: Path, out: Path, base: Path | None = None, stats: bool = False
) -> Path:
    data = read_report(report, ctx)
    base_data = read_report(base, ctx) if base is not None else None
    if stats and ctx is None:
        raise GoldcaseError("--stats needs the golden-set repository: run inside it or pass --repo")
    page = PageInput(
        report=data,
        base=base_data,
        composition=composition_rows(ctx) if stats and ctx is not None else (),
        links=case_links(ctx, out) if ctx is not None else {},
        title=f"goldcase report: {report.name}",
    )
    atomic_write_text(out, build_page(page))
    return out
