"""False-premise cases that accept the correction (issue 24): an answer meeting the case's
expect block passes as an abstention does, and the report counts the two apart. Expected
values are worked out by hand from the pass rule in docs/score.md."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from goldcase.model import Case
from goldcase.schemas import validator
from goldcase.scoring.outcomes import CaseGrader, accepts_correction, text_failures
from goldcase.scoring.report import render_markdown, render_text
from goldcase.scoring.results import Result
from scoring.kit import case_yaml, score_lines, six_cases, six_results, write_repo

CORRECTION = {"lead": "no", "contains": [["£25", "25 pounds"]], "not_contains": ["£50"]}


def _premise(case_id: str, expect: dict[str, Any] | None, tags: str = "[false_premise]") -> str:
    return case_yaml(case_id, answerable=False, expect=expect) + f"tags: {tags}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_repo(
        tmp_path / "r",
        {
            "fp-1": _premise("fp-1", CORRECTION),  # accepts the correction
            "fp-2": _premise("fp-2", None),  # a false premise without expect: abstain only
            "abs-1": _premise("abs-1", CORRECTION, tags="[unanswerable]"),  # not a false premise
            "ans-1": case_yaml("ans-1", expect={"contains": ["30 days"]}),
        },
    )


@pytest.mark.parametrize(
    ("line", "passed", "failed"),
    [
        ({"outcome": "abstain"}, True, []),
        ({"outcome": "answer", "answer": "No, it is £25, not £50."}, False, ["not_contains"]),
        ({"outcome": "answer", "answer": "No - it is £25 per invoice."}, True, []),
        (
            {"outcome": "answer", "answer": "Yes, £50 can be waived."},
            False,
            ["lead", "contains", "not_contains"],
        ),
        ({"outcome": "error", "error": "timeout"}, False, ["error"]),
    ],
)  # fmt: skip
def test_a_false_premise_with_expect_passes_a_correction(
    repo: Path, line: dict[str, Any], passed: bool, failed: list[str]
) -> None:
    report = score_lines(repo, [{"id": "fp-1", **line}])
    case = next(c for c in report["cases"] if c["id"] == "fp-1")
    assert (case["passed"], case["failed_checks"]) == (passed, failed)


@pytest.mark.parametrize("case_id", ["fp-2", "abs-1"])
def test_any_answer_fails_an_unanswerable_case_that_accepts_no_correction(
    repo: Path, case_id: str
) -> None:
    line = {"id": case_id, "outcome": "answer", "answer": "No - it is £25 per invoice."}
    case = next(c for c in score_lines(repo, [line])["cases"] if c["id"] == case_id)
    assert (case["passed"], case["failed_checks"]) == (False, ["answered"])


def _run(repo: Path) -> dict[str, Any]:
    return score_lines(
        repo,
        [
            {"id": "fp-1", "outcome": "answer", "answer": "No: £25."},  # a correction
            {"id": "fp-2", "outcome": "abstain"},  # an abstention
            {"id": "abs-1", "outcome": "answer", "answer": "No: £25."},  # answered: fails
            {"id": "ans-1", "outcome": "answer", "answer": "30 days"},
        ],
    )


def test_the_report_counts_corrections_apart_from_abstentions(repo: Path) -> None:
    report = _run(repo)
    assert (report["unanswerable"], report["correct_abstentions"], report["corrections"]) == (
        3,
        1,
        1,
    )
    # a correction is an answer that passed: in answered and correct_answers, as documented
    assert (report["success"], report["answered"], report["correct_answers"]) == (3, 3, 2)
    assert list(validator("report.schema.json").iter_errors(json.loads(json.dumps(report)))) == []


def test_text_and_markdown_say_how_unanswerable_cases_passed(repo: Path) -> None:
    report = _run(repo)
    out = io.StringIO()
    render_text(report, out)
    line = "3 unanswerable cases: 1 passed by abstaining, 1 by correcting the false premise"
    assert line in out.getvalue().splitlines()
    assert f"{line}." in render_markdown(report).splitlines()


def test_the_six_case_fixture_keeps_its_numbers(tmp_path: Path) -> None:
    report = score_lines(write_repo(tmp_path / "six", six_cases()), six_results())
    assert (report["success"], report["answered"], report["correct_answers"]) == (2, 3, 1)
    assert (report["unanswerable"], report["correct_abstentions"], report["corrections"]) == (
        2,
        1,
        0,
    )


def test_a_report_without_the_counts_renders_without_the_line(repo: Path) -> None:
    report = _run(repo)
    for key in ("unanswerable", "correct_abstentions", "corrections"):
        del report[key]
    out = io.StringIO()
    render_text(report, out)
    assert "unanswerable" not in out.getvalue()


def _case(data: dict[str, Any]) -> Case:
    return Case("cases/golden/x.yaml", "golden", {"id": "x", "question": "q?", **data})


@pytest.mark.parametrize(
    ("data", "accepts"),
    [
        ({"answerable": False, "tags": ["false_premise"], "expect": {"lead": "no"}}, True),
        ({"answerable": False, "tags": ["false_premise"]}, False),
        ({"answerable": False, "tags": ["unanswerable"], "expect": {"lead": "no"}}, False),
        ({"answerable": True, "tags": ["false_premise"], "expect": {"lead": "no"}}, False),
    ],
)
def test_which_cases_accept_a_correction(data: dict[str, Any], accepts: bool) -> None:
    assert accepts_correction(_case(data)) is accepts


def test_text_failures_leave_out_what_needs_a_system() -> None:
    case = _case({"expected_answer": "14 days", "expect": {"contains": ["14 days"], "cites": "x"}})
    assert text_failures(case, "You have 14 days.") == ()
    only_cites = _case({"expected_answer": "14 days", "expect": {"cites": "x"}})
    assert text_failures(only_cites, "You have two weeks.") == ("expected_answer",)
    assert text_failures(_case({"answerable": False}), "anything") == ("answered",)


# --- a case's trials graded together, equal answers checked once --------------------------

_WORDS = st.sampled_from(["30 days", "§ 4", "P-1"])
_CITATION = st.fixed_dictionaries({}, optional={"id": _WORDS, "text": _WORDS})
_LINE = st.fixed_dictionaries(
    {"outcome": st.sampled_from(["answer", "answer", "answer", "abstain", "error"])},
    optional={
        "answer": _WORDS,
        "scope": _WORDS,
        "fact": _WORDS,
        "citations": st.lists(_CITATION, max_size=2),
        "confidence": st.sampled_from([0.1, 0.6, 0.9]),
    },
)
_EXPECT = st.fixed_dictionaries(
    {},
    optional={
        "contains": st.lists(_WORDS, min_size=1, max_size=2),
        "not_contains": _WORDS,
        "lead": _WORDS,
        "cites": _WORDS,
        "cites_id": _WORDS,
        "scope": _WORDS,
        "fact": _WORDS,
    },
)


_FIELDS = ("outcome", "answer", "scope", "fact", "citations", "confidence")


@settings(max_examples=500, deadline=None)
@given(
    expect=_EXPECT,
    base=_LINE,
    changes=st.lists(st.tuples(st.sampled_from(_FIELDS), _LINE), min_size=1, max_size=7),
    threshold=st.sampled_from([None, 0.5]),
)
@example(  # two citations of one id, the text cited differing
    expect={"cites": "§ 4"},
    base={"outcome": "answer", "answer": "30 days", "citations": [{"id": "P-1", "text": "§ 4"}]},
    changes=[("citations", {"citations": [{"id": "P-1", "text": "30 days"}]})],
    threshold=None,
)
@example(  # two citations of one text, the id differing
    expect={"cites_id": "P-1"},
    base={"outcome": "answer", "answer": "30 days", "citations": [{"id": "P-1", "text": "§ 4"}]},
    changes=[("citations", {"citations": [{"id": "§ 4", "text": "§ 4"}]})],
    threshold=None,
)
def test_trials_graded_together_fail_as_each_alone(
    expect: dict[str, Any],
    base: dict[str, Any],
    changes: list[tuple[str, dict[str, Any]]],
    threshold: float | None,
) -> None:
    """docs/score.md: a case of several trials passes when every trial passes, counts its
    passing trials, and shows its first failing trial. Trials whose answers are equal in what
    the checks read are checked once; each must still fail what it fails alone. Each trial
    after the first differs from it in one field (another value, or none), so that trials
    equal in all but one field are common."""
    lines = [base]
    for name, other in changes:
        line = {k: v for k, v in base.items() if k != name}
        if name in other:
            line[name] = other[name]
        lines.append(line)
    case = _case({"expected_answer": "30 days", "expect": expect})
    trials = [Result(n, {"id": "x", "trial": n, **line}) for n, line in enumerate(lines, 1)]
    alone = [CaseGrader(case).verdict(result, threshold) for result in trials]
    assert CaseGrader(case).verdicts(trials, threshold) == alone
    graded = CaseGrader(case).grade(trials, threshold)
    assert graded.passes == sum(not failed for _, failed in alone)
    shown = next((i for i, (_, failed) in enumerate(alone) if failed), 0)
    assert graded.shown == shown
    assert (graded.outcome, graded.failed) == alone[shown]
