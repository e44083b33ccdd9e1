"""The pass rule: one case and its result (or none) become one graded outcome.

A case passes when it expects an abstention (``answerable: false``) and the outcome is
``abstain``, or when it expects an answer and the outcome is an answer that meets every check
the case declares (see ``goldcase.scoring.expect``). A false-premise case (``answerable:
false``, tag ``false_premise``) that declares an ``expect`` block describing the correction
also passes with an answer that meets it: correcting the premise passes as abstaining does. A
failing case names what failed:

| name | meaning |
|---|---|
| missing | no result line for the case |
| error | the system reported an error |
| abstained | the case expects an answer and the system abstained |
| answered | it expects an abstention and the system answered (a correction: its failed checks) |
| fact, scope, lead, contains, not_contains, cites, cites_id | the answer failed that check |
| expected_answer | no check declared, and the answer lacks the expected answer |

With a threshold, an answer whose confidence is under it (or that gives no confidence) counts
as an abstention. A case with several trials is graded on its worst trial until repeated
trials are reported on their own: it passes only when every trial passes, and the trial shown
is the first failing one (or the first one when all pass).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from msgspec import Struct

from goldcase.model import Case
from goldcase.scoring.expect import TEXT_CHECKS, Checks
from goldcase.scoring.results import Answered, Result
from goldcase.text import clip

MISSING = "missing"
Failed = tuple[str, ...]
ANSWER_SHOWN = 300  # characters of a failing case's answer kept in the report


class Graded(Struct):
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
    why: tuple[str, ...] = ()  # a failing case: what each failed check wanted and saw

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.case_id,
            "slice": self.slice,
            "answerable": self.answerable,
            "outcome": self.outcome,
            "passed": self.passed,
            "failed_checks": list(self.failed),
            "confidence": self.confidence,
        }
        if not self.passed:  # what a reader needs to see why, without the results file
            out["answer"] = None if self.answer is None else clip(self.answer, ANSWER_SHOWN)
            out["expected_answer"] = self.expected_answer
            out["why"] = list(self.why)
        return out


_MISSING = (MISSING,)
_ERROR = ("error",)
_ANSWERED = ("answered",)
_ABSTAINED = ("abstained",)


def _trial_order(result: Result) -> int:
    return result.trial or 0


_TRIAL = operator.attrgetter("trial")


def in_trial_order(trials: Sequence[Result]) -> list[Result]:
    """The lines of a case by trial number (a line without one counts as 0). Lines that all
    have one (as repeated lines must) sort on the attribute in C; a missing one makes that
    sort raise, and the slower key decides."""
    try:
        return sorted(trials, key=_TRIAL)
    except TypeError:
        return sorted(trials, key=_trial_order)


class CaseGrader:
    """One case's pass rule, prepared once and applied to each of its result lines: the
    case's fields are read once, and its ``expect`` block is compiled on first use (see
    ``expect.Checks``)."""

    __slots__ = (
        "_case",
        "_checks",
        "_corrects",
        "_seen",
        "answerable",
        "case_id",
        "expected_answer",
        "slice",
    )

    def __init__(self, case: Case) -> None:
        # what every graded case shows; the rest is read from the case when a line needs it
        self._case = case
        self.case_id = case.id
        self.slice = case.slice
        self.answerable = case.answerable
        self.expected_answer = case.expected_answer
        self._checks: Checks | None = None
        self._corrects: bool | None = None
        self._seen: dict[Answered | None, Failed] | None = None

    def verdict(self, result: Result | None, threshold: float | None) -> tuple[str, Failed]:
        """The outcome after the threshold, and the names of what failed (empty: passed)."""
        if result is None:
            return MISSING, _MISSING
        outcome = result.outcome
        if outcome == "answer":
            if threshold is not None:
                confidence = result.confidence
                if confidence is None or confidence < threshold:
                    return "abstain", _ABSTAINED if self.answerable else ()
            if not (self.answerable or self._accepts_correction()):
                return outcome, _ANSWERED
            return outcome, self._check(result)
        if outcome == "error":
            return outcome, _ERROR
        if not self.answerable:
            return outcome, () if outcome == "abstain" else _ANSWERED
        return outcome, _ABSTAINED

    def verdicts(
        self, trials: Sequence[Result], threshold: float | None
    ) -> list[tuple[str, Failed]]:
        """``verdict`` of each of a case's trials: an answer equal to an earlier trial's in
        everything the checks read (``Result.answered``) is not checked again."""
        self._seen = {}
        try:
            return [self.verdict(result, threshold) for result in trials]
        finally:
            self._seen = None

    def _accepts_correction(self) -> bool:
        """``accepts_correction`` of the case, found on its first answer."""
        corrects = self._corrects
        if corrects is None:
            corrects = self._corrects = accepts_correction(self._case)
        return corrects

    def _check(self, result: Result) -> Failed:
        """The failed checks of an answer, the case's checks prepared on its first one; while
        a case's trials are graded (``_seen`` set), an answer equal to an earlier trial's in
        everything the checks read is not checked again."""
        checks = self._checks
        if checks is None:
            checks = self._checks = Checks(self._case.expect, self.expected_answer)
        seen = self._seen
        if seen is None:
            return checks.failed(result.data)
        key = result.answered
        failed = seen.get(key)
        if failed is None:
            failed = seen[key] = checks.failed(result.data)
        return failed

    def graded(self, result: Result | None, outcome: str, failed: Failed) -> Graded:
        if result is None:
            return Graded(
                self.case_id, self.slice, self.answerable, outcome, False, failed, None, None,
                self.expected_answer,
            )  # fmt: skip
        said = result.answered if outcome == "answer" else None
        return Graded(
            self.case_id,
            self.slice,
            self.answerable,
            outcome,
            not failed,
            failed,
            result.confidence,
            None if said is None else said[0],
            self.expected_answer,
        )

    def grade(
        self, trials: Sequence[Result], threshold: float | None = None, *, why: bool = True
    ) -> Graded:
        """See ``grade``. A failing case says why, from the line it is shown with (with
        ``why``; without, ``why`` is left empty, for ``explain_graded`` to fill)."""
        if len(trials) <= 1:
            result = trials[0] if trials else None
            outcome, failed = self.verdict(result, threshold)
            graded = self.graded(result, outcome, failed)
        else:
            ordered = in_trial_order(trials)
            verdicts = self.verdicts(ordered, threshold)
            shown = next((i for i, (_, failed) in enumerate(verdicts) if failed), 0)
            result = ordered[shown]
            graded = self.graded(result, *verdicts[shown])
            graded.passes = sum(not failed for _, failed in verdicts)
            graded.shown = shown
        if why and graded.failed:
            graded.why = self.explain(result, graded.failed, threshold)
        self._checks = None  # graded: the prepared checks would only hold memory
        return graded

    def explain_graded(
        self, graded: Graded, trials: Sequence[Result], threshold: float | None = None
    ) -> None:
        """Fill ``why`` of a failing case ``grade`` left unexplained, from the same line."""
        if not graded.failed:
            return
        if len(trials) <= 1:
            result = trials[0] if trials else None
        else:
            result = in_trial_order(trials)[graded.shown]
        graded.why = self.explain(result, graded.failed, threshold)

    def explain(self, result: Result | None, failed: Failed, threshold: float | None) -> Failed:
        """For each failed name, what was wanted and what the result gave, in words."""
        data: Mapping[str, Any] = result.data if result is not None else {}
        if len(failed) == 1:  # most failing cases: no generator, one call
            return (self._why(failed[0], data, threshold),)
        return tuple([self._why(name, data, threshold) for name in failed])

    def _why(self, name: str, data: Mapping[str, Any], threshold: float | None) -> str:
        if name == MISSING:
            return "missing: no result line for this case"
        if name == "error":
            message = data.get("error")
            return f'error: "{clip(str(message), 60)}"' if message else "error: no message given"
        if name == "answered":
            return "answered: wanted an abstention (the documents do not answer this question)"
        if name == "abstained":
            if data.get("outcome") != "answer":
                return "abstained: wanted an answer"
            confidence = data.get("confidence")
            given = "no confidence" if confidence is None else f"confidence {confidence:g}"
            return f"abstained: an answer with {given}, under the threshold {threshold:g}"
        if self._checks is None:  # a line graded without them (explain called on its own)
            self._checks = Checks(self._case.expect, self.expected_answer)
        return self._checks.why(name, data)


def accepts_correction(case: Case) -> bool:
    """Whether an answer can pass this unanswerable case: a false premise whose ``expect``
    block describes the correction."""
    return not case.answerable and case.false_premise and bool(case.expect)


def text_failures(case: Case, answer: str) -> Failed:
    """The pass rule for an answer known only by its text (a probe, a second label): what it
    fails (empty: it passes). The checks that need a system's citations, scope or fact
    (``cites``, ``cites_id``, ``scope``, ``fact``) are left out; a case with no text check is
    graded by its expected answer, as ``score`` grades a case that declares no check."""
    return text_grader(case)(answer)


Grader = Callable[[str], Failed]  # an answer's text -> the checks it fails


def text_grader(case: Case) -> Grader:
    """``text_failures`` of ``case`` as a function of the answer, prepared once for grading
    several answers (a case's probes)."""
    if not (case.answerable or accepts_correction(case)):
        return lambda answer: _ANSWERED
    expect = {name: case.expect[name] for name in TEXT_CHECKS if name in case.expect}
    checks = Checks(expect, case.expected_answer)
    return lambda answer: checks.failed({"answer": answer})
