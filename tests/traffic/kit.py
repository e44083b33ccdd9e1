"""Helpers for the triage and promote tests: trace lines, trace logs, and a small golden set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit import REPO_ROOT

QUOTE = "A customer has 14 days from delivery to request a credit"

GOLDEN_QUESTION = "how long do i have to ask for a credit on a damaged delivery"
DEV_QUESTION = "how long do you keep a parcel you could not deliver"


def trace(
    number: int,
    question: str,
    *,
    failed: bool = False,
    cap: bool = False,
    thumbs: bool = False,
    answer: str | None = "You have 30 days.",
    time: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": f"t-{number:04d}",
        "question": question,
        "answer": answer,
        "time": time or f"2026-03-0{1 + number % 7}T{number % 24:02d}:{number % 60:02d}:00Z",
        "failed_check": failed,
        "cap_hit": cap,
        "thumbs_down": thumbs,
    }
    data.update(extra)
    return data


def write_log(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    """A JSON Lines file; a string row is written as it is (a bad line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


DEV_QUOTE = "Parcels we could not deliver are held at the depot for 7 days."


def case_text(
    case_id: str,
    question: str,
    *,
    slice_name: str = "returns",
    quote: str = QUOTE,
    doc: str = "returns-policy.md",
    answer: str = "14 days",
) -> str:
    return (
        f"id: {case_id}\n"
        f"question: {question}\n"
        f"expected_answer: {answer}\n"
        "support:\n"
        f"  - doc: {doc}\n"
        f"    quote: {quote}\n"
        f"slice: {slice_name}\n"
        "source: transcript\n"
    )


def set_files(schemas: bool = True) -> dict[str, str]:
    """One golden and one dev case, each with its own quote (a dev case sharing a golden
    case's quote would be GC308), and the schemas for editors that ``goldcase init`` writes
    (``schemas=False``: a repository without them)."""
    files = {
        "cases/golden/ret-001.yaml": case_text("ret-001", GOLDEN_QUESTION),
        "cases/dev/dev-ret-001.yaml": case_text(
            "dev-ret-001", DEV_QUESTION, quote=DEV_QUOTE, doc="delivery.md", answer="7 days"
        ),
    }
    if schemas:
        for rel in ("schema/case.schema.json", "schema/draft.schema.json"):
            files[rel] = (REPO_ROOT / rel).read_text(encoding="utf-8")
    return files


def distinct_questions(n: int) -> list[str]:
    """``n`` questions that share no near-duplicate with each other or the set: each has its
    own words."""
    words = [
        "kettle", "toaster", "mixer", "blender", "fryer", "cooker", "duvet", "bench", "drill",
        "fridge", "mower", "iron", "lamp", "saucepan", "scale", "heater", "fan", "vacuum",
        "radio", "speaker", "camera", "printer", "router", "monitor", "keyboard", "mouse",
        "tablet", "charger", "cable", "battery", "torch", "clock", "kettlebell", "dumbbell",
        "treadmill", "bicycle", "helmet", "tent", "sleeping", "lantern",
    ]  # fmt: skip
    verbs = ["broke", "leaks", "rattles", "sparks", "smokes", "buzzes", "wobbles", "squeaks"]
    out = []
    for i in range(n):
        a, b = words[i % len(words)], verbs[(i // len(words)) % len(verbs)]
        out.append(f"my {a} {b} number {i} what now")
    return out
