"""Scoring on text nobody here wrote: SQuAD 2.0 dev questions as cases (skipped without
../shared/realdata). The reference answers are verbatim in their paragraphs, so answering with
a gold answer must pass and score exact match 1, and abstaining must pass exactly the
unanswerable questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit import REALDATA
from scoring.kit import score_lines, write_repo

SQUAD = REALDATA / "squad2-dev-cs224n" / "dev-v2.0.json"
QUESTIONS = 400

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not SQUAD.is_file(), reason="../shared/realdata is absent"),
]


def _questions() -> list[dict[str, Any]]:
    data = json.loads(SQUAD.read_text(encoding="utf-8"))
    out: list[dict[str, Any]] = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                out.append({**qa, "context": paragraph["context"]})
                if len(out) == QUESTIONS:
                    return out
    return out


def _case(number: int, qa: dict[str, Any]) -> str:
    lines = [f"id: sq-{number:04d}", f"question: {json.dumps(qa['question'])}", "slice: squad"]
    if qa["is_impossible"]:
        return "\n".join([*lines, "answerable: false"]) + "\n"
    golds = sorted({a["text"] for a in qa["answers"]})
    expect = {"contains": [golds]}  # any one of the reference answers
    return "\n".join([
        *lines,
        f"expected_answer: {json.dumps(qa['answers'][0]['text'])}",
        "support:",
        "  - doc: squad.md",
        f"    quote: {json.dumps(qa['answers'][0]['text'])}",
        f"expect: {json.dumps(expect)}",
    ]) + "\n"  # fmt: skip


@pytest.fixture(scope="module")
def squad(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    questions = _questions()
    cases = {f"sq-{n:04d}": _case(n, qa) for n, qa in enumerate(questions)}
    return write_repo(tmp_path_factory.mktemp("squad"), cases), questions


def test_gold_answers_pass_and_match_exactly(squad: tuple[Path, list[dict[str, Any]]]) -> None:
    root, questions = squad
    answerable = sum(not qa["is_impossible"] for qa in questions)
    lines: list[dict[str, Any] | str] = [
        {"id": f"sq-{n:04d}", "outcome": "abstain"}
        if qa["is_impossible"]
        else {"id": f"sq-{n:04d}", "outcome": "answer", "answer": qa["answers"][0]["text"]}
        for n, qa in enumerate(questions)
    ]
    report = score_lines(root, lines)
    assert (report["total"], report["success"]) == (QUESTIONS, QUESTIONS)
    assert (report["answered"], report["free_text_answers"]) == (answerable, answerable)
    assert (report["exact_match"], report["token_f1"]) == (1.0, 1.0)
    assert report["task_success"] == 1.0


def test_abstaining_passes_exactly_the_unanswerable(
    squad: tuple[Path, list[dict[str, Any]]],
) -> None:
    root, questions = squad
    unanswerable = sum(qa["is_impossible"] for qa in questions)
    lines: list[dict[str, Any] | str] = [
        {"id": f"sq-{n:04d}", "outcome": "abstain"} for n in range(len(questions))
    ]
    report = score_lines(root, lines)
    assert report["success"] == unanswerable
    assert (report["answered"], report["answer_coverage"]) == (0, 0.0)
    assert report["answered_accuracy"] is None
    assert report["exact_match"] is None
