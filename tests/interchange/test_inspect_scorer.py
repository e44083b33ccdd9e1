"""goldcase.interchange.inspect_scorer in-process: the exported task's scorer grades a sample by
goldcase's pass rule (the real-client test runs it inside Inspect)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from goldcase.interchange.inspect_scorer import case_of, goldcase_scorer

ANSWERABLE = {
    "id": "ret-001",
    "answerable": True,
    "expected_answer": "30 days",
    "expect": {"contains": [["30 days", "thirty days"]], "not_contains": ["14 days"]},
    "split": "golden",
    "slice": "returns",
}
UNANSWERABLE = {"id": "oos-001", "answerable": False, "split": "golden"}
# As the export writes a false premise: its tags say that the expect block is a correction.
FALSE_PREMISE = {
    "id": "bil-021",
    "answerable": False,
    "expect": {"lead": ["no", "sorry"], "contains": ["£25"]},
    "tags": ["unanswerable", "false_premise"],
    "split": "golden",
}


def state(metadata: dict[str, Any], text: str, store: dict[str, Any] | None = None) -> TaskState:
    task = TaskState(
        model="none/none",
        sample_id=metadata["id"],
        epoch=1,
        input="how long do i have",
        messages=[],
        metadata=metadata,
        output=ModelOutput.from_content(model="none", content=text),
    )
    for key, value in (store or {}).items():
        task.store.set(key, value)
    return task


def grade(task: TaskState, patterns: tuple[str, ...] | None = None) -> Any:
    scorer = goldcase_scorer() if patterns is None else goldcase_scorer(patterns)
    return asyncio.run(scorer(task, Target("")))


@pytest.mark.parametrize(
    ("metadata", "text", "value", "failed"),
    [
        (ANSWERABLE, "You have thirty days.", "C", []),
        (ANSWERABLE, "You have 14 days, not 30 days.", "I", ["not_contains"]),
        (ANSWERABLE, "I don't know.", "I", ["abstained"]),
        (UNANSWERABLE, "I don't know.", "C", []),
        (UNANSWERABLE, "The chief executive is Ann.", "I", ["answered"]),
        (FALSE_PREMISE, "No, the late fee is £25.", "C", []),
        (FALSE_PREMISE, "I don't know.", "C", []),
        (FALSE_PREMISE, "Yes, the late fee of £50 can be waived.", "I", ["lead", "contains"]),
        ({**FALSE_PREMISE, "tags": []}, "No, the late fee is £25.", "I", ["answered"]),
    ],
)
def test_the_pass_rule_decides(
    metadata: dict[str, Any], text: str, value: str, failed: list[str]
) -> None:
    score = grade(state(metadata, text))
    assert score.value == value
    assert score.metadata["failed_checks"] == failed
    assert score.explanation == (", ".join(failed) or "passed")


def test_a_structured_response_in_the_store_wins_over_the_text() -> None:
    task = state(UNANSWERABLE, "The chief executive is Ann.", {"goldcase": {"outcome": "abstain"}})
    score = grade(task)
    assert (score.value, score.metadata["outcome"]) == ("C", "abstain")


def test_the_patterns_written_into_the_task_are_used() -> None:
    assert grade(state(UNANSWERABLE, "No idea."), ("^no idea",)).value == "C"
    assert grade(state(UNANSWERABLE, "I don't know."), ("^no idea",)).value == "I"


def test_a_dev_sample_is_a_dev_case() -> None:
    case = case_of({"id": "dev-1", "split": "dev", "answerable": False}, "x", "q?")
    assert (case.id, case.split, case.answerable, case.question) == ("dev-1", "dev", False, "q?")
