"""The labelling estimate (docs/triage.md, "The labelling estimate"), checked against the
method's own figures."""

from __future__ import annotations

import pytest

from goldcase.traffic.estimate import Estimate, duration


def test_two_hundred_random_items() -> None:
    """200 items at 60 s is 12,000 s; about 20 disagree at a 90% pass rate, two or three
    minutes each: about 50 minutes."""
    estimate = Estimate(0, 200, 60, 150, 0.9)
    assert estimate.first_pass == 12_000
    assert estimate.disagreements == pytest.approx(20)
    assert estimate.second_pass == 3_000
    assert duration(estimate.total) == "4 h 10 min"


def test_five_hundred_contracts() -> None:
    """500 items at 90 s is 45,000 s (12.5 hours); a second pass over the 15% that disagree,
    75 items at three minutes, is 225 minutes."""
    estimate = Estimate(0, 500, 90, 180, 0.85)
    assert estimate.first_pass == 45_000
    assert estimate.second_pass == 225 * 60
    assert estimate.total == 58_500


def test_flagged_items_are_all_expected_to_disagree() -> None:
    estimate = Estimate(40, 10, 60, 150, 0.9)
    assert estimate.disagreements == pytest.approx(41)
    assert estimate.lines() == [
        "first pass: 50 items x 60 s = 50 min",
        "second pass: (40 flagged + 10 not flagged x 10%) = 41 expected disagreements x 150 s "
        "= 1 h 42 min 30 s",
        "in all: about 2 h 32 min 30 s of the labeller's time",
    ]
    assert estimate.as_dict()["total_seconds"] == 9150


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0 s"), (45, "45 s"), (60, "1 min"), (3600, "1 h"), (3661, "1 h 1 min 1 s")],
)
def test_duration(seconds: int, shown: str) -> None:
    assert duration(seconds) == shown
