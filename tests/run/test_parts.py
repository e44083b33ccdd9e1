"""The small parts of goldcase run: HTTP headers from the environment, Retry-After, backoff,
progress lines, and the summary (the bar on a terminal: tests/test_progress.py)."""

from __future__ import annotations

import io

import pytest

from goldcase import progress
from goldcase.errors import GoldcaseError
from goldcase.run.progress import BarProgress, LineProgress, progress_for
from goldcase.run.runner import Summary, backoff
from goldcase.run.web import _retry_after, headers_from_env


def test_headers_come_from_the_named_variables() -> None:
    env = {"TOKEN": "Bearer x", "TENANT": "acme"}
    assert headers_from_env(["Authorization=TOKEN", "X-Tenant=TENANT"], env) == {
        "Authorization": "Bearer x",
        "X-Tenant": "acme",
    }


@pytest.mark.parametrize(
    ("spec", "env", "message"),
    [
        ("Authorization", {}, "expected NAME=VARIABLE"),
        ("Bad Name=TOKEN", {"TOKEN": "x"}, "expected NAME=VARIABLE"),
        ("Authorization=", {}, "expected NAME=VARIABLE"),
        ("Authorization=MISSING", {}, "the environment variable MISSING is not set"),
        ("X-A=TOKEN", {"TOKEN": "a\r\nX-Evil: 1"}, "holds a line break"),
    ],
)
def test_bad_header_specs_are_refused(spec: str, env: dict[str, str], message: str) -> None:
    with pytest.raises(GoldcaseError, match=message):
        headers_from_env([spec], env)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, None), ("3", 3.0), ("0.5", 0.5), ("-2", 0.0), ("9999", 60.0), ("nan", None),
     ("Wed, 21 Oct 2015 07:28:00 GMT", None)],
)  # fmt: skip
def test_retry_after(value: str | None, seconds: float | None) -> None:
    assert _retry_after(value) == seconds


def test_backoff_doubles_up_to_its_cap_unless_the_system_asked() -> None:
    assert [backoff(n, None) for n in range(8)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    assert backoff(3, 7.0) == 7.0


def test_progress_on_gets_the_bar_and_off_plain_lines() -> None:
    try:
        progress.enable(True)
        assert isinstance(progress_for(io.StringIO()), BarProgress)
    finally:
        progress.enable(False)
    assert isinstance(progress_for(io.StringIO()), LineProgress)


def test_plain_lines_come_every_tenth_and_at_the_end() -> None:
    out = io.StringIO()
    progress = LineProgress(out)
    progress.start(20, 3)
    for n in range(20):
        progress.advance("error" if n == 4 else "answer")
    progress.stop()
    lines = out.getvalue().splitlines()
    assert lines[0] == "run: 3 (id, trial) pairs already in the file, not asked again"
    assert [line.split(",")[0] for line in lines[1:]] == [
        f"run: {n}/20 asked ({n * 5}%)" for n in range(2, 21, 2)
    ]
    assert lines[-1].endswith("1 error") and "left" not in lines[-1]


def test_the_summary_says_what_happened() -> None:
    summary = Summary(total=10, already=4, asked=6, written=6, errors=2, dropped=33)
    summary.reasons.update({"no response within 5 s": 2})
    assert summary.lines("run.jsonl") == [
        "run: dropped an unfinished last line (33 bytes) left by an interrupted run in "
        "run.jsonl; its case was asked again",
        "run: 6 lines written to run.jsonl (2 errors); 4 were there already",
        "  2 × no response within 5 s",
    ]
    stopped = Summary(total=10, already=0, asked=3, written=3, ended_by="interrupted")
    assert stopped.lines("run.jsonl") == [
        "run: interrupted: 3 lines written to run.jsonl (0 errors); 3 of 10 done; run the "
        "same command again to continue"
    ]
