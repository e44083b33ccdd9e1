"""Drawing the sample (docs/triage.md, "How the sample is drawn"): the quota of flagged traces,
random traffic for the rest, the seeded order, and every reason a trace is passed over."""

from __future__ import annotations

import random

import pytest
from msgspec.structs import replace

from goldcase.leakage.neardup import NearConfig
from goldcase.text import normalise_input
from goldcase.traffic.sample import FLAGGED, RANDOM, Draw, Known, Listed, Plan, draw
from goldcase.traffic.traces import Trace
from traffic.kit import GOLDEN_QUESTION, distinct_questions


def make(question: str, line: int, *flags: str, key: str | None = None) -> Trace:
    return Trace(line, key or f"t-{line}", None, question, None, None, tuple(flags))


def plan(n: int, share: float = 0.8, seed: str = "7") -> Plan:
    return Plan(n, share, seed, NearConfig())


def run(
    traces: list[Trace], p: Plan, known: list[Known] | None = None, inbox: set[str] | None = None
) -> Draw:
    return draw(Listed(traces), known or [], inbox or set(), p)


def population(flagged: int, plain: int) -> list[Trace]:
    questions = distinct_questions(flagged + plain)
    return [
        make(q, i + 1, *(("failed_check",) if i < flagged else ())) for i, q in enumerate(questions)
    ]


@pytest.mark.parametrize(
    ("n", "share", "quota"),
    [(10, 0.8, (8, 2)), (5, 0.5, (3, 2)), (7, 0.35, (2, 5)), (4, 1.0, (4, 0)), (4, 0.0, (0, 4))],
)
def test_the_quota_rounds_half_up(n: int, share: float, quota: tuple[int, int]) -> None:
    result = run(population(40, 40), plan(n, share))
    assert result.quota == quota
    assert [d.stratum for d in result.drawn] == [FLAGGED] * quota[0] + [RANDOM] * quota[1]
    assert all(d.trace.flagged for d in result.drawn[: quota[0]])


def test_random_traffic_fills_what_the_flagged_cannot() -> None:
    result = run(population(3, 40), plan(10))
    assert [d.stratum for d in result.drawn] == [FLAGGED] * 3 + [RANDOM] * 7
    assert result.flagged_pool == 3


def test_a_small_log_gives_what_it_has() -> None:
    assert len(run(population(2, 3), plan(50)).drawn) == 5


def test_the_same_seed_draws_the_same_whatever_the_order_of_the_lines() -> None:
    traces = population(30, 30)
    shuffled = traces[:]
    random.Random(1).shuffle(shuffled)
    first = [d.trace.key for d in run(traces, plan(12)).drawn]
    assert first == [d.trace.key for d in run(shuffled, plan(12)).drawn]
    other = [d.trace.key for d in run(traces, plan(12, seed="8")).drawn]
    assert set(other) != set(first)


def test_exact_and_near_duplicates_of_the_set_are_passed_over() -> None:
    traces = [
        make(GOLDEN_QUESTION.upper() + "?!", 1, "failed_check"),  # the same after folding
        make(GOLDEN_QUESTION.replace("damaged", "broken"), 2, "failed_check"),  # one word
        make("a question of its own about kettles", 3, "failed_check"),
    ]
    known = [Known(normalise_input(GOLDEN_QUESTION), "golden case ret-001")]
    result = run(traces, plan(3, 1.0), known)
    assert [d.trace.line for d in result.drawn] == [3]
    assert result.skipped == {"duplicate": 1, "near_duplicate": 1}


def test_repeats_and_near_repeats_of_a_drawn_trace_are_passed_over() -> None:
    base = "is the warranty on my cordless drill two years or three"
    traces = [
        make(base, 1, "failed_check"),
        make(base + "!!", 2, "failed_check"),
        make(base.replace("cordless", "electric"), 3, "failed_check"),
    ]
    result = run(traces, plan(3, 1.0))
    assert len(result.drawn) == 1
    assert result.skipped == {"repeat": 1, "near_repeat": 1}
    assert result.drawn[0].repeats == 2  # the same question asked twice more in the log


def test_a_question_of_no_words() -> None:
    result = run([make("?!?", 1, "cap_hit"), make("what now", 2, "cap_hit")], plan(2, 1.0))
    assert [d.trace.line for d in result.drawn] == [2]
    assert result.skipped == {"no_words": 1}


def test_a_trace_drafted_already_is_kept_and_counts() -> None:
    traces = population(5, 0)
    first = run(traces, plan(3, 1.0))
    from goldcase.ids import draft_id

    inbox = {draft_id(d.trace.key, None, ()) for d in first.drawn}
    known = [Known(normalise_input(d.question), "draft") for d in first.drawn]
    again = run(traces, plan(3, 1.0), known, inbox)
    assert [d.trace.key for d in again.drawn] == [d.trace.key for d in first.drawn]
    assert all(d.kept for d in again.drawn) and not again.skipped


def test_a_flagged_trace_drawn_is_not_drawn_again_as_random() -> None:
    traces = population(2, 0)
    result = run(traces, plan(4, 0.5))
    assert sorted(d.trace.line for d in result.drawn) == [1, 2]
    assert not result.skipped


def test_the_random_pool_has_its_own_order() -> None:
    """Were the random pool ranked with the flagged pool's key, the flagged traces left out of
    the flagged quota would sink to its bottom: random traffic would under-draw failures."""
    traces = [replace(t, flags=("failed_check",)) for t in population(40, 0)]
    result = run(traces, plan(20, 0.5))
    flagged = [d.trace.key for d in result.drawn if d.stratum == FLAGGED]
    ranked = run(traces, plan(40, 1.0))
    order = [d.trace.key for d in ranked.drawn]
    cut = max(order.index(k) for k in flagged)
    randoms = [order.index(d.trace.key) for d in result.drawn if d.stratum == RANDOM]
    assert cut == 9 and min(randoms) >= 10 and max(randoms) > 20
