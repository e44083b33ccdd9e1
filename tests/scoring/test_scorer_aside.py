"""A large run is graded half by a forked child (``scorer.GRADE_ASIDE_FROM``, forced here on a
small set): the report is the one a single process makes, whatever the outcomes, trials and
threshold; a child that fails leaves its half to this process; and a failure meanwhile leaves
no child behind."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from goldcase.scoring import scorer
from scoring.kit import case_yaml, score_lines, write_repo

needs_cores = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2 or sys.platform != "linux",
    reason="grading is shared with a child only on Linux with two cores or more",
)

ANSWERS = ["You have 30 days.", "Thirty days, I think.", "It is 300 days", "", "30 days or 14"]


def _set_and_run(tmp_path: Path) -> tuple[Path, list[dict[str, Any] | str]]:
    """40 cases: checks that pass and fail, unanswerable ones, no line, errors, several
    trials, confidences under and over a threshold."""
    cases: dict[str, str] = {}
    lines: list[dict[str, Any] | str] = []
    for n in range(40):
        case_id = f"c-{n:03d}"
        expect = {"contains": ["30"], "not_contains": ["300"]} if n % 3 else None
        cases[case_id] = case_yaml(case_id, f"s{n % 4}", answerable=n % 5 != 0, expect=expect)
        trials = 3 if n % 7 == 0 else 1
        for trial in range(1, trials + 1):
            line: dict[str, Any] = {"id": case_id}
            if trials > 1:
                line["trial"] = trial
            if n % 11 == 0:
                line.update(outcome="error", error="timeout")
            elif n % 6 == 0:
                line.update(outcome="abstain")
            else:
                line.update(outcome="answer", answer=ANSWERS[(n + trial) % len(ANSWERS)])
                line["confidence"] = round((n * 37 % 100) / 100, 2)
            if n != 39:  # the last case has no line
                lines.append(line)
    return write_repo(tmp_path / "set", cases), lines


def _graded_in(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every process that grades leaves its id in ``folder``."""
    real = scorer._grade

    def recorded(*args: Any, **kwargs: Any) -> list[Any]:
        (folder / f"graded-by-{os.getpid()}").touch()
        return real(*args, **kwargs)

    monkeypatch.setattr(scorer, "_grade", recorded)


def _graders(folder: Path) -> set[int]:
    return {int(p.name.rsplit("-", 1)[1]) for p in folder.glob("graded-by-*")}


@needs_cores
@pytest.mark.parametrize("threshold", [None, 0.5])
def test_a_run_graded_half_by_a_child_reports_what_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threshold: float | None
) -> None:
    root, lines = _set_and_run(tmp_path)
    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 10**9)
    alone = score_lines(root, lines, threshold=threshold)
    marks = tmp_path / "marks"
    marks.mkdir()
    _graded_in(marks, monkeypatch)
    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 0)
    shared = score_lines(root, lines, threshold=threshold)
    assert shared == alone
    assert os.getpid() in _graders(marks) and len(_graders(marks)) == 2
    assert 0 < alone["success"] < alone["total"]  # some pass and some fail


@needs_cores
def test_a_child_that_fails_leaves_its_half_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, lines = _set_and_run(tmp_path)
    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 10**9)
    alone = score_lines(root, lines)

    class Broken:
        def encode(self, value: object) -> bytes:
            (tmp_path / f"failed-in-{os.getpid()}").touch()
            raise RuntimeError("the child cannot send its half")

    monkeypatch.setattr(scorer, "_GRADED", Broken())
    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 0)
    assert score_lines(root, lines) == alone
    [mark] = tmp_path.glob("failed-in-*")
    assert int(mark.name.rsplit("-", 1)[1]) != os.getpid()


@needs_cores
def test_a_child_that_sends_too_few_cases_leaves_its_half_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, lines = _set_and_run(tmp_path)
    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 10**9)
    alone = score_lines(root, lines)
    real = scorer._GRADED

    class Short:
        def encode(self, value: list[Any]) -> bytes:
            return real.encode(value[:-1])

    monkeypatch.setattr(scorer, "_GRADED", Short())
    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 0)
    assert score_lines(root, lines) == alone


@needs_cores
def test_a_failure_while_the_child_grades_leaves_no_child_and_no_open_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, lines = _set_and_run(tmp_path)
    parent = os.getpid()
    forked: list[int] = []
    pipes: list[tuple[int, int]] = []
    real_fork, real_pipe, real_grade = os.fork, os.pipe, scorer._grade

    def fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    def pipe() -> tuple[int, int]:
        pipes.append(real_pipe())
        return pipes[-1]

    def grade(*args: Any, **kwargs: Any) -> list[Any]:
        if os.getpid() == parent:
            raise KeyboardInterrupt  # as a Ctrl-C in the middle of grading
        return real_grade(*args, **kwargs)

    monkeypatch.setattr(scorer, "GRADE_ASIDE_FROM", 0)
    monkeypatch.setattr(scorer, "_grade", grade)
    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(os, "pipe", pipe)
    with pytest.raises(KeyboardInterrupt):
        score_lines(root, lines)
    assert len(forked) >= 1 and pipes
    grading_child, (read_fd, _) = forked[-1], pipes[-1]
    try:
        with pytest.raises(ChildProcessError):  # reaped by score, not left to us
            os.waitpid(grading_child, os.WNOHANG)
        with pytest.raises(OSError):  # the pipe's read end is closed
            os.fstat(read_fd)
    finally:
        with contextlib.suppress(OSError):
            os.close(read_fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(grading_child, 0)
