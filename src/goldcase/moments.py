"""When a question was asked: the ``asked_at`` of a case, read and compared.

An ``asked_at`` is an ISO 8601 date (``2026-03-02``) or date and time (``2026-03-02T09:14:00Z``,
``2026-03-02 09:14``, ``2026-03-02T10:14:00+01:00``); the case schema gives its shape. A time
without an offset is read as UTC. Two moments compare on the precision both carry: a date
against a date and time compares the two dates, so a case asked on "2026-03-02" is neither
older nor newer than one asked at 09:14 that day.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from msgspec import Struct

# Trace times given as a number are Unix seconds; outside these bounds (1970 to 2100) a number
# is more likely milliseconds or garbage than a time.
_EPOCH_MAX = 4102444800
_DATE_ONLY = re.compile(r"\d{4}-?\d{2}-?\d{2}")


class Moment(Struct, frozen=True):
    at: datetime  # aware, UTC
    date_only: bool

    def before(self, other: Moment) -> bool:
        """Strictly earlier, on the precision both carry."""
        if self.date_only or other.date_only:
            return self.at.date() < other.at.date()
        return self.at < other.at

    def text(self) -> str:
        """The canonical ``asked_at`` text: the date, or the UTC time to the second."""
        if self.date_only:
            return self.at.date().isoformat()
        return self.at.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_moment(text: str) -> Moment | None:
    """The moment an ``asked_at`` names, or None when it names none (``2026-02-30``)."""
    text = text.strip()
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    date_only = _DATE_ONLY.fullmatch(text) is not None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return Moment(parsed.astimezone(UTC), date_only)
    except OverflowError:  # 0001-01-01T00:00:00+01:00: in UTC, before the first day there is
        return None


def trace_moment(value: Any) -> Moment | None:
    """A trace's time: an ISO 8601 string, or Unix seconds as a number (1970 to 2100)."""
    if isinstance(value, str) and 10 <= len(value.strip()) <= 40:
        return parse_moment(value)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    # compared, never converted: an int of 400 digits has no float, NaN compares false
    if number and 0 <= value < _EPOCH_MAX:
        return Moment(datetime.fromtimestamp(int(value), UTC), False)
    return None


def span(moments: list[Moment]) -> tuple[Moment, Moment] | None:
    """The earliest and the latest of ``moments`` (None for none)."""
    if not moments:
        return None
    return min(moments, key=_order), max(moments, key=_order)


def _order(moment: Moment) -> tuple[datetime, bool]:
    return moment.at, not moment.date_only
