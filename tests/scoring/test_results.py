"""Validating a results file before anything is scored: every kind of bad line, duplicates,
unknown ids, broken case sets; and the schema's compiled predicate agreeing with jsonschema on
result lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.errors import GoldcaseError
from goldcase.schemas import validator
from goldcase.scoring import results as results_module
from goldcase.scoring.results import (
    InvalidInput,
    Problem,
    Result,
    Unlisted,
    _drop_repeats,
    index_results,
    parse_lines,
    parse_results,
    read_raw,
    valid_line,
)
from kit import needs_cores, recorded_forks, run_cli
from scoring.kit import (
    case_yaml,
    score_lines,
    six_cases,
    six_results,
    write_repo,
    write_results,
)


def problems(raw: bytes | str) -> list[str]:
    data = raw.encode() if isinstance(raw, str) else raw
    return [str(p) for p in parse_results(data, "run.jsonl")[1]]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"id": "E1", "outcome": "answer", "fact": "x"',
            "malformed JSON at column 46: "
            "Expecting ',' delimiter; each line must be one complete JSON object",
        ),
        ('["E1", "answer"]', "line holds a list, not an object; write one JSON object per line"),
        ('"E1"', "line holds a string, not an object; write one JSON object per line"),
        ("12", "line holds a number, not an object; write one JSON object per line"),
        ("null", "line holds null, not an object; write one JSON object per line"),
        (
            '{"id": "E1", "outcome": "abstain"}, {"id": "E2", "outcome": "abstain"}',
            "malformed JSON at column 35: Extra data; each line must be one complete JSON object",
        ),
        (
            '{"id": "E1", "outcome": "answered"}',
            'outcome is "answered"; expected one of answer, abstain, error',
        ),
        ('{"id": "E1"}', "missing field 'outcome'"),
        (
            '{"id": "E1", "outcome": "answer"}',
            "an answer needs 'answer' (the text shown) or 'fact' (a structured key)",
        ),
        (
            '{"id": "E1", "outcome": "abstain", "confidnce": 0.3}',
            "unknown field 'confidnce'; did you mean 'confidence'? "
            "(fields of your own go under meta)",
        ),
        (
            '{"id": "E1", "outcome": "abstain", "confidence": 1.5}',
            "confidence is 1.5; expected a number from 0 to 1",
        ),
        (
            '{"id": "E1", "outcome": "abstain", "confidence": "0.8"}',
            'confidence should be a number or null, got "0.8"',
        ),
        (
            '{"id": "E1", "outcome": "abstain", "confidence": NaN}',
            "malformed JSON: NaN is not a JSON number; each line must be one complete JSON object",
        ),
        ('{"id": "E1", "outcome": "abstain", "trial": 0}', "trial is 0; expected at least 1"),
        (
            '{"id": "E1", "outcome": "abstain", "outcome": "answer"}',
            "field 'outcome' appears twice on the line; keep one",
        ),
        ('{"id": "", "outcome": "abstain"}', "id is empty"),
        ('{"id": 7, "outcome": "abstain"}', "id should be a string, got 7"),
        (
            '{"id": "E1", "outcome": "answer", "answer": "x", "citations": [{}]}',
            "citations[0] is empty; a citation needs an id or a text",
        ),
        (
            '{"id": "E1", "outcome": "answer", "answer": "x", '
            '"citations": [{"id": "a", "url": "u"}]}',
            "unknown field 'url'; known fields: id, text",
        ),
        (
            '{"id": "E1", "outcome": "abstain", "retrieved": [{"doc": "a.md", "start": 3}]}',
            "retrieved[0] should be {doc, text} or {doc, start, end}",
        ),
    ],
)
def test_each_bad_line_names_its_line_and_the_fix(line: str, message: str) -> None:
    good = '{"id": "E0", "outcome": "abstain"}'
    assert problems(f"{good}\n{line}\n") == [f"run.jsonl:2: {message}"]


def test_valid_lines_keep_every_optional_field() -> None:
    line = {
        "id": "E1",
        "outcome": "answer",
        "answer": "15 feet",
        "fact": "f",
        "scope": "road-law",
        "citations": [{"id": "MD-1", "text": "§ 1"}, {"text": "only text"}],
        "confidence": 1,
        "error": None,
        "trial": 3,
        "meta": {"model": "m", "tokens": [1, 2]},
        "retrieved": [{"doc": "a.md", "text": "chunk"}, {"doc": "a.md", "start": 0, "end": 9}],
        "context": [{"doc": "a.md", "text": "chunk"}],
    }
    results, found = parse_results((json.dumps(line) + "\n").encode(), "run.jsonl")
    assert found == []
    assert results[0].data == line
    assert (results[0].line, results[0].trial, results[0].confidence) == (1, 3, 1.0)


def test_blank_lines_crlf_and_a_bom_are_accepted() -> None:
    raw = (
        b'\xef\xbb\xbf{"id": "a", "outcome": "abstain"}\r\n\r\n  \n{"id": "b", "outcome": "error"}'
    )
    results, found = parse_results(raw, "run.jsonl")
    assert found == []
    assert [(r.id, r.line) for r in results] == [("a", 1), ("b", 4)]


def test_non_utf8_bytes_name_their_line() -> None:
    raw = b'{"id": "a", "outcome": "abstain"}\n{"id": "\xff", "outcome": "abstain"}\n'
    assert problems(raw) == ["run.jsonl:2: byte 0xff is not UTF-8; write the results file as UTF-8"]


def test_duplicates_by_id_and_by_trial() -> None:
    lines = [
        '{"id": "a", "outcome": "abstain"}',
        '{"id": "a", "outcome": "error"}',
        '{"id": "b", "outcome": "abstain", "trial": 1}',
        '{"id": "b", "outcome": "abstain", "trial": 2}',
        '{"id": "b", "outcome": "abstain", "trial": 2}',
        '{"id": "b", "outcome": "abstain"}',
    ]
    assert problems("\n".join(lines)) == [
        "run.jsonl:2: second result for case 'a' (first on line 1); keep one line per case, "
        "or number repeated runs with trial",
        "run.jsonl:5: second result for case 'b' trial 2 (first on line 4); give each trial of "
        "a case its own number",
        "run.jsonl:6: case 'b' has lines with and without trial (line 3); give every line of a "
        "repeated case a trial number",
    ]


def test_reading_a_results_file_lists_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("{}\n[]\n", encoding="utf-8")
    _, problems = parse_results(read_raw(path, "run.jsonl"), "run.jsonl")
    assert [p.line for p in problems] == [1, 2]
    with pytest.raises(GoldcaseError, match=r"^missing\.jsonl: no such file$"):
        read_raw(tmp_path / "missing.jsonl", "missing.jsonl")


def test_unknown_ids_and_line_problems_are_listed_together(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", six_cases())
    lines = [*six_results(), {"id": "E9", "outcome": "abstain"}, "{oops"]
    with pytest.raises(InvalidInput) as caught:
        score_lines(root, lines)
    assert caught.value.message.split("\nerror: ") == [
        f"{root / 'results.jsonl'}:7: unknown case id 'E9'; no case under cases/ has it "
        "(was the run made on another set, or the case renamed?)",
        f"{root / 'results.jsonl'}:8: malformed JSON at column 2: Expecting property name "
        "enclosed in double quotes; each line must be one complete JSON object",
    ]


def test_at_most_twenty_problems_are_shown_then_a_count(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", six_cases())
    with pytest.raises(InvalidInput) as caught:
        score_lines(root, ["[]"] * 23)
    shown = caught.value.message.split("\nerror: ")
    assert len(shown) == 21
    assert shown[-1] == "3 more errors not shown (23 in all); nothing was scored"


def test_two_case_files_with_one_id_stop_the_score(tmp_path: Path) -> None:
    cases = six_cases()
    cases["E1"] = "# the id is on line 2\n" + cases["E1"]
    cases["cases/dev/E1.yaml"] = case_yaml("E1", "standard")
    root = write_repo(tmp_path / "r", cases)
    with pytest.raises(InvalidInput) as caught:
        score_lines(root, six_results())
    assert [str(p) for p in caught.value.problems] == [
        "cases/golden/E1.yaml:2: case id 'E1' is also used by cases/dev/E1.yaml; ids are unique "
        "across cases/, rename one"
    ]


def test_a_case_file_that_does_not_load_stops_the_score(tmp_path: Path) -> None:
    cases = six_cases()
    cases["E7"] = "id: E7\nquestion: q\nanswerable: false\nslice: x\nnotez: typo\n"
    root = write_repo(tmp_path / "r", cases)
    with pytest.raises(InvalidInput) as caught:  # E7's result is not called an unknown id
        score_lines(root, [*six_results(), {"id": "E7", "outcome": "abstain"}])
    assert [str(p) for p in caught.value.problems] == [
        "cases/golden/E7.yaml:5: GC107 unknown key 'notez'; did you mean 'notes'?; fix the case "
        "file before scoring (goldcase check lists every problem)"
    ]


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan")])
def test_a_threshold_outside_0_to_1_is_refused(tmp_path: Path, threshold: float) -> None:
    root = write_repo(tmp_path / "r", six_cases())
    with pytest.raises(GoldcaseError, match="expected a confidence from 0 to 1"):
        score_lines(root, six_results(), threshold=threshold)


# --- the compiled schema and jsonschema agree on result lines -----------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(-0.5, 1.5, allow_nan=False),
    st.sampled_from(["", "E1", "answer", "abstain", "error", "x"]),
)
chunks = st.dictionaries(
    st.sampled_from(["doc", "text", "start", "end", "score"]), scalars, max_size=4
)
citations = st.dictionaries(st.sampled_from(["id", "text", "url"]), scalars, max_size=3)
tool_calls = st.dictionaries(
    st.sampled_from(["name", "input", "output", "error", "args"]), scalars, max_size=4
)
values = st.one_of(
    scalars,
    st.floats(-1, 1e6, allow_nan=False),
    st.just(float("inf")),  # what json reads 1e999 as
    st.lists(chunks, max_size=2),
    st.lists(citations, max_size=2),
    st.lists(tool_calls, max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), scalars, max_size=2),
)
keys = st.sampled_from(
    [
        "id",
        "outcome",
        "fact",
        "answer",
        "citations",
        "scope",
        "confidence",
        "error",
        "retrieved",
        "context",
        "trial",
        "meta",
        "tool_calls",
        "latency_ms",
        "typo",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(keys, values, max_size=7), st.sampled_from(["answer", "abstain", "error"]))
def test_a_line_is_valid_exactly_when_jsonschema_says_so(
    data: dict[str, Any], outcome: str
) -> None:
    for candidate in (
        data,
        {"id": "E1", "outcome": outcome, **data},
        {**data, "id": "E1", "outcome": outcome},
    ):
        expected = validator("results.schema.json").is_valid(candidate)
        assert valid_line(candidate) is expected, candidate


line_texts = st.sampled_from([
    '{"id": "a", "outcome": "abstain"}',
    '{"id": "b", "outcome": "answer", "answer": "15 feet", "confidence": 0.5}',
    '{"id": "c", "outcome": "error", "error": null}',
    '{"id": "d", "outcome": "abstain"}, {"id": "e", "outcome": "abstain"}',
    '{"id": "f", "outcome": "abstain", "id": "g"}',
    '{"id": "f", "outcome": "abstain", "\\u0069d": "g"}',
    '{"id": "f", "outcome": "abstain", "id" : "g"}',
    '{"id": "f", "outcome": "abstain", "meta": {"k": [{"a": 1, "a": 2}]}}',
    '{"id": "f", "outcome": "abstain", "meta": {"k": "\\u0022:", "k": "\\":"}}',
    '{"id": "i", "outcome": "answer", "answer": "x\\": y", "scope": ":z"}',
    '{"id": "f", "outcome": "abstain", "meta": {"k": 1, "k": "\\u003a"}}',
    '{"id": "f", "outcome": "abstain", "meta": {"k": 1, "k": "\\u003A"}}',
    '{"id": "l", "outcome": "answer", "answer": "x\\u003a y"}',
    '{"id": "m", "outcome": "answer", "answer": "x',  # a value run over two lines
    'y"}',
    # out of the arrays the whole file is read inside, and back in
    '{"id": "n", "outcome": "abstain"}' + "]" * 17 + ", " + "[" * 17 + '{"id": "o"}',
    '{"id": "j", "outcome": "abstain", "meta": {"big": 1e400, "int": 123456789012345678901}}',
    '{"id": "k", "outcome": "abstain", "confidence": -0.0, "meta": [[[{"a": {}}]]]}',
    '{"id": "h", "outcome": "abstain"',
    '{"id": "p", "outcome": "answer", "answer": "x", "confidence": "0.5"}',
    "[1, 2]",
    "",
    "   ",
    "\r",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(line_texts, max_size=8), st.booleans())
def test_reading_the_whole_file_at_once_equals_reading_line_by_line(
    lines: list[str], final_newline: bool
) -> None:
    from goldcase.scoring.results import _parse_each, parse_lines

    text = "\n".join(lines) + ("\n" if final_newline else "")
    fast, fast_problems = parse_lines(text.encode(), "run.jsonl")
    slow, slow_problems = _parse_each(text, "run.jsonl")
    assert [_read(r) for r in fast] == [_read(r) for r in slow]
    assert fast_problems == slow_problems


def _both_ways(raw: bytes) -> tuple[Any, Any]:
    """``parse_lines`` of ``raw`` with a child checking its lines, and without one (each read
    as ``score`` reads a file: with work of its own to do meanwhile); the child's reaped."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(results_module, "CHECK_ASIDE_FROM", 0)
        forks = recorded_forks(patch)
        beside = parse_lines(raw, "run.jsonl", lambda: None)
    if forks.children:
        forks.left_nothing()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(results_module, "CHECK_ASIDE_FROM", 10**12)
        alone = parse_lines(raw, "run.jsonl", lambda: None)
    return (
        ([_read(r) for r in beside[0]], beside[1]),
        ([_read(r) for r in alone[0]], alone[1]),
    )


@needs_cores
@settings(max_examples=150, deadline=None)
@given(st.lists(line_texts, max_size=8), st.booleans())
def test_lines_checked_by_a_child_are_read_as_lines_checked_here(
    lines: list[str], final_newline: bool
) -> None:
    """A large file's lines are checked by a forked child while this process builds them
    unchecked: what it keeps, and every problem, are what reading it without a child gives."""
    text = "\n".join(lines) + ("\n" if final_newline else "")
    beside, alone = _both_ways(text.encode())
    assert beside == alone


@needs_cores
def test_a_line_near_the_nesting_limit_is_judged_alike_with_a_child_or_without() -> None:
    """A refused file is read line by line as deep in the stack with a child as without, so a
    line nested near the decoder's limit gets the same verdict and the same message."""
    good = '{"id": "b", "outcome": "abstain"}'
    for depth in range(900, 1000):
        for opening, closing in (("[", "]"), ('{"a": ', "}")):
            deep = '{"id": "a", "outcome": "abstain", "meta": {"x": '
            deep += opening * depth + "1" * (opening == '{"a": ') + closing * depth + "}}"
            beside, alone = _both_ways(f"{good}\n{deep}\n{good[:-1]}\n".encode())
            assert beside == alone, depth


@needs_cores
def test_a_file_that_is_not_utf8_is_the_same_problem_with_a_child() -> None:
    raw = b'{"id": "a", "outcome": "abstain"}\n{"id": "b", "outcome": "answer", "answer": "\xff"}\n'
    beside, alone = _both_ways(raw)
    assert beside == alone == ([], [Problem("run.jsonl", 2, NOT_UTF8)])


NOT_UTF8 = "byte 0xff is not UTF-8; write the results file as UTF-8"


@needs_cores
def test_a_line_the_schema_refuses_is_a_problem_though_it_makes_a_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This process builds each line without checking it: a line it can build but the
    schema refuses (a confidence in quotes) is still the problem the child found."""
    monkeypatch.setattr(results_module, "CHECK_ASIDE_FROM", 0)
    forks = recorded_forks(monkeypatch)
    bad = '{"id": "b", "outcome": "answer", "answer": "x", "confidence": "0.5"}'
    assert Result(2, json.loads(bad)).confidence == 0.5  # built, unchecked
    raw = f'{{"id": "a", "outcome": "abstain"}}\n{bad}\n'.encode()
    kept, found = parse_lines(raw, "r", lambda: None)
    assert [r.id for r in kept] == ["a"]
    assert [str(p) for p in found] == ['r:2: confidence should be a number or null, got "0.5"']
    [_] = forks.children
    forks.left_nothing()


@needs_cores
@pytest.mark.parametrize("bad", [False, True])
def test_a_child_that_fails_leaves_the_check_to_this_process(
    monkeypatch: pytest.MonkeyPatch, bad: bool
) -> None:
    """A child that dies before it answers (here it runs out of memory) says nothing: the
    lines are checked here, and read as without a child; the caller's work is done once."""
    text = (
        '{"id": "a", "outcome": "abstain"}\n{"id": "b", "outcome": "answer"'
        + ("" if bad else ', "answer": "x"')
        + "}\n"
    )
    _, alone = _both_ways(text.encode())
    monkeypatch.setattr(results_module, "CHECK_ASIDE_FROM", 0)

    def broken(raw: bytes) -> bool:
        raise MemoryError("no room in the child")

    monkeypatch.setattr(results_module, "_all_valid", broken)
    forks = recorded_forks(monkeypatch)
    calls: list[int] = []
    kept, found = parse_lines(text.encode(), "run.jsonl", lambda: calls.append(1))
    assert ([_read(r) for r in kept], found) == alone
    assert len(kept) == (1 if bad else 2) and calls == [1]
    [_] = forks.children
    forks.left_nothing()


@needs_cores
@pytest.mark.parametrize(
    ("smallest", "largest", "children"),
    [(0, 10**9, 1), (10**9, 10**12, 0), (0, 10, 0)],  # a child; too small; too large
)
def test_the_callers_work_is_done_once_and_a_failure_in_it_reaps_the_child(
    monkeypatch: pytest.MonkeyPatch, smallest: int, largest: int, children: int
) -> None:
    """``meanwhile`` runs once, with a child checking the lines or without (a file too small
    to be worth a fork, or too large to decode twice); when it raises, the exception reaches
    the caller and no child is left behind."""
    monkeypatch.setattr(results_module, "CHECK_ASIDE_FROM", smallest)
    monkeypatch.setattr(results_module, "CHECK_ASIDE_TO", largest)
    forks = recorded_forks(monkeypatch)
    calls: list[int] = []
    raw = b'{"id": "a", "outcome": "abstain"}\n'
    assert len(parse_lines(raw, "run.jsonl", lambda: calls.append(1))[0]) == 1
    assert calls == [1] and len(forks.children) == children

    def failing() -> None:
        raise OSError("the view cannot be read")

    with pytest.raises(OSError, match="the view"):
        parse_lines(raw, "run.jsonl", failing)
    if children:
        forks.left_nothing()


@needs_cores
def test_a_reader_with_no_work_of_its_own_forks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``meanwhile`` (``goldcase run`` reading back its --out file, perhaps beside the
    threads of a system under test) the lines are checked here, whatever the file's size."""
    monkeypatch.setattr(results_module, "CHECK_ASIDE_FROM", 0)
    forks = recorded_forks(monkeypatch)
    assert len(parse_lines(b'{"id": "a", "outcome": "abstain"}\n', "run.jsonl")[0]) == 1
    assert forks.children == []


def test_a_file_checked_beside_is_decoded_twice_within_one_memory_budget() -> None:
    """The child decodes the file as this process does: the largest file it is given, at
    the worst expansion, fits both decodings in the budget one file is allowed."""
    from goldcase.jsonmemory import BUDGET, WORST_EXPANSION

    assert 2 * results_module.CHECK_ASIDE_TO * WORST_EXPANSION <= BUDGET
    assert results_module.CHECK_ASIDE_TO >= 16 * 1024**2  # 100,000 result lines


json_numbers = st.from_regex(r"\A-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,3})?\Z")


@settings(max_examples=500, deadline=None)
@given(st.lists(json_numbers, min_size=1, max_size=6))
def test_every_number_is_read_whole_file_as_line_by_line(numbers: list[str]) -> None:
    """The whole file is decoded by another reader than single lines: every number written
    in JSON, of any length, precision or exponent, is the same value either way."""
    from goldcase.scoring.results import _parse_each, parse_lines

    text = "".join(
        f'{{"id": "n{i}", "outcome": "abstain", "meta": {{"x": {number}}}}}\n'
        for i, number in enumerate(numbers)
    )
    fast, fast_problems = parse_lines(text.encode(), "run.jsonl")
    slow, slow_problems = _parse_each(text, "run.jsonl")
    assert [_read(r) for r in fast] == [_read(r) for r in slow]
    assert fast_problems == slow_problems


def test_two_values_on_a_line_do_not_make_up_for_one_run_over_two() -> None:
    """Each is a problem of its lines, whatever the line count comes to."""
    from goldcase.scoring.results import _parse_each

    text = (
        '{"id": "a", "outcome": "abstain"}, {"id": "b", "outcome": "abstain"}\n'
        '{"id": "c", "outcome": "answer", "answer": "x\n'
        'y"}\n'
    )
    assert parse_lines(text.encode(), "run.jsonl") == ([], _parse_each(text, "run.jsonl")[1])
    assert [p.line for p in parse_lines(text.encode(), "run.jsonl")[1]] == [1, 2, 3]


def test_a_deeply_nested_line_is_judged_alike_whatever_the_other_lines_hold() -> None:
    """A line nested near the decoder's limit is valid, or a problem, on its own account: a
    broken line beside it (which has the file read line by line) changes nothing."""
    good, broken = '{"id": "b", "outcome": "abstain"}', '{"id": "b", "outcome": "abstain"'
    verdicts = set()
    for depth in range(900, 1000):
        deep = '{"id": "a", "outcome": "abstain", "meta": {"x": ' + "[" * depth + "]" * depth
        deep += "}}"
        alone = parse_lines(f"{deep}\n{good}\n".encode(), "run.jsonl")
        beside = parse_lines(f"{deep}\n{broken}\n".encode(), "run.jsonl")
        line_one = ("a" in [r.id for r in alone[0]], 1 in [p.line for p in alone[1]])
        assert line_one == ("a" in [r.id for r in beside[0]], 1 in [p.line for p in beside[1]])
        verdicts.add(line_one)
    assert verdicts == {(True, False), (False, True)}  # the limit lies in the range tried


def test_a_line_too_deep_to_explain_is_a_problem_not_a_crash() -> None:
    """Near the decoder's limit, a line that decodes can still be too deep for jsonschema to
    walk while it words what is wrong: that is the line's problem, not a traceback."""
    from goldcase.scoring.results import NESTED_TOO_DEEPLY

    messages = set()
    for depth in range(900, 1000):
        deep = '{"id": "a", "outcome": "answer", "meta": {"x": ' + "[" * depth + "]" * depth
        (problem,) = parse_lines(f"{deep}}}}}\n".encode(), "run.jsonl")[1]
        messages.add(problem.message.split(":")[0])
    assert messages == {
        "an answer needs 'answer' (the text shown) or 'fact' (a structured key)",
        NESTED_TOO_DEEPLY,
        "malformed JSON",
    }


def _read(r: Result) -> tuple[Any, ...]:
    return (r.line, r.data, r.id, r.trial, r.outcome, r.confidence, r.answered, r.traced)


def test_a_line_carries_what_grading_reads_and_equal_answers_share_one_key() -> None:
    """docs/score.md: an answer's checks read its answer, scope, fact and each citation's id
    and text; the confidence and trial are read by the threshold and the trials' report.
    Lines equal in what the checks read share one key object, whatever else differs."""
    cited = '"citations": [{"id": "P-1", "text": "§ 4"}, {"text": "§ 5"}]'
    lines = [
        f'{{"id": "a", "trial": 1, "outcome": "answer", "answer": "30 days", {cited}, '
        '"confidence": 0.9}',
        f'{{"id": "a", "trial": 2, "outcome": "answer", "answer": "30 days", {cited}, '
        '"confidence": 0.2, "latency_ms": 5}',
        '{"id": "a", "trial": 3, "outcome": "answer", "answer": "30 days", "scope": "x"}',
        '{"id": "a", "trial": 4, "outcome": "abstain", "answer": "30 days"}',
        '{"id": "b", "outcome": "answer", "fact": "yes", "confidence": 1}',
    ]
    results, problems = parse_results("\n".join(lines).encode(), "run.jsonl")
    assert problems == []
    first, second, scoped, abstained, fact = results
    assert first.answered == ("30 days", None, None, (("P-1", "§ 4"), (None, "§ 5")))
    assert second.answered is first.answered
    assert (first.confidence, second.confidence) == (0.9, 0.2)
    assert scoped.answered == ("30 days", "x", None, None)
    assert scoped.answered is not first.answered
    assert (abstained.outcome, abstained.answered, abstained.confidence) == ("abstain", None, None)
    assert (fact.answered, fact.confidence, fact.trial) == ((None, None, "yes", None), 1.0, None)
    assert isinstance(fact.confidence, float)


def test_half_a_surrogate_pair_is_a_problem_of_its_line_and_a_whole_pair_is_text() -> None:
    raw = (
        b'{"id": "a", "outcome": "answer", "answer": "14 days"}\n'
        b'{"id": "b", "outcome": "answer", "answer": "wrong \\ud800"}\n'
        b'{"id": "c", "outcome": "answer", "\\udfff": "x", "answer": "y"}\n'
        b'{"id": "d", "outcome": "answer", "answer": "smile \\ud83d\\ude00"}\n'
    )
    results, problems = parse_results(raw, "r.jsonl")
    kept = [(r.line, r.data["answer"]) for r in results]
    assert kept == [(1, "14 days"), (4, "smile \U0001f600")]
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (2, "an escape of half a surrogate pair (\\ud800 to \\udfff) with no other half"),
        (3, "an escape of half a surrogate pair (\\ud800 to \\udfff) with no other half"),
    ]


BIG = "1" + "0" * 399  # a number of 400 digits


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("confidence", f"confidence is {BIG[:79]}…; expected a number from 0 to 1"),
        ("trial", f"second result for case 'E0' trial {BIG[:79]}… (first on line 1)"),
        (BIG, f"unknown field '{BIG[:78]}…; known fields"),
    ],
)
def test_a_number_of_400_digits_is_quoted_cut(tmp_path: Path, field: str, message: str) -> None:
    """A results line is anyone's text: a value it holds is quoted cut at 80 characters
    (docs/score.md), never whole."""
    root = write_repo(tmp_path / "repo", six_cases())
    line = f'{{"id": "E0", "outcome": "abstain", "{field}": {BIG}}}'
    first = line if field == "trial" else '{"id": "E1", "outcome": "abstain"}'
    done = run_cli("score", write_results(tmp_path / "run.jsonl", [first, line]), "--repo", root)
    assert done.exit_code == 2
    assert f"run.jsonl:2: {message}" in done.stderr
    assert BIG not in done.stderr


HUGE_NUMBER = "9" * 4_000
HUGE_TEXT = "x" * 100_000
ANSWER = '"outcome": "answer", "answer": "a"'


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (f'{ANSWER}, "confidence": {HUGE_NUMBER}', "confidence is 999"),
        (f'{ANSWER}, "trial": -{HUGE_NUMBER}', "trial is -999"),
        (f'{ANSWER}, "latency_ms": "{HUGE_TEXT}"', 'latency_ms should be a number, got "xxx'),
        (f'"outcome": "answer", "answer": {HUGE_NUMBER}', "answer should be a string, got 999"),
        (f'{ANSWER}, "error": {HUGE_NUMBER}', "error should be a string or null, got 999"),
        (f'"outcome": "{HUGE_TEXT}", "answer": "a"', 'outcome is "xxx'),
        (f'{ANSWER}, "{HUGE_TEXT}": 1', "unknown field 'xxx"),
        (f'{ANSWER}, "citations": [{{"{HUGE_TEXT}": 1}}]', "unknown field 'xxx"),
    ],
)
def test_a_huge_value_in_a_line_is_quoted_cut(fields: str, message: str) -> None:
    """docs/score.md: a 4,000-digit number or a 100 kB string a line's message quotes is cut
    at 80 characters, so the message stays short and still names the field."""
    [problem] = problems(f'{{"id": "E1", {fields}}}')
    assert message in problem
    assert len(problem) < 300, problem[:300]


def test_bad_lines_past_the_twentieth_are_counted_not_kept() -> None:
    raw = b"[]\n" * 10_000
    results, kept = parse_results(raw, "run.jsonl")
    assert results == []
    assert [p.line for p in kept] == [*range(1, 21), 21]
    assert (
        str(kept[-1])
        == "run.jsonl:21: and 9,980 more lines from here on that are not valid results"
    )
    shown = InvalidInput(kept).message.split("\nerror: ")
    assert shown[-1] == "9,980 more errors not shown (10,000 in all); nothing was scored"


class _CountedTrial(int):
    """A trial number that counts how often it is compared or hashed."""

    looks = 0

    def __eq__(self, other: object) -> bool:
        _CountedTrial.looks += 1
        return int.__eq__(self, other)

    def __hash__(self) -> int:
        _CountedTrial.looks += 1
        return int.__hash__(self)


def test_a_repeated_trial_among_many_is_found_in_one_look_a_line() -> None:
    """30,000 trials of a case and one repeated: each line was compared with every line kept
    before it (450 million looks, minutes at 300,000 lines); now one look-up a line."""
    lines = [Result(n, {"id": "a", "outcome": "abstain", "trial": n}) for n in range(1, 30_001)]
    lines.append(Result(30_001, {"id": "a", "outcome": "abstain", "trial": 5}))
    for result in lines:
        result.trial = _CountedTrial(result.trial or 0)
    _CountedTrial.looks = 0
    by_id, found = index_results(lines, "run.jsonl")
    assert _CountedTrial.looks <= 4 * len(lines)
    assert len(by_id["a"]) == 30_000
    assert [str(p) for p in found] == [
        "run.jsonl:30001: second result for case 'a' trial 5 (first on line 5); give each "
        "trial of a case its own number"
    ]


def test_repeated_lines_past_the_twentieth_are_counted_not_kept() -> None:
    """A million copies of one line would be a million messages held: the first twenty are
    explained, in line order whatever case they repeat, and the rest counted."""
    raw = b"".join(
        b'{"id": "%s", "outcome": "abstain"}\n' % case_id
        for _ in range(500)
        for case_id in (b"b", b"a")
    )
    results, kept = parse_results(raw, "run.jsonl")
    assert len(results) == 1000
    assert [p.line for p in kept] == [*range(3, 23), 23]
    assert str(kept[0]) == (
        "run.jsonl:3: second result for case 'b' (first on line 1); keep one line per case, "
        "or number repeated runs with trial"
    )
    assert isinstance(kept[-1], Unlisted)
    assert str(kept[-1]) == (
        "run.jsonl:23: and 978 more lines from here on that repeat a case or one of its trials"
    )
    shown = InvalidInput(kept).message.split("\nerror: ")
    assert shown[-1] == "978 more errors not shown (998 in all); nothing was scored"


def test_a_case_s_repeated_lines_past_the_first_shown_are_counted_as_they_are_read() -> None:
    """A million copies of one line are not held while they are found: a case keeps the
    first twenty-one it leaves out (the most the file's first twenty-one can hold) and a
    count."""
    lines = [Result(n, {"id": "a", "outcome": "abstain"}) for n in range(1, 1001)]
    kept, dropped, left_out = _drop_repeats(lines)
    assert [r.line for r in kept] == [1]
    assert [d[0] for d in dropped] == list(range(2, 23))
    assert left_out == 999


def test_a_line_of_many_unknown_fields_is_one_short_message() -> None:
    line = json.dumps(
        {"id": "E1", "outcome": "answer", "answer": "x"} | {f"k{i}": 0 for i in range(5000)}
    )
    (message,) = problems(line + "\n")
    assert message.endswith("; and more")
    assert message.count("unknown field") == 10


def test_results_whose_decoding_would_pass_the_memory_budget_are_refused_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Valid lines, each with a meta of many small lists: scored before the bound; refused
    now, naming the file and the fix, before any line is decoded."""
    from goldcase import jsonmemory

    monkeypatch.setattr(jsonmemory, "BUDGET", 8 * 1024**2)
    root = write_repo(tmp_path / "r", six_cases())
    bulky = [
        {**line, "meta": {"x": [[]] * 40_000}} for line in six_results() if isinstance(line, dict)
    ]
    path = write_results(root / "results.jsonl", bulky)
    assert 450_000 < path.stat().st_size < 1024**2
    done = run_cli("score", path, "--repo", root)
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {path}: decoding its ")
    assert "more than the 8 MiB goldcase allows; split the results file" in done.stderr
    assert done.stdout == ""


def test_results_under_the_unscanned_size_are_scored_as_ever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldcase import jsonmemory

    def scanned(raw: bytes) -> int:
        raise AssertionError("an ordinary results file was scanned")

    monkeypatch.setattr(jsonmemory, "estimate", scanned)
    root = write_repo(tmp_path / "r", six_cases())
    done = run_cli("score", write_results(root / "results.jsonl", six_results()), "--repo", root)
    assert done.exit_code == 0, done.stderr


def test_lines_of_unknown_ids_past_twenty_are_counted_not_kept(tmp_path: Path) -> None:
    """A run scored against another set has a line of an unknown id for each of its cases:
    the first twenty are listed (docs/score.md), the rest counted in one entry, not held as
    one message each."""
    root = write_repo(tmp_path / "r", six_cases())
    lines = [*six_results(), *({"id": f"X{n}", "outcome": "abstain"} for n in range(500))]
    with pytest.raises(InvalidInput) as caught:
        score_lines(root, lines)
    problems = caught.value.problems
    assert len(problems) == 21
    assert [p.line for p in problems[:20]] == list(range(7, 27))
    assert problems[0].message.startswith("unknown case id 'X0'; no case under cases/ has it")
    assert isinstance(problems[20], Unlisted) and problems[20].count == 480
    shown = caught.value.message.split("\nerror: ")
    assert shown[-1] == "480 more errors not shown (500 in all); nothing was scored"


def test_an_unknown_id_is_quoted_escaped_and_cut(tmp_path: Path) -> None:
    """A stranger's id is quoted as every value from a results line is (docs/score.md): its
    control characters escaped, cut at 80 characters; a 5,000-character id was printed whole."""
    root = write_repo(tmp_path / "r", six_cases())
    lines = [*six_results(), {"id": "x\n\x1b[2J" + "y" * 5000, "outcome": "abstain"}]
    with pytest.raises(InvalidInput) as caught:
        score_lines(root, lines)
    message = caught.value.message
    assert "\x1b" not in message and "\n" not in message
    assert "unknown case id 'x\\n\\x1b[2Jyyy" in message
    assert len(message) < 300
