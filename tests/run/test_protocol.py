"""goldcase.run.protocol: the request holds nothing of the expectations; a response becomes a
result line, or an error line saying why it is not one."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from goldcase.config import ABSTAIN_PATTERNS
from goldcase.model import Case
from goldcase.run.protocol import encode, parse_response, request, to_answer
from goldcase.schemas import validator

CASE = Case(
    "cases/golden/ret-001.yaml",
    "golden",
    {
        "id": "ret-001",
        "question": "How long?",
        "expected_answer": "30 days",
        "support": [{"doc": "p.md", "quote": "30 days"}],
        "expect": {"contains": ["30"]},
        "slice": "returns",
        "tags": ["numeric"],
        "notes": "secret note",
    },
)


def test_the_request_is_id_question_and_trial_only() -> None:
    assert request(CASE, 2) == {"id": "ret-001", "question": "How long?", "trial": 2}


def answer(response: Any) -> dict[str, Any]:
    return to_answer("ret-001", 1, response, 12.5, ABSTAIN_PATTERNS).line


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"answer": "30 days"}, {"outcome": "answer", "answer": "30 days"}),
        ({"answer": "I don't know."}, {"outcome": "abstain", "answer": "I don't know."}),
        ({"outcome": "answer", "answer": "I don't know."}, {"outcome": "answer"}),  # it said so
        ({"fact": "window_30"}, {"outcome": "answer", "fact": "window_30"}),
        ({"outcome": "abstain"}, {"outcome": "abstain"}),
        ({"error": "quota"}, {"outcome": "error", "error": "quota"}),
        ({"id": "ret-001", "trial": 1, "answer": "x"}, {"outcome": "answer", "answer": "x"}),
        ({"answer": "x", "prompt": "p", "retryable": False}, {"outcome": "answer", "answer": "x"}),
    ],
)
def test_a_response_becomes_a_valid_line(
    response: dict[str, Any], expected: dict[str, Any]
) -> None:
    line = answer(response)
    assert line == {**line, **expected, "id": "ret-001", "trial": 1, "latency_ms": 12.5}
    assert "prompt" not in line and "retryable" not in line
    assert validator("results.schema.json").is_valid(line)


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        ([1], "expected a JSON object, got list"),
        (
            {"id": "ret-002", "answer": "x"},
            "it answers id 'ret-002', the request was for 'ret-001'",
        ),
        ({"trial": 2, "answer": "x"}, "it answers trial 2"),
        ({"answer": 3}, "answer should be a string"),
        ({"outcome": "answer"}, "an answer needs 'answer'"),
        ({"answer": "x", "prompt": 3}, "prompt should be a string"),
        ({"answer": "x", "retryable": "yes"}, "retryable should be true or false"),
        ({"answer": "x", "confidence": 2}, "confidence is 2"),
        ({"answer": "x", "tool_calls": [{"name": ""}]}, "tool_calls"),
    ],
)
def test_a_malformed_response_is_an_error_line_saying_why(response: Any, reason: str) -> None:
    got = to_answer("ret-001", 1, response, 1.0, ABSTAIN_PATTERNS)
    assert got.malformed and not got.retry
    assert got.line["outcome"] == "error"
    assert got.line["error"].startswith("malformed response: ")
    assert reason in got.line["error"]
    assert validator("results.schema.json").is_valid(got.line)


def test_retryable_and_prompt_are_read() -> None:
    got = to_answer("ret-001", 1, {"error": "busy", "retryable": True}, 1.0, ABSTAIN_PATTERNS)
    assert got.retry and got.line["outcome"] == "error"
    said = to_answer("ret-001", 1, {"answer": "x", "prompt": "Q: y"}, 1.0, ABSTAIN_PATTERNS)
    assert (said.prompt, said.retry) == ("Q: y", False)


@pytest.mark.parametrize("text", ["NaN", '{"confidence": Infinity}', "{", b"\xff"])
def test_what_is_not_json_is_refused(text: str | bytes) -> None:
    with pytest.raises(ValueError, match="not JSON"):
        parse_response(text)


@pytest.mark.parametrize("text", ['{"answer": "\\ud800"}', b'{"\\uDFFF": "x"}'])
def test_half_a_surrogate_pair_is_refused_saying_so(text: str | bytes) -> None:
    with pytest.raises(ValueError, match="half a surrogate pair"):
        parse_response(text)
    assert parse_response('{"answer": "\\ud83d\\ude00"}') == {"answer": "\U0001f600"}


def test_a_response_nested_deep_is_refused_or_read_never_a_crash() -> None:
    """Just shallow enough to decode, too deep to write back: a ValueError the run turns into
    an error line, never a RecursionError that ends the run (every depth around the limit)."""
    for depth in range(1, sys.getrecursionlimit() + 50):
        text = "[" * depth + '"\\ud800"' + "]" * depth
        try:
            value = parse_response(text)
        except ValueError:
            continue
        with pytest.raises(ValueError, match="not JSON"):  # the line is an error line
            encode({"id": "x", "meta": value})


def test_a_value_json_cannot_hold_is_refused_when_written() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        encode({"id": "x", "meta": {"when": {1, 2}}})
    assert encode({"id": "é"}) == '{"id": "é"}\n'.encode()
