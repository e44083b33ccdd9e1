"""A cold check with many files runs some families in a forked child: the findings and the
cache it leaves are the same as when every family runs in one process, and a child that fails
changes nothing but the time taken."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase import checks, engine, forked
from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.model import Finding
from goldcase.scoring import scorer
from goldcase.scoring.outcomes import CaseGrader

# pytest-timeout's thread method runs a timer thread beside every test, and goldcase never
# forks beside another thread: these tests use the signal method, so the fork path runs.
pytestmark = pytest.mark.timeout(120, method="signal")

QUESTION = "How many days does a customer have to request a credit for a damaged delivery?"


def case(case_id: str, question: str, slice_: str = "returns") -> str:
    return (
        f"id: {case_id}\nquestion: {question}\nexpected_answer: 14 days\n"
        "support:\n  - doc: returns-policy.md\n"
        "    quote: A customer has 14 days from delivery to request a credit\n"
        f"slice: {slice_}\n"
    )


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    """Findings from both sides: GC301 (leakage, a golden question in the dev set), GC202
    (support, a quote not in its document), GC107 (schema) and GC5xx (composition)."""
    return make_repo(
        {
            "cases/golden/g-001.yaml": case("g-001", QUESTION),
            "cases/golden/g-002.yaml": case("g-002", "Can I return a custom mug?").replace(
                "A customer has 14 days", "A customer has 15 days"
            ),
            "cases/golden/g-003.yaml": case("g-003", "What is the fee?") + "tags: [1]\n",
            "cases/dev/d-001.yaml": case("d-001", QUESTION),
        }
    )


def run(root: Path, cache: Path | None = None) -> list[Finding]:
    alive = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    assert not alive, f"threads left running by an earlier test keep goldcase from forking: {alive}"
    ctx = Context(load_config(root), Cache(cache))
    return engine.run_checks(ctx).findings


def codes(findings: list[Finding]) -> set[str]:
    return {f.code for f in findings}


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fork for any number of files, and count the forks (each still a real one)."""
    monkeypatch.setattr(engine, "PARALLEL_FROM", 1)
    started: list[int] = []
    real_fork = forked.fork

    def counting_fork(work: Callable[[], object]) -> object:
        started.append(1)
        return real_fork(work)

    monkeypatch.setattr(forked, "fork", counting_fork)
    return started


def in_one_process(repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[Finding]:
    with monkeypatch.context() as patch:
        patch.setattr(engine, "CHILD_FAMILIES", ())
        return run(repo)


def test_the_forked_run_finds_what_one_process_finds(
    repo: Path, monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    alone = in_one_process(repo, monkeypatch)
    assert {"GC301", "GC202", "GC107", "GC501"} <= codes(alone)
    assert forks == []
    assert run(repo) == alone
    assert forks == [1]


def test_the_childs_cache_is_kept(repo: Path, forks: list[int]) -> None:
    """The leakage family runs in the child; its cache namespaces are saved by the parent,
    so the next run finds them."""
    cache = repo / ".goldcase-cache"
    cold = run(repo, cache)
    assert forks == [1]
    saved = {p.name for p in cache.rglob("*.msgpack")}
    assert {"files.msgpack", "support.msgpack"} <= saved  # the parent's own
    assert any(name.startswith("leakage") for name in saved)  # from the child
    assert run(repo, cache) == cold
    assert forks == [1]  # nothing parsed afresh: no fork


def test_a_failing_child_changes_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    alone = in_one_process(repo, monkeypatch)
    parent = os.getpid()
    leakage = checks.family("leakage")
    real_check = leakage.check

    def dies_in_the_child(*args: object) -> object:
        if os.getpid() != parent:
            raise MemoryError("the child ran out")
        return real_check(*args)

    monkeypatch.setattr(leakage, "check", dies_in_the_child)
    assert run(repo) == alone
    assert forks == [1]


def test_fork_returns_the_childs_result_or_none() -> None:
    child = forked.fork(lambda: ("in the child", os.getpid()))
    assert child is not None
    result = child.result()
    assert result is not None and result[0] == "in the child" and result[1] != os.getpid()

    def fails() -> int:
        raise ValueError("no")

    failing = forked.fork(fails)
    assert failing is not None and failing.result() is None
    unpicklable = forked.fork(lambda: lambda: 1)
    assert unpicklable is not None and unpicklable.result() is None


def test_a_cancelled_child_is_reaped() -> None:
    child = forked.fork(lambda: b"x" * 1_000_000)  # more than a pipe holds: it blocks
    assert child is not None
    child.cancel()
    # this child, not any: an earlier test may leave a child of its own (multiprocessing's
    # resource tracker, started by the first spawned pool, lives as long as this process)
    with pytest.raises(ChildProcessError):
        os.waitpid(child._pid, os.WNOHANG)


def graded_repo(make_repo: Callable[..., Path]) -> tuple[Path, Path]:
    """40 cases (a quarter unanswerable), three trials each, with every outcome."""
    files: dict[str, str | bytes] = {}
    lines = []
    for i in range(40):
        case_id = f"c-{i:03d}"
        if i % 4 == 0:
            files[f"cases/golden/{case_id}.yaml"] = (
                f"id: {case_id}\nquestion: who runs depot {i}\nanswerable: false\n"
            )
        else:
            files[f"cases/golden/{case_id}.yaml"] = case(case_id, f"How long for request {i}?")
            files[f"cases/golden/{case_id}.yaml"] += 'expect:\n  contains: ["14"]\n'
        for trial in (1, 2, 3):
            roll = (i * 7 + trial) % 5
            line = {"id": case_id, "trial": trial, "outcome": "answer", "confidence": 0.5}
            line["answer"] = "You have 14 days." if roll < 3 else "You have 30 days."
            if roll == 4:
                line = {"id": case_id, "trial": trial, "outcome": "abstain"}
            lines.append(json.dumps(line))
    root = make_repo(files)
    results = root / "run.jsonl"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, results


def report_of(root: Path, results: Path) -> dict[str, object]:
    ctx = Context(load_config(root), Cache(None))
    return scorer.score(ctx, results)


def test_grading_shared_with_a_child_gives_the_same_report(
    make_repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    root, results = graded_repo(make_repo)
    alone = report_of(root, results)
    assert forks == []  # 120 lines: under FORK_FROM
    monkeypatch.setattr(scorer, "FORK_FROM", 1)
    assert report_of(root, results) == alone
    assert forks == [1]
    parent = os.getpid()
    real_grade = CaseGrader.grade

    def dies_in_the_child(self: CaseGrader, *args: object) -> object:
        if os.getpid() != parent:
            raise MemoryError("the child ran out")
        return real_grade(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(CaseGrader, "grade", dies_in_the_child)
    assert report_of(root, results) == alone
    assert forks == [1, 1]
