"""The figures a text states, read as values: numbers, amounts, durations, times and dates.

GC208 asks whether each figure an expected answer states is one its support quotes hold. A
figure is read as a value, not as text:

- a number in digits, with thousands separators and decimals (``14``, ``1,299``, ``39.99``),
  glued to what surrounds it or not: ``14-day``, ``£39``, ``10%``, ``24h`` and ``1st`` hold 14,
  39, 10, 24 and 1; a leading zero does not count (``05`` is 5);
- a number spelled out: ``zero`` to ``nineteen``, the tens, their compounds (``twenty-one``,
  ``forty five``), ``hundred`` and ``thousand`` multiples (``two hundred``), and ``half``;
- a duration: a number and a unit of time (``14 days``, ``four-hour``, ``48 hrs``,
  ``5 working days``). Minutes, hours, days and weeks convert into one another, months and
  years too (``one hour`` is ``60 minutes``, ``2 years`` is ``24 months``); working or
  business days only into themselves; days and months never (a month is not 30 days);
- a time of day (``14:00``, ``2 pm``, ``2 p.m.``, ``9.30am``): ``2 pm`` is ``14:00``;
- a date: ISO (``2026-03-01``), or a day and a month name in either order with an optional
  year (``1 March 2026``, ``March 1st``), or a month name and a year (``March 2026``).

``half an hour`` is half of one hour, and a percentage is also its share (``50%`` holds
``half``). Some figures a quote states without a number: ``a`` or ``an`` before a unit (``an
hour``) is one of it, ``free`` is 0, ``once`` and ``twice`` are 1 and 2, and digits in groups
(``GB 294 7716 05``) are also the number they spell together. Such a figure helps a quote hold
an answer's figure, but is never asked of an answer (it is too often not a figure at all: "once
a week"). "one" standing for a thing ("send a new one") is not a number.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from itertools import accumulate

from msgspec import Struct

from goldcase.dialect import lazy

_UNITS: dict[str, tuple[str, int]] = {}
for _names, _kind, _factor in (
    (("second", "seconds", "sec", "secs"), "time", 1),
    (("minute", "minutes", "min", "mins"), "time", 60),
    (("hour", "hours", "hr", "hrs", "h"), "time", 3600),
    (("day", "days"), "time", 86400),
    (("week", "weeks", "wk", "wks"), "time", 604800),
    (("fortnight", "fortnights"), "time", 1209600),
    (("month", "months"), "calendar", 1),
    (("year", "years", "yr", "yrs"), "calendar", 12),
):
    for _name in _names:
        _UNITS[_name] = (_kind, _factor)

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
WORDS: dict[str, int] = {w: i for i, w in enumerate(_ONES)}
WORDS.update({w: 20 + 10 * i for i, w in enumerate(_TENS)})
_SCALES = {"hundred": 100, "thousand": 1000}
MONTHS: dict[str, int] = {}
_MONTH_NAMES = "january february march april may june july august september october november"
for _i, _name in enumerate((*_MONTH_NAMES.split(" "), "december"), 1):
    MONTHS[_name] = _i
    MONTHS[_name[:3]] = _i
MONTHS["sept"] = 9
del MONTHS["may"]  # "may" is far more often the verb; "May" is read below with a capital
_MONTH_WORDS = "(?i:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")|May"
# Every month word begins with one of these (its first three letters), "May" too.
_MONTH_STEMS = tuple(sorted({name[:3] for name in MONTHS} | {"may"}))

# A lookahead at the start of a pattern or branch, ``(?=\d)`` or ``(?=[…])``, names the
# characters a match can begin with (the first characters of its words, as the parser would
# gather ``a|b`` into ``[ab]``): the patterns mean the same without it, but the engine then
# leaves most positions of a text after one test instead of trying every alternative there.
_DIGITS = r"(?=\d)(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d])"
_NUMBER_NAMES = sorted((*WORDS, *_SCALES, "half"), key=len, reverse=True)
_WORD = r"(?:" + "|".join(_NUMBER_NAMES) + r")"
_WORD_FIRSTS = "".join(sorted({w[0] for w in _NUMBER_NAMES}))
_WORD_START = f"[{_WORD_FIRSTS}]"
_NUMBER_WORDS = rf"\b(?={_WORD_START}){_WORD}(?:[\s-]+(?:and[\s-]+)?{_WORD})*\b"
# The lookahead before the two branches: one test leaves a position, not one per branch.
_TOKEN = lazy(
    rf"(?=[\d{_WORD_FIRSTS}])(?:(?P<digits>{_DIGITS})|(?P<words>{_NUMBER_WORDS}))", re.IGNORECASE
)
_UNIT_AFTER = lazy(
    r"(?:st|nd|rd|th)?[\s-]?(?:(?P<work>working|business)[\s-])?(?P<unit>[a-z]+)\b",
    re.IGNORECASE,
)
_UNIT_NAMES = "second|minute|hour|day|week|fortnight|month|year"
_UNIT_WORDS = tuple(_UNIT_NAMES.split("|"))
_ARTICLE_UNIT = lazy(
    rf"\b(?=[ha])(?P<half>half[\s-])?(?:a|an)[\s-](?P<unit>{_UNIT_NAMES})(?P<more>\s+and\s+a\s+half)?\b",
    re.IGNORECASE,
)
_AND_A_HALF = lazy(
    rf"\b(?=\d|{_WORD_START})(?P<n>\d+|{_WORD})\s+and\s+a\s+half[\s-](?P<unit>(?:{_UNIT_NAMES})s?)\b",
    re.IGNORECASE,
)
_CLOCK = lazy(
    r"(?=\d)(?<![\d.,:])(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?\s*(?P<ap>[ap]\.?\s?m\b\.?)?(?![\d:])",
    re.IGNORECASE,
)
_ISO_DATE = lazy(r"(?=\d)(?<!\d)(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?!\d)")
_DAY = r"(?P<{name}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<{name}>\d{{4}}))?"
_MONTH_START = "(?i:[" + "".join(sorted({m[0] for m in MONTHS})) + "])"  # May's M too
_NAMED_DATE = lazy(
    rf"\b(?=\d|{_MONTH_START})(?:"
    + _DAY.format(name="d1")
    + rf"(?:\s+of)?\s+(?P<m1>{_MONTH_WORDS})\b\.?"
    + _YEAR.format(name="y1")
    + rf"|(?P<m2>{_MONTH_WORDS})\b\.?\s+"
    + _DAY.format(name="d2")
    + _YEAR.format(name="y2")
    + rf"|(?P<m3>{_MONTH_WORDS})\b\.?\s+(?P<y3>\d{{4}})"
    + r")\b",
)


class Figure(Struct, frozen=True):
    """One figure: where it stands, what it says, and the values it can be compared by."""

    kind: str  # number | duration | time | date
    start: int
    end: int
    text: str
    value: Fraction | None = None  # the number (of a duration too)
    unit: tuple[str, Fraction] | None = None  # duration: (unit kind, amount in its base)
    at: tuple[int | None, int, int | None] | None = None  # time (None, h, m) / date (y, m, d)
    implied: bool = False  # "an hour", "free", "once": never asked of an answer
    percent: bool = False  # "50%" is also one half

    def numbers(self) -> tuple[Fraction, ...]:
        """The numbers this figure shows, for another figure to be found among."""
        if self.kind == "date" and self.at is not None:
            return tuple(Fraction(p) for p in (self.at[0], self.at[2]) if p is not None)
        if self.kind == "time" and self.at is not None:
            hour = self.at[1]
            return (Fraction(hour), Fraction(hour % 12 or 12))
        if self.value is None:
            return ()
        return (self.value, self.value / 100) if self.percent else (self.value,)


def figures(text: str) -> list[Figure]:
    """Every figure in ``text``, in order; dates, times and "half an hour" first take their
    numbers."""
    has = _Needs(text)
    found = [*_dates(text, has), *_clocks(text, has), *_article_units(text, has)]
    taken = Spans((figure.start, figure.end) for figure in found)
    found.extend(figure for figure in _numbers(text) if not taken.meets(figure.start))
    found.extend(_implied_numbers(text, has))
    return sorted(found, key=lambda f: (f.start, f.end))


class Spans:
    """Spans of a text (figures), asked whether one meets an offset or a span in logarithmic
    time: a text can hold a hundred thousand figures, and as many numbers or names to place."""

    __slots__ = ("_reach", "_starts")

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [start for start, _ in ordered]
        self._reach = list(accumulate((end for _, end in ordered), max, initial=0))[1:]

    def meets(self, start: int, end: int | None = None) -> bool:
        """Whether some span shares a character with ``start:end`` (``end`` one past
        ``start`` when not given)."""
        i = bisect_left(self._starts, start + 1 if end is None else end)
        return i > 0 and self._reach[i - 1] > start


class _Needs:
    """What a pattern needs before it is worth a scan of the text: a digit, or one of its
    words. A missing word is a substring test in C instead of a pattern tried at every
    position. Only ASCII text is tested for words: there, ignoring case is lower-casing;
    elsewhere a character can match a letter it does not lower-case to (the long s is an s,
    the Kelvin sign a k), so such text is searched with every pattern."""

    __slots__ = ("_lower", "digit")

    def __init__(self, text: str) -> None:
        self.digit = _ANY_DIGIT.search(text) is not None
        self._lower = text.lower() if text.isascii() else None

    def word(self, words: tuple[str, ...]) -> bool:
        """Whether the text may hold one of ``words`` (ignoring case)."""
        lower = self._lower
        return lower is None or any(word in lower for word in words)


def held(figure: Figure, others: Iterable[Figure] | Quoted) -> bool:
    """Whether ``others`` (a quote's figures) state ``figure``: the same date, the same time,
    the same number anywhere (a percentage as its share too), or for a duration the same
    amount in another unit. Asking of many figures, pass ``Quoted(others)``, built once."""
    quoted = others if isinstance(others, Quoted) else Quoted(others)
    if figure.kind == "date":
        return figure.at is not None and any(key in quoted.dates for key in _date_asks(figure.at))
    if figure.kind == "time":
        return figure.at in quoted.times
    if any(number in quoted.numbers for number in figure.numbers()):
        return True
    return figure.unit is not None and figure.unit in quoted.units


_ANY = -1  # a day or year a date key leaves open


class Quoted:
    """A quote's figures as sets of what ``held`` looks for, so that each figure asked is a
    few look-ups, not a pass over every figure quoted: a case can state a hundred thousand."""

    __slots__ = ("dates", "numbers", "times", "units")

    def __init__(self, others: Iterable[Figure]) -> None:
        self.numbers: set[Fraction] = set()
        self.units: set[tuple[str, Fraction]] = set()
        self.times: set[tuple[int | None, int, int | None] | None] = set()
        self.dates: set[tuple[int, int | None, int | None]] = set()
        for other in others:
            self.numbers.update(other.numbers())
            if other.unit is not None:
                self.units.add(other.unit)
            if other.kind == "time":
                self.times.add(other.at)
            elif other.kind == "date" and other.at is not None:
                year, month, day = other.at
                for d in (day, _ANY):
                    self.dates.update(((month, d, year), (month, d, _ANY)))


def _date_asks(
    a: tuple[int | None, int, int | None],
) -> tuple[tuple[int, int | None, int | None], ...]:
    """The keys of ``Quoted.dates`` that hold answer date ``a``: the same month, the same day
    when the answer gives one (a quote's "1 September 1939" holds "September 1939", not the
    other way round), the same year when both give one."""
    year, month, day = a
    days = _ANY if day is None else day
    return ((month, days, _ANY),) if year is None else ((month, days, year), (month, days, None))


def _numbers(text: str) -> Iterator[Figure]:
    for match in _TOKEN.finditer(text):
        if match["words"] and _pronoun(text, match):
            continue
        value = _digits(match) if match["digits"] else _spelled(match["words"])
        if value is None:
            continue
        unit = _UNIT_AFTER.match(text, match.end())
        start = match.start()
        if start and text[start - 1] in _CURRENCY:  # shown with the amount: "£7.50"
            start -= 1
        yield _with_unit(start, match.end(), text, value, unit)


_CURRENCY = frozenset("£$€¥")
_PRONOUN_BEFORE = "a|an|the|new|this|that|which|each|every|any|no|another|same|other|only"
_BEFORE_PRONOUN = lazy(rf"\b(?:{_PRONOUN_BEFORE})\s+$", re.IGNORECASE)
_LONGEST_BEFORE = max(len(word) for word in _PRONOUN_BEFORE.split("|"))
_SPACES = lazy(r"\s*")


_ONE_IDIOM = lazy(
    r"\s+(?:another|by\s+one|or\s+(?:the\s+)?other|from\s+the\s+other)\b", re.IGNORECASE
)


def _pronoun(text: str, match: re.Match[str]) -> bool:
    """Whether a number word is not a count: "non-zero", and "one" standing for a thing
    ("send a new one", "the one I ordered", "one from the other"): after an article or a
    determiner, in an idiom, or with no word after it."""
    if text[max(0, match.start() - 4) : match.start()].lower() == "non-":
        return True
    if match["words"].lower() != "one":
        return False
    spaces = _SPACES.match(text, match.end())
    after = spaces.end() if spaces else match.end()  # \s* always matches
    if not text[after : after + 1].isalpha() or _ONE_IDIOM.match(text, match.end()):
        return True
    # the word before the white space that ends at the match: searched in that white space and
    # the longest such word before it, not in the whole text before every "one" (quadratic)
    word_end = match.start()
    while word_end and text[word_end - 1].isspace():
        word_end -= 1
    since = max(0, word_end - _LONGEST_BEFORE)
    return _BEFORE_PRONOUN.search(text, since, match.start()) is not None


_PERCENT = lazy(r"\s?(?:%|per\s?cent\b)", re.IGNORECASE)


def _with_unit(
    start: int, end: int, text: str, value: Fraction, unit: re.Match[str] | None
) -> Figure:
    name = unit["unit"].lower() if unit else ""
    if _PERCENT.match(text, end):
        return Figure("number", start, end, text[start:end], value, percent=True)
    if unit is None or name not in _UNITS:
        return Figure("number", start, end, text[start:end], value)
    kind, factor = _UNITS[name]
    if unit["work"]:
        if name not in ("day", "days"):
            return Figure("number", start, end, text[start:end], value)
        kind, factor = "workday", 1
    stop = unit.end()
    return Figure("duration", start, stop, text[start:stop], value, (kind, value * factor))


def _digits(match: re.Match[str]) -> Fraction | None:
    whole = match.group(2).replace(",", "")
    try:
        number = Decimal(whole + (f".{match.group(3)}" if match.group(3) else ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only digits
        return None
    return Fraction(number)


def _spelled(words: str) -> Fraction | None:
    """``twenty-one`` -> 21, ``two hundred`` -> 200, ``half`` -> 1/2; None for what is not one
    number (``ten twenty``)."""
    parts = [w for w in re.split(r"[\s-]+", words.lower()) if w and w != "and"]
    if parts == ["half"]:
        return Fraction(1, 2)
    total = current = 0
    last = None
    for part in parts:
        if part in _SCALES:
            if last is None or last == "scale":
                return None
            current, last = max(current, 1) * _SCALES[part], "scale"
            if _SCALES[part] >= 1000:
                total, current = total + current, 0
        elif part in WORDS:
            if last == "ones" or (last == "tens" and WORDS[part] >= 10):
                return None
            current, last = current + WORDS[part], "tens" if WORDS[part] >= 20 else "ones"
        else:
            return None
    return Fraction(total + current)


def _article_units(text: str, has: _Needs) -> Iterator[Figure]:
    """ "an hour" (implied: never asked), "half an hour", "a year and a half", "one and a half
    years"."""
    if not has.word(_UNIT_WORDS):  # both patterns name a unit
        return
    for match in _ARTICLE_UNIT.finditer(text):
        amount = Fraction(1, 2) if match["half"] else Fraction(3, 2) if match["more"] else 1
        figure = _duration(match, Fraction(amount), implied=amount == 1)
        if figure is not None:
            yield figure
    for match in _AND_A_HALF.finditer(text) if _HALF.search(text) else ():
        n = match["n"]
        whole = Fraction(Decimal(n)) if n.isdigit() else _spelled(n)  # int(): 4,300 digits at most
        figure = None if whole is None else _duration(match, whole + Fraction(1, 2), implied=False)
        if figure is not None:
            yield figure


def _duration(match: re.Match[str], amount: Fraction, *, implied: bool) -> Figure | None:
    """None for a unit that matched only by ignoring case beyond lower-casing ("ſecond")."""
    unit = _UNITS.get(match["unit"].lower())
    if unit is None:
        return None
    kind, factor = unit
    start, end = match.start(), match.end()
    return Figure(
        "duration", start, end, match[0], amount, (kind, amount * factor), implied=implied
    )


_FREE, _ONCE, _TWICE = "free", "once|single", "twice"
_IMPLIED = lazy(
    rf"\b(?=[fost])(?:(?P<free>{_FREE})|(?P<once>{_ONCE})|(?P<twice>{_TWICE}))\b", re.IGNORECASE
)
_IMPLIED_WORDS = tuple(f"{_FREE}|{_ONCE}|{_TWICE}".split("|"))
_GROUPED = lazy(r"(?=\d)(?<![\d.,])\d+(?: \d+)+(?![\d.,])")
# What a match of _AND_A_HALF and of _GROUPED holds (and "-", of _ISO_DATE): a text without
# it is not searched with the whole pattern, one quick search instead of a slow one.
_HALF = lazy("half", re.IGNORECASE)
_DIGIT_SPACE_DIGIT = lazy(r"\d \d")
_ANY_DIGIT = lazy(r"\d")  # what _DIGITS, _CLOCK and the dates need (\d, as they say it)


def _implied_numbers(text: str, has: _Needs) -> Iterator[Figure]:
    """What a quote says without a figure: "free" is 0, "once" and "single" 1, "twice" 2, and
    digits in groups ("GB 294 7716 05", "0800 123 4567") are also the one number they spell."""
    for match in _IMPLIED.finditer(text) if has.word(_IMPLIED_WORDS) else ():
        value = Fraction(0 if match["free"] else 1 if match["once"] else 2)
        yield Figure("number", match.start(), match.end(), match[0], value, implied=True)
    for match in _GROUPED.finditer(text) if _DIGIT_SPACE_DIGIT.search(text) else ():
        joined = Fraction(Decimal(re.sub(r"\D", "", match[0])))  # int(): 4,300 digits at most
        yield Figure("number", match.start(), match.end(), match[0], joined, implied=True)


def _clocks(text: str, has: _Needs) -> Iterator[Figure]:
    """``14:00``, ``2 pm``, ``9.30am``: a number with minutes and a colon, or with am / pm."""
    for match in _CLOCK.finditer(text) if has.digit else ():
        hour, minute, half = int(match["h"]), match["m"], match["ap"]
        colon = minute is not None and text[match.end("h")] == ":"
        if not (half or colon) or (half and not 1 <= hour <= 12):
            continue
        if half:
            hour = hour % 12 + (12 if half.lower().startswith("p") else 0)
        end = match.end("ap") if half else match.end("m")
        at = (None, hour, int(minute or 0))
        yield Figure("time", match.start(), end, text[match.start() : end], at=at)


def _dates(text: str, has: _Needs) -> Iterator[Figure]:
    if not has.digit:  # each shape of date has one
        return
    for match in _ISO_DATE.finditer(text) if "-" in text else ():
        at = (int(match[1]), int(match[2]), int(match[3]))
        yield Figure("date", match.start(), match.end(), match[0], at=at)
    for match in _NAMED_DATE.finditer(text) if has.word(_MONTH_STEMS) else ():
        month = _month(match["m1"] or match["m2"] or match["m3"])
        day = match["d1"] or match["d2"]
        year = match["y1"] or match["y2"] or match["y3"]
        if month is None or (day is not None and not 1 <= int(day) <= 31):
            continue
        named = (int(year) if year else None, month, int(day) if day else None)
        yield Figure("date", match.start(), match.end(), match[0], at=named)


def _month(name: str | None) -> int | None:
    if name is None:
        return None
    if name == "May":
        return 5
    return MONTHS.get(name.lower())
