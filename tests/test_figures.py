"""Figures read as values (goldcase.figures), as docs/check.md's GC208 section describes them:
an answer's figure is held by a quote that states the same value, whatever its spelling."""

from __future__ import annotations

import re
import sys
from fractions import Fraction

import pytest

from goldcase import figures as figures_module
from goldcase.figures import _MONTH_START, _NUMBER_NAMES, _WORD_START, MONTHS, figures, held


def asked(text: str) -> list[str]:
    """The figures an answer is asked to have quoted (implied ones are not)."""
    return [f.text for f in figures(text) if not f.implied]


@pytest.mark.parametrize(
    ("answer", "quote"),
    [
        ("14 days", "a 14-day free trial"),  # the example, the right way round
        ("fourteen days", "A customer has 14 days from delivery"),
        ("14", "within 14 days"),
        ("two weeks", "within 14 days"),
        ("one hour", "valid for 60 minutes"),
        ("60 minutes", "valid for an hour"),  # "an hour" holds, though it is never asked
        ("half an hour", "locked for 30 minutes"),
        ("a year and a half", "after 18 months of inactivity"),
        ("one and a half years", "after 18 months of inactivity"),
        ("one card only", "a single order between two cards"),
        ("24 months", "a two-year guarantee"),
        ("2 pm", "orders placed before 14:00"),
        ("14:00", "before 2 p.m. on a business day"),
        ("£1,299", "priced at £1299.00"),
        ("twenty-one days", "within 21 days"),
        ("two hundred points", "earn 200 points"),
        ("50%", "we may deduct half of the price"),
        ("half", "up to 50% may be deducted"),
        ("10 per cent", "a 10% restocking fee"),
        ("£0", "delivery is free"),
        ("one retry", "we try again once"),
        ("GB294771605", "our VAT number, GB 294 7716 05"),
        ("1 March 2026", "from 2026-03-01"),
        ("March 1st", "on 1 March 2026"),
        ("September 1939", "on 1 September 1939"),  # the quote is the more precise
        ("5 working days", "within five business days"),
        ("the 15th", "on 15 March"),
    ],
)
def test_a_quote_holds_the_same_value_spelt_another_way(answer: str, quote: str) -> None:
    quoted = figures(quote)
    wanted = [f for f in figures(answer) if not f.implied]
    assert wanted, answer
    assert all(held(f, quoted) for f in wanted), (wanted, quoted)


@pytest.mark.parametrize(
    ("answer", "quote"),
    [
        ("yes, 30 days", "a 14-day free trial"),
        ("15", "within 150 days"),  # numbers are whole: 15 is not in 150
        ("1.5", "within 15 days"),
        ("30 days", "within one month"),  # a month is not a number of days
        ("5 days", "within 5 business days of inspection"),  # only the number 5 is asked...
        ("2 pm", "open until 4 pm"),
        ("1 April", "from 1 March"),
        ("March 2025", "until March 2026"),
        ("1 September 1939", "in September 1939"),  # a day the quote does not give
        ("£7.50", "the surcharge still applies when delivery is free"),
    ],
)
def test_a_different_value_is_not_held(answer: str, quote: str) -> None:
    quoted = figures(quote)
    wanted = [f for f in figures(answer) if not f.implied]
    if answer == "5 days":  # ...and a number held anywhere in the quote is enough
        assert all(held(f, quoted) for f in wanted)
        return
    assert not all(held(f, quoted) for f in wanted), (wanted, quoted)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Yes, a new one", []),  # "one" standing for a thing
        ("the one I ordered last week", []),
        ("subtracting one from the other", []),
        ("a non-zero velocity", []),
        ("One retry after 24 hours", ["One", "24 hours"]),
        ("once a week", []),  # implied figures are never asked
        ("you may 2 things", ["2"]),  # "may" is not May
        ("order 3 items in May 2026", ["3", "May 2026"]),
        ("Dec. 5, 2025", ["Dec. 5, 2025"]),
        ("10-14 days", ["10", "14 days"]),
        ("£9.95, order before 2 pm", ["£9.95", "2 pm"]),
        ("ten twenty", []),  # not one number
        ("a 4-hour slot", ["4-hour"]),
        ("version 2.0.1", ["2.0"]),
    ],
)
def test_what_counts_as_a_figure(text: str, shown: list[str]) -> None:
    assert asked(text) == shown


def test_values() -> None:
    (five,) = figures("five working days")
    assert (five.kind, five.value, five.unit) == ("duration", Fraction(5), ("workday", 5))
    (share,) = figures("12%")
    assert share.numbers() == (Fraction(12), Fraction(12, 100))
    (clock,) = figures("9.30am")
    assert (clock.kind, clock.at) == ("time", (None, 9, 30))
    (date,) = figures("2026-03-01")  # one figure: its numbers are taken
    assert date.numbers() == (Fraction(2026), Fraction(1))
    assert [f.value for f in figures("forty five, one thousand and two, 1,000,000")] == [
        45,
        1002,
        1000000,
    ]


EVERY_CHARACTER = "".join(map(chr, range(sys.maxunicode + 1)))


@pytest.mark.parametrize(
    ("start", "firsts", "flags"),
    [
        (_WORD_START, "|".join(w[0] for w in _NUMBER_NAMES), re.IGNORECASE),
        # the month names ignore case, "May" does not
        (_MONTH_START, "(?i:" + "|".join(m[0] for m in MONTHS) + ")|M", 0),
    ],
)
def test_a_lookahead_admits_exactly_the_characters_its_words_start_with(
    start: str, firsts: str, flags: int
) -> None:
    """The lookaheads that let the engine skip positions name every character a word can
    start with, case folding included (the long s starts "seven" as s does)."""
    assert re.findall(start, EVERY_CHARACTER, flags) == re.findall(firsts, EVERY_CHARACTER, flags)


def shown(text: str) -> list[tuple[str, str, Fraction | None, bool]]:
    return [(f.kind, f.text, f.value, f.implied) for f in figures(text)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a pattern's words are looked for in any case before the text is searched with it
        ("FREE DELIVERY", [("number", "FREE", Fraction(0), True)]),
        ("Once A WEEK", [("number", "Once", Fraction(1), True), ("duration", "A WEEK", 1, True)]),
        ("HALF AN HOUR", [("duration", "HALF AN HOUR", Fraction(1, 2), False)]),
        ("3 MARCH 2020", [("date", "3 MARCH 2020", None, False)]),
        ("by 1 Sept", [("date", "1 Sept", None, False)]),
        ("May 2026", [("date", "May 2026", None, False)]),  # "May" with its capital
        ("TWO AND A HALF YEARS", [("duration", "TWO AND A HALF YEARS", Fraction(5, 2), False)]),
        # without a digit there is no date, time or grouped number to read
        ("March, at noon", []),
        (
            "half past two in March",
            [("number", "half", Fraction(1, 2), False), ("number", "two", Fraction(2), False)],
        ),
    ],
)
def test_words_in_any_case(text: str, found: list[tuple[str, str, object, bool]]) -> None:
    assert shown(text) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # beyond ASCII, ignoring case is more than lower-casing: the long s is an s, so such
        # a text is searched with every pattern, whatever words its lower case shows
        ("a ſingle parcel", [("number", "ſingle", Fraction(1), True)]),
        ("FREE, café", [("number", "FREE", Fraction(0), True)]),
        (
            "1 März, 2 March",
            [("number", "1", Fraction(1), False), ("date", "2 March", None, False)],
        ),
        ("٣ and a half days", [("duration", "٣ and a half days", Fraction(7, 2), False)]),
    ],
)
def test_text_beyond_ascii(text: str, found: list[tuple[str, str, object, bool]]) -> None:
    assert shown(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "wait a ſecond",  # "second" ignoring case, but no unit's name once lower-cased
        "a mınute",  # the dotless i
        "one and a half ſeconds",
    ],
)
def test_a_unit_matched_only_by_case_folding_is_no_duration(text: str) -> None:
    assert all(f.kind != "duration" for f in figures(text))


def test_numbers_longer_than_int_reads_are_read() -> None:
    """Python refuses to read more than 4,300 digits as an int: such a figure is read all
    the same (a case file is hostile input)."""
    ones = "1" * 5000
    (duration,) = figures(f"{ones} and a half days")
    assert duration.value == (10**5000 - 1) // 9 + Fraction(1, 2)
    grouped = [f for f in figures(f"{ones} 2") if f.implied]
    assert [f.value for f in grouped] == [(10**5001 - 1) // 9 + 1]


def test_one_standing_for_a_thing_is_told_from_the_words_just_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whether "one" follows "a", "the", "another"... was searched for in the whole text
    before each "one" (30 kB of "one x" took 10 s, a megabyte hours): now in the white space
    and the one word before it."""
    spans: list[int] = []
    real = figures_module._BEFORE_PRONOUN

    class Recording:
        def search(self, text: str, pos: int, endpos: int) -> re.Match[str] | None:
            spans.append(endpos - pos)
            return real.search(text, pos, endpos)

    monkeypatch.setattr(figures_module, "_BEFORE_PRONOUN", Recording())
    text = "one x " * 5000 + "a new one x"
    found = figures(text)
    assert len(found) == 5000
    assert len(spans) == 5001
    assert max(spans) <= len("another ")


def test_numbers_among_many_dates_and_durations_are_each_placed_once() -> None:
    """Each number was compared with every date, time and "an hour" already read, to leave
    out those they hold: 50,000 of each (500 kB) took two minutes."""
    found = figures("an hour 7 " * 50_000)
    assert [f.text for f in found[:2]] == ["an hour", "7"]
    assert len(found) == 100_000
