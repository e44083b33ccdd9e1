"""How a comparison is shown: plain text for a terminal, JSON, Markdown for a pull request."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from goldcase.output import md_code, md_text, plain
from goldcase.scoring.compare import Comparison, Delta

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


def _gate(c: Comparison, d: Delta) -> str:
    if d.ambiguous:
        return "ambiguous: not gated"
    return "FAIL" if -d.points > c.max_drop else "ok"


def _setting(c: Comparison, key: str) -> str:
    base, head = (_show(c.base.get(key)), _show(c.head.get(key)))
    return base if base == head else f"{base} -> {head}"


def _show(value: object) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def headline(c: Comparison) -> str:
    o = c.overall
    return (
        f"task success {_rate(o.base_success, o.total, o.base_rate)} -> "
        f"{_rate(o.head_success, o.total, o.head_rate)}: {_points(o.points)} points "
        f"(95% interval {_interval(o)})"
    )


def flips_line(c: Comparison) -> str:
    o = c.overall
    return (
        f"{o.regressions} passed->failed, {o.improvements} failed->passed; "
        f"exact McNemar p = {c.p_value:.3g}"
    )


def context_line(c: Comparison) -> str:
    seed = c.base.get("split_seed")
    split = f"split {c.base.get('split')}" + ("" if seed is None else f" (seed {seed})")
    return (
        f"golden {c.base.get('golden_version') or 'unversioned'}, {split}, "
        f"threshold {_setting(c, 'threshold')}"
    )


def _slice_rows(c: Comparison) -> list[tuple[str, ...]]:
    return [
        (
            d.name,
            str(d.total),
            _rate(d.base_success, d.total, d.base_rate),
            _rate(d.head_success, d.total, d.head_rate),
            _points(d.points),
            _interval(d),
            _gate(c, d),
        )
        for d in c.slices
    ]


HEADER = ("slice", "cases", "base", "head", "change", "95% interval", "gate")


def _name(identity: Mapping[str, Any]) -> str:
    """The report file, and the results file it scored."""
    return f"{identity.get('report')} ({identity.get('results_file')})"


def render_text(c: Comparison) -> str:
    lines = [
        plain(f"goldcase compare: {_name(c.base)} -> {_name(c.head)}"),
        plain(context_line(c)),
        headline(c),
        flips_line(c),
        "",
    ]
    rows = [HEADER, *_slice_rows(c)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines += [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines += ["", f"passed->failed: {_ids(c.ids(True))}", f"failed->passed: {_ids(c.ids(False))}"]
    if c.trials is not None:
        lines.append(trials_line(c.trials))
    lines.append(_verdict(c))
    lines += [f"  - {plain(failure)}" for failure in c.failures]
    return "\n".join(lines) + "\n"


def trials_line(trials: Mapping[str, Any]) -> str:
    return (
        f"trials: mean pass rate {_pct(trials['base_mean_pass_rate'])} -> "
        f"{_pct(trials['head_mean_pass_rate'])} ({trials['delta_points']:+.1f} points) on "
        f"{trials['cases']} paired cases; sign-flip p = {trials['p_value']:.3g}"
    )


def _ids(ids: Sequence[str]) -> str:
    return plain(", ".join(ids)) if ids else "none"


def _verdict(c: Comparison) -> str:
    if c.passed:
        return (
            f"gate: pass (no slice dropped more than {c.max_drop:g} points; no significant "
            f"overall drop at alpha {c.alpha:g})"
        )
    return f"gate: FAIL ({len(c.failures)} reason{'s' if len(c.failures) > 1 else ''})"


def render_json(c: Comparison) -> str:
    return json.dumps(c.as_dict(), indent=2, ensure_ascii=False) + "\n"


def _md(text: str) -> str:
    return md_text(text)


def render_markdown(c: Comparison) -> str:
    verdict = "passed" if c.passed else "failed"
    lines = [
        f"### goldcase compare: gate {verdict}",
        "",
        f"**{headline(c)}** on {c.overall.total} paired cases; {flips_line(c)}.",
        "",
        f"{_md(context_line(c))}; base {md_code(_name(c.base))}, head {md_code(_name(c.head))}.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in _slice_rows(c)]
    if c.trials is not None:
        lines += ["", _md(trials_line(c.trials))]
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
