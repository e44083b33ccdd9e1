"""A small golden set for the run and score --from tests: three answerable cases and one
unanswerable, questions of four words or more (so the leakage guard searches for them)."""

from __future__ import annotations

from pathlib import Path

QUOTE = "Returns are accepted within 30 days"
EXPECTED = "within 30 days of delivery"  # an expected answer no request may carry

CASES = {
    "ret-001": (
        "id: ret-001\nquestion: how long do i have to return a jacket\n"
        f"expected_answer: {EXPECTED}\nsupport:\n  - doc: returns-policy.md\n"
        f"    quote: {QUOTE}\nexpect:\n  contains: ['30 days']\n  not_contains: ['14 days']\n"
        "slice: returns\n"
    ),
    "ret-002": (
        "id: ret-002\nquestion: how long is the window for returning shoes bought online\n"
        f"expected_answer: 30 days\nsupport:\n  - doc: returns-policy.md\n    quote: {QUOTE}\n"
        "slice: returns\n"
    ),
    "ret-003": (
        "id: ret-003\nquestion: can i send back a sale item within a month\n"
        f"expected_answer: 30 days\nsupport:\n  - doc: returns-policy.md\n    quote: {QUOTE}\n"
        "slice: returns\n"
    ),
    "oos-001": (
        "id: oos-001\nquestion: what is the name of the chief executive officer\n"
        "answerable: false\nslice: out-of-scope\n"
    ),
}
IDS = sorted(CASES)


def make_set(root: Path, extra: dict[str, str] | None = None, config: str = "") -> Path:
    """A golden-set repository with the four cases above (and ``extra`` files by path)."""
    (root / "cases" / "golden").mkdir(parents=True, exist_ok=True)
    (root / "cases" / "dev").mkdir(parents=True, exist_ok=True)
    (root / "corpus").mkdir(exist_ok=True)
    (root / "corpus" / "returns-policy.md").write_text(QUOTE + " of delivery.\n", encoding="utf-8")
    (root / "goldcase.toml").write_text(config, encoding="utf-8")
    (root / "golden.version").write_text("3\n", encoding="utf-8")
    for case_id, text in CASES.items():
        (root / "cases" / "golden" / f"{case_id}.yaml").write_text(text, encoding="utf-8")
    for rel, text in (extra or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
