"""The support family's memory of where each quote is: a quote looked for once is not looked
for again in the same corpus, and any change to the corpus looks again (docs/check.md,
"The cache")."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from goldcase.cache import Cache, decode
from goldcase.checks import support
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.corpus import Corpus
from goldcase.engine import run_checks
from goldcase.figures import Figure
from kit import cache_folder, case_text, golden_set, write

QUOTE = "A customer has 14 days from delivery to request a credit"


def _codes(root: Path) -> list[tuple[str, str]]:
    ctx = Context(load_config(root), Cache.for_repository(root))
    run = run_checks(ctx, ["support"])
    return [(Path(f.path).name, f.code) for f in run.findings]


def _checked_then_watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The two-case set, checked once (it passes); then the quotes each later run looks for."""
    golden_set(tmp_path)
    assert _codes(tmp_path) == []
    return _searches(monkeypatch)


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The quotes each later run looks for in the corpus documents."""
    seen: list[list[str]] = []
    real = support.locate_quotes

    def recording(quotes: list[str], corpus: Corpus) -> dict[str, set[str]]:
        seen.append(sorted(quotes))
        return real(quotes, corpus)

    monkeypatch.setattr(support, "locate_quotes", recording)
    return seen


def test_a_case_edited_elsewhere_than_its_quote_searches_no_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = _checked_then_watched(tmp_path, monkeypatch)
    edited = case_text("ret-001") + "notes: reworded the question\n"
    write(tmp_path, "cases/golden/ret-001.yaml", edited)
    assert _codes(tmp_path) == []
    assert searches == [[]]  # the case was judged again, its quote found in the cache


def test_a_quote_remembered_is_looked_for_again_once_the_corpus_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = _checked_then_watched(tmp_path, monkeypatch)
    write(tmp_path, "corpus/older-policy.md", f"# Older policy\n\n{QUOTE}.\n")
    assert _codes(tmp_path) == [("ret-001.yaml", "GC205")]  # now in two documents
    policy = tmp_path / "corpus/returns-policy.md"
    policy.write_text(policy.read_text().replace(QUOTE, "A customer has 30 days"))
    assert _codes(tmp_path) == [("ret-001.yaml", "GC204")]  # only in the other one
    assert [len(quotes) for quotes in searches] == [2, 2]  # each change: both quotes again


def test_a_damaged_place_in_the_cache_is_looked_for_again(tmp_path: Path) -> None:
    golden_set(tmp_path)
    _codes(tmp_path)
    tables = decode((cache_folder(tmp_path) / "support-places.msgpack").read_bytes())
    [(state, table)] = tables.items()  # one table for the corpus
    assert len(table) == 2  # one place for each quote
    cache = Cache.for_repository(tmp_path)
    cache.put("support-places", state, dict.fromkeys(table, "not a list of documents"))
    cache.save()
    for case_id in ("ret-001", "ret-002"):  # judged again: edited
        text = case_text(case_id) + "notes: touched\n"
        write(tmp_path, f"cases/golden/{case_id}.yaml", text)
    assert _codes(tmp_path) == []


def test_quotes_stay_remembered_after_a_run_that_judged_another_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches = _checked_then_watched(tmp_path, monkeypatch)
    for case_id in ("ret-001", "ret-002"):  # one case edited a run, neither in its quote
        write(tmp_path, f"cases/golden/{case_id}.yaml", case_text(case_id) + "notes: edited\n")
        assert _codes(tmp_path) == []
    assert searches == [[], []]  # the second run still knew the other case's quote


@pytest.mark.parametrize(
    "answer", ["wait a ſecond", "1" * 5000 + " and a half days", "1" * 5000 + " 2 days"]
)
def test_an_answer_no_figure_reader_expects_is_judged(tmp_path: Path, answer: str) -> None:
    """A unit that matches only by ignoring case beyond lower-casing ("ſecond"), or a number
    longer than Python reads as an int, once stopped the whole check."""
    golden_set(tmp_path)
    write(tmp_path, "cases/golden/ret-001.yaml", case_text("ret-001", answer=f'"{answer}"'))
    codes = _codes(tmp_path)
    assert codes == ([] if "ſ" in answer else [("ret-001.yaml", "GC208")])


def test_each_figure_of_a_long_answer_and_quote_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GC208 compared each figure the answer states with every figure its quotes state: 2,000
    against 2,000 was four million comparisons, a case of a megabyte minutes. Now the quotes'
    figures are gathered once, and each figure's numbers are read once."""
    golden_set(tmp_path)
    answer = ", ".join(str(i) for i in range(1, 2001))
    quote = ", ".join(str(i) for i in range(3001, 5001))
    write(
        tmp_path,
        "cases/golden/ret-001.yaml",
        case_text("ret-001", answer=f'"{answer}"', quote=f'"{quote}"'),
    )
    calls = []
    real = Figure.numbers

    def counting(self: Figure) -> tuple[Fraction, ...]:
        calls.append(self)
        return real(self)

    monkeypatch.setattr(Figure, "numbers", counting)
    assert ("ret-001.yaml", "GC208") in _codes(tmp_path)
    assert 4000 <= len(calls) <= 4100, len(calls)
