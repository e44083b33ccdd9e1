"""The pass rule: one case and its result (or none) become one graded outcome.

A case passes when it expects an abstention (``answerable: false``) and the outcome is
``abstain``, or when it expects an answer and the outcome is an answer that meets every check
the case declares (see ``goldcase.scoring.expect``). A failing case names what failed:

| name | meaning |
|---|---|
| missing | no result line for the case |
| error | the system reported an error |
| abstained | the case expects an answer and the system abstained |
| answered | the case expects an abstention and the system answered |
| fact, scope, lead, contains, not_contains, cites, cites_id | the answer failed that check |
| expected_answer | no check declared, and the answer lacks the expected answer |

With a threshold, an answer whose confidence is under it (or that gives no confidence) counts
as an abstention. A case with several trials is graded on its worst trial until repeated
trials are reported on their own: it passes only when every trial passes, and the trial shown
is the first failing one (or the first one when all pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from goldcase.model import Case
from goldcase.scoring.expect import failed_checks
from goldcase.scoring.results import Result

MISSING = "missing"


@dataclass(slots=True)
class Graded:
    """One case, scored. (Not frozen: a frozen dataclass is several times slower to build,
    and a run builds one per case.)"""

    case_id: str
    slice: str
    answerable: bool
    outcome: str  # answer | abstain | error | missing (after the threshold)
    passed: bool
    failed: tuple[str, ...]
    confidence: float | None
    answer: str | None  # the free-text answer, when the outcome is an answer
    expected_answer: str | None
    passes: int | None = None  # with several trials: how many passed
    shown: int = 0  # with several trials: the index (in trial order) of the trial shown

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.case_id,
            "slice": self.slice,
            "answerable": self.answerable,
            "outcome": self.outcome,
            "passed": self.passed,
            "failed_checks": list(self.failed),
            "confidence": self.confidence,
        }


def effective_outcome(result: Result | None, threshold: float | None) -> str:
    if result is None:
        return MISSING
    outcome = result.outcome
    if outcome == "answer" and threshold is not None:
        confidence = result.confidence
        if confidence is None or confidence < threshold:
            return "abstain"
    return outcome


def _failures(case: Case, answerable: bool, result: Result | None, outcome: str) -> list[str]:
    if outcome == MISSING or outcome == "error":
        return [outcome]
    if not answerable:
        return [] if outcome == "abstain" else ["answered"]
    if outcome == "abstain" or result is None:
        return ["abstained"]
    return failed_checks(case.expect, case.expected_answer, result.data)


def grade_one(case: Case, result: Result | None, threshold: float | None = None) -> Graded:
    outcome = effective_outcome(result, threshold)
    answerable = case.answerable
    failed = _failures(case, answerable, result, outcome)
    if result is None:
        return Graded(
            case.id,
            case.slice,
            answerable,
            outcome,
            False,
            tuple(failed),
            None,
            None,
            case.expected_answer,
        )
    data = result.data
    answer = data.get("answer") if outcome == "answer" else None
    confidence = data.get("confidence")
    return Graded(
        case.id,
        case.slice,
        answerable,
        outcome,
        not failed,
        tuple(failed),
        None if confidence is None else float(confidence),
        answer,
        case.expected_answer,
    )


def grade(case: Case, trials: Sequence[Result], threshold: float | None = None) -> Graded:
    """Grade a case on its result lines (none: missing; several: the worst trial, with the
    number of trials that passed)."""
    if len(trials) <= 1:
        return grade_one(case, trials[0] if trials else None, threshold)
    ordered = sorted(trials, key=lambda r: r.trial or 0)
    graded = [grade_one(case, result, threshold) for result in ordered]
    shown = next((i for i, g in enumerate(graded) if not g.passed), 0)
    worst = graded[shown]
    worst.passes = sum(g.passed for g in graded)
    worst.shown = shown
    return worst
