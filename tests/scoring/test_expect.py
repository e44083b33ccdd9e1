"""The text checks on their own: folding, numbers as numbers, first words, each rule."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goldcase.dialect import compiled
from goldcase.scoring.expect import (
    _PREPARED,
    PREPARED_KEPT,
    answer_appears,
    failed_checks,
    first_word,
    fold,
    found,
    found_words,
    needle_pattern,
    rule_key,
)
from goldcase.text import normalise_answer


@pytest.mark.parametrize(
    ("hay", "needle", "expected"),
    [
        ("park 15 feet away", "15", True),
        ("park 15. then go", "15", True),
        ("(15)", "15", True),
        ("15th of may", "15", True),
        ("section 21-1003", "1003", True),
        ("park 150 feet away", "15", False),
        ("park 115 feet away", "15", False),
        ("about 1.5 car lengths", "15", False),
        ("about 1.5 car lengths", "1.5", True),
        ("15,000 feet", "15", False),
        ("since 2015", "15", False),
        ("1,000 feet", "1,000", True),
        ("1000 feet", "1,000", False),
        ("1,000 feet", "1000", False),
        ("10,000 feet", "1,000", False),
        ("1,0000 feet", "1,000", False),
        ("£4.95 a parcel", "4.95", True),
        ("£14.95 a parcel", "4.95", False),
        ("30 days", "30 days", True),
        ("130 days", "30 days", False),
        ("returns window", "turn", True),  # the cites rule: words are substrings
        ("anything", "", True),
    ],
)
def test_found_matches_numbers_as_numbers(hay: str, needle: str, expected: bool) -> None:
    assert found(fold(hay), fold(needle)) is expected


# contains / not_contains: whole words and numbers, never inside a word (issue 24's examples).
@pytest.mark.parametrize(
    ("hay", "needle", "expected"),
    [
        ("if you close your account your points are kept", "lose", False),
        ("you lose your points", "lose", True),
        ("it starts with wr, otherwise the claim waits", "rw", False),
        ("a reference such as rw123456", "rw", False),  # a letter-digit run is one word
        ("a reference such as rw 123456", "rw", True),
        ("the reference starts with rw.", "rw", True),
        ("prices have not changed since 2015", "inc", False),
        ("prices are inc. vat", "inc", True),
        ("no, prices do not include vat", "include", True),
        ("no, prices do not include vat", "includes", False),
        ("you can't cancel it", "can", False),  # an apostrophe between letters joins a word
        ("you can cancel it", "can", True),
        ("don't worry", "do", False),
        ("the 'rw' prefix", "rw", True),  # a quotation mark is not inside a word
        ("a 14-day window", "14", True),  # hyphens separate words
        ("a 14-day window", "day", True),
        ("(£19)", "£19", True),
        ("£190", "£19", False),
        ("a £19 charge", "19", True),
        ("it is 10%.", "10%", True),
        ("it is 110%.", "10%", False),
        ("48 hours", "48 hour", False),  # whole words: list the plural
        ("within 12 months, not 24 months", "12 months", True),
        ("within 12 months, not 24 months", "2 months", False),
        ("park 15. then go", "15", True),
        ("15,000 feet", "15", False),
        ("about 1.5 car lengths", "15", False),
        ("in café terms", "caf", False),
        ("in café terms", "café", True),
        ("zwölf monate", "zwölf monate", True),
        ("anything", "", True),
        ("x", "-", False),
        ("a - b", "-", True),
    ],
)
def test_found_words_matches_whole_words_and_numbers(hay: str, needle: str, expected: bool) -> None:
    assert found_words(fold(hay), fold(needle)) is expected


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_number_is_found_as_a_word_only_as_itself(shown: int, wanted: int) -> None:
    assert found_words(f"it is {shown} days", str(wanted)) is (shown == wanted)


@given(st.text("abc ", max_size=12), st.text("abc", min_size=1, max_size=4))
def test_a_word_is_found_only_where_the_answer_has_it_as_a_token(hay: str, needle: str) -> None:
    assert found_words(hay, needle) is (needle in hay.split())


@pytest.mark.parametrize(
    ("hay", "needle", "expected"),
    [
        ("clause 12 then clause 1", "clause 1", True),  # the second occurrence stands alone
        ("11 1 1", "1 1", True),  # the first occurrence is inside 11 1, the next is not
        ("11 1", "1 1", False),
        ("aa a", "a a", False),  # an overlapping occurrence is looked at too
        ("aa a a", "a a", True),
    ],
)
def test_every_occurrence_of_a_needle_is_tried(hay: str, needle: str, expected: bool) -> None:
    assert found_words(hay, needle) is expected


@given(st.text("a1 .,'-", max_size=14), st.text("a1 .,'-", min_size=1, max_size=4), st.booleans())
def test_a_needle_is_found_where_its_expression_matches(hay: str, needle: str, words: bool) -> None:
    """The expression ``needle_pattern`` writes (the one the promptfoo grader applies) and
    the check agree on every text."""
    expression = compiled(needle_pattern(needle, words=words))
    finds = found_words if words else found
    assert finds(hay, needle) is (expression.search(hay) is not None)


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_number_is_found_only_as_itself(shown: int, wanted: int) -> None:
    assert found(f"it is {shown} days", str(wanted)) is (shown == wanted)


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("  Fifteen\tFEET\n", "fifteen feet"),
        ("don’t", "don't"),
        ("§ 21–1003(m)", "§ 21-1003(m)"),
        ("ＡＢＣ　１５", "abc 15"),  # full-width letters, digits and space
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("No, you cannot.", "no"),
        ("  **No** - never", "no"),
        ("Yes.", "yes"),
        ("Don't do it", "don't"),
        ("¿Sí? claro", "sí"),
        ("...", ""),
        ("", ""),
    ],
)
def test_first_word(text: str, word: str) -> None:
    assert first_word(text) == word


def result(answer: str | None = None, **fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"id": "c", "outcome": "answer", **fields}
    if answer is not None:
        line["answer"] = answer
    return line


@pytest.mark.parametrize(
    ("expect", "line", "failed"),
    [
        ({"fact": "k1"}, result(fact="k1"), []),
        ({"fact": "k1"}, result(fact="K1"), ["fact"]),  # keys are exact
        ({"scope": "Road-Law"}, result("x", scope="road-law"), []),
        ({"scope": "road-law"}, result("x"), ["scope"]),
        ({"lead": "no"}, result("No."), []),
        ({"lead": "no"}, result(fact="no"), ["lead"]),  # no text, no first word
        ({"lead": ["no", "nope", "unfortunately"]}, result("Unfortunately not."), []),
        ({"lead": ["no", "nope"]}, result("Nope - never."), []),
        ({"lead": ["no", "nope"]}, result("Not for a change of mind."), ["lead"]),
        ({"lead": ["yes", "yep"]}, result("No problem: yes."), ["lead"]),
        ({"contains": ["15", ["feet", "ft"]]}, result("15 ft"), []),
        ({"contains": ["15", ["feet", "ft"]]}, result("15 metres"), ["contains"]),
        ({"not_contains": ["500", "five hundred"]}, result("Five Hundred feet"), ["not_contains"]),
        ({"contains": [["lost", "lose"]]}, result("Close it: points kept"), ["contains"]),
        ({"contains": [["include", "inc"]]}, result("Fixed since 2020"), ["contains"]),
        ({"not_contains": ["24 months"]}, result("12 months"), []),
        ({"not_contains": ["no"]}, result("Nope, not now"), []),
        ({"cites": "§ 21-1003(m)"}, result("x", citations=[{"id": "a"}]), ["cites"]),
        ({"cites": "§ 21-1003(m)"}, result("x", citations=[{"text": "§ 21–1003(m)"}]), []),
        ({"cites_id": "MD-P-16"}, result("x", citations=[{"text": "MD-P-16-1"}]), ["cites_id"]),
        (
            {"fact": "k", "lead": "yes", "contains": ["3"], "cites_id": "Z"},
            result("No, 4.", fact="j"),
            ["fact", "lead", "contains", "cites_id"],
        ),
    ],
)
def test_each_declared_check(
    expect: dict[str, Any], line: dict[str, Any], failed: list[str]
) -> None:
    assert failed_checks(expect, "expected", line) == failed


@pytest.mark.parametrize(
    ("expected", "answer", "ok"),
    [
        ("14 days", "You have 14 days.", True),
        ("14 days", "You have fourteen days.", False),
        ("The Gold tier", "gold tier", True),  # articles and case are normalised away
        ("£1,000", "up to £1,000 a year", True),
        ("£1,000", "up to £1000 a year", False),
        ("1.5", "15", False),
        ("15", "1.5", False),
        ("", "anything", False),
    ],
)
def test_default_check_looks_for_the_expected_answer(expected: str, answer: str, ok: bool) -> None:
    assert answer_appears(expected, answer) is ok
    assert failed_checks({}, expected, result(answer)) == ([] if ok else ["expected_answer"])


def test_default_check_fails_a_fact_only_answer() -> None:
    assert failed_checks({}, "14 days", result(fact="fourteen")) == ["expected_answer"]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_the_ascii_path_of_normalise_answer_agrees_with_the_general_one(text: str) -> None:
    from goldcase.text import _APOSTROPHES, _ARTICLES, _is_punct_or_symbol, fold_space

    lowered = text.lower().translate(_APOSTROPHES)
    general = fold_space(
        _ARTICLES.sub(" ", "".join(ch for ch in lowered if not _is_punct_or_symbol(ch)))
    )
    assert normalise_answer(text) == general


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=30))
def test_the_ascii_path_of_fold_folds_space_like_the_general_one(text: str) -> None:
    from goldcase.text import fold_space

    assert fold(text) == fold_space(text.lower())


# --- rules prepared once per value, shared by the cases that declare it ----------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("1", ["1"]),  # text and a one-entry list read alike for contains, not for cites
        (["1"], [["1"]]),  # an entry and a one-option list of alternatives
        (["a", "b"], ["b", "a"]),
        (["a", "b"], ["a", "b", "b"]),
        ([["a", "b"]], ["a", "b"]),
        ("a", "A"),
    ],
)
def test_values_that_differ_never_share_a_prepared_rule(first: Any, second: Any) -> None:
    assert rule_key(first) is not None and rule_key(second) is not None
    assert rule_key(first) != rule_key(second)


@pytest.mark.parametrize("value", [1, 1.0, True, None, {"a": "b"}, [1], ["a", [2]], [("a",)]])
def test_values_the_case_schema_refuses_are_prepared_afresh(value: Any) -> None:
    """1, 1.0 and True compare equal but read as "1", "1.0" and "True": no key would keep
    them apart from each other and from "1", so none is shared."""
    assert rule_key(value) is None


@pytest.mark.parametrize(
    ("one", "fails", "other", "other_fails", "line"),
    [
        ({"cites": "1"}, [], {"cites": ["1"]}, ["cites"], {"citations": [{"text": "see 1"}]}),
        ({"contains": ["1"]}, [], {"contains": ["12"]}, ["contains"], {"answer": "1"}),
        ({"lead": "yes"}, ["lead"], {"lead": ["yes", "no"]}, [], {"answer": "No, never."}),
        ({"not_contains": ["a"]}, ["not_contains"], {"not_contains": ["b"]}, [], {"answer": "a c"}),
    ],
)
def test_a_rule_prepared_for_one_value_never_grades_another(
    one: dict[str, Any],
    fails: list[str],
    other: dict[str, Any],
    other_fails: list[str],
    line: dict[str, Any],
) -> None:
    """Two values of one check that grade a line differently, each graded twice (the second
    time from the rule prepared the first time), in both orders."""
    for expect, failed in ((one, fails), (other, other_fails), (one, fails), (other, other_fails)):
        assert failed_checks(expect, None, result(**line)) == failed


def test_the_table_of_prepared_rules_is_bounded() -> None:
    for n in range(PREPARED_KEPT + 10):
        assert failed_checks({"contains": [f"word{n}"]}, None, result(f"word{n}")) == []
    assert 0 < len(_PREPARED) <= PREPARED_KEPT
    assert failed_checks({"contains": ["word0"]}, None, result("word1")) == ["contains"]


@pytest.mark.parametrize(
    "expect",
    [
        {"contains": ["x"], "lead": "y", "cites": "z"},
        {"cites": "z", "lead": "y", "contains": ["x"]},
        {"lead": "y", "cites": "z", "contains": ["x"]},
    ],
)
def test_failed_checks_follow_the_documented_order_whatever_the_keys_order(
    expect: dict[str, Any],
) -> None:
    for _ in range(2):  # the second time from the order found the first time
        assert failed_checks(expect, None, result("no")) == ["lead", "contains", "cites"]
