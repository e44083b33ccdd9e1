"""How a comparison is shown: plain text for a terminal, JSON, Markdown for a pull request.

Every slice row says why it passed or failed: its change and 95% interval, its one-sided
p-value, its Holm-adjusted p-value when it is in the gate's family, and the verdict."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from goldcase.output import md_code, md_text, plain
from goldcase.scoring.compare import Comparison, Delta
from goldcase.scoring.gate import Verdict

FORMATS = ("text", "json", "markdown")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _points(value: float) -> str:
    return f"{value:+.1f}"


def _interval(d: Delta) -> str:
    if d.low is None or d.high is None:
        return "n/a"
    return f"{100 * d.low:+.1f} to {100 * d.high:+.1f}"


def _rate(success: int, total: int, rate: float | None) -> str:
    return f"{success}/{total} ({_pct(rate)})"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _setting(c: Comparison, key: str) -> str:
    base, head = (_show(c.base.get(key)), _show(c.head.get(key)))
    return base if base == head else f"{base} -> {head}"


def _show(value: object) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def headline(c: Comparison) -> str:
    """Task success over every paired case (a description; the gate's rows are below)."""
    o = c.everything
    line = (
        f"task success {_rate(o.base_success, o.total, o.base_rate)} -> "
        f"{_rate(o.head_success, o.total, o.head_rate)}: "
        f"{_points(100 * ((o.head_rate or 0) - (o.base_rate or 0)))} points"
    )
    if not c.trials:
        line += f" (95% interval {_interval(o)})"
    return line


def trials_line(c: Comparison) -> str:
    o = c.everything
    return (
        f"trials: mean pass rate {_pct(o.base_value)} -> {_pct(o.head_value)} "
        f"({_points(o.points)} points; 95% interval {_interval(o)}) on {o.total} paired cases"
    )


def weighted_line(c: Comparison) -> str | None:
    """The traffic-weighted task success of each run, when both reports carry it."""
    before, after = c.base.get("weighted_task_success"), c.head.get("weighted_task_success")
    if before is None or after is None:
        return None
    return (
        f"traffic-weighted task success {_pct(before)}{_span(c.base)} -> "
        f"{_pct(after)}{_span(c.head)}: {_points(100 * (after - before))} points"
    )


def _span(identity: Mapping[str, Any]) -> str:
    interval = identity.get("weighted_interval")
    if not interval:
        return ""
    return f" (95% interval {_pct(interval[0])} to {_pct(interval[1])})"


def flips_line(c: Comparison) -> str:
    o = c.everything
    return (
        f"{o.regressions} passed->failed, {o.improvements} failed->passed; "
        f"exact McNemar p = {c.p_value:.3g} (two-sided, every case)"
    )


def rule_line(c: Comparison) -> str:
    test = "sign-flip test on per-case pass shares" if c.trials else "McNemar test"
    d = c.decision
    return (
        f"gate: one-sided exact {test} per slice (at least its floor of cases, not ambiguous) "
        f"and overall over those slices; Holm's correction at alpha {c.alpha:g} over the "
        f"{d.tested} of {d.candidates} tests with enough changed cases to be significant "
        f"(Tarone); a slice fails when its drop is credible and more than {c.max_drop:g} points"
    )


def context_line(c: Comparison) -> str:
    seed = c.base.get("split_seed")
    split = f"split {c.base.get('split')}" + ("" if seed is None else f" (seed {seed})")
    return (
        f"golden {c.base.get('golden_version') or 'unversioned'}, {split}, "
        f"threshold {_setting(c, 'threshold')}"
    )


def _cells(c: Comparison, d: Delta, v: Verdict) -> tuple[str, ...]:
    if c.trials:
        base, head = f"mean {_pct(d.base_value)}", f"mean {_pct(d.head_value)}"
    else:
        base = _rate(d.base_success, d.total, d.base_rate)
        head = _rate(d.head_success, d.total, d.head_rate)
    interval = _interval(d)
    p = _p(d.p_value if d.total else None) + ("" if d.exact else " (approx.)")
    return (
        d.name,
        str(d.total),
        base,
        head,
        _points(d.points),
        interval,
        p,
        _p(v.p_adjusted),
        v.reason,
    )


def table_rows(c: Comparison) -> list[tuple[str, ...]]:
    """The gate's table, a row a slice and one for overall, as text cells (see HEADER)."""
    rows = [_cells(c, d, v) for d, v in c.rows()]
    overall = _cells(c, c.overall, c.overall_verdict)
    return [*rows, ("overall (gated slices)", *overall[1:])]


HEADER = ("slice", "cases", "base", "head", "change", "95% interval", "p", "adj. p", "gate")


def _name(identity: Mapping[str, Any]) -> str:
    """The report file, and the results file it scored."""
    return f"{identity.get('report')} ({identity.get('results_file')})"


def _description(c: Comparison) -> list[str]:
    lines = [headline(c)]
    if c.trials:
        lines.append(trials_line(c))
    weighted = weighted_line(c)
    if weighted:
        lines.append(weighted)
    return [*lines, flips_line(c)]


def render_text(c: Comparison) -> str:
    lines = [
        plain(f"goldcase compare: {_name(c.base)} -> {_name(c.head)}"),
        plain(context_line(c)),
        *_description(c),
        "",
        *textwrap.wrap(rule_line(c), 100, subsequent_indent="  "),
        "",
    ]
    rows = [HEADER, *(tuple(plain(cell) for cell in row) for row in table_rows(c))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines += [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines += ["", f"passed->failed: {_ids(c.ids(True))}", f"failed->passed: {_ids(c.ids(False))}"]
    lines.append(_verdict(c))
    lines += [f"  - {plain(failure)}" for failure in c.failures]
    return "\n".join(lines) + "\n"


def _ids(ids: Sequence[str]) -> str:
    return plain(", ".join(ids)) if ids else "none"


def _verdict(c: Comparison) -> str:
    if c.passed:
        return (
            f"gate: pass (no slice dropped both credibly and by more than {c.max_drop:g} points; "
            f"no credible overall drop at alpha {c.alpha:g})"
        )
    return f"gate: FAIL ({len(c.failures)} reason{'s' if len(c.failures) > 1 else ''})"


def render_json(c: Comparison) -> str:
    return json.dumps(c.as_dict(), indent=2, ensure_ascii=False) + "\n"


def _md(text: str) -> str:
    return md_text(text)


def render_markdown(c: Comparison) -> str:
    verdict = "passed" if c.passed else "failed"
    description = _description(c)
    lines = [
        f"### goldcase compare: gate {verdict}",
        "",
        f"**{_md(description[0])}** on {c.everything.total} paired cases; "
        + "; ".join(_md(line) for line in description[1:])
        + ".",
        "",
        f"{_md(context_line(c))}; base {md_code(_name(c.base))}, head {md_code(_name(c.head))}.",
        "",
        _md(rule_line(c)) + ".",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in table_rows(c)]
    if c.failures:
        lines += ["", "**Why the gate failed**", ""] + [f"- {_md(f)}" for f in c.failures]
    lines += _flipped_md(c)
    return "\n".join(lines) + "\n"


def _flipped_md(c: Comparison) -> list[str]:
    if not c.flips:
        return ["", "No case flipped."]
    worse = ", ".join(md_code(i) for i in c.ids(True)) or "none"
    better = ", ".join(md_code(i) for i in c.ids(False)) or "none"
    return [
        "",
        f"<details><summary>{len(c.flips)} flipped cases</summary>",
        "",
        f"- passed -> failed: {worse}",
        f"- failed -> passed: {better}",
        "",
        "</details>",
    ]


def render(c: Comparison, fmt: str) -> str:
    if fmt == "json":
        return render_json(c)
    if fmt == "markdown":
        return render_markdown(c)
    return render_text(c)
