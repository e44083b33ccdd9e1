"""``goldcase triage`` in bounded memory (docs/triage.md, "Speed"): the log is read as a
stream and each pool is ranked a window at a time, so a log ten times longer takes no more
memory, and a walk longer than a window draws what the whole order draws."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.config import TRACE_FIELDS
from goldcase.leakage.neardup import NearConfig
from goldcase.traffic import sample
from goldcase.traffic.sample import Listed, Plan, draw
from goldcase.traffic.traces import MAX_BAD_KEPT, LogFile, Trace
from kit import run_cli
from traffic.kit import trace

Repo = Callable[..., Path]
NAMES = {f: f for f in TRACE_FIELDS}


def write_week(path: Path, count: int) -> Path:
    """``count`` short traces, a third flagged, every question its own (numbers are words)."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            row = trace(i, f"where is parcel {i} of order {i * 7} please", failed=i % 3 == 0)
            out.write(json.dumps(row) + "\n")
    return path


def peak_of_triage(root: Path, log: Path) -> int:
    tracemalloc.start()
    try:
        result = run_cli("triage", "--repo", root, log, "--dry-run", "--n", "5")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.stderr
    return peak


def test_a_log_ten_times_longer_takes_no_more_memory(
    make_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the log was read whole and every trace kept as an object: the peak grew with
    the log (about 2.5 MB per 1,000 of these traces). Now it holds a window of ranks (made
    small here so that both logs are longer than it) and one line at a time."""
    monkeypatch.setattr(sample, "WINDOW", 64)
    monkeypatch.setattr(sample, "BLOCK", 32)
    root = make_repo()
    peak_of_triage(root, write_week(tmp_path / "warm.jsonl", 10))  # imports and caches
    small = peak_of_triage(root, write_week(tmp_path / "small.jsonl", 1_000))
    large = peak_of_triage(root, write_week(tmp_path / "large.jsonl", 10_000))
    print(f"peak: {small:,} bytes for 1,000 traces, {large:,} for 10,000")
    assert large < small + 1_000_000, (small, large)


def many_repeats() -> list[Trace]:
    """Forty traces asking one question, then forty of their own: the walk passes over many
    before it fills the quota."""
    rows = [trace(i, "is my parcel lost", failed=True) for i in range(40)]
    rows += [
        trace(40 + i, f"question {i} about kettle {i * 3}", failed=i % 2 == 0) for i in range(40)
    ]
    return [
        Trace(i + 1, str(r["id"]), str(r["id"]), str(r["question"]), None, None,
              ("failed_check",) if r["failed_check"] else ())
        for i, r in enumerate(rows)
    ]  # fmt: skip


def outcome(result: sample.Draw) -> tuple[object, ...]:
    drawn = [(d.trace.key, d.stratum, d.repeats) for d in result.drawn]
    return drawn, dict(result.skipped), result.flagged_pool


@pytest.mark.parametrize("window", [1, 3, 7])
def test_a_walk_longer_than_the_window_draws_what_the_whole_order_draws(
    window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    traces = many_repeats()
    plan = Plan(20, 0.5, "w10", NearConfig())
    whole = outcome(draw(Listed(traces), [], set(), plan))
    monkeypatch.setattr(sample, "WINDOW", window)
    monkeypatch.setattr(sample, "BLOCK", 2)
    assert outcome(draw(Listed(traces), [], set(), plan)) == whole
    assert whole[1]["repeat"] > 7  # the walk went past every window


def test_the_log_read_as_a_stream_draws_what_the_list_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    traces = many_repeats()
    path = tmp_path / "log.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": t.key, "question": t.question, "failed_check": t.flagged})
            for t in traces
        )
        + "\n",
        encoding="utf-8",
    )
    plan = Plan(20, 0.5, "w10", NearConfig())
    whole = outcome(draw(Listed(traces), [], set(), plan))
    monkeypatch.setattr(sample, "WINDOW", 5)
    with LogFile(path, "log.jsonl", NAMES) as source:
        assert outcome(draw(source, [], set(), plan)) == whole


def test_bad_lines_are_counted_past_those_kept(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("not json\n" * (MAX_BAD_KEPT + 5) + '{"question": "ok"}\n', encoding="utf-8")
    log = LogFile(path, "log.jsonl", NAMES).survey()
    assert (log.bad_lines, len(log.bad), log.traces) == (MAX_BAD_KEPT + 5, MAX_BAD_KEPT, 1)
