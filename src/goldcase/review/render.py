"""A review as Markdown (a pull-request comment or a workflow step summary), text or JSON.

The Markdown opens with one line on the version and a summary table (one row a case), then one
collapsed ``<details>`` block a case, so that fifty changed cases still read as one screen. A
comment larger than GitHub accepts is cut at a whole case, saying how many were left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from goldcase.output import md_code, md_text, plain, text_line
from goldcase.review.build import CaseChange, FieldChange, QuoteView, Review, Side
from goldcase.scoring.probes import Probe

MAX_MARKDOWN = 60_000  # GitHub refuses comments over 65,536 characters
_NONE = "—"


def render(review: Review, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(as_dict(review), indent=2, ensure_ascii=False) + "\n"
    if fmt == "text":
        return "\n".join(text_lines(review)) + "\n"
    return markdown(review)


# --- Markdown ---


def markdown(review: Review, limit: int = MAX_MARKDOWN) -> str:
    head = "\n".join(_md_head(review)) + "\n"
    blocks = ["\n".join(_md_case(case)) + "\n" for case in review.cases]
    out, used = head, len(head)
    for index, block in enumerate(blocks):
        if used + len(block) > limit:
            left = len(blocks) - index
            out += (
                f"\n{left} more case{'s' if left != 1 else ''} not shown here (the comment "
                "would be too long): run `goldcase review` locally to see them.\n"
            )
            break
        out += "\n" + block
        used += len(block) + 1
    return out


def _md_head(review: Review) -> Iterator[str]:
    yield "## goldcase review"
    yield ""
    yield f"Base: {_md_side(review.base)}. Head: {_md_side(review.head)}."
    yield ""
    yield _md_version(review)
    for note in review.notes:
        yield ""
        yield f"> {_md_text(note)}"
    yield ""
    if not review.cases:
        yield "No case was added, changed, moved or removed."
        return
    yield _summary(review)
    yield ""
    yield "| case | split | change | fields | findings |"
    yield "|---|---|---|---|---|"
    for case in review.cases:
        shown = case.status in ("changed", "moved")
        fields = ", ".join(_md_code(c.field) for c in case.changes) if shown else ""
        yield (
            f"| {_md_code(case.id)} | {_md_text(case.split)} | {case.status} | {fields or _NONE} | "
            f"{_findings_count(case) or _NONE} |"
        )


def _md_side(side: Side) -> str:
    if side.sha is None:
        return "the working tree"
    if side.ref is None:
        return f"{_md_text(side.how)} ({md_code(side.sha[:7])})"
    return f"{md_code(side.ref)} ({md_code(side.sha[:7])})"


def _md_version(review: Review) -> str:
    old, new = review.old_version, review.new_version
    if review.version_moved:
        return f"golden.version moved: {md_code(old or _NONE)} → {md_code(new or _NONE)}."
    line = f"golden.version did not move ({md_code(new or _NONE)})."
    if review.golden_changed:
        line += " **The golden set changed: run `goldcase lock` to bump it.**"
    return line


def _summary(review: Review) -> str:
    counts = review.counts()
    parts = [f"{n} {status}" for status, n in counts.items() if n]
    total = len(review.cases)
    errors = sum(1 for c in review.cases for f in c.findings if f.severity == "error")
    warnings = sum(1 for c in review.cases for f in c.findings if f.severity == "warning")
    tail = (
        f"; {errors} error{'s' if errors != 1 else ''}, {warnings} warning"
        f"{'s' if warnings != 1 else ''} on them"
        if errors or warnings
        else ""
    )
    return f"{total} case{'s' if total != 1 else ''}: {', '.join(parts)}{tail}."


def _findings_count(case: CaseChange) -> str:
    errors = sum(1 for f in case.findings if f.severity == "error")
    warnings = len(case.findings) - errors
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)


def _md_case(case: CaseChange) -> Iterator[str]:
    yield "<details>"
    yield f"<summary><code>{_html(case.id)}</code> · {_html(case.split)} · {case.status}</summary>"
    yield ""
    path = md_code(case.path)
    yield f"{md_code(case.old_path)} → {path}" if case.old_path else path
    yield ""
    if case.changes:
        yield "| field | old | new |"
        yield "|---|---|---|"
        for change in case.changes:
            yield (
                f"| {_md_code(change.field)} | {_md_value(change.old)} | {_md_value(change.new)} |"
            )
        yield ""
    if case.quotes:
        yield "Support:"
        yield ""
        for quote in case.quotes:
            yield from _md_quote(quote)
        yield ""
    if case.probes:
        yield "Probes:"
        yield ""
        yield "| probe | answer | verdict |"
        yield "|---|---|---|"
        for probe in case.probes:
            yield f"| {probe.kind} | {_md_code(probe.answer)} | {_verdict(probe)} |"
        yield ""
    if case.findings:
        yield "Findings:"
        yield ""
        for finding in case.findings:
            yield (
                f"- {md_code(f'{finding.path}:{finding.line}:{finding.col}')} "
                f"{_md_text(finding.code)} {_md_text(finding.message)}"
            )
        yield ""
    yield "</details>"


def _md_quote(quote: QuoteView) -> Iterator[str]:
    found = quote.found
    if found is None:
        yield f"- {md_code(quote.doc)}: not found in the document: {_md_text(quote.quote)}"
        return
    yield f"- {md_code(quote.doc)}, line {found.line}:"
    text = " ".join(
        part
        for part in (
            _md_text(found.before),
            _md_text(found.lead),
            f"**{_md_text(found.quote)}**",
            _md_text(found.tail),
            _md_text(found.after),
        )
        if part
    )
    yield f"  > {text}"


def _md_value(value: Any) -> str:
    if value is None:
        return _NONE
    return _md_code(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def _md_code(text: str) -> str:
    return md_code(text, table=True)


def _md_text(text: str) -> str:
    return md_text(text)


def _html(text: str) -> str:
    return plain(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- text ---


def text_lines(review: Review) -> Iterator[str]:
    yield f"goldcase review: base {plain(review.base)}, head {plain(review.head)}"
    version = (  # each the set's own line (anyone's, in a pull request): escaped
        f"{plain(review.old_version)} -> {plain(review.new_version)}"
        if review.version_moved
        else f"{plain(review.new_version)} (did not move)"
    )
    yield f"golden.version: {version}"
    if not review.version_moved and review.golden_changed:
        yield "the golden set changed but golden.version did not move: run goldcase lock"
    yield from (f"note: {plain(n)}" for n in review.notes)
    yield _summary(review) if review.cases else "no case was added, changed, moved or removed"
    for case in review.cases:
        yield ""
        where = f"{case.old_path} -> {case.path}" if case.old_path else case.path
        yield plain(f"{case.status} {case.id} ({case.split}) {where}")
        yield from (f"  {_text_change(c)}" for c in case.changes)
        yield from (f"  {_text_quote(q)}" for q in case.quotes)
        yield from (
            f"  {probe.kind}-probe {_text_value(probe.answer)}: {_verdict(probe)}"
            for probe in case.probes
        )
        yield from (f"  {text_line(f)}" for f in case.findings)


def _verdict(probe: Probe) -> str:
    """``passes`` or ``fails lead, contains``, and whether that is what the probe expects."""
    graded = "fails " + ", ".join(probe.failed) if probe.failed else "passes"
    return f"{graded} (holds)" if probe.holds else f"{graded} (does NOT hold)"


def _text_change(change: FieldChange) -> str:
    return plain(f"{change.field}: {_text_value(change.old)} -> {_text_value(change.new)}")


def _text_value(value: Any) -> str:
    return "(absent)" if value is None else json.dumps(value, ensure_ascii=False)


def _text_quote(quote: QuoteView) -> str:
    found = quote.found
    if found is None:
        return plain(f"{quote.doc}: not found: {quote.quote}")
    parts = (found.before, found.lead, f"»{found.quote}«", found.tail, found.after)
    return plain(f"{quote.doc}:{found.line}: " + " ".join(p for p in parts if p))


# --- JSON ---


def as_dict(review: Review) -> dict[str, Any]:
    return {
        "base": {"ref": review.base.ref, "sha": review.base.sha, "how": review.base.how},
        "head": {"ref": review.head.ref, "sha": review.head.sha},
        "golden_version": {
            "old": review.old_version,
            "new": review.new_version,
            "moved": review.version_moved,
        },
        "golden_changed": review.golden_changed,
        "counts": review.counts(),
        "notes": review.notes,
        "cases": [_case_dict(c) for c in review.cases],
    }


def _case_dict(case: CaseChange) -> dict[str, Any]:
    return {
        "id": case.id,
        "status": case.status,
        "old_split": case.old_split,
        "new_split": case.new_split,
        "path": case.path,
        "old_path": case.old_path,
        "changes": [{"field": c.field, "old": c.old, "new": c.new} for c in case.changes],
        "support": [_quote_dict(q) for q in case.quotes],
        "findings": [f.as_dict() for f in case.findings],
        "probes": [
            {"kind": p.kind, "answer": p.answer, "failed": list(p.failed), "holds": p.holds}
            for p in case.probes
        ],
    }


def _quote_dict(quote: QuoteView) -> dict[str, Any]:
    out: dict[str, Any] = {"doc": quote.doc, "quote": quote.quote, "found": quote.found is not None}
    if quote.found is not None:
        found = quote.found
        out.update(
            line=found.line,
            before=found.before,
            lead=found.lead,
            tail=found.tail,
            after=found.after,
        )
    return out
