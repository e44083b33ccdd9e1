"""The report: built as a dict that follows ``schema/report.schema.json``, rendered as JSON,
as text (rich tables; plain when not a terminal) or as Markdown for a pull-request comment.

``cases_digest`` pins the per-case list, so a report whose numbers were edited by hand can be
told from one goldcase wrote: recompute it and compare.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import msgspec
from rich import box
from rich.console import Console
from rich.table import Table

from goldcase import __version__
from goldcase.output import md_block, md_code, md_text, plain
from goldcase.scoring import traces, trials
from goldcase.scoring.diagnostics import ceiling_lines
from goldcase.scoring.metrics import answer_metrics, count, slice_stats
from goldcase.scoring.weighted import weighted_block
from goldcase.text import clip
from goldcase.versioning.version import read_version

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.scoring.outcomes import Graded
    from goldcase.scoring.scorer import Selection

FORMATS = ("text", "json", "markdown")
SHOWN_FAILURES = 50  # failing cases listed in text and Markdown; JSON lists every case


def canonical_json(value: Any) -> bytes:
    # no check for cycles (a report is a tree, built here or decoded from JSON): it kept a
    # table of every list and object being written, 100,000 of them for a large run
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), check_circular=False
    ).encode()


def cases_digest(cases: list[dict[str, Any]]) -> str:
    """sha256 of the canonical JSON of a report's ``cases`` list: the list's text is
    ``[``, each case's text joined by ``,``, and ``]``, so it is hashed a slice of cases at
    a time (the whole text of 100,000 cases, and its bytes, took 27 MB at the run's peak)."""
    h = hashlib.sha256(b"[")
    for at in range(0, len(cases), DIGEST_SLICE):
        if at:
            h.update(b",")
        h.update(canonical_json(cases[at : at + DIGEST_SLICE])[1:-1])
    h.update(b"]")
    return h.hexdigest()


DIGEST_SLICE = 1024  # cases encoded at a time by cases_digest


def build_report(
    ctx: Context,
    golden_digest: str,
    selection: Selection,
    graded: Sequence[Graded],
    *,
    threshold: float | None,
    results_file: str,
    results_digest: str,
    result_lines: int,
    outside_split: int,
    listed: int | None = None,
) -> dict[str, Any]:
    """The report of ``graded``. ``listed``: the report is for the text and Markdown
    renderings, and ``cases`` holds only the first that many failing cases, all they list
    (``cases_digest`` None); else every case, and the digest of the list."""
    counts = count(graded)
    slices = slice_stats(graded, ctx.config)
    em, f1, free_text = answer_metrics(graded)
    intervals = counts.intervals()
    abstained, corrected = unanswerable_passes(graded)
    if listed is None:
        cases = [g.as_dict() for g in graded]
    else:
        cases = [g.as_dict() for g in itertools.islice(_failed(graded), listed)]
    weighted = weighted_block(slices)
    return {
        "goldcase_version": __version__,
        "golden_version": read_version(ctx.config),
        "set_digest": golden_digest,
        "corpus_digest": ctx.corpus.digest,
        "split": selection.name,
        "split_seed": selection.seed,
        "split_fraction": selection.fraction,
        "threshold": threshold,
        "results_file": results_file,
        "results_digest": results_digest,
        "result_lines": result_lines,
        "outside_split": outside_split,
        "total": counts.total,
        "success": counts.success,
        "answered": counts.answered,
        "correct_answers": counts.correct_answers,
        "errors": counts.errors,
        "missing": counts.missing,
        "unanswerable": sum(not g.answerable for g in graded),
        "correct_abstentions": abstained,
        "corrections": corrected,
        **counts.rates(),
        "intervals": {k: None if v is None else list(v) for k, v in intervals.items()},
        "free_text_answers": free_text,
        "exact_match": em,
        "token_f1": f1,
        "weighted_task_success": None if weighted is None else weighted["value"],
        "weighted": weighted,
        "slices": {name: stats.as_dict() for name, stats in slices.items()},
        "cases": cases,
        "cases_digest": cases_digest(cases) if listed is None else None,
    }


def _failed(graded: Iterable[Graded]) -> Iterator[Graded]:
    return (g for g in graded if not g.passed)


def unanswerable_passes(graded: Iterable[Graded]) -> tuple[int, int]:
    """Unanswerable cases that passed by abstaining, and false-premise cases that passed by an
    answer meeting their correction checks."""
    abstained = corrected = 0
    for g in graded:
        if not g.answerable and g.passed:
            if g.outcome == "answer":
                corrected += 1
            else:
                abstained += 1
    return abstained, corrected


def render_json(report: Mapping[str, Any]) -> str:
    """The report as JSON, indented by two spaces, and a newline (msgspec's C encoder: on a
    100,000-case report the standard library's indented dump is a generator per level)."""
    return msgspec.json.format(msgspec.json.encode(report), indent=2).decode() + "\n"


# --- shared wording -----------------------------------------------------------------------------


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def span(interval: Sequence[float] | None) -> str:
    return "" if interval is None else f"{pct(interval[0])} – {pct(interval[1])}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


STRATIFIED = "over this set's cases (stratified; not a traffic estimate)"


def weighted_value(report: Mapping[str, Any]) -> float | None:
    """The traffic-weighted task success, when traffic shares are configured."""
    value = report.get("weighted_task_success")
    return value if isinstance(value, int | float) else None


def _weighted_row(report: Mapping[str, Any]) -> tuple[str, str, str, str]:
    block = report.get("weighted")
    block = block if isinstance(block, Mapping) else {}
    of = f"{_plural(len(block.get('slices') or []), 'slice')} by traffic share"
    if block.get("effective_cases") is not None:
        of += f"; {block['effective_cases']:.1f} effective cases"
    return (
        "traffic-weighted task success",
        pct(weighted_value(report)),
        of,
        span(block.get("interval")),
    )


def headline_rows(report: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """(metric, value, numerator / denominator, 95% interval) for the headline table: the
    traffic-weighted task success first when traffic shares are configured, and then the
    unweighted rate labelled as what it is."""
    intervals = report["intervals"]
    total, answered = report["total"], report["answered"]
    weighted = weighted_value(report) is not None
    passed = f"{report['success']} passed / {_plural(total, 'case')}"
    rows = [_weighted_row(report)] if weighted else []
    rows += [
        (
            "task success",
            pct(report["task_success"]),
            f"{passed} {STRATIFIED}" if weighted else passed,
            span(intervals["task_success"]),
        ),
        (
            "answer coverage",
            pct(report["answer_coverage"]),
            f"{answered} answered / {_plural(total, 'case')}",
            span(intervals["answer_coverage"]),
        ),
        (
            "answered accuracy",
            pct(report["answered_accuracy"]),
            f"{report['correct_answers']} correct / {_plural(answered, 'answer')}",
            span(intervals["answered_accuracy"]),
        ),
    ]
    n = report["free_text_answers"]
    for name, key in (("exact match", "exact_match"), ("token F1", "token_f1")):
        rows.append(
            (name, pct(report[key]), f"mean over {_plural(n, 'free-text answer')} (SQuAD v2.0)", "")
        )
    if not weighted:
        why = (
            "no traffic shares configured"
            if report.get("weighted") is None
            else "no slice with a traffic share has a case"
        )
        rows.append(("traffic-weighted task success", "n/a", why, ""))
    return rows


def slice_note(stats: Mapping[str, Any]) -> str:
    notes = []
    if stats["ambiguous"]:
        notes.append("ambiguous: not in the weighted rate")
    if stats["total"] < stats["floor"]:
        notes.append(f"under its floor of {stats['floor']}")
    return "; ".join(notes)


def slice_rows(report: Mapping[str, Any]) -> list[tuple[str, str, str, str, str, str]]:
    """(slice, passed / total, rate, interval, traffic, note) per slice."""
    rows = []
    for name, stats in report["slices"].items():
        traffic = "" if stats["traffic"] is None else pct(stats["traffic"])
        rows.append(
            (
                name,
                f"{stats['success']} / {stats['total']}",
                pct(stats["rate"]),
                span(stats["interval"]),
                traffic,
                slice_note(stats),
            )
        )
    return rows


def failing(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The failing cases a report lists: every one in a complete report, the first few in one
    built for text (``build_report``'s ``listed``)."""
    return [case for case in report["cases"] if not case["passed"]]


def failing_count(report: Mapping[str, Any]) -> int:
    """How many cases failed, whether the report lists them all or not."""
    return int(report["total"]) - int(report["success"])


def stamp(report: Mapping[str, Any]) -> str:
    version = report["golden_version"] or "unversioned"
    parts = [f"split {report['split']}"]
    if report["split_seed"] is not None:
        parts.append(f"seed {report['split_seed']}")
    if report["threshold"] is not None:
        parts.append(f"threshold {report['threshold']:g}")
    parts += [
        f"set {version} ({report['set_digest'][:12]})",
        f"corpus {report['corpus_digest'][:12]}",
    ]
    return ", ".join(parts)


def counts_line(report: Mapping[str, Any]) -> str:
    line = (
        f"{_plural(report['total'], 'case')}: {report['success']} passed, "
        f"{report['answered']} answered ({report['correct_answers']} correct), "
        f"{_plural(report['errors'], 'error')}, {report['missing']} missing"
    )
    if report["outside_split"]:
        line += (
            f"; {_plural(report['outside_split'], 'result line')} for cases outside the "
            "split not scored"
        )
    return line


def unanswerable_line(report: Mapping[str, Any]) -> str | None:
    """How the unanswerable cases passed: abstentions apart from corrected premises (None for
    a report without unanswerable cases, or one written before the two were counted)."""
    if not report.get("unanswerable") or "corrections" not in report:
        return None
    return (
        f"{_plural(report['unanswerable'], 'unanswerable case')}: "
        f"{report['correct_abstentions']} passed by abstaining, "
        f"{report['corrections']} by correcting the false premise"
    )


# --- text ---------------------------------------------------------------------------------------


def render_text(report: Mapping[str, Any], out: TextIO, limit: int = SHOWN_FAILURES) -> None:
    """Rich tables; no colour or control codes when ``out`` is not a terminal."""
    tty = _is_tty(out)
    buffer = out if tty else io.StringIO()
    if tty:
        console = Console(file=buffer, highlight=False, soft_wrap=True, markup=False)
    else:  # FORCE_COLOR and TTY_COMPATIBLE must not put escape codes in a file
        console = Console(
            file=buffer,
            markup=False,
            highlight=False,
            soft_wrap=True,
            width=110,
            color_system=None,
            force_terminal=False,
            force_jupyter=False,
        )
    console.print(f"goldcase score: {plain(report['results_file'])}", markup=False)
    console.print(plain(stamp(report)), markup=False)
    console.print(plain(counts_line(report)), markup=False)
    unanswerable = unanswerable_line(report)
    if unanswerable is not None:
        console.print(plain(unanswerable), markup=False)
    table = Table("metric", "value", "of", "95% interval", box=box.SIMPLE_HEAD)
    for row in headline_rows(report):
        table.add_row(*(plain(cell) for cell in row))
    console.print(table)
    slices = Table(
        "slice",
        "passed",
        "rate",
        "95% interval",
        "traffic",
        "note",
        box=box.SIMPLE_HEAD,
        title="slices",
    )
    for srow in slice_rows(report):
        slices.add_row(*(plain(cell) for cell in srow))
    if report["slices"]:
        console.print(slices)
    _failing_table(console, report, limit)
    for line in diagnostic_lines(report, limit):
        console.print(plain(line), markup=False)
    if isinstance(buffer, io.StringIO):  # a file or a pipe: plain lines, no padding
        out.write("".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines()))


def _failing_table(console: Any, report: Mapping[str, Any], limit: int) -> None:
    cases, failed = failing(report), failing_count(report)
    if not failed:
        console.print("no failing cases", markup=False)
        return
    console.print(f"failing cases ({failed})", markup=False)
    for case in cases[:limit]:
        for line in failure_lines(case):
            console.print(plain(line), markup=False)  # control characters shown as escapes
    if failed > limit:
        console.print(f"… and {failed - limit} more; --format json lists every case", markup=False)


SHOWN_ANSWER = 80  # characters of an answer shown in the text and Markdown reports


def shown_answer(case: Mapping[str, Any]) -> str:
    """A failing case's answer as the reports show it: quoted and cut, or what came instead."""
    answer = case.get("answer")
    if isinstance(answer, str):
        return f'"{clip(answer, SHOWN_ANSWER)}"'
    return {
        "missing": "(no result line)",
        "error": "(an error)",
        "abstain": "(no answer: abstained)",
    }.get(case["outcome"], "(no free-text answer)")


def shown_expected(case: Mapping[str, Any]) -> str:
    if not case.get("answerable", True):
        return "an abstention"
    expected = case.get("expected_answer")
    return f'"{clip(expected, SHOWN_ANSWER)}"' if isinstance(expected, str) else "(none)"


def failure_lines(case: Mapping[str, Any]) -> list[str]:
    """A failing case in plain lines: id, slice, outcome and failed checks, then the answer,
    the expected answer and why each check failed."""
    return [
        f"  {case['id']}  {case['slice']}  {case['outcome']}  {', '.join(case['failed_checks'])}",
        f"    answer:   {shown_answer(case)}",
        f"    expected: {shown_expected(case)}",
        *(f"    {why}" for why in case.get("why") or ()),
    ]


def _is_tty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def diagnostic_lines(report: Mapping[str, Any], limit: int = SHOWN_FAILURES) -> list[str]:
    """Retrieval stages and repeated trials, when the run recorded them."""
    lines: list[str] = []
    agreement = ceiling_lines(report.get("agreement"))
    if agreement:
        lines += ["", *agreement]
    if report.get("retrieval"):
        lines += ["", *traces.render_lines(report["retrieval"], limit)]
    if report.get("trials"):
        lines += ["", *trials.render_lines(report["trials"], limit)]
    return lines


# --- Markdown -----------------------------------------------------------------------------------


def _md_table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    """A table of text cells, each escaped (``md_text``): nothing in a cell renders."""
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(md_text(cell) for cell in row) + " |" for row in rows]
    return lines


def _md_rows(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    """A table whose cells are escaped already (``md_text``, ``md_code``)."""
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def markdown_title(report: Mapping[str, Any]) -> str:
    weighted = weighted_value(report)
    if weighted is not None:
        block = report.get("weighted") or {}
        interval = f" (95% interval {span(block['interval'])})" if block.get("interval") else ""
        return f"### goldcase score: traffic-weighted task success {pct(weighted)}{interval}"
    return (
        f"### goldcase score: task success {pct(report['task_success'])} "
        f"({report['success']} / {report['total']})"
    )


def _md_optional(line: str | None) -> list[str]:
    return [] if line is None else ["", f"{md_text(line)}."]


def render_markdown(report: Mapping[str, Any], limit: int = SHOWN_FAILURES) -> str:
    lines = [
        markdown_title(report),
        "",
        f"{md_code(report['results_file'], table=True)}: {md_text(stamp(report))}. "
        f"{md_text(counts_line(report))}.",
        *_md_optional(unanswerable_line(report)),
        "",
        *_md_table(("metric", "value", "of", "95% interval"), headline_rows(report)),
    ]
    if report["slices"]:
        lines += [
            "",
            *_md_table(
                ("slice", "passed", "rate", "95% interval", "traffic", "note"), slice_rows(report)
            ),
        ]
    cases, failed = failing(report), failing_count(report)
    if failed:
        lines += ["", f"<details><summary>{_plural(failed, 'failing case')}</summary>", ""]
        rows = [
            (
                md_code(c["id"], table=True),
                md_text(c["slice"]),
                md_text(c["outcome"]),
                md_text(shown_answer(c)),
                md_text(shown_expected(c)),
                "<br>".join(md_text(why) for why in c.get("why") or ())
                or md_text(", ".join(c["failed_checks"])),
            )
            for c in cases[:limit]
        ]
        lines += _md_rows(("case", "slice", "outcome", "answer", "expected", "why"), rows)
        if failed > limit:
            lines += ["", f"… and {failed - limit} more (the JSON report lists every case)"]
        lines += ["", "</details>"]
    extra = diagnostic_lines(report, limit)
    if extra:
        lines += [
            "",
            "<details><summary>retrieval and trials</summary>",
            "",
            *md_block(extra[1:]),
            "",
            "</details>",
        ]
    return "\n".join(lines) + "\n"
