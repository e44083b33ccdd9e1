"""Metrics and rendering on their own: Wilson intervals, SQuAD EM/F1, counts, slice notes, the
Markdown and text renderers' limits and escaping."""

from __future__ import annotations

import io
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goldcase.scoring.metrics import count, exact_match, rate, token_f1, wilson
from goldcase.scoring.outcomes import Graded
from goldcase.scoring.report import render_markdown, render_text
from goldcase.text import normalise_answer
from scoring.kit import score_lines, six_cases, six_results, write_repo

Z = 1.959963984540054


def test_rate_is_none_for_an_empty_denominator() -> None:
    assert rate(0, 0) is None
    assert rate(0, 5) == 0.0


@pytest.mark.parametrize("n", [1, 5, 20, 1000])
def test_wilson_at_zero_and_at_n(n: int) -> None:
    low, high = wilson(0, n) or (math.nan, math.nan)
    assert low == 0.0  # exactly: a rate of 0 must lie inside its own interval
    assert high == pytest.approx(Z * Z / (n + Z * Z))
    low, high = wilson(n, n) or (math.nan, math.nan)
    assert high == 1.0
    assert low == pytest.approx(n / (n + Z * Z))


def test_wilson_of_nothing_is_none() -> None:
    assert wilson(0, 0) is None


def test_wilson_81_of_263() -> None:
    # by hand: p = 0.30798, centre (p + z²/2n) / (1 + z²/n) = 0.31075,
    # half-width z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n) = 0.05546
    low, high = wilson(81, 263) or (math.nan, math.nan)
    assert round(low, 4) == 0.2553
    assert round(high, 4) == 0.3662


@pytest.mark.parametrize(
    ("prediction", "truth", "em", "f1"),
    [
        ("The 14 days!", "14 days", 1.0, 1.0),
        ("you have 14 days", "14 days", 0.0, 2 / 3),
        ("30 days", "14 days", 0.0, 0.5),
        ("nothing alike", "14 days", 0.0, 0.0),
        ("", "", 1.0, 1.0),
        ("a", "14", 0.0, 0.0),  # "a" normalises to nothing
    ],
)
def test_squad_exact_match_and_f1(prediction: str, truth: str, em: float, f1: float) -> None:
    assert exact_match(prediction, truth) == em
    assert token_f1(prediction, truth) == pytest.approx(f1)


def test_non_ascii_text_is_scored_as_the_squad_script_scores_it() -> None:
    # the SQuAD v2.0 script deletes ASCII punctuation only and folds nothing: the curly
    # apostrophe and the guillemets stay, so these differ, where goldcase's own folding (the
    # pass rule's) reads them as the same words
    assert exact_match("Café’s menu", "café's menu") == 0.0  # "café’s" against "cafés"
    assert normalise_answer("Café’s menu") == normalise_answer("café's menu")
    # tokens ["café’s", "«menu»"] against ["cafés", "menu"]: nothing in common
    assert token_f1("Café’s «menu»", "cafés menu") == 0.0
    # ASCII text is unchanged: punctuation and articles go, as before
    assert exact_match("The café's menu!", "cafés menu") == 1.0


def graded(outcome: str, passed: bool) -> Graded:
    return Graded("c", "s", True, outcome, passed, (), None, None, None)


def test_count_puts_each_outcome_in_its_place() -> None:
    counts = count(
        [
            graded("answer", True),
            graded("answer", False),
            graded("abstain", True),
            graded("error", False),
            graded("missing", False),
        ]
    )
    assert (
        counts.total,
        counts.success,
        counts.answered,
        counts.correct_answers,
        counts.errors,
        counts.missing,
    ) == (5, 2, 2, 1, 1, 1)
    assert counts.rates() == {
        "task_success": 2 / 5,
        "answer_coverage": 2 / 5,
        "answered_accuracy": 1 / 2,
    }


@pytest.fixture
def six_report(tmp_path: Path) -> dict[str, Any]:
    root = write_repo(tmp_path / "r", six_cases(), 'ambiguous_slices = ["missing"]\n')
    return score_lines(root, six_results())


def test_markdown_escapes_pipes_and_limits_the_failing_list(six_report: dict[str, Any]) -> None:
    six_report["results_file"] = "runs/a|b.jsonl"
    text = render_markdown(six_report, limit=2)
    assert "`runs/a\\|b.jsonl`" in text
    assert (
        '| `E2` | exception | answer | (no free-text answer) | "30 days" | '
        'fact: "return\\_window\\_30\\_days", wanted "custom\\_excluded" |' in text
    )
    assert (
        "| `E4` | missing | answer | (no free-text answer) | an abstention | answered: wanted an "
        "abstention (the documents do not answer this question) |" in text
    )
    assert "E5" not in text
    assert "… and 2 more (the JSON report lists every case)" in text
    assert "ambiguous: not in the weighted rate; under its floor of 20" in text


def test_text_limits_the_failing_list(six_report: dict[str, Any]) -> None:
    out = io.StringIO()
    render_text(six_report, out, limit=3)
    lines = out.getvalue().splitlines()
    assert "… and 1 more; --format json lists every case" in lines
    assert not any(line.strip().startswith("E6") for line in lines)
    assert any(line.strip().startswith("E5") for line in lines)


def test_text_says_when_nothing_failed(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", six_cases())
    lines: list[dict[str, Any] | str] = [
        {"id": "E1", "outcome": "answer", "fact": "return_window_30_days"}
    ]
    report = score_lines(root, lines, split="dev")
    out = io.StringIO()
    render_text(report, out)
    assert "no failing cases" in out.getvalue().splitlines()
    assert (
        "0 cases: 0 passed, 0 answered (0 correct), 0 errors, 0 missing; "
        "1 result line for cases outside the split not scored"
    ) in out.getvalue().splitlines()


@given(
    st.lists(st.sampled_from(["a1", "b", "c", "d"]), max_size=6),
    st.lists(st.sampled_from(["a1", "b", "c", "e"]), max_size=6),
)
def test_token_f1_is_squads_multiset_formula(predicted: list[str], expected: list[str]) -> None:
    pred, truth = " ".join(predicted), " ".join(expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not predicted or not expected:
        want = float(predicted == expected)
    elif common == 0:
        want = 0.0
    else:
        p, r = common / len(predicted), common / len(expected)
        want = 2 * p * r / (p + r)
    assert token_f1(pred, truth) == pytest.approx(want)
