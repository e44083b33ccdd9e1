"""Helpers for the score tests: small golden-set repositories and results files on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goldcase.commands.common import open_context
from goldcase.scoring.scorer import score

QUOTE = "Returns are accepted within 30 days"


def case_yaml(
    case_id: str,
    slice_: str = "default",
    *,
    answerable: bool = True,
    expected: str = "30 days",
    expect: dict[str, Any] | None = None,
) -> str:
    """A case file's text; values are written as JSON scalars, which YAML reads as written."""
    lines = [f"id: {case_id}", f"question: {json.dumps('question about ' + case_id)}"]
    if answerable:
        lines += [
            f"expected_answer: {json.dumps(expected)}",
            "support:",
            "  - doc: returns-policy.md",
            f"    quote: {json.dumps(QUOTE)}",
        ]
    else:
        lines.append("answerable: false")
    if expect:
        lines.append(f"expect: {json.dumps(expect, ensure_ascii=False)}")
    lines.append(f"slice: {slice_}")
    return "\n".join(lines) + "\n"


def write_repo(root: Path, cases: dict[str, str], config: str = "") -> Path:
    """A repository with the given golden cases (id -> YAML text), or files by path."""
    (root / "cases" / "golden").mkdir(parents=True, exist_ok=True)
    (root / "cases" / "dev").mkdir(parents=True, exist_ok=True)
    (root / "corpus").mkdir(exist_ok=True)
    (root / "corpus" / "returns-policy.md").write_text(QUOTE + " of delivery.\n", encoding="utf-8")
    (root / "goldcase.toml").write_text(config, encoding="utf-8")
    (root / "golden.version").write_text("1.4.0\n", encoding="utf-8")
    for key, text in cases.items():
        path = root / key if "/" in key else root / "cases" / "golden" / f"{key}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_results(path: Path, lines: list[dict[str, Any] | str]) -> Path:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def score_lines(root: Path, lines: list[dict[str, Any] | str], **options: Any) -> dict[str, Any]:
    """Score these result lines against the repository at ``root`` (library call)."""
    results = write_results(root / "results.jsonl", lines)
    return score(open_context(root, cache=False), results, **options)


# The method's six-case fixture: (id, slice, answerable, expected fact, recorded result).
SIX = [
    ("E1", "standard", True, "return_window_30_days",
     {"outcome": "answer", "fact": "return_window_30_days"}),
    ("E2", "exception", True, "custom_excluded",
     {"outcome": "answer", "fact": "return_window_30_days"}),
    ("E3", "missing", False, None, {"outcome": "abstain"}),
    ("E4", "missing", False, None, {"outcome": "answer", "fact": "shipping_fee_10"}),
    ("E5", "standard", True, "defect_window_7_days", {"outcome": "error", "error": "timeout"}),
    ("E6", "exception", True, "custom_excluded", {"outcome": "abstain"}),
]  # fmt: skip


def six_cases() -> dict[str, str]:
    out = {}
    for case_id, slice_, answerable, fact, _ in SIX:
        expect = {"fact": fact} if fact else None
        out[case_id] = case_yaml(case_id, slice_, answerable=answerable, expect=expect)
    return out


def six_results() -> list[dict[str, Any] | str]:
    return [{"id": case_id, **result} for case_id, _, _, _, result in SIX]
