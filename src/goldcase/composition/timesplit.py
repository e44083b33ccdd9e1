"""The time split: golden cases from the latest traffic, dev cases from earlier.

The prompt author reads the dev set and writes rules against it; when every golden question
was asked after every dev question, the prompt is scored on traffic its author has not read.
A case says when its question was asked with ``asked_at`` (``goldcase triage`` fills it from
the trace); a case without one has no place in time and is left out of both the check and the
ranges.
"""

from __future__ import annotations

from collections.abc import Iterable

from msgspec import Struct

from goldcase.model import Case
from goldcase.moments import Moment, parse_moment, span


def asked(case: Case) -> Moment | None:
    value = case.data.get("asked_at")
    return parse_moment(value) if isinstance(value, str) else None


def dated(cases: Iterable[Case]) -> list[tuple[Case, Moment]]:
    return [(case, moment) for case in cases if (moment := asked(case)) is not None]


class Range(Struct, frozen=True):
    first: Moment | None
    last: Moment | None
    dated: int  # cases with an asked_at
    total: int

    def as_dict(self) -> dict[str, object]:
        return {
            "first": None if self.first is None else self.first.text(),
            "last": None if self.last is None else self.last.text(),
            "dated": self.dated,
            "cases": self.total,
        }


def time_range(cases: list[Case]) -> Range:
    """When the questions of ``cases`` were asked: the earliest and the latest."""
    moments = [moment for _, moment in dated(cases)]
    bounds = span(moments)
    first, last = bounds if bounds is not None else (None, None)
    return Range(first, last, len(moments), len(cases))


def newest(cases: Iterable[Case]) -> tuple[Case, Moment] | None:
    """The case asked last (the first of them by id when several share the moment)."""
    found = sorted(dated(cases), key=lambda pair: (pair[1].at, pair[0].id))
    return max(found, key=lambda pair: pair[1].at, default=None)


def older_golden(golden: list[Case], dev: list[Case]) -> tuple[Case, Moment, list[Case]] | None:
    """The newest dev case, its moment, and the golden cases asked before it (None when no
    dev case is dated)."""
    last = newest(dev)
    if last is None:
        return None
    case, moment = last
    older = [g for g, when in dated(golden) if when.before(moment)]
    return case, moment, older
