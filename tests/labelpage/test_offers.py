"""What the page offers to click (goldcase.labelpage.offers): the figures and names a quote
states, other spellings of a figure, confusable figures near a quote, a false premise's own
figures."""

from __future__ import annotations

import pytest

from goldcase.labelpage import offers
from goldcase.labelpage.offers import confusable, for_answer, names, premise, spellings
from kit import CountingText

PRICES = (
    "## 10. Price match\n\n"
    "10.1 If you find one of the products in this list for less at another UK retailer, we "
    "will match that price.\n\n"
    "10.2 Claims must be made within 7 days of placing your order. Refunds take 5 working "
    "days.\n\n"
    "Gold members pay £4.95 for express delivery; large items cost £29, or £19 in a sale.\n"
)


def span(text: str, needle: str) -> tuple[int, int]:
    start = text.index(needle)
    return start, start + len(needle)


@pytest.mark.parametrize(
    ("quotes", "figures", "named"),
    [
        (["Claims must be made within 7 days of placing your order."], ["7 days"], []),
        (["Opened large appliances carry a 10% restocking fee."], ["10%"], []),
        (["Large items cost £29.00 and ship from Daventry."], ["£29.00"], ["Daventry"]),
        (["Gold members get free express delivery from Brightwater Rewards."], ["free"],
         ["Brightwater Rewards"]),
        (["10.1 If you find one of the products for less, we will match it."], [], []),
        (["Orders placed before 2 pm on 1 March 2026 ship the same day."],
         ["2 pm", "1 March 2026"], []),
        (["A reset link lasts an hour and works once."], [], []),
        (["Section 4 lists every exception; see section 10 too."], [], []),
    ],
)  # fmt: skip
def test_for_answer(quotes: list[str], figures: list[str], named: list[str]) -> None:
    assert for_answer(quotes) == (figures, named)


def test_names_leave_out_a_capital_that_only_starts_a_sentence() -> None:
    assert names("Photographs help. Ask the Returns Team in Daventry.") == [
        "Returns Team",
        "Daventry",
    ]


@pytest.mark.parametrize(
    ("shown", "spelled"),
    [
        ("14 days", ["14 days", "fourteen days", "14-day"]),
        ("fourteen days", ["fourteen days", "14 days", "14-day"]),
        ("5 working days", ["5 working days", "five working days"]),
        ("£29", ["£29", "£29.00"]),
        ("£29.00", ["£29.00", "£29"]),
        ("£4.95", ["£4.95"]),
        ("10%", ["10%", "10 per cent", "ten per cent"]),
        ("14", ["14", "fourteen"]),
        ("2 pm", ["2 pm"]),
        ("Daventry", ["Daventry"]),
        ("14 days or 30 days", ["14 days or 30 days"]),
    ],
)
def test_spellings(shown: str, spelled: list[str]) -> None:
    assert spellings(shown) == spelled


def test_confusable_figures_are_near_and_of_the_same_kind() -> None:
    start, end = span(PRICES, "large items cost £29")
    assert confusable(PRICES, start, end) == ["£19", "£4.95"]  # nearest first; not 7 days
    start, end = span(PRICES, "Claims must be made within 7 days")
    assert confusable(PRICES, start, end) == []  # 5 working days are not calendar days


def test_a_figure_the_quote_holds_is_not_confusable() -> None:
    text = (
        "Return it within 14 days. After those 14 days, or a fortnight, nothing. 30 days for gifts."
    )
    start, end = span(text, "Return it within 14 days.")
    assert confusable(text, start, end) == ["30 days"]


def test_far_figures_are_not_offered() -> None:
    text = "Return it within 14 days." + " filler" * 500 + " Gifts: 30 days."
    start, end = span(text, "Return it within 14 days.")
    assert confusable(text, start, end) == []


def test_bare_numbers_are_confusable_only_when_they_count_the_same_thing() -> None:
    text = "3,000 points make a voucher. 500 points make a badge. Page 12 lists them."
    start, end = span(text, "3,000 points make a voucher.")
    assert confusable(text, start, end) == ["500"]


def test_a_false_premise_offers_the_figure_the_passage_contradicts() -> None:
    passage = "A password reset link is valid for 60 minutes and works only once."
    assert premise("password reset links last 24 hours right?", passage) == ["24 hours"]
    assert premise("so a reset link lasts an hour?", passage) == []  # no figure it contradicts


def test_the_line_before_each_figure_is_read_back_a_few_characters() -> None:
    """Whether a number is a clause number ("section 4", "10.1 If") copied the whole line
    before it: a line of 250,000 numbers took over a minute. Now the characters copied grow
    with the text, not with its square."""
    text = CountingText("7 x " * 20_000)
    CountingText.copied = 0
    figures, _ = for_answer([text])
    assert figures == ["7"]
    assert CountingText.copied <= 20 * len(text)


def test_a_name_is_told_from_a_sentence_start_by_what_stands_just_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whether a capitalised word only starts a sentence was searched for in the whole text
    before it: 40 kB of "Foo. " took 5 s, a megabyte hours. Now in the white space before the
    word and one character more."""
    spans: list[int] = []
    real = offers._SENTENCE_START

    class Recording:
        def search(self, text: str, pos: int = 0, endpos: int | None = None) -> object:
            spans.append((len(text) if endpos is None else endpos) - pos)
            return real.search(text, pos, len(text) if endpos is None else endpos)

    monkeypatch.setattr(offers, "_SENTENCE_START", Recording())
    assert names("Foo. " * 5000 + "Daventry Bar") == ["Daventry Bar"]
    assert len(spans) == 5000
    assert max(spans) <= len(". ")
    assert names("12. Gold") == []  # a numbered line: the whole text before it is read
