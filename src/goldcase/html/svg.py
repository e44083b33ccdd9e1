"""Small hand-made SVG charts. Every chart carries a <title> and a <desc> (its text
alternative), and marks differences with shapes and words as well as colour."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from msgspec import Struct

WIDTH = 640
LABEL = 160  # room for slice names on the left
RIGHT = 120  # room for the value on the right
ROW = 30


class Bar(Struct, frozen=True):
    """One slice's rate with its Wilson interval."""

    label: str
    value: float | None  # 0..1, None when the denominator is 0
    low: float | None
    high: float | None
    note: str  # e.g. "2 of 23"
    below_floor: bool = False
    muted: bool = False  # ambiguous slices: shown, not gated


def _x(value: float, plot: float) -> float:
    return LABEL + max(0.0, min(1.0, value)) * plot


def _frame(height: int, title: str, desc: str, ident: str, body: str) -> str:
    return (
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'aria-labelledby="{ident}-t {ident}-d" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(desc)}</desc>'
        f"{body}</svg>"
    )


def _axis(top: int, bottom: int, plot: float) -> str:
    parts = []
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = _x(tick, plot)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}"/>'
            f'<text class="tick" x="{x:.1f}" y="{bottom + 14}" text-anchor="middle">'
            f"{int(tick * 100)}%</text>"
        )
    return "".join(parts)


def rate_chart(bars: Sequence[Bar], title: str, ident: str) -> str:
    """A dot per slice at its rate, a whisker for its interval; below-floor slices hollow."""
    plot = WIDTH - LABEL - RIGHT
    height = 20 + ROW * len(bars) + 24
    rows = []
    for i, bar in enumerate(bars):
        y = 20 + ROW * i + ROW / 2
        label = bar.label + (" (below floor)" if bar.below_floor else "")
        rows.append(
            f'<text class="label" x="{LABEL - 8}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        if bar.value is None:
            rows.append(f'<text class="value" x="{LABEL + 4}" y="{y + 4:.1f}">no cases</text>')
            continue
        if bar.low is not None and bar.high is not None:
            rows.append(
                f'<line class="whisker" x1="{_x(bar.low, plot):.1f}" y1="{y:.1f}" '
                f'x2="{_x(bar.high, plot):.1f}" y2="{y:.1f}"/>'
            )
        shape = "dot hollow" if bar.below_floor else "dot"
        if bar.muted:
            shape += " muted"
        rows.append(f'<circle class="{shape}" cx="{_x(bar.value, plot):.1f}" cy="{y:.1f}" r="6"/>')
        rows.append(
            f'<text class="value" x="{WIDTH - RIGHT + 8}" y="{y + 4:.1f}">'
            f"{bar.value * 100:.0f}% · {escape(bar.note)}</text>"
        )
    desc = "; ".join(
        f"{b.label}: "
        + (
            "no cases"
            if b.value is None
            else f"{b.value * 100:.1f}% ({b.note})"
            + (
                f", 95% interval {b.low * 100:.1f}% to {b.high * 100:.1f}%"
                if b.low is not None and b.high is not None
                else ""
            )
            + (", below its floor" if b.below_floor else "")
        )
        for b in bars
    )
    body = _axis(14, height - 24, plot) + "".join(rows)
    return _frame(height, title, desc, ident, body)


class Delta(Struct, frozen=True):
    label: str
    delta: float | None  # head - base, in points (0..100 scale)
    note: str


def delta_chart(deltas: Sequence[Delta], title: str, ident: str, span: float = 50.0) -> str:
    """A bar per slice from zero: right and ▲ for a gain, left and ▼ for a drop."""
    plot = WIDTH - LABEL - RIGHT
    zero = LABEL + plot / 2
    height = 20 + ROW * len(deltas) + 24
    rows = [f'<line class="zero" x1="{zero:.1f}" y1="14" x2="{zero:.1f}" y2="{height - 24}"/>']
    for i, item in enumerate(deltas):
        y = 20 + ROW * i + ROW / 2
        rows.append(
            f'<text class="label" x="{LABEL - 8}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(item.label)}</text>"
        )
        if item.delta is None:
            rows.append(f'<text class="value" x="{zero + 4:.1f}" y="{y + 4:.1f}">n/a</text>')
            continue
        width = min(abs(item.delta), span) / span * (plot / 2)
        x = zero if item.delta >= 0 else zero - width
        kind = "gain" if item.delta > 0 else "drop" if item.delta < 0 else "flat"
        arrow = "▲" if item.delta > 0 else "▼" if item.delta < 0 else "="
        rows.append(
            f'<rect class="bar {kind}" x="{x:.1f}" y="{y - 8:.1f}" '
            f'width="{max(width, 1):.1f}" height="16"/>'
        )
        rows.append(
            f'<text class="value" x="{WIDTH - RIGHT + 8}" y="{y + 4:.1f}">'
            f"{arrow} {item.delta:+.1f} pts</text>"
        )
    desc = "; ".join(
        f"{d.label}: "
        + ("not comparable" if d.delta is None else f"{d.delta:+.1f} points")
        + (f" ({d.note})" if d.note else "")
        for d in deltas
    )
    return _frame(height, title, desc, ident, "".join(rows))


class Curve(Struct, frozen=True):
    name: str
    points: Sequence[tuple[float, float]]  # (coverage, answered accuracy), 0..1
    marker: tuple[float, float] | None  # the run as scored
    dashed: bool = False


def coverage_chart(curves: Sequence[Curve], title: str, ident: str) -> str:
    """Answered accuracy against coverage, one line per run; the scored point marked."""
    size, left, bottom = 300, 50, 40
    width, height = left + size + 150, size + bottom + 10

    def px(c: float, a: float) -> tuple[float, float]:
        return left + c * size, 10 + (1 - a) * size

    parts = [f'<rect class="plot" x="{left}" y="10" width="{size}" height="{size}"/>']
    for tick in (0, 0.5, 1.0):
        x, y = px(tick, tick)
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{size + 26}" text-anchor="middle">'
            f"{int(tick * 100)}%</text>"
        )
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{int(tick * 100)}%</text>"
        )
    parts.append(
        f'<text class="axis" x="{left + size / 2}" y="{size + 40}" '
        'text-anchor="middle">answer coverage</text>'
    )
    parts.append(
        f'<text class="axis" x="12" y="{10 + size / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {10 + size / 2})">answered accuracy</text>'
    )
    descs = []
    for i, curve in enumerate(curves):
        style = "curve dashed" if curve.dashed else "curve"
        if curve.points:
            path = " ".join(f"{px(c, a)[0]:.1f},{px(c, a)[1]:.1f}" for c, a in curve.points)
            parts.append(f'<polyline class="{style}" points="{path}"/>')
        if curve.marker is not None:
            x, y = px(*curve.marker)
            shape = "square" if curve.dashed else "dot"
            if shape == "dot":
                parts.append(f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="6"/>')
            else:
                parts.append(
                    f'<rect class="dot hollow" x="{x - 6:.1f}" y="{y - 6:.1f}" '
                    'width="12" height="12"/>'
                )
            descs.append(
                f"{curve.name}: coverage {curve.marker[0] * 100:.1f}%, "
                f"answered accuracy {curve.marker[1] * 100:.1f}%"
            )
        parts.append(
            f'<text class="legend" x="{left + size + 14}" y="{24 + 18 * i}">'
            f"{'- - ' if curve.dashed else '—— '}{escape(curve.name)}</text>"
        )
    desc = "; ".join(descs) or "no answered cases"
    return (
        f'<svg class="chart square" role="img" viewBox="0 0 {width} {height}" '
        f'aria-labelledby="{ident}-t {ident}-d" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(desc)}</desc>'
        + "".join(parts)
        + "</svg>"
    )


def pair_chart(rows: Sequence[tuple[str, float, float | None]], title: str, ident: str) -> str:
    """Two bars a slice: its share of the set (solid) and of traffic (hatched)."""
    plot = WIDTH - LABEL - RIGHT
    height = 20 + ROW * len(rows) + 44
    top = max([1e-9, *(max(a, b or 0) for _, a, b in rows)])
    parts = [
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" class="hatch-bg"/>'
        '<line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern></defs>'
    ]
    for i, (label, share, traffic) in enumerate(rows):
        y = 20 + ROW * i
        parts.append(
            f'<text class="label" x="{LABEL - 8}" y="{y + 14:.1f}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        parts.append(
            f'<rect class="bar set" x="{LABEL}" y="{y + 2}" '
            f'width="{share / top * plot:.1f}" height="11"/>'
        )
        if traffic is not None:
            parts.append(
                f'<rect class="bar traffic" x="{LABEL}" y="{y + 14}" '
                f'width="{traffic / top * plot:.1f}" height="11" fill="url(#hatch)"/>'
            )
        value = f"{share * 100:.0f}% / " + ("—" if traffic is None else f"{traffic * 100:.0f}%")
        parts.append(f'<text class="value" x="{WIDTH - RIGHT + 8}" y="{y + 16:.1f}">{value}</text>')
    legend_y = height - 12
    parts.append(
        f'<rect class="bar set" x="{LABEL}" y="{legend_y - 10}" width="14" height="10"/>'
        f'<text class="legend" x="{LABEL + 20}" y="{legend_y}">share of the set</text>'
        f'<rect class="bar traffic" x="{LABEL + 150}" y="{legend_y - 10}" width="14" '
        f'height="10" fill="url(#hatch)"/><text class="legend" x="{LABEL + 170}" '
        f'y="{legend_y}">share of traffic</text>'
    )
    desc = "; ".join(
        f"{label}: {share * 100:.1f}% of the set, "
        + ("no traffic share" if traffic is None else f"{traffic * 100:.1f}% of traffic")
        for label, share, traffic in rows
    )
    return _frame(height, title, desc, ident, "".join(parts))
