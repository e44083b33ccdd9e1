"""What the page offers a labeller to click instead of type: the figures and names a selected
quote states (for the short answer), other ways to write a figure (for a ``contains`` entry
that accepts any one of them), and the figures of the same kind near the quote that it does
not state (for ``not_contains``: the confusable 30 days beside the right 14).

Figures are read by ``goldcase.figures``, the reader GC208 compares an answer's figures with;
an offer is a suggestion, never written without a click.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction

from goldcase.figures import WORDS, Figure, Quoted, Spans, figures, held

NEAR = 3000  # characters either side of a quote searched for confusable figures: about a page
MAX_OFFERS = 8
_PERCENT_AFTER = re.compile(r"\s?(?:%|per\s?cent\b)", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][\w'’&-]*(?:[ \t]+(?:of[ \t]+|&[ \t]+)?[A-Z][\w'’&-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;|]\s+|\n[\s#]*|^[\s#]*\d+(?:\.\d+)*\.?\s+)$")
# Capitalised words that are no name when alone (a sentence after a number or a quote).
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "A An The If It Its We Our You Your This That These Those When Where What Which Who "
        "How For In On At By To Of And Or But Not No Yes All Any Each Every Some",
    )
)
_NUMBER_WORD = {value: word for word, value in WORDS.items()}
_NEXT_WORD = re.compile(r"[\s-]*([A-Za-z]+)")
_NUMBERED = re.compile(r"[\s#\d.]*")


def figure_text(text: str, figure: Figure) -> str:
    """The figure as the text writes it, its percent sign included (``10%``)."""
    shown = text[figure.start : figure.end]
    if figure.percent:
        after = _PERCENT_AFTER.match(text, figure.end)
        if after:
            shown = text[figure.start : after.end()]
    return shown


def _stated(text: str) -> list[Figure]:
    """Figures a text states outright: "free" too, but not what is too often no figure at
    all ("an hour", "once", "one of the products") nor a clause number ("10.1 If you ...")."""
    out = []
    for figure in figures(text):
        free = figure.text.lower() == "free"
        if figure.implied and not free:
            continue
        if (
            not free
            and _bare(text, figure)
            and (not figure.text[:1].isdigit() or _clause(text, figure))
        ):
            continue
        out.append(figure)
    return out


def _bare(text: str, figure: Figure) -> bool:
    """A number with no unit, currency or percent sign."""
    return figure.kind == "number" and not figure.percent and text[figure.start] not in "£$€¥"


def _clause(text: str, figure: Figure) -> bool:
    """A clause or section number: "10.1 If ...", "## 10. Price match", "section 4"."""
    # the line before the figure, less " \t#" at its end, read back as far as "section" is
    # long: a copy of the whole line before each figure of a long line was quadratic
    end = figure.start
    while end and text[end - 1] in " \t#":
        end -= 1
    tail = text[max(0, end - len(_CLAUSE_LONGEST)) : end]
    if tail[tail.rfind("\n") + 1 :].lower().endswith(_CLAUSE_WORDS):
        return True
    after = text[figure.end : figure.end + 3]
    numbered = "." in figure.text or after.startswith(".") or after.strip()[:1].isupper()
    return (end == 0 or text[end - 1] == "\n") and numbered


_CLAUSE_WORDS = ("section", "§", "clause")
_CLAUSE_LONGEST = max(_CLAUSE_WORDS, key=len)


def _word_after(text: str, figure: Figure) -> str:
    match = _NEXT_WORD.match(text, figure.end)
    return match[1].lower() if match else ""


def names(text: str) -> list[str]:
    """Capitalised names (Gold, Brightwater Rewards, Daventry): a run of capitalised words,
    less a single one that only starts a sentence (or a clause) and any part of a figure
    (the March of 1 March)."""
    taken = Spans((f.start, f.end) for f in figures(text))
    numbered = _NUMBERED.match(text)
    lead = numbered.end() if numbered else 0
    out = []
    for match in _NAME.finditer(text):
        words = match[0].split()
        if taken.meets(match.start(), match.end()):
            continue
        if len(words) == 1 and (words[0] in _COMMON or _starts_sentence(text, match.start(), lead)):
            continue
        out.append(match[0])
    return out


def _starts_sentence(text: str, at: int, lead: int) -> bool:
    """Whether ``text[:at]`` ends as ``_SENTENCE_START`` says, read back over the white space
    and "#" before ``at`` and one character more, not the whole text before each name; all of
    it when it is white space, "#", digits and dots alone (``lead``: how far they run), as
    before a name on a numbered first line."""
    start = at
    while start and (text[start - 1].isspace() or text[start - 1] == "#"):
        start -= 1
    if at <= lead:
        start = 0
    return _SENTENCE_START.search(text, max(0, start - 1), at) is not None


def for_answer(quotes: Iterable[str]) -> tuple[list[str], list[str]]:
    """The figures, and the names, the quotes state: what a short answer is made of."""
    texts = list(quotes)
    found = [figure_text(quote, f) for quote in texts for f in _stated(quote)]
    named = [name for quote in texts for name in names(quote)]
    return _unique(found)[:MAX_OFFERS], _unique(named)[:MAX_OFFERS]


def _kind(text: str, figure: Figure) -> tuple[object, ...]:
    """What makes two figures confusable: a duration in the same family of units, an amount
    in the same currency, a percentage with a percentage, a time, a date; a bare number with
    a bare number counting the same thing (3,000 points, 500 points)."""
    currency = text[figure.start] if text[figure.start] in "£$€¥" else ""
    unit = figure.unit[0] if figure.unit else None
    counted = _word_after(text, figure) if _bare(text, figure) else ""
    return (figure.kind, unit, currency, figure.percent, counted)


def confusable(text: str, start: int, end: int) -> list[str]:
    """Figures within ``NEAR`` characters of ``text[start:end]`` (code points) of a kind the
    quote states, that the quote does not hold: nearest first."""
    quote = text[start:end]
    mine = _stated(quote)
    kinds = {_kind(quote, f) for f in mine}
    holds = Quoted(mine)
    low, high = max(0, start - NEAR), min(len(text), end + NEAR)
    window = text[low:high]
    near = []
    for figure in _stated(window):
        at = low + figure.start
        if start <= at < end or _kind(window, figure) not in kinds or held(figure, holds):
            continue
        distance = start - at if at < start else at - end
        near.append((distance, figure_text(window, figure)))
    near.sort(key=lambda item: item[0])
    return _unique(shown for _, shown in near)[:MAX_OFFERS]


def premise(question: str, passage: str) -> list[str]:
    """The figures a false premise asks about that the contradicting passage does not hold
    (the 24 hours of "reset links last 24 hours, right?")."""
    theirs = Quoted(_stated(passage))
    return _unique(figure_text(question, f) for f in _stated(question) if not held(f, theirs))[
        :MAX_OFFERS
    ]


def spellings(shown: str) -> list[str]:
    """Other ways to write one figure, for a ``contains`` entry any one of which passes:
    ``14 days`` -> ``14 days``, ``fourteen days``, ``14-day``; ``£29`` -> ``£29``, ``£29.00``;
    ``10%`` -> ``10%``, ``10 per cent``, ``ten per cent``."""
    found = figures(shown)
    if len(found) != 1 or found[0].start != 0:
        return [shown]
    figure = found[0]
    out = [shown]
    if figure.kind == "duration" and figure.value is not None:
        out.extend(_duration_spellings(shown, figure))
    elif figure.kind == "number" and figure.value is not None:
        out.extend(_number_spellings(shown, figure.value))
    return _unique(out)


def _duration_spellings(shown: str, figure: Figure) -> list[str]:
    match = re.fullmatch(r"(\S+)[\s-]+(.+)", shown)
    if not match or figure.value is None or figure.value.denominator != 1:
        return []
    rest = match[2]
    word = _NUMBER_WORD.get(int(figure.value))
    single = re.sub(r"s\b", "", rest, count=1) if rest.lower().endswith("s") else rest
    out = []
    if word is not None and match[1].isdigit():
        out.append(f"{word} {rest}")
    elif word is not None:
        out.append(f"{int(figure.value)} {rest}")
    if " " not in single:
        out.append(f"{int(figure.value)}-{single}")
    return out


def _number_spellings(shown: str, value: Fraction) -> list[str]:
    out = []
    currency = shown[0] if shown[0] in "£$€¥" else ""
    if currency and value.denominator == 1:
        out += [f"{currency}{int(value)}", f"{currency}{int(value)}.00"]
    if _PERCENT_AFTER.search(shown) and value.denominator == 1:
        out.append(f"{int(value)} per cent")
        word = _NUMBER_WORD.get(int(value))
        if word is not None:
            out.append(f"{word} per cent")
    elif not currency and value.denominator == 1 and shown.isdigit():
        word = _NUMBER_WORD.get(int(value))
        if word is not None:
            out.append(word)
    return out


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        key = item.lower()
        if item and key not in seen:
            seen.add(key)
            out.append(item)
    return out
