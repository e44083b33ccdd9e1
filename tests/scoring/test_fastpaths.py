"""The fast paths `goldcase score` takes agree with an independent reference: the SQuAD
script's tokens, JSON that reads back, reading the results file line by line, the docs' folding."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.scoring.expect import fold
from goldcase.scoring.metrics import squad_tokens
from goldcase.scoring.outcomes import in_trial_order
from goldcase.scoring.report import render_json
from goldcase.scoring.results import Result, _decode, _parse_each, parse_lines
from goldcase.text import fold_space
from scoring.squad_reference import tokens as squad_reference_tokens

# Text that exercises the folds: digits and separators next to words, curly quotes, dashes,
# full-width forms, odd spaces, case.
ALPHABET = "ab Ab15.,-–’'\"“§ＡＢ１\u00a0\u2028\t\n\x1cß"
texts = st.text(ALPHABET, max_size=24)
needles = st.text(ALPHABET, max_size=6)


def test_str_split_and_the_regex_agree_on_every_space() -> None:
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.findall(r"\s", everything) == [c for c in everything if c.isspace()]


@settings(max_examples=300)
@given(st.one_of(st.text(), texts, st.text("\u02bb\u02bc\u02bd\u2011\u2212\u00a7 x", max_size=6)))
def test_fold_is_fold_space_of_the_normalised_text(text: str) -> None:
    import unicodedata

    from goldcase.scoring.expect import FOLDS

    plain = (
        " ".join(text.lower().split())
        if text.isascii()
        else fold_space(unicodedata.normalize("NFKC", text).casefold().translate(FOLDS))
    )
    assert fold(text) == plain


# --- answer metrics -----------------------------------------------------------------------------

ANSWER_PIECES = ["a", "an", "the", "The", " ", "x", "1", ".", "'", "`", "_", "-", "A", "é", "’"]
CONTROLS = ["\x01", "\x1c", "\x7f", "\t", "\x0b"]
ascii_answers = st.lists(st.sampled_from(ANSWER_PIECES + CONTROLS), max_size=12).map("".join)


@settings(max_examples=500)
@given(st.one_of(ascii_answers, st.text(max_size=12)))
def test_answer_tokens_are_the_squad_scripts(text: str) -> None:
    assert squad_tokens(text) == squad_reference_tokens(text)


def test_every_ascii_character_is_dropped_or_kept_as_the_squad_script_does() -> None:
    for code in range(128):
        text = f"x{chr(code)}a the an{chr(code)}y"
        assert squad_tokens(text) == squad_reference_tokens(text), repr(chr(code))


# --- reading the results file -------------------------------------------------------------------

byte_lines = st.sampled_from([
    b'{"id": "a", "outcome": "abstain"}',
    b'{"id": "b", "outcome": "answer", "answer": "15 \xc2\xa7 feet", "confidence": 0.5}',
    b'{"id": "c", "outcome": "answer", "answer": "x", "citations": [{"id": "1", "id": "2"}]}',
    b'{"id": "d", "outcome": "abstain", "outcome": "error"}',
    b'{"id": "e", "outcome": "answer", "answer": "\\u0041", "confidence": NaN}',
    b'{"id": "f", "outcome": "answer", "trial": 123456789012345678901234567890, "fact": "k"}',
    b'{"id": "g", "outcome": "abstain"}, {"id": "h", "outcome": "abstain"}',
    b'{"id": "i", "outcome": "abstain"',
    b'{"id": "j\xff", "outcome": "abstain"}',
    b'{"id": "k", "outcome": "abstain"}\r',
    b"[1, 2]",
    b"",
    b"   ",
])  # fmt: skip


@settings(max_examples=400)
@given(st.lists(byte_lines, max_size=6), st.sampled_from([b"", b"\n", b"\n\n"]), st.booleans())
def test_reading_the_bytes_at_once_equals_reading_the_text_line_by_line(
    lines: list[bytes], tail: bytes, bom: bool
) -> None:
    raw = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + tail
    fast, fast_problems = parse_lines(raw, "run.jsonl")
    text, problem = _decode(raw, "run.jsonl")
    slow, slow_problems = ([], [problem]) if problem else _parse_each(text, "run.jsonl")
    assert [(r.line, r.data) for r in fast] == [(r.line, r.data) for r in slow]
    assert fast_problems == slow_problems


@given(st.lists(st.one_of(st.none(), st.integers(0, 4)), max_size=6))
def test_lines_in_trial_order_are_sorted_as_the_plain_key_sorts_them(
    trials: list[int | None],
) -> None:
    lines = [Result(n, {"id": "c", "outcome": "abstain", "trial": t}) for n, t in enumerate(trials)]
    want = sorted(lines, key=lambda r: r.trial or 0)
    assert [r.line for r in in_trial_order(lines)] == [r.line for r in want]


# --- the JSON report ----------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),  # a report holds finite numbers only
    st.text(),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=5), inner, max_size=4),
    ),
    max_leaves=25,
)


@settings(max_examples=400)
@given(json_values)
def test_the_report_json_reads_back_as_the_report(value: Any) -> None:
    written = render_json({"cases": value})
    assert json.loads(written) == {"cases": value}
    assert written.endswith("\n") and written.startswith('{\n  "cases": ')
