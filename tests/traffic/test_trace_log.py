"""Reading a trace log as hostile input (docs/triage.md, "The trace log"): every bad line is
reported with its number and the reason, the rest is read, and nothing is a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

import pytest

from goldcase.config import TRACE_FIELDS
from goldcase.errors import GoldcaseError
from goldcase.traffic.traces import MAX_LINE, BadLine, Trace, read_traces
from traffic.kit import trace, write_log

NAMES = {f: f for f in TRACE_FIELDS}


class Read(NamedTuple):
    lines: int
    traces: list[Trace]
    bad: list[BadLine]


def read(path: Path, names: dict[str, str] | None = None) -> Read:
    log, traces = read_traces(path, "log.jsonl", names or NAMES)
    assert log.traces == len(traces) and log.bad_lines == len(log.bad)
    return Read(log.lines, traces, log.bad)


def test_a_good_line_becomes_a_trace(tmp_path: Path) -> None:
    log = read(
        write_log(
            tmp_path / "log.jsonl",
            [trace(1, "  where is my parcel  ", failed=True, thumbs=True, time="2026-03-02")],
        )
    )
    (one,) = log.traces
    assert (one.line, one.own_id, one.key, one.question) == (
        1,
        "t-0001",
        "t-0001",
        "where is my parcel",
    )
    assert one.flags == ("failed_check", "thumbs_down")
    assert one.asked is not None and one.asked.text() == "2026-03-02"
    assert (log.lines, log.bad) == (1, [])


BAD_LINES = [
    ('{"question": "x"', "not JSON: Expecting ',' delimiter (column 17)"),
    ('["question"]', "a trace is a JSON object, got a list"),
    ('{"answer": "yes"}', "no question (field 'question'); map the log's own name in"),
    ('{"question": 14}', "question (field 'question') should be text, got a number"),
    ('{"question": "   "}', "question (field 'question') is blank"),
    ('{"question": "q", "answer": {}}', "answer (field 'answer') should be text or null, got"),
    ('{"question": "q", "time": "last week"}', "time (field 'time') 'last week' is not an ISO"),
    ('{"question": "q", "time": 1e30}', "time (field 'time') 1e+30 is not an ISO 8601"),
    ('{"question": "q", "failed_check": "yes"}', "failed_check (field 'failed_check') should"),
    ('{"question": "q", "cap_hit": 2}', "cap_hit (field 'cap_hit') should be true or false"),
    ('{"question": "q", "id": ["a"]}', "id (field 'id') should be text or a number, got a"),
    ('{"question": "q", "id": true}', "id (field 'id') should be text or a number, got true"),
    ("[" * 100_000 + "]" * 100_000, "not JSON: nested too deeply"),
    ('{"question": "is delivery free \\ud800"}', "an escape of half a surrogate pair"),
    ('{"question": "ok", "answer": "x", "\\udfff": 1}', "an escape of half a surrogate pair"),
]


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
def test_a_bad_line_is_reported_and_the_rest_is_read(
    tmp_path: Path, line: str, reason: str
) -> None:
    good = json.dumps(trace(2, "a good question"))
    log = read(write_log(tmp_path / "log.jsonl", [line, good]))
    assert [t.question for t in log.traces] == ["a good question"]
    assert [b.line for b in log.bad] == [1]
    assert log.bad[0].reason.startswith(reason), log.bad[0].reason


def test_bytes_that_are_not_utf8_long_lines_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    long = b'{"question": "' + b"a" * MAX_LINE + b'"}'
    path.write_bytes(
        b"\xef\xbb\xbf"  # a byte-order mark is read past
        + json.dumps(trace(1, "first")).encode()
        + b"\r\n\n   \n"
        + b'{"question": "caf\xe9"}\n'
        + long
        + b"\n"
        + json.dumps(trace(6, "last")).encode()  # no final newline
    )
    log = read(path)
    assert [(t.line, t.question) for t in log.traces] == [(1, "first"), (6, "last")]
    assert [(b.line, b.reason) for b in log.bad] == [
        (4, "not UTF-8 (byte 18)"),
        (5, f"longer than {MAX_LINE:,} bytes; a trace line this long is not read"),
    ]
    assert log.lines == 4


def test_a_question_too_long_to_label(tmp_path: Path) -> None:
    log = read(write_log(tmp_path / "log.jsonl", [trace(1, "q" * 10_001)]))
    assert log.bad[0].reason == "question is 10,001 characters; at most 10,000 are read"


def test_fields_are_mapped_and_reach_into_nested_objects(tmp_path: Path) -> None:
    row = {
        "trace_id": 77,
        "inputs": {"messages": {"last": "is the kettle covered"}},
        "outputs": {"text": "Yes."},
        "ts": 1772442840,  # Unix seconds: 2026-03-02T09:14:00Z
        "eval": {"failed": 1},
        "feedback": {"thumbs_down": False},
    }
    names = dict(
        NAMES,
        question="inputs.messages.last",
        answer="outputs.text",
        time="ts",
        failed_check="eval.failed",
        thumbs_down="feedback.thumbs_down",
        id="trace_id",
    )
    (one,) = read(write_log(tmp_path / "log.jsonl", [row]), names).traces
    assert (one.question, one.answer, one.own_id, one.flags) == (
        "is the kettle covered",
        "Yes.",
        "77",
        ("failed_check",),
    )
    assert one.asked is not None and one.asked.text() == "2026-03-02T09:14:00Z"


def test_a_trace_without_an_id_is_named_by_its_line(tmp_path: Path) -> None:
    rows = [{"question": "same"}, {"question": "same"}, {"question": "same", "x": 1}]
    keys = [t.key for t in read(write_log(tmp_path / "log.jsonl", rows)).traces]
    assert keys[0] == keys[1] != keys[2]  # the same line is the same trace


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "log.jsonl: no such file"),
        (lambda p: p.mkdir(), "log.jsonl: is a folder; give the trace log (JSON Lines)"),
        (lambda p: os.mkfifo(p), "log.jsonl: cannot read it: not a regular file"),
    ],
)
def test_a_file_that_cannot_be_read_is_an_error(tmp_path: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "log.jsonl"
    make(path)
    with pytest.raises(GoldcaseError) as caught:
        read(path)
    assert caught.value.message.startswith(message)


def test_a_whole_surrogate_pair_is_its_character(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"id": "t-1", "question": "is it free \\ud83d\\ude00"}\n', encoding="utf-8")
    log = read(path)
    assert [t.question for t in log.traces] == ["is it free \U0001f600"] and not log.bad
