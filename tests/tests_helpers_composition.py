"""Case files for composition tests, shared by the check and stats tests."""

from __future__ import annotations


def case_text(
    case_id: str,
    *,
    answerable: bool = True,
    source: str = "hand-written",
    tags: tuple[str, ...] = (),
    slice_name: str = "returns",
) -> str:
    lines = [f"id: {case_id}", f"question: how long do i have for case {case_id}"]
    if answerable:
        lines += [
            "expected_answer: 14 days",
            "support:",
            "  - doc: returns-policy.md",
            "    quote: A customer has 14 days from delivery to request a credit",
        ]
    else:
        lines.append("answerable: false")
    lines += [f"slice: {slice_name}", f"source: {source}"]
    if source == "synthetic":
        lines.append("derived_from: d1")
    if tags:
        lines.append(f"tags: [{', '.join(tags)}]")
    return "\n".join(lines) + "\n"


def healthy_files() -> dict[str, str]:
    """20 golden cases in slice 'returns' (4 synthetic, 5 unanswerable of which 2 with a false
    premise) and one dev case."""
    files = {"cases/dev/d1.yaml": case_text("d1", slice_name="dev-only")}
    for i in range(20):
        if i < 5:
            text = case_text(
                f"r{i:02d}", answerable=False, tags=("false_premise",) if i < 2 else ()
            )
        elif i < 9:
            text = case_text(f"r{i:02d}", source="synthetic")
        else:
            text = case_text(f"r{i:02d}")
        files[f"cases/golden/r{i:02d}.yaml"] = text
    return files
