"""Probes: answers a case's author expects to pass and to fail, graded with the case's checks.

A case may carry ``probes: {pass: [...], fail: [...]}``: realistic right answers worded in
other ways, and realistic wrong ones (the confusable figure, the negation, half an answer).
Each probe is graded as a free-text answer by the pass rule ``goldcase score`` uses
(``outcomes.text_failures``: the case's text checks, or its expected answer when it declares
none; a false premise with an ``expect`` block accepts a correction). A pass-probe holds when
it passes; a fail-probe holds when it fails. ``goldcase check`` reports the probes that do not
hold (GC601, GC602) and ``goldcase review`` shows every verdict.

Every case an answer can pass also carries one fail-probe nobody writes: its own question
(``echo``). A system that repeats the question has answered nothing, so checks it meets, such
as a needle the question already holds, grade nothing either (GC606).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from msgspec import Struct

from goldcase.model import Case
from goldcase.scoring.expect import DEFAULT_CHECK, TEXT_CHECKS, first_word, fold, found_words
from goldcase.scoring.outcomes import Grader, accepts_correction, text_grader
from goldcase.text import clip

KINDS = ("pass", "fail")


class Probe(Struct, frozen=True):
    kind: str  # pass | fail
    index: int  # its place in the case's list
    answer: str
    failed: tuple[str, ...]  # the checks the answer fails; empty: it passes

    @property
    def holds(self) -> bool:
        """A pass-probe that passes, or a fail-probe that fails."""
        return not self.failed if self.kind == "pass" else bool(self.failed)


def probe_answers(data: Mapping[str, Any]) -> Iterator[tuple[str, int, str]]:
    """(kind, index, answer) for every probe a case's mapping holds, in file order; entries
    the schema refuses (not a string) are left to the schema check."""
    probes = data.get("probes")
    if not isinstance(probes, Mapping):
        return
    for kind in KINDS:
        answers = probes.get(kind)
        if isinstance(answers, list):
            for index, answer in enumerate(answers):
                if isinstance(answer, str):
                    yield kind, index, answer


def grade_probes(case: Case, grade: Grader | None = None) -> list[Probe]:
    """Every probe of ``case`` with its verdict (``grade``: ``text_grader(case)``, when the
    caller has it already)."""
    answers = list(probe_answers(case.data))
    if not answers:
        return []
    grade = grade or text_grader(case)
    return [Probe(kind, index, answer, grade(answer)) for kind, index, answer in answers]


def echo(case: Case, grade: Grader | None = None) -> Probe | None:
    """The case's question given as its answer, graded as a fail-probe; None for a case no
    answer can pass (an unanswerable case that accepts no correction)."""
    if not (case.answerable or accepts_correction(case)):
        return None
    failed = (grade or text_grader(case))(case.question)
    return Probe("fail", -1, case.question, failed)


def why_passed(case: Case, answer: str) -> str:
    """What in ``answer`` meets the case's text checks, in words, for a message."""
    expect = case.expect
    if not any(name in expect for name in TEXT_CHECKS):
        return f"expected_answer: {clip(case.expected_answer or '', 40)!r} is in it"
    hay = fold(answer)
    parts = []
    if "lead" in expect:
        parts.append(f"lead: starts with {first_word(answer)!r}")
    met = [_first_met(hay, entry) for entry in expect.get("contains") or ()]
    if met:
        parts.append("contains: has " + ", ".join(repr(m) for m in met[:3]))
    return "; ".join(parts) or "not_contains: has none of them"


def why_failed(case: Case, answer: str, failed: tuple[str, ...]) -> str:
    """What the failed checks found in ``answer``, in words, for a message."""
    hay = fold(answer)
    expect = case.expect
    parts = []
    for name in failed:
        if name == "lead":
            want = expect.get("lead")
            wanted = " or ".join(map(repr, want)) if isinstance(want, list) else repr(want)
            parts.append(f"lead: starts with {first_word(answer)!r}, not {wanted}")
        elif name == "contains":
            missing = [e for e in expect.get("contains") or () if not _met(hay, e)]
            parts.append(f"contains: {_missing(missing[0])}" if missing else "contains")
        elif name == "not_contains":
            hits = [e for e in expect.get("not_contains") or () if _hit(hay, e)]
            parts.append(f"not_contains: has {hits[0]!r}" if hits else "not_contains")
        elif name == DEFAULT_CHECK:
            parts.append(f"expected_answer: {clip(case.expected_answer or '', 40)!r} not in it")
        elif name == "answered":
            parts.append("answered: the case expects an abstention and accepts no answer")
        else:
            parts.append(name)
    return "; ".join(parts)


def _met(hay: str, entry: Any) -> bool:
    options = entry if isinstance(entry, list) else [entry]
    return any(_hit(hay, option) for option in options)


def _first_met(hay: str, entry: Any) -> Any:
    """The option of a ``contains`` entry that ``hay`` holds (the entry when none does)."""
    options = entry if isinstance(entry, list) else [entry]
    return next((option for option in options if _hit(hay, option)), entry)


def _hit(hay: str, needle: Any) -> bool:
    return isinstance(needle, str) and found_words(hay, fold(needle))


def _missing(entry: Any) -> str:
    if isinstance(entry, list) and len(entry) > 1:
        shown = ", ".join(repr(e) for e in entry[:4]) + (", …" if len(entry) > 4 else "")
        return f"none of {shown} is in it"
    return f"{entry[0] if isinstance(entry, list) and entry else entry!r} is not in it"
