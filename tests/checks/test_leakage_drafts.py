"""GC309 (docs/leakage.md): a draft in cases/inbox/ that asks what a case or another draft
asks, exactly or nearly, is a warning at the draft; drafts leave the GC301-GC306 rules alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from kit import run_cli

GOLD = "How many days does a customer have to request a credit for a damaged delivery?"


def draft(draft_id: str, question: str) -> str:
    return f"id: {draft_id}\nquestion: {json.dumps(question)}\nanswerable:\nsource: transcript\n"


def case(case_id: str, question: str) -> str:
    return f"id: {case_id}\nquestion: {json.dumps(question)}\nanswerable: false\n"


def leakage(root: Path) -> tuple[int, list[str]]:
    result = run_cli("check", "--repo", root, "--select", "leakage")
    return result.exit_code, result.stdout.splitlines()[:-1]


def test_a_draft_copying_a_golden_question(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/g1.yaml": case("g1", GOLD),
            "cases/inbox/tr-a.yaml": draft("tr-a", GOLD.upper()),
        }
    )
    code, lines = leakage(root)
    assert code == 0  # a warning
    assert lines == [
        "cases/inbox/tr-a.yaml:2:11: GC309 draft question equals the question of golden case "
        "g1; the set asks it already: delete the draft, or reword it into a question of its own"
    ]


def test_near_duplicates_and_two_drafts_alike(make_repo: Callable[..., Path]) -> None:
    near = GOLD.replace("damaged", "broken")
    root = make_repo(
        {
            "cases/dev/d1.yaml": case("d1", GOLD),
            "cases/inbox/tr-a.yaml": draft("tr-a", near),
            "cases/inbox/tr-b.yaml": draft("tr-b", "where is my parcel, it is late"),
            "cases/inbox/tr-c.yaml": draft("tr-c", "Where is my parcel? It is late!"),
        }
    )
    code, lines = leakage(root)
    assert code == 0  # word sets: 12 shared of 14 words, 0.86
    assert lines == [
        "cases/inbox/tr-a.yaml:2:11: GC309 draft question is a near-duplicate of dev case d1 "
        "(word Jaccard 0.86); the set asks it already: delete the draft, or reword it into a "
        "question of its own",
        "cases/inbox/tr-b.yaml:2:11: GC309 draft question equals the question of draft tr-c; "
        "the set asks it already: delete the draft, or reword it into a question of its own",
        "cases/inbox/tr-c.yaml:2:11: GC309 draft question equals the question of draft tr-b; "
        "the set asks it already: delete the draft, or reword it into a question of its own",
    ]


def test_drafts_of_their_own_and_the_golden_rules(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/g1.yaml": case("g1", GOLD),
            "cases/inbox/tr-a.yaml": draft("tr-a", "can i pay by bank transfer"),
            "prompts/system.md": "Answer from the documents.\n",
        }
    )
    assert leakage(root) == (0, [])
