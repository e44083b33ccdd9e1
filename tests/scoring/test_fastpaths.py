"""The fast paths `goldcase score` takes agree with the plain definitions they replace."""

from __future__ import annotations

import itertools
import json
import re
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.model import Case
from goldcase.scoring.expect import (
    _finder,
    _word_finder,
    compile_checks,
    failed_checks,
    fold,
    found,
    found_words,
)
from goldcase.scoring.jsonout import dumps_indented
from goldcase.scoring.metrics import squad_tokens
from goldcase.scoring.outcomes import MISSING, CaseGrader, Graded, in_trial_order
from goldcase.scoring.results import Result, _decode, _parse_each, parse_lines
from goldcase.text import fold_space
from scoring.squad_reference import tokens as squad_reference_tokens

# Text that exercises the folds: digits and separators next to words, curly quotes, dashes,
# full-width forms, odd spaces, case.
ALPHABET = "ab Ab15.,-–’'\"“§ＡＢ１\u00a0\u2028\t\n\x1cß"
texts = st.text(ALPHABET, max_size=24)
needles = st.text(ALPHABET, max_size=6)


def test_str_split_and_the_regex_agree_on_every_space() -> None:
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.findall(r"\s", everything) == [c for c in everything if c.isspace()]


@settings(max_examples=300)
@given(st.one_of(st.text(), texts, st.text("\u02bb\u02bc\u02bd\u2011\u2212\u00a7 x", max_size=6)))
def test_fold_is_fold_space_of_the_normalised_text(text: str) -> None:
    import unicodedata

    from goldcase.scoring.expect import FOLDS

    plain = (
        " ".join(text.lower().split())
        if text.isascii()
        else fold_space(unicodedata.normalize("NFKC", text).casefold().translate(FOLDS))
    )
    assert fold(text) == plain


@settings(max_examples=500)
@given(texts, needles)
def test_a_prepared_needle_finds_what_found_finds(hay: str, needle: str) -> None:
    assert _finder(needle)(hay) is found(hay, needle)


@settings(max_examples=500)
@given(texts, needles)
def test_a_prepared_word_needle_finds_what_found_words_finds(hay: str, needle: str) -> None:
    assert _word_finder(needle)(hay) is found_words(hay, needle)


@pytest.mark.parametrize("needle", ["1", "15", "1.5", "1,", ".5", "5a", "a1"])
def test_a_numeric_needle_finds_what_found_finds_in_every_short_text(needle: str) -> None:
    hays = ["".join(p) for n in range(7) for p in itertools.product("15.,a", repeat=n)]
    assert [_finder(needle)(hay) for hay in hays] == [found(hay, needle) for hay in hays]


@pytest.mark.parametrize("needle", ["1", "15", "a", "a'", "'a", "a1", "1.5", "-"])
def test_a_word_needle_finds_what_found_words_finds_in_every_short_text(needle: str) -> None:
    hays = ["".join(p) for n in range(7) for p in itertools.product("15.a' ", repeat=n)]
    assert [_word_finder(needle)(hay) for hay in hays] == [found_words(hay, needle) for hay in hays]


entries = st.one_of(needles, st.lists(needles, min_size=1, max_size=3))
well_formed = st.fixed_dictionaries(
    {},
    optional={
        "contains": st.lists(entries, min_size=1, max_size=3),
        "not_contains": st.lists(needles, min_size=1, max_size=2),
        "lead": st.one_of(needles, st.lists(needles, min_size=1, max_size=3)),
        "cites": needles,
        "cites_id": needles,
        "scope": needles,
        "fact": needles,
    },
)
# shapes the case schema refuses still give the plain path's answer
odd = st.dictionaries(
    st.sampled_from(["contains", "not_contains", "lead", "fact", "scope", "other"]),
    st.one_of(st.none(), st.integers(0, 20), needles, st.lists(st.integers(0, 9), max_size=2)),
    max_size=3,
)
citations = st.lists(st.fixed_dictionaries({}, optional={"id": needles, "text": texts}), max_size=3)
results = st.fixed_dictionaries(
    {},
    optional={
        "answer": st.one_of(texts, st.none()),
        "citations": citations,
        "scope": st.one_of(needles, st.none()),
        "fact": st.one_of(needles, st.none()),
    },
)


@settings(max_examples=800)
@given(well_formed, st.one_of(st.none(), texts), results)
def test_a_compiled_expect_block_fails_what_failed_checks_fails(
    expect: dict[str, Any], expected_answer: str | None, result: dict[str, Any]
) -> None:
    compiled = compile_checks(expect, expected_answer)
    assert compiled(result) == tuple(failed_checks(expect, expected_answer, result))


@settings(max_examples=200)
@given(odd, st.one_of(st.none(), texts), results)
def test_an_odd_expect_block_takes_the_plain_path(
    expect: dict[str, Any], expected_answer: str | None, result: dict[str, Any]
) -> None:
    try:
        want: Any = tuple(failed_checks(expect, expected_answer, result))
    except (TypeError, AttributeError) as exc:
        want = type(exc)
    try:
        got: Any = compile_checks(expect, expected_answer)(result)
    except (TypeError, AttributeError) as exc:
        got = type(exc)
    assert got == want


# --- grading a case on its trials --------------------------------------------------------------


def _plain_grade_one(case: Case, result: Result | None, threshold: float | None) -> Graded:
    """The pass rule as written in outcomes.py's docstring, one line at a time."""
    if result is None:
        outcome = MISSING
    else:
        outcome = result.outcome
        confidence = result.confidence
        if (
            outcome == "answer"
            and threshold is not None
            and (confidence is None or confidence < threshold)
        ):
            outcome = "abstain"
    if outcome in (MISSING, "error"):
        failed = [outcome]
    elif not case.answerable and not (case.false_premise and case.expect and outcome == "answer"):
        failed = [] if outcome == "abstain" else ["answered"]
    elif outcome == "abstain" or result is None:
        failed = ["abstained"]
    else:
        failed = failed_checks(case.expect, case.expected_answer, result.data)
    data = result.data if result is not None else {}
    confidence = data.get("confidence")
    return Graded(
        case.id,
        case.slice,
        case.answerable,
        outcome,
        result is not None and not failed,
        tuple(failed),
        None if confidence is None else float(confidence),
        data.get("answer") if outcome == "answer" else None,
        case.expected_answer,
    )


def _plain_grade(case: Case, trials: list[Result], threshold: float | None) -> Graded:
    if len(trials) <= 1:
        return _plain_grade_one(case, trials[0] if trials else None, threshold)
    graded = [_plain_grade_one(case, r, threshold) for r in sorted(trials, key=lambda r: r.trial)]
    shown = next((i for i, g in enumerate(graded) if not g.passed), 0)
    graded[shown].passes = sum(g.passed for g in graded)
    graded[shown].shown = shown
    return graded[shown]


lines = st.fixed_dictionaries(
    {"outcome": st.sampled_from(["answer", "abstain", "error"])},
    optional={
        "answer": texts,
        "confidence": st.one_of(st.none(), st.floats(0, 1), st.sampled_from([0, 1])),
        "citations": citations,
    },
)


@settings(max_examples=400)
@given(
    well_formed,
    st.booleans(),
    st.booleans(),
    st.one_of(st.none(), texts),
    st.lists(lines, max_size=4),
    st.one_of(st.none(), st.floats(0, 1)),
)
def test_a_case_grader_grades_as_the_pass_rule_says(
    expect: dict[str, Any],
    answerable: bool,
    false_premise: bool,
    expected_answer: str | None,
    rows: list[dict[str, Any]],
    threshold: float | None,
) -> None:
    data: dict[str, Any] = {"id": "c-1", "question": "q?", "answerable": answerable}
    if false_premise:
        data["tags"] = ["false_premise"]
    if expect:
        data["expect"] = expect
    if expected_answer is not None:
        data["expected_answer"] = expected_answer
    case = Case("cases/golden/c-1.yaml", "golden", data)
    trials = [
        Result(n, {"id": "c-1", **row, **({"trial": n} if len(rows) > 1 else {})})
        for n, row in enumerate(rows, 1)
    ]
    trials.reverse()  # file order is not trial order
    got = CaseGrader(case).grade(trials, threshold)
    want = _plain_grade(case, trials, threshold)
    assert (got, got.passes, got.shown) == (want, want.passes, want.shown)


# --- answer metrics -----------------------------------------------------------------------------

ANSWER_PIECES = ["a", "an", "the", "The", " ", "x", "1", ".", "'", "`", "_", "-", "A", "é", "’"]
CONTROLS = ["\x01", "\x1c", "\x7f", "\t", "\x0b"]
ascii_answers = st.lists(st.sampled_from(ANSWER_PIECES + CONTROLS), max_size=12).map("".join)


@settings(max_examples=500)
@given(st.one_of(ascii_answers, st.text(max_size=12)))
def test_answer_tokens_are_the_squad_scripts(text: str) -> None:
    assert squad_tokens(text) == squad_reference_tokens(text)


def test_the_ascii_token_path_drops_what_the_squad_script_drops() -> None:
    for code in range(128):
        text = f"x{chr(code)}a the an{chr(code)}y"
        assert squad_tokens(text) == squad_reference_tokens(text), repr(chr(code))


# --- reading the results file -------------------------------------------------------------------

byte_lines = st.sampled_from([
    b'{"id": "a", "outcome": "abstain"}',
    b'{"id": "b", "outcome": "answer", "answer": "15 \xc2\xa7 feet", "confidence": 0.5}',
    b'{"id": "c", "outcome": "answer", "answer": "x", "citations": [{"id": "1", "id": "2"}]}',
    b'{"id": "d", "outcome": "abstain", "outcome": "error"}',
    b'{"id": "e", "outcome": "answer", "answer": "\\u0041", "confidence": NaN}',
    b'{"id": "f", "outcome": "answer", "trial": 123456789012345678901234567890, "fact": "k"}',
    b'{"id": "g", "outcome": "abstain"}, {"id": "h", "outcome": "abstain"}',
    b'{"id": "i", "outcome": "abstain"',
    b'{"id": "j\xff", "outcome": "abstain"}',
    b'{"id": "k", "outcome": "abstain"}\r',
    b"[1, 2]",
    b"",
    b"   ",
])  # fmt: skip


@settings(max_examples=400)
@given(st.lists(byte_lines, max_size=6), st.sampled_from([b"", b"\n", b"\n\n"]), st.booleans())
def test_reading_the_bytes_at_once_equals_reading_the_text_line_by_line(
    lines: list[bytes], tail: bytes, bom: bool
) -> None:
    raw = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + tail
    fast, fast_problems = parse_lines(raw, "run.jsonl")
    text, problem = _decode(raw, "run.jsonl")
    slow, slow_problems = ([], [problem]) if problem else _parse_each(text, "run.jsonl")
    assert [(r.line, r.data) for r in fast] == [(r.line, r.data) for r in slow]
    assert fast_problems == slow_problems


@given(st.lists(st.one_of(st.none(), st.integers(0, 4)), max_size=6))
def test_lines_in_trial_order_are_sorted_as_the_plain_key_sorts_them(
    trials: list[int | None],
) -> None:
    lines = [Result(n, {"id": "c", "outcome": "abstain", "trial": t}) for n, t in enumerate(trials)]
    want = sorted(lines, key=lambda r: r.trial or 0)
    assert [r.line for r in in_trial_order(lines)] == [r.line for r in want]


# --- the JSON report ----------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(),  # NaN and the infinities too: json.dumps writes them, so must this
    st.text(),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=5), inner, max_size=4),
    ),
    max_leaves=25,
)


@settings(max_examples=400)
@given(json_values)
def test_the_indented_report_is_what_json_dumps_writes(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_is_not_plain_json_is_left_to_json_dumps() -> None:
    odd = {"n": {1: "a", 2.5: "b", None: "c"}, "flag": True}
    assert dumps_indented(odd) == json.dumps(odd, indent=2, ensure_ascii=False)
    with pytest.raises(TypeError):
        dumps_indented({"x": {1, 2}})
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_indented(loop)
