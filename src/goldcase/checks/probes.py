"""GC6xx: a case's checks hold on answers: its probes, and answers it cannot grade.

A case may carry probes, answers its author expects its checks to pass and to fail::

    probes:
      pass: ["Yes, within 7 days of your order.", "yes - seven days from ordering"]
      fail: ["No, price match ended.", "Yes, within 30 days."]

Each probe is graded with the case's own pass rule (``goldcase.scoring.probes``: the text
checks ``lead``, ``contains`` and ``not_contains``, or the expected answer when the case
declares none; a false premise with an ``expect`` block accepts a correction). Checks that
need a system's citations, scope or fact are not applied to a probe.

| code | severity | what |
|---|---|---|
| GC601 | error | a pass-probe fails the case's checks (the check and what it found named) |
| GC602 | error | a fail-probe passes every check of the case |
| GC603 | warning | an answerable golden case has no fail probe |
| GC604 | warning | an answerable case in another language (or tagged multilingual), no expect |
| GC605 | warning | an unanswerable case, not a false premise, with an expect block |
| GC606 | warning | the question itself, given as the answer, passes the case's checks |

GC604: with no ``expect`` block the English expected answer must appear word for word, which
a reply in the customer's language never does. A question is read as written in another
language when at least three of its words hold a letter and fewer than half of those occur
anywhere in the corpus (after ``normalise_input``), provided the corpus has at least 500
distinct words; a case tagged ``multilingual`` always is.

GC606: every case an answer can pass (answerable, or a false premise that accepts a
correction) carries its question as an implicit fail-probe. A system that echoes the question
has answered nothing; when that passes, the checks only find words the question already holds.

Passes: a case with ``lead: "yes"`` and ``contains: [["7 days", "seven days"]]`` whose
pass-probe is "Yes, within 7 days" and whose fail-probe is "Yes, within 30 days".

Fails (``GC602 fail-probe "Yes, within 30 days." passes every check of the case (lead); add
a check it fails``): the same case with ``lead: "yes"`` alone.

Fails (``GC606 the question, given as the answer, passes the case's checks (contains: has
'personalised')``): "i want to return my personalised apron, which address do i send it to",
a false premise whose correction must contain ``personalised``; a lead (``[sorry, no,
unfortunately]``) or a word only the correction says (``excluded``) fixes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cached_property, partial
from typing import TYPE_CHECKING

from goldcase.cache import FINDING_CODEC
from goldcase.loader import Locator
from goldcase.model import Case, Finding, Severity
from goldcase.scoring.outcomes import accepts_correction, text_grader
from goldcase.scoring.probes import Probe, echo, grade_probes, why_failed, why_passed
from goldcase.text import clip, normalise_input

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "probes"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC601": ("error", "a pass-probe fails the case's checks"),
    "GC602": ("error", "a fail-probe passes the case's checks"),
    "GC603": ("warning", "answerable golden case without a fail probe"),
    "GC604": ("warning", "case in another language than the corpus without an expect block"),
    "GC605": ("warning", "expect block on an unanswerable case that accepts no answer"),
    "GC606": ("warning", "the question, given as the answer, passes the case's checks"),
}
MIN_WORDS = 3  # shorter questions are not judged by their words
KNOWN_SHARE = 0.5  # fewer of its words in the corpus than this: another language
# A corpus with fewer distinct words says too little about its language: a question in the
# same language would use many words it lacks. The sample corpus has about 1,600.
MIN_VOCABULARY = 500
_CACHE = "probes"


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    vocabulary = _Vocabulary(ctx)
    state = vocabulary.digest  # the cache's folder is keyed by the code itself
    for case in _judged(case_set, ctx):
        compute = partial(_findings, case, ctx, vocabulary)
        key = (state, case.path, case.digest)
        yield from ctx.per_case(_CACHE, key, compute, FINDING_CODEC)


def prepare(ctx: Context) -> Callable[[CaseSet], dict[str, list[Finding]]]:
    """Each case's findings, for a cold check's parse workers (``checks``): the corpus's words
    are read once a worker, when a case needs them."""
    vocabulary = _Vocabulary(ctx)
    return lambda case_set: {
        case.path: _case_findings(case, ctx, vocabulary) for case in _judged(case_set, ctx)
    }


def _judged(case_set: CaseSet, ctx: Context) -> Iterator[Case]:
    return (case for case in case_set.cases if ctx.wanted(case.path))


def _findings(case: Case, ctx: Context, vocabulary: _Vocabulary) -> list[Finding]:
    ready: list[Finding] | None = ctx.ahead(NAME, case.path)
    return _case_findings(case, ctx, vocabulary) if ready is None else ready


class _Vocabulary:
    """The corpus's words, read once and only when a question needs judging."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx

    @property
    def digest(self) -> str:
        return self._ctx.corpus.digest

    @cached_property
    def words(self) -> frozenset[str]:
        found: set[str] = set()
        for document in self._ctx.corpus.documents.values():
            if document.problem is None:
                found.update(normalise_input(document.text).split())
        return frozenset(found)


def foreign(question: str, vocabulary: frozenset[str]) -> bool:
    """Whether a question reads as written in another language than the corpus."""
    words = [w for w in normalise_input(question).split() if any(c.isalpha() for c in w)]
    if len(words) < MIN_WORDS or len(vocabulary) < MIN_VOCABULARY:
        return False
    return sum(w in vocabulary for w in words) < KNOWN_SHARE * len(words)


def _case_findings(case: Case, ctx: Context, vocabulary: _Vocabulary) -> list[Finding]:
    found: list[tuple[list[str | int], bool, str, str]] = []  # key path, at key?, code, message
    grade = text_grader(case)
    probes = grade_probes(case, grade)
    for probe in probes:
        if not probe.holds:
            found.append((["probes", probe.kind, probe.index], False, *_probe_problem(case, probe)))
    if case.split == "golden" and case.answerable and not any(p.kind == "fail" for p in probes):
        found.append((["probes"] if "probes" in case.data else [], True, "GC603", _NO_FAIL))
    if case.answerable and not case.expect and _other_language(case, vocabulary):
        found.append((["question"], False, "GC604", _NO_EXPECT))
    if not case.answerable and case.expect and not accepts_correction(case):
        found.append((["expect"], True, "GC605", _UNUSED_EXPECT))
    echoed = echo(case, grade)
    if echoed is not None and not echoed.holds:
        found.append((["question"], False, "GC606", _echo_passes(case)))
    return _located(case, ctx, found)


def _other_language(case: Case, vocabulary: _Vocabulary) -> bool:
    return "multilingual" in case.tags or foreign(case.question, vocabulary.words)


def _probe_problem(case: Case, probe: Probe) -> tuple[str, str]:
    said = clip(probe.answer, 60)
    if probe.kind == "pass":
        why = why_failed(case, probe.answer, probe.failed)
        return "GC601", (
            f"pass-probe {said!r} fails the case's checks ({why}); a right answer must pass: "
            "widen the check (an any-of alternative) or fix the probe"
        )
    checks = [name for name in ("lead", "contains", "not_contains") if name in case.expect]
    graded = ", ".join(checks) if checks else "expected_answer"
    return "GC602", (
        f"fail-probe {said!r} passes every check of the case ({graded}); add a check it "
        "fails (a lead, a tighter contains, a not_contains of the wrong figure)"
    )


def _echo_passes(case: Case) -> str:
    return (
        f"the question, given as the answer, passes the case's checks "
        f"({why_passed(case, case.question)}); a system that repeats the question would pass: "
        "add a check only an answer meets (a lead, a word or figure the question lacks)"
    )


_NO_FAIL = (
    "no fail probe: nobody has tried the case's checks on a wrong answer; add probes: "
    "{fail: [...]} with the confusable figure, the negation or half the answer"
)
_NO_EXPECT = (
    "the question is in another language than the corpus, and with no expect block the "
    "expected answer must appear word for word, which a reply in the customer's language "
    "never does; add expect with the figures and words of a right answer in that language"
)
_UNUSED_EXPECT = (
    "expect on an unanswerable case that is not tagged false_premise is never applied: every "
    "answer fails it; tag the case false_premise if the block describes the correction, or "
    "remove it"
)


def _located(
    case: Case, ctx: Context, found: list[tuple[list[str | int], bool, str, str]]
) -> list[Finding]:
    if not found:
        return []
    try:
        locator: Locator | None = Locator(ctx.read_bytes(case.path))
    except OSError:
        locator = None
    out = []
    for key_path, at_key, code, message in found:
        line, col = _where(locator, key_path, at_key)
        out.append(Finding(case.path, line, col, code, CODES[code][0], message))
    return out


def _where(locator: Locator | None, key_path: list[str | int], at_key: bool) -> tuple[int, int]:
    if locator is None or not key_path:
        return 1, 1
    return locator.key(key_path) if at_key else locator.value(key_path)
