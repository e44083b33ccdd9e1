"""What ``goldcase triage`` tells the user: the text summary and the JSON document."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from goldcase.traffic.sample import FLAGGED, RANDOM, REASONS
from goldcase.traffic.traces import TraceLog
from goldcase.traffic.triage import Result

_KINDS = {
    "email": ("email address", "email addresses"),
    "phone": ("phone number", "phone numbers"),
    "card": ("card number", "card numbers"),
    "iban": ("IBAN", "IBANs"),
    "national_id": ("national id number", "national id numbers"),
    "address": ("street address", "street addresses"),
}
SHOWN_BAD_LINES = 20


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def text_lines(result: Result, rel: Callable[[Path], str]) -> list[str]:
    """The summary, for standard output."""
    log, drawn = result.log, result.draw
    flagged = sum(d.stratum == FLAGGED for d in drawn.drawn)
    bad = f", {_plural(log.bad_lines, 'bad line')} (listed on stderr)" if log.bad_lines else ""
    lines = [
        f"read {log.shown}: {_plural(log.traces, 'trace')}{bad}, "
        f"{drawn.flagged_pool} flagged (failed a check, hit a cap, or thumbs-down)",
        f"drew {_plural(len(drawn.drawn), 'trace')} (seed {result.seed}): {flagged} flagged "
        f"of {drawn.quota[0]} wanted, {len(drawn.drawn) - flagged} from all traffic of "
        f"{drawn.quota[1]} wanted (more when the flagged ran out)",
        "passed over while drawing:",
        *(f"  {drawn.skipped.get(k, 0):>5}  {why}" for k, why in REASONS.items()),
        _redacted(result),
        *_written(result, rel),
    ]
    if result.estimate is not None:
        lines += ["labelling estimate:", *(f"  {line}" for line in result.estimate.lines())]
    if result.written and not result.dry_run:
        lines.append(
            "next: label the drafts (docs/triage.md), then "
            "goldcase promote ID... --to golden|dev, and commit"
        )
    return lines


def _redacted(result: Result) -> str:
    if not result.redacted:
        return "personal data in the new drafts: none found"
    found = ", ".join(
        _plural(n, *_KINDS.get(kind, (kind, kind))) for kind, n in sorted(result.redacted.items())
    )
    return f"personal data replaced by tokens in the new drafts: {found}"


def _written(result: Result, rel: Callable[[Path], str]) -> list[str]:
    folder = rel(result.inbox)
    kept = [i for i, d in zip(result.ids, result.draw.drawn, strict=True) if d.kept]
    new = [i for i, d in zip(result.ids, result.draw.drawn, strict=True) if not d.kept]
    verb = "would write" if result.dry_run else "wrote"
    count = len(new) if result.dry_run else len(result.written)
    head = f"{verb} {_plural(count, 'draft')} to {folder}/"
    if kept:
        head += f" ({_plural(len(kept), 'draft')} there already, kept as they are)"
    if result.dry_run:
        head += " (dry run: nothing written)"
    lines = [head]
    for draft_id, drawn in zip(result.ids, result.draw.drawn, strict=True):
        flags = ", ".join(drawn.trace.flags) or "-"
        state = "kept" if drawn.kept else drawn.stratum
        lines.append(f"  {folder}/{draft_id}.yaml  {state:<7}  {flags}  line {drawn.trace.line}")
    lines += [f"  {rel(p)}: appeared meanwhile, left as it is" for p in result.existing]
    return lines


def bad_lines(shown: str, log: TraceLog) -> list[str]:
    """The bad lines, ``file:line: reason``, for standard error."""
    lines = [f"{shown}:{b.line}: {b.reason}" for b in log.bad[:SHOWN_BAD_LINES]]
    if log.bad_lines > SHOWN_BAD_LINES:
        lines.append(f"{shown}: and {log.bad_lines - SHOWN_BAD_LINES} more bad lines")
    return lines


def as_json(result: Result, rel: Callable[[Path], str]) -> dict[str, Any]:
    log, drawn = result.log, result.draw
    return {
        "file": log.shown,
        "lines": log.lines,
        "traces": log.traces,
        "bad_lines": [{"line": b.line, "reason": b.reason} for b in log.bad],
        "bad_line_count": log.bad_lines,
        "flagged": drawn.flagged_pool,
        "seed": result.seed,
        "quota": {FLAGGED: drawn.quota[0], RANDOM: drawn.quota[1]},
        "drawn": [
            {
                "id": draft_id,
                "path": f"{rel(result.inbox)}/{draft_id}.yaml",
                "stratum": d.stratum,
                "kept": d.kept,
                "line": d.trace.line,
                "flags": list(d.trace.flags),
                "repeats": d.repeats,
            }
            for draft_id, d in zip(result.ids, drawn.drawn, strict=True)
        ],
        "skipped": {k: drawn.skipped.get(k, 0) for k in REASONS},
        "redacted": dict(sorted(result.redacted.items())),
        "written": [rel(p) for p in result.written],
        "dry_run": result.dry_run,
        "estimate": result.estimate.as_dict() if result.estimate else None,
    }
