"""GC5xx: is the golden set fit to report on?

The composition rules apply to the golden set (``cases/golden/``), the set whose numbers are
reported; the dev set is read freely and may have any shape. Slices listed in the config's
``ambiguous_slices`` are not reported, so the slice rules leave them alone.

Codes (default severity):

- GC501 (warning): a reported slice has fewer cases than its floor (``[slices.NAME] floor``,
  else ``[composition] slice_floor``, 20).
- GC502 (warning): synthetic cases are more than ``synthetic_cap`` (1/5) of a reported slice.
- GC503 (warning): unanswerable cases are less than ``unanswerable_floor`` (1/4) of the set.
- GC504 (warning): no unanswerable golden case has a false premise (tag ``false_premise``).
- GC506 (warning): a slice has a traffic share in the config but no golden case.
- GC508 (warning): an expected answer longer than ``answer_max_words`` (12) words.
- GC510 (warning): a reported slice has no unanswerable case other than false premises: no
  question in it that the corpus says nothing about, so nothing in it rewards abstaining (a
  false premise may be passed by correcting it).
- GC511 (warning): every case of a reported slice expects an abstention: a system that always
  abstains passes it.
- GC512 (warning): a ``resolution`` does not name who decided (a plain string, the rule alone):
  write ``resolution: {rule: ..., decided_by: ...}``.
- GC513 (error): with ``[split] by_time = true``, a golden case asked (``asked_at``) before
  the newest dev case: golden cases come from the latest traffic, dev cases from earlier.
  Cases without ``asked_at`` are not placed in time and not reported. Passes: golden cases
  asked in March, dev cases in February. Fails (``GC513 golden case asked 2026-02-03, before
  the newest dev case dev-ret-004 (asked 2026-02-10) …``).

GC505 (personal data) is in the ``privacy`` family: it applies to every case file. GC507 and
GC509 (a second labeller's labels) are in the ``labelling`` family.

The set-shape rules are warnings by default because a set grows a case at a time: a new slice
is under its floor for the first nineteen commits. Gate on them with ``goldcase check
--strict`` or ``[severity] GC501 = "error"``. A set-level finding points at the slice's table
in the config file when there is one, otherwise at the config file itself (the golden cases
folder when there is no config file), line 1, column 1: the set, not any one case, has the
problem, so it is reported once, and ``goldcase check PATHS`` reports it whatever the paths.

Passes: a slice of 20 golden cases, 4 of them synthetic, 6 unanswerable of which 2 have a false
premise, every expected answer a short phrase, every resolution naming who decided.

Fails (``GC501 slice 'refunds' has 4 golden cases; a reported slice needs at least 20 …``): a
slice of 4 cases that is not listed in ``ambiguous_slices``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from goldcase.composition.slices import reported_slices
from goldcase.composition.timesplit import asked, older_golden
from goldcase.model import Case, Finding, Severity
from goldcase.text import clip

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "composition"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC501": ("warning", "reported slice under its floor"),
    "GC502": ("warning", "synthetic share of a slice over its cap"),
    "GC503": ("warning", "unanswerable share of the set under its floor"),
    "GC504": ("warning", "no false-premise cases among the unanswerable ones"),
    "GC506": ("warning", "slice with a traffic share but no cases"),
    "GC508": ("warning", "expected answer too long to be a fact"),
    "GC510": ("warning", "reported slice without a question the corpus cannot answer"),
    "GC511": ("warning", "reported slice whose every case expects an abstention"),
    "GC512": ("warning", "resolution that names no one who decided"),
    "GC513": ("error", "golden case asked before the newest dev case (time split)"),
}


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    golden = case_set.golden
    yield from _slices(golden, ctx)
    yield from _unanswerable(golden, ctx)
    yield from _long_answers(golden, ctx)
    if ctx.config.split.by_time:
        yield from _time_split(golden, case_set.dev, ctx)
    yield from _unnamed_resolutions(case_set, ctx)


def _slices(golden: list[Case], ctx: Context) -> Iterator[Finding]:
    tables = _config_tables(ctx)
    for name, cases in reported_slices(golden, ctx).items():
        path, line, col = _anchor(ctx, tables, f"slices.{name}")
        for code, message in _slice_problems(ctx, name, cases):
            yield Finding(path, line, col, code, "warning", message)


def _slice_problems(ctx: Context, name: str, cases: list[Case]) -> Iterator[tuple[str, str]]:
    own = ctx.config.slices.get(name)
    traffic = own.traffic if own is not None else None
    if not cases and traffic:
        yield (
            "GC506",
            (
                f"slice {clip(repr(name))} is {traffic:.0%} of traffic but has no golden case; "
                "add cases, or drop its traffic share from the config"
            ),
        )
        return
    floor, n = ctx.config.slice_floor(name), len(cases)
    if n < floor:
        yield (
            "GC501",
            (
                f"slice {clip(repr(name))} has {n} golden case{'' if n == 1 else 's'}; a reported "
                f"slice needs at least {floor}: add {floor - n}, or list it in "
                "ambiguous_slices"
            ),
        )
    yield from _outcome_mix(name, cases)
    cap = ctx.config.composition.synthetic_cap
    synthetic = sum(c.source == "synthetic" for c in cases)
    if n and synthetic / n > cap:
        yield (
            "GC502",
            (
                f"slice {clip(repr(name))} is {synthetic}/{n} synthetic ({synthetic / n:.0%}); "
                f"at most {cap:.0%} may be: add transcript or hand-written cases"
            ),
        )


def _outcome_mix(name: str, cases: list[Case]) -> Iterator[tuple[str, str]]:
    """GC510 / GC511: a slice with no question its corpus is silent on cannot tell a system
    that never abstains from one that abstains where it should; a slice whose cases all expect
    an abstention cannot tell one that always abstains."""
    if not cases:
        return
    if not any(not c.answerable and not c.false_premise for c in cases):
        yield (
            "GC510",
            f"slice {clip(repr(name))} has no unanswerable case that is not a false premise: "
            "nothing in it asks what the corpus does not say; add questions on its topic the "
            "corpus cannot answer",
        )
    if not any(c.answerable for c in cases):
        yield (
            "GC511",
            f"every case of slice {clip(repr(name))} expects an abstention: a system that always "
            "abstains passes it; add questions on its topic the corpus does answer",
        )


def _unnamed_resolutions(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    """GC512: a resolution is a decision; it says who made it."""
    for case in _wanted(case_set.cases, ctx):
        if isinstance(case.data.get("resolution"), str):
            line, col = ctx.locate(case.path, ["resolution"])
            yield Finding(
                case.path,
                line,
                col,
                "GC512",
                "warning",
                "resolution names no one who decided; write resolution: {rule: ..., "
                "decided_by: ...} with the role that owns the decision",
            )


def _unanswerable(golden: list[Case], ctx: Context) -> Iterator[Finding]:
    if not golden:
        return
    floor = ctx.config.composition.unanswerable_floor
    unanswerable = [c for c in golden if not c.answerable]
    path, line, col = _composition_anchor(ctx)
    share = len(unanswerable) / len(golden)
    if share < floor:
        yield Finding(
            path,
            line,
            col,
            "GC503",
            "warning",
            f"{len(unanswerable)} of {len(golden)} golden cases ({share:.0%}) are "
            f"unanswerable; expected at least {floor:.0%}: add questions the corpus "
            "cannot answer",
        )
    if not any(c.false_premise for c in unanswerable):
        yield Finding(
            path,
            line,
            col,
            "GC504",
            "warning",
            f"none of the {len(unanswerable)} unanswerable golden cases has a false "
            "premise; add some tagged false_premise (the question presupposes what a "
            "document contradicts)",
        )


def _long_answers(golden: list[Case], ctx: Context) -> Iterator[Finding]:
    limit = ctx.config.composition.answer_max_words
    for case in _wanted(golden, ctx):
        answer = case.expected_answer
        if answer is None or len(answer.split()) <= limit:
            continue
        line, col = ctx.locate(case.path, ["expected_answer"])
        yield Finding(
            case.path,
            line,
            col,
            "GC508",
            "warning",
            f"expected_answer has {len(answer.split())} words; a fact is at most "
            f"{limit}: keep the fact and move the rest to notes or expect",
        )


def _wanted(cases: list[Case], ctx: Context) -> list[Case]:
    """The cases whose own findings the run reports (a focused run's: a few)."""
    return cases if ctx.focus is None else [c for c in cases if c.path in ctx.focus]


def _time_split(golden: list[Case], dev: list[Case], ctx: Context) -> Iterator[Finding]:
    found = older_golden(golden, dev)
    if found is None:
        return
    last, moment, older = found
    for case in _wanted(older, ctx):
        when = asked(case)
        assert when is not None  # older_golden returns dated cases only
        line, col = ctx.locate(case.path, ["asked_at"])
        yield Finding(
            case.path,
            line,
            col,
            "GC513",
            "error",
            f"golden case asked {when.text()}, before the newest dev case {last.id} (asked "
            f"{moment.text()}); with [split] by_time, golden cases come from the latest "
            "traffic: move this case to cases/dev/, or the dev case out of the way",
        )


# The name inside is trimmed after the match: "\[\s*([^\]]+?)\s*\]" tried each end of the name
# with a scan of the white space after it, so a line of "[a", spaces and no "]" (in a TOML
# string) took its length squared.
_HEADER = re.compile(r"^\s*\[([^\]]*)\]\s*(?:#.*)?$")


def _header_name(inside: str) -> str:
    """What stands between a table header's brackets, less the white space around it (its
    last character when it is all white space)."""
    return inside.strip() or inside[-1]


_KEY = re.compile(r'^\s*(?:"([^"]*)"|([^\s="]+))\s*=')


def _config_tables(ctx: Context) -> Callable[[str], tuple[str, int, int] | None]:
    """Where ``[table]`` (or an inline ``name = {…}`` under its parent) starts in the config,
    for any table: the config read and indexed once (a lookup a line, not a scan of the file
    a slice: 100,000 slices took their number times the file's lines)."""
    source = ctx.config.source
    if source is None:
        return lambda table: None
    try:
        lines = ctx.read_bytes(source.name).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return lambda table: None
    headers: dict[str, int] = {}
    keys: dict[tuple[str, str], int] = {}
    current = ""
    for number, text in enumerate(lines, start=1):
        header = _HEADER.match(text)
        if header and header.group(1):
            current = _header_name(header.group(1)).replace(" ", "")
            headers.setdefault(current, number)
        elif key := _KEY.match(text):
            keys.setdefault((current, key.group(1) or key.group(2) or ""), number)
    prefix = "" if source.name == "goldcase.toml" else "tool.goldcase."
    shown = ctx.rel(source)

    def find(table: str) -> tuple[str, int, int] | None:
        parent, _, leaf = (prefix + table).rpartition(".")
        found = [headers[n] for n in _table_names(prefix + table) if n in headers]
        found += [keys[(p, leaf)] for p in _table_names(parent) if (p, leaf) in keys]
        return (shown, min(found), 1) if found else None

    return find


def _table_names(dotted: str) -> set[str]:
    *head, leaf = dotted.split(".")
    base = ".".join(head)
    joined = f"{base}." if base else ""
    return {f"{joined}{leaf}", f'{joined}"{leaf}"', f"{joined}'{leaf}'"}


def _anchor(
    ctx: Context, tables: Callable[[str], tuple[str, int, int] | None], table: str
) -> tuple[str, int, int]:
    found = tables(table)
    return found if found is not None else (ctx.set_path, 1, 1)


def _composition_anchor(ctx: Context) -> tuple[str, int, int]:
    return _anchor(ctx, _config_tables(ctx), "composition")
