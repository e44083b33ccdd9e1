"""Assemble the report page: headline rates with their denominators written out, per-slice
rates with intervals, answered accuracy against coverage, the comparison, the composition,
the failing cases, and the version and digests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from msgspec import Struct, field

from goldcase.html import svg
from goldcase.html.style import CSS, SCRIPT
from goldcase.scoring.compare import Comparison, compare
from goldcase.scoring.compare_render import HEADER, rule_line, table_rows
from goldcase.scoring.report import STRATIFIED, shown_answer, shown_expected

Report = Mapping[str, Any]
FLIP_WORDS = {"lost": "▼ passed → failed", "gained": "▲ failed → passed"}
# Nothing may be fetched: inline style and script only, images only as data.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

RATES = (
    ("task_success", "Task success", "success", "total", "cases passed", "cases"),
    ("answer_coverage", "Answer coverage", "answered", "total", "cases answered", "cases"),
    (
        "answered_accuracy",
        "Answered accuracy",
        "correct_answers",
        "answered",
        "answers correct",
        "answers",
    ),
)


class Composition(Struct, frozen=True):
    """One slice of the set's composition: its share of the golden set and of traffic."""

    slice: str
    cases: int
    share: float
    traffic: float | None


class PageInput(Struct):
    report: Report
    base: Report | None = None
    composition: Sequence[Composition] = ()
    links: Mapping[str, str] = field(default_factory=dict)  # case id -> href to its file
    unlinked: str = ""  # why case ids are not linked (the repository holds another set)
    title: str = "goldcase report"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _interval(pair: Sequence[float] | None) -> str:
    if not pair:
        return ""
    return f"95% interval {pair[0] * 100:.1f}% to {pair[1] * 100:.1f}%"


def _weighted_card(report: Report) -> str:
    """The traffic-weighted task success, the headline when traffic shares are configured."""
    block = report.get("weighted") or {}
    used = block.get("slices") or []
    sentence = f"{len(used)} slice rates weighted by their share of traffic"
    return (
        '<div class="card headline" id="rate-weighted_task_success"><h3>Traffic-weighted task '
        f'success</h3><p class="big">{_pct(report.get("weighted_task_success"))}</p>'
        f'<p class="den">{escape(sentence)}</p>'
        f'<p class="ci">{escape(_interval(block.get("interval")))}</p></div>'
    )


def headline(report: Report) -> str:
    intervals = report.get("intervals") or {}
    weighted = report.get("weighted_task_success") is not None
    cards = [_weighted_card(report)] if weighted else []
    for key, name, num, den, num_words, den_words in RATES:
        value = report.get(key)
        numerator, denominator = report.get(num, 0), report.get(den, 0)
        sentence = (
            f"{numerator} of {denominator} {den_words}"
            if denominator
            else f"no {den_words}: the rate is undefined"
        )
        note = (
            f'<p class="den">{escape(STRATIFIED)}</p>' if key == "task_success" and weighted else ""
        )
        cards.append(
            f'<div class="card" id="rate-{key}"><h3>{name}</h3>'
            f'<p class="big">{_pct(value)}</p>'
            f'<p class="den">{escape(sentence)} ({num_words} / {den_words})</p>{note}'
            f'<p class="ci">{escape(_interval(intervals.get(key)))}</p></div>'
        )
    return '<section class="cards" aria-label="Headline rates">' + "".join(cards) + "</section>"


def counts(report: Report) -> str:
    rows = [
        ("total", "cases in the split"),
        ("success", "cases passed"),
        ("answered", "outcomes of kind answer, right or wrong"),
        ("correct_answers", "answers that met every check"),
        ("errors", "execution errors (kept in every denominator)"),
        ("missing", "cases with no result line (kept in every denominator)"),
    ]
    body = "".join(
        f'<tr><th scope="row">{name}</th><td>{report.get(name, 0)}</td><td>{escape(what)}</td></tr>'
        for name, what in rows
    )
    extra = []
    if report.get("exact_match") is not None:
        extra.append(
            f"Exact match {_pct(report['exact_match'])} and token F1 "
            f"{_pct(report.get('token_f1'))} (SQuAD v2.0) over answered cases with a free-text "
            "answer."
        )
    notes = "".join(f"<p>{line}</p>" for line in extra)
    return (
        '<section><h2>Counts</h2><table class="counts"><thead><tr><th>count</th>'
        f"<th>value</th><th>what it counts</th></tr></thead><tbody>{body}</tbody></table>"
        f"{notes}</section>"
    )


def _bars(report: Report) -> list[svg.Bar]:
    bars = []
    for name, row in sorted((report.get("slices") or {}).items()):
        interval = row.get("interval") or [None, None]
        floor = row.get("floor") or 0
        bars.append(
            svg.Bar(
                label=name + (" (ambiguous)" if row.get("ambiguous") else ""),
                value=row.get("rate"),
                low=interval[0],
                high=interval[1],
                note=f"{row.get('success', 0)} of {row.get('total', 0)}",
                below_floor=row.get("total", 0) < floor,
                muted=bool(row.get("ambiguous")),
            )
        )
    return bars


def slices(report: Report) -> str:
    bars = _bars(report)
    if not bars:
        return ""
    chart = svg.rate_chart(bars, "Task success by slice, with 95% Wilson intervals", "slices")
    rows = "".join(
        f'<tr><th scope="row">{escape(b.label)}</th><td>{escape(b.note)}</td>'
        f"<td>{_pct(b.value)}</td><td>{_pct(b.low)} – {_pct(b.high)}</td>"
        f"<td>{'below floor' if b.below_floor else 'ok'}</td></tr>"
        for b in bars
    )
    floors = sorted({row.get("floor") for row in report["slices"].values() if row.get("floor")})
    floor_note = (
        (
            f"Slice floor: {', '.join(map(str, floors))} cases. A hollow dot and the words "
            "“below floor” mark a slice too small to report on."
        )
        if floors
        else ""
    )
    return (
        f"<section><h2>Slices</h2><figure>{chart}<figcaption>{floor_note}</figcaption>"
        '</figure><table class="slices"><thead><tr><th>slice</th><th>passed</th>'
        "<th>rate</th><th>95% interval</th><th>size</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def coverage_points(report: Report) -> list[tuple[float, float]]:
    """Answered accuracy against coverage as the confidence cut-off falls, one answer at a
    time (most confident first)."""
    total = report.get("total") or 0
    answers = [
        c
        for c in report.get("cases") or ()
        if c.get("outcome") == "answer" and c.get("confidence") is not None
    ]
    answers.sort(key=lambda c: (-c["confidence"], c["id"]))
    points, right = [], 0
    for k, case in enumerate(answers, start=1):
        right += bool(case.get("passed"))
        points.append((k / total, right / k))
    return points if total else []


def coverage(report: Report, base: Report | None) -> str:
    def curve(r: Report, name: str, dashed: bool) -> svg.Curve:
        marker = None
        if r.get("answer_coverage") is not None and r.get("answered_accuracy") is not None:
            marker = (r["answer_coverage"], r["answered_accuracy"])
        return svg.Curve(name, coverage_points(r), marker, dashed)

    curves = [curve(report, "this run", False)]
    if base is not None:
        curves.append(curve(base, "base run", True))
    chart = svg.coverage_chart(curves, "Answered accuracy against answer coverage", "coverage")
    return (
        "<section><h2>Answered accuracy against coverage</h2><figure>"
        f"{chart}<figcaption>Each line follows the answers from the most confident down; "
        "the marker is the run as scored. Answering less should buy accuracy.</figcaption>"
        "</figure></section>"
    )


def comparison(report: Report, base: Report) -> str:
    head_slices, base_slices = report.get("slices") or {}, base.get("slices") or {}
    deltas = []
    for name in sorted(set(head_slices) | set(base_slices)):
        new, old = head_slices.get(name, {}), base_slices.get(name, {})
        delta = None
        if new.get("rate") is not None and old.get("rate") is not None:
            delta = (new["rate"] - old["rate"]) * 100
        deltas.append(
            svg.Delta(
                name,
                delta,
                f"{old.get('success', 0)}/{old.get('total', 0)} → "
                f"{new.get('success', 0)}/{new.get('total', 0)}",
            )
        )
    chart = svg.delta_chart(deltas, "Change in task success by slice, head minus base", "deltas")
    flips = flipped(report, base)
    items = (
        "".join(
            f'<li><span class="flip {kind}">{FLIP_WORDS[kind]}</span> {escape(case_id)}</li>'
            for kind, case_id in flips
        )
        or "<li>no case changed</li>"
    )
    overall = ""
    if report.get("task_success") is not None and base.get("task_success") is not None:
        change = (report["task_success"] - base["task_success"]) * 100
        overall = (
            f"<p>Task success {_pct(base['task_success'])} → "
            f"{_pct(report['task_success'])} ({change:+.1f} points).</p>"
        )
    return (
        f"<section><h2>Compared with the base run</h2>{overall}<figure>{chart}</figure>"
        f"{gate(compare(base, report, labels=('base', 'this run')))}"
        f'<h3>Flipped cases ({len(flips)})</h3><ul class="flips">{items}</ul></section>'
    )


def gate(c: Comparison) -> str:
    """The gate's verdict and, per slice, why it passed or failed."""
    head = "".join(f'<th scope="col">{escape(cell)}</th>' for cell in HEADER)
    body = "".join(
        f'<tr class="{"fail" if row[-1] == "FAIL" else ""}"><th scope="row">'
        f"{escape(row[0])}</th>" + "".join(f"<td>{escape(cell)}</td>" for cell in row[1:]) + "</tr>"
        for row in table_rows(c)
    )
    reasons = "".join(f"<li>{escape(failure)}</li>" for failure in c.failures)
    verdict = "passes" if c.passed else "fails"
    rule = rule_line(c).removeprefix("gate: ")
    return (
        f'<h3 id="gate">The gate {verdict}</h3><p>{escape(rule[:1].upper() + rule[1:])}.</p>'
        '<div class="scroll"><table class="gate"><thead><tr>'
        f"{head}</tr></thead><tbody>{body}</tbody></table></div>"
        + (f'<ul class="reasons">{reasons}</ul>' if reasons else "")
    )


def flipped(report: Report, base: Report) -> list[tuple[str, str]]:
    before = {c["id"]: bool(c.get("passed")) for c in base.get("cases") or ()}
    out = []
    for case in report.get("cases") or ():
        was = before.get(case["id"])
        if was is not None and was != bool(case.get("passed")):
            out.append(("gained" if case.get("passed") else "lost", case["id"]))
    return sorted(out, key=lambda item: (item[0] != "lost", item[1]))


def composition(rows: Sequence[Composition]) -> str:
    if not rows:
        return ""
    chart = svg.pair_chart(
        [(r.slice, r.share, r.traffic) for r in rows],
        "Share of the golden set against share of traffic, by slice",
        "composition",
    )
    table = "".join(
        f'<tr><th scope="row">{escape(r.slice)}</th><td>{r.cases}</td><td>{_pct(r.share)}</td>'
        f"<td>{_pct(r.traffic)}</td></tr>"
        for r in rows
    )
    return (
        "<section><h2>Composition</h2><figure>"
        f"{chart}</figure><table><thead><tr><th>slice</th><th>cases</th><th>share of set"
        f"</th><th>share of traffic</th></tr></thead><tbody>{table}</tbody></table></section>"
    )


def failing(report: Report, links: Mapping[str, str], unlinked: str = "") -> str:
    stages = stage_of(report)
    rows = []
    for case in report.get("cases") or ():
        if case.get("passed"):
            continue
        case_id = escape(case["id"])
        link = links.get(case["id"])
        cell = f'<a href="{escape(link)}">{case_id}</a>' if link else case_id
        why = case.get("why") or case.get("failed_checks") or ("—",)
        checks = "".join(f"<li>{escape(line)}</li>" for line in why)
        confidence = case.get("confidence")
        stage = f"<td>{escape(stages.get(case['id'], '—'))}</td>" if stages else ""
        rows.append(
            f"<tr><td>{cell}</td><td>{escape(str(case.get('slice', '')))}</td>"
            f"<td>{escape(str(case.get('outcome', '')))}</td>"
            f'<td class="text">{escape(shown_answer(case))}</td>'
            f'<td class="text">{escape(shown_expected(case))}</td>'
            f'<td><ul class="why">{checks}</ul></td>{stage}'
            f"<td>{'' if confidence is None else f'{confidence:.2f}'}</td></tr>"
        )
    if not rows:
        return "<section><h2>Failing cases</h2><p>Every case passed.</p></section>"
    stage_head = "<th>lost at</th>" if stages else ""
    note = f"<p>{escape(unlinked)}</p>" if unlinked else ""
    return (
        f"<section><h2>Failing cases ({len(rows)})</h2>"
        "<p>Each with the answer it gave (cut), the answer the case expects, and for each "
        f"failed check what it wanted and what it saw.</p>{note}"
        '<label class="filter">Filter <input id="filter" type="search" '
        'placeholder="id, slice, outcome or check" aria-controls="failing"></label>'
        '<div class="scroll"><table id="failing"><thead><tr><th>case</th><th>slice</th>'
        "<th>outcome</th><th>answer</th><th>expected</th><th>why it failed</th>"
        f"{stage_head}<th>confidence</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table></div></section>"
    )


STAGE_WORDS = {
    "retrieval": "retrieval: the support was never retrieved",
    "context": "context: retrieved, but it did not reach the model",
    "answer": "answer: the support reached the model, and the answer was still wrong",
    "unknown": "unknown: no trace recorded",
}


def stage_of(report: Report) -> dict[str, str]:
    """Case id -> the stage a failing answerable case lost its support at (when traced)."""
    block = report.get("retrieval") or {}
    stages = block.get("stages") or {}
    return {row["id"]: stage for stage, rows in stages.items() for row in rows}


def attribution(report: Report) -> str:
    """Where the failing answerable cases lost their support: retrieval, context or answer."""
    block = report.get("retrieval")
    if not block:
        return ""
    stages = block.get("stages") or {}
    rows = "".join(
        f'<tr><th scope="row">{escape(STAGE_WORDS.get(stage, stage))}</th><td>{len(cases)}</td>'
        f"<td>{escape(', '.join(row['id'] for row in cases[:20]))}"
        f"{' …' if len(cases) > 20 else ''}</td></tr>"
        for stage, cases in stages.items()
    )
    recall = block.get("recall_at") or {}
    summary = ", ".join(f"@{k} {_pct(v)}" for k, v in recall.items())
    return (
        "<section><h2>Where failing cases lost their support</h2>"
        f"<p>Support recall over quotes {escape(summary) or 'n/a'}; every quote reached the "
        f"context in {_pct(block.get('all_support_in_context'))} of "
        f"{block.get('cases_with_trace', 0)} traced answerable cases.</p>"
        "<table><thead><tr><th>stage</th><th>failing cases</th><th>which</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def footer(report: Report) -> str:
    items = [
        ("goldcase", report.get("goldcase_version")),
        ("golden.version", report.get("golden_version")),
        ("split", report.get("split")),
        ("split seed", report.get("split_seed")),
        ("threshold", report.get("threshold")),
        ("set digest", report.get("set_digest")),
        ("corpus digest", report.get("corpus_digest")),
        ("results", report.get("results_file")),
        ("results digest", report.get("results_digest")),
    ]
    cells = "".join(
        f"<dt>{name}</dt><dd><code>{escape(str(value))}</code></dd>"
        for name, value in items
        if value is not None
    )
    return f"<footer><dl>{cells}</dl></footer>"


def build_page(page: PageInput) -> str:
    report = page.report
    parts = [
        headline(report),
        counts(report),
        slices(report),
        coverage(report, page.base),
        comparison(report, page.base) if page.base is not None else "",
        composition(page.composition),
        attribution(report),
        failing(report, page.links, page.unlinked),
    ]
    subtitle = (
        f"golden set version {report.get('golden_version')}, split "
        f"{report.get('split')}, {report.get('total', 0)} cases"
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{escape(page.title)}</title><style>{CSS}</style></head><body><main>"
        f"<header><h1>{escape(page.title)}</h1><p>{escape(subtitle)}</p></header>"
        + "".join(parts)
        + "</main>"
        + footer(report)
        + f"<script>{SCRIPT}</script></body></html>\n"
    )
