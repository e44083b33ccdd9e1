"""Another tool's results, converted: the lines become a results file holding each answer
once."""

from __future__ import annotations

import json
import tracemalloc

from goldcase.interchange.converted import Converted

ANSWER = 4 * 1024**2  # characters of each answer


def _converted() -> Converted:
    converted = Converted()
    for n in range(8):
        converted.lines.append(
            {"id": f"c-{n}", "trial": 1, "outcome": "answer", "answer": chr(97 + n) * ANSWER}
        )
    return converted


def test_the_lines_become_a_results_file_line_for_line() -> None:
    converted = _converted()
    expected = [dict(line) for line in converted.lines]
    raw = converted.take_raw()
    assert [json.loads(line) for line in raw.splitlines()] == expected
    assert raw.endswith(b"\n")
    assert converted.lines == []


def test_the_results_file_is_built_holding_each_answer_once_more_at_most() -> None:
    """An Inspect archive may hold a gigabyte of answers: they were held four times over
    while the results file was built (each line's text, the joined text, its bytes, beside
    the lines), 4 GB at the peak. Now the lines are let go as they are written."""
    converted = _converted()
    answers = 8 * ANSWER
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        raw = converted.take_raw()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(raw) > answers
    assert peak < 1.5 * answers, peak / answers  # 2.0 before: the joined text and its bytes
