"""``goldcase stats``: what the set is made of, and what each slice can detect.

Counts cover every valid case, by split, with when each split's questions were asked (the
range of ``asked_at``). The slice table covers the golden set (the reported
one): each slice's size against its floor, its synthetic share against the cap, its share of
the set against its share of traffic, and the standard error of a pass rate of 90% on that
many items, sqrt(0.9 x 0.1 / n): 6.7 points on 20 items, so a slice of 20 detects a collapse
(15 points or more), not a 3-point drift.

The text and Markdown renderings list the first ``SHOWN`` slices by name, and as many names
of each counted group (source, slice, tag) and of the known-ambiguous slices, and say how many
more there are: a config of 100,000 slice tables is read in a second or two, and rich took
about 40 s to lay out a table of 100,000 rows nobody reads. The JSON lists every one.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from goldcase.composition.slices import reported_slices
from goldcase.composition.timesplit import time_range
from goldcase.engine import load_case_set
from goldcase.output import md_text, plain
from goldcase.text import clip

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import Case, CaseSet

REFERENCE_PASS = 0.9
SHOWN = 50  # slices, and names of each counted group, listed in text and Markdown; JSON: all


def standard_error(n: int, p: float = REFERENCE_PASS) -> float | None:
    """sqrt(p (1 - p) / n), in rate units (0.067 for n = 20); None for an empty slice."""
    return None if n <= 0 else math.sqrt(p * (1 - p) / n)


def _counts(cases: list[Case]) -> dict[str, Any]:
    tags: Counter[str] = Counter(t for c in cases for t in c.tags)
    return {
        "total": len(cases),
        "slice": dict(sorted(Counter(c.slice for c in cases).items())),
        "source": dict(sorted(Counter(c.source or "unset" for c in cases).items())),
        "tag": dict(sorted(tags.items())),
        "answerable": sum(c.answerable for c in cases),
        "unanswerable": sum(not c.answerable for c in cases),
        "false_premise": sum(c.false_premise and not c.answerable for c in cases),
    }


def _slice_row(ctx: Context, name: str, cases: list[Case], total: int) -> dict[str, Any]:
    n = len(cases)
    synthetic = sum(c.source == "synthetic" for c in cases)
    floor = ctx.config.slice_floor(name)
    own = ctx.config.slices.get(name)
    return {
        "slice": name,
        "cases": n,
        "floor": floor,
        "meets_floor": n >= floor,
        "synthetic": synthetic,
        "synthetic_share": None if n == 0 else synthetic / n,
        "synthetic_ok": n == 0 or synthetic / n <= ctx.config.composition.synthetic_cap,
        "set_share": None if total == 0 else n / total,
        "traffic_share": None if own is None else own.traffic,
        "se_at_90": standard_error(n),
    }


def compute(ctx: Context, case_set: CaseSet | None = None) -> dict[str, Any]:
    """Everything ``goldcase stats`` shows, as one JSON-ready mapping."""
    case_set = case_set or load_case_set(ctx)
    golden = case_set.golden
    total = len(golden)
    unanswerable = sum(not c.answerable for c in golden)
    comp = ctx.config.composition
    return {
        "splits": {"golden": _counts(golden), "dev": _counts(case_set.dev)},
        "asked_at": {
            "golden": time_range(golden).as_dict(),
            "dev": time_range(case_set.dev).as_dict(),
            "by_time": ctx.config.split.by_time,
        },
        "drafts": len(case_set.drafts),
        "slices": [
            _slice_row(ctx, name, cases, total)
            for name, cases in reported_slices(golden, ctx).items()
        ],
        "ambiguous_slices": sorted(ctx.config.ambiguous_slices),
        "unanswerable_share": None if total == 0 else unanswerable / total,
        "thresholds": {
            "slice_floor": comp.slice_floor,
            "synthetic_cap": comp.synthetic_cap,
            "unanswerable_floor": comp.unanswerable_floor,
            "answer_max_words": comp.answer_max_words,
            "reference_pass_rate": REFERENCE_PASS,
        },
        "invalid_files": sum(not f.valid for f in case_set.files),
    }


# -- rendering ----------------------------------------------------------------------------------


def _pct(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value * 100:.{digits}f}%"


def _points(value: float | None) -> str:
    return "-" if value is None else f"±{value * 100:.1f} pts"


def _name(name: str) -> str:
    """A slice, source or tag name as a table shows it: one line, at most 80 characters."""
    return clip(plain(name))


def slice_rows(stats: dict[str, Any], limit: int = SHOWN) -> list[list[str]]:
    """The first ``limit`` rows of the slice table, by name, as text cells (shared by the text
    and Markdown renderings)."""
    rows = []
    for row in stats["slices"][:limit]:
        size = f"{row['cases']}/{row['floor']}" + ("" if row["meets_floor"] else " (under)")
        synthetic = _pct(row["synthetic_share"]) + ("" if row["synthetic_ok"] else " (over)")
        rows.append(
            [
                _name(row["slice"]),
                size,
                synthetic,
                _pct(row["set_share"]),
                _pct(row["traffic_share"]),
                _points(row["se_at_90"]),
            ]
        )
    return rows


def slices_left_out(stats: dict[str, Any], limit: int = SHOWN) -> str | None:
    """The line under a slice table cut at ``limit`` rows: how many more, and how many of
    them are marked; None when every slice is shown."""
    rest = stats["slices"][limit:]
    if not rest:
        return None
    under = sum(not row["meets_floor"] for row in rest)
    over = sum(not row["synthetic_ok"] for row in rest)
    return (
        f"… and {len(rest)} more slices ({under} under their floor, {over} over the synthetic "
        "cap); --format json lists them all"
    )


SLICE_HEADER = [
    "slice",
    "cases/floor",
    "synthetic",
    "share of set",
    "share of traffic",
    "SE at 90% pass",
]
COUNT_HEADER = ["", "golden", "dev"]


def count_rows(stats: dict[str, Any], limit: int = SHOWN) -> list[list[str]]:
    """The counts table; of each group (source, slice, tag) the first ``limit`` names, then
    one row counting the rest together."""
    golden, dev = stats["splits"]["golden"], stats["splits"]["dev"]
    rows = [["cases", str(golden["total"]), str(dev["total"])]]
    for key in ("answerable", "unanswerable", "false_premise"):
        rows.append([key.replace("_", " "), str(golden[key]), str(dev[key])])
    for group in ("source", "slice", "tag"):
        names = sorted(set(golden[group]) | set(dev[group]))
        for name in names[:limit]:
            rows.append(
                [
                    f"{group}: {_name(name)}",
                    str(golden[group].get(name, 0)),
                    str(dev[group].get(name, 0)),
                ]
            )
        if len(names) > limit:
            rest = names[limit:]
            rows.append(
                [
                    f"{group}: … and {len(rest)} more",
                    str(sum(golden[group].get(name, 0) for name in rest)),
                    str(sum(dev[group].get(name, 0) for name in rest)),
                ]
            )
    return rows


def footer(stats: dict[str, Any]) -> list[str]:
    t = stats["thresholds"]
    lines = [
        f"unanswerable share of the golden set: {_pct(stats['unanswerable_share'])} "
        f"(floor {_pct(t['unanswerable_floor'])})",
        f"synthetic cap per slice: {_pct(t['synthetic_cap'])}; standard error shown for a "
        "90% pass rate, sqrt(0.9 x 0.1 / n)",
    ]
    lines.append(_asked_line(stats["asked_at"]))
    if stats["ambiguous_slices"]:
        lines.append("not reported (known-ambiguous): " + _names(stats["ambiguous_slices"]))
    if stats["drafts"]:
        lines.append(f"drafts waiting in cases/inbox/: {stats['drafts']} (goldcase promote)")
    if stats["invalid_files"]:
        lines.append(
            f"{stats['invalid_files']} case file(s) failed the schema and are not "
            "counted: run goldcase check"
        )
    return lines


def _names(names: list[str], limit: int = SHOWN) -> str:
    shown = ", ".join(_name(name) for name in names[:limit])
    return shown if len(names) <= limit else f"{shown}, … and {len(names) - limit} more"


def _asked_line(asked: dict[str, Any]) -> str:
    """When each set's questions were asked, and whether the time split is checked."""
    parts = []
    for split in ("golden", "dev"):
        span = asked[split]
        if span["dated"]:
            when = (
                f"{span['first']} to {span['last']}"
                if span["first"] != span["last"]
                else span["first"]
            )
            parts.append(f"{split} {when} ({span['dated']} of {span['cases']} dated)")
        else:
            parts.append(f"{split}: none of {span['cases']} dated")
    check = "checked" if asked["by_time"] else "not checked ([split] by_time)"
    return f"asked (asked_at): {'; '.join(parts)}; time split {check}"


def render_markdown(stats: dict[str, Any]) -> str:
    def table(header: list[str], rows: list[list[str]]) -> list[str]:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(md_text(cell) for cell in row) + " |" for row in rows]
        return out

    lines = [
        "## Golden-set slices",
        "",
        *table(SLICE_HEADER, slice_rows(stats)),
        "",
    ]
    left_out = slices_left_out(stats)
    if left_out is not None:
        lines += [md_text(left_out), ""]
    lines += [
        "## Counts",
        "",
        *table(COUNT_HEADER, count_rows(stats)),
        "",
    ]
    lines += [f"- {md_text(line)}" for line in footer(stats)]
    return "\n".join(lines) + "\n"


def render_text(stats: dict[str, Any], out: TextIO, color: bool) -> None:
    """Rich tables; plain text (no colour, no markup) when ``color`` is false."""
    console = Console(
        file=out,
        color_system="auto" if color else None,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        width=120 if not color else None,
    )
    console.print(_table("golden-set slices", SLICE_HEADER, slice_rows(stats)))
    left_out = slices_left_out(stats)
    if left_out is not None:
        console.print(left_out, markup=False)
    console.print(_table("counts", COUNT_HEADER, count_rows(stats)))
    for line in footer(stats):
        console.print(plain(line), markup=False)


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    """A rich table; a row with a cell marked ``(under)`` or ``(over)`` in red."""
    table = Table(title=title, title_justify="left")
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        style = "red" if any("(under)" in c or "(over)" in c for c in row) else None
        table.add_row(*(Text(plain(cell)) for cell in row), style=style)
    return table
