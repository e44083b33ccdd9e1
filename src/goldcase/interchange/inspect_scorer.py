"""goldcase's pass rule as an Inspect scorer, for the task file ``goldcase export --format
inspect --out FILE`` writes beside the dataset.

Only that task file imports this module, inside Inspect, so ``inspect_ai`` is imported at the
top here; nothing else in goldcase imports it.

Each sample is graded the way ``goldcase score --from inspect LOG`` grades it: the case comes
from the sample's metadata (id, answerable, expected_answer, expect, and tags, since the
``false_premise`` tag decides whether a correction passes), the result line from the output
(its text, an abstention by ``[run] abstain_patterns``, or goldcase's response fields a solver
left in the store under ``goldcase``), and the verdict from ``goldcase.scoring.outcomes``.
So Inspect's accuracy and goldcase's task success agree case by case (a sample that errors gets
no score in Inspect, and is an ``error`` in goldcase).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from goldcase.config import ABSTAIN_PATTERNS
from goldcase.interchange.from_inspect import STORE
from goldcase.model import Case, Split
from goldcase.run.protocol import to_answer
from goldcase.scoring.outcomes import CaseGrader
from goldcase.scoring.results import Result

CASE_KEYS = ("answerable", "expected_answer", "expect", "slice", "tags")  # tags: false_premise


def case_of(metadata: Mapping[str, Any], sample_id: Any, question: str) -> Case:
    """The case a sample was exported from, as the pass rule needs it."""
    case_id = str(metadata.get("id", sample_id))
    data: dict[str, Any] = {"id": case_id, "question": question}
    data.update((key, metadata[key]) for key in CASE_KEYS if metadata.get(key) is not None)
    split: Split = "dev" if metadata.get("split") == "dev" else "golden"
    return Case(f"(inspect sample {case_id})", split, data)


def line_of(state: TaskState, case_id: str, patterns: Sequence[str]) -> dict[str, Any]:
    """The result line for a sample's output, by the rule ``score --from inspect`` uses."""
    structured = state.store.get(STORE)
    response = structured if isinstance(structured, dict) else {"answer": state.output.completion}
    epoch = getattr(state, "epoch", 1)
    return to_answer(case_id, epoch if isinstance(epoch, int) else 1, response, 0.0, patterns).line


@scorer(metrics=[accuracy(), stderr()])
def goldcase_scorer(abstain_patterns: Sequence[str] = ABSTAIN_PATTERNS) -> Scorer:
    """CORRECT when the sample passes goldcase's pass rule; the failed checks explain why not."""
    patterns = tuple(abstain_patterns)

    async def score(state: TaskState, target: Target) -> Score:
        case = case_of(state.metadata, state.sample_id, state.input_text)
        line = line_of(state, case.id, patterns)
        graded = CaseGrader(case).grade([Result(1, line)])
        return Score(
            value=CORRECT if graded.passed else INCORRECT,
            answer=line.get("answer"),
            explanation=", ".join(graded.failed) or "passed",
            metadata={"outcome": graded.outcome, "failed_checks": list(graded.failed)},
        )

    return score
