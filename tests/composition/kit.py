"""Case files for composition: a case of a given shape, and a healthy golden slice (for the
composition and labelling checks and goldcase stats)."""

from __future__ import annotations


def case(
    case_id: str,
    *,
    slice_name: str = "returns",
    answerable: bool = True,
    answer: str = "14 days",
    source: str = "hand-written",
    tags: tuple[str, ...] = (),
    extra: str = "",
) -> str:
    lines = [f"id: {case_id}", f"question: how long do i have for case {case_id}"]
    if answerable:
        lines += [
            f"expected_answer: {answer}",
            "support:",
            "  - doc: returns-policy.md",
            "    quote: A customer has 14 days from delivery to request a credit",
        ]
    else:
        lines.append("answerable: false")
    lines += [f"slice: {slice_name}", f"source: {source}"]
    if source == "synthetic":
        lines.append("derived_from: dev-001")
    if tags:
        lines.append(f"tags: [{', '.join(tags)}]")
    if extra:
        lines.append(extra)
    return "\n".join(lines) + "\n"


def healthy(prefix: str = "r", n: int = 20, slice_name: str = "returns") -> dict[str, str]:
    """n cases: 4 synthetic (1/5), 5 unanswerable (1/4) of which 2 with a false premise."""
    files = {}
    for i in range(n):
        kwargs: dict[str, object] = {"slice_name": slice_name}
        if i < 5:
            kwargs["answerable"] = False
            kwargs["tags"] = ("false_premise",) if i < 2 else ()
        elif i < 9:
            kwargs["source"] = "synthetic"
        files[f"cases/golden/{prefix}{i:02d}.yaml"] = case(f"{prefix}{i:02d}", **kwargs)  # type: ignore[arg-type]
    return files


def healthy_files() -> dict[str, str]:
    """20 golden cases in slice 'returns' (4 synthetic, 5 unanswerable of which 2 with a false
    premise) and one dev case."""
    return {"cases/dev/d1.yaml": case("d1", slice_name="dev-only"), **healthy()}
