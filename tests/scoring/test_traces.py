"""Traces, from the method's E2 diagnosis: a custom-printed product asked against the standard
return window. The policy has two sections, the standard window and the custom-product
exception; E2's support is the exception."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest

from goldcase.corpus import Corpus, load_corpus
from goldcase.model import Case
from goldcase.scoring.traces import (
    attribute,
    render_lines,
    retrieval_metrics,
    retrieval_section,
    stages_by_slice,
    tool_errors,
    trace_case,
    unanswerable_context,
)

POLICY = """# Returns

## Standard window

Most items can be returned within 30 days of delivery.

## Custom products

Custom-printed products are excluded
from the standard return window.
"""
STANDARD = {"doc": "policy.md", "text": "Most items can be returned within 30 days of delivery."}
EXCEPTION = {
    "doc": "policy.md",
    "text": "Custom-printed products are excluded from the standard return window.",
}
E2 = Case(
    "cases/golden/E2.yaml",
    "golden",
    {
        "id": "E2",
        "question": "can i return a custom printed mug within 30 days",
        "expected_answer": "no",
        "slice": "exception",
        "support": [
            {
                "doc": "policy.md",
                "quote": "Custom-printed products are excluded from the standard return window",
            }
        ],
    },
)


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "policy.md").write_text(POLICY)
    return load_corpus(tmp_path / "corpus", tmp_path)


def stage_of(line: dict[str, Any], corpus: Corpus) -> tuple[str, list[str]]:
    trace = trace_case(E2, line, corpus)
    assert trace is not None
    return trace.stage()


def test_both_retrieved_both_in_context_answer_wrong_is_the_answer(corpus: Corpus) -> None:
    line = {"retrieved": [STANDARD, EXCEPTION], "context": [STANDARD, EXCEPTION]}
    assert stage_of(line, corpus) == ("answer", [])


def test_exception_retrieved_but_left_out_is_the_context(corpus: Corpus) -> None:
    line = {"retrieved": [STANDARD, EXCEPTION], "context": [STANDARD]}
    assert stage_of(line, corpus) == ("context", ["policy.md"])


def test_exception_never_retrieved_is_retrieval(corpus: Corpus) -> None:
    line = {"retrieved": [STANDARD], "context": [STANDARD]}
    assert stage_of(line, corpus) == ("retrieval", ["policy.md"])


def test_spans_overlap_the_quote(corpus: Corpus) -> None:
    start = POLICY.index("Custom-printed")
    span = {"doc": "policy.md", "start": start + 10, "end": start + 20}
    far = {"doc": "policy.md", "start": 0, "end": 9}
    assert stage_of({"retrieved": [far, span], "context": [span]}, corpus) == ("answer", [])
    assert stage_of({"retrieved": [far], "context": [far]}, corpus)[0] == "retrieval"


def test_a_span_is_placed_in_time_linear_in_the_document(tmp_path: Path) -> None:
    """A quote of 50,000 words that every word of a 500,000-word document starts to match:
    placing its span took the document's words times the quote's (minutes)."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("a " * 500_000 + "b")
    quote = "a " * 50_000 + "b"
    case = Case(
        "cases/golden/A.yaml", "golden", {**E2.data, "support": [{"doc": "a.md", "quote": quote}]}
    )
    span = {"doc": "a.md", "start": 999_990, "end": 1_000_001}
    trace = trace_case(case, {"retrieved": [span]}, load_corpus(tmp_path / "corpus", tmp_path))
    assert trace is not None and trace.quotes[0].rank == 1


def test_each_chunk_and_the_document_are_read_once_for_all_quotes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case of 300 quotes against a line of 300 chunks folded every chunk again for each
    quote, and normalised the whole document for each (quotes times the line's and the
    document's size). Now the characters normalised grow with the case, line and document."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("word " * 20_000 + "end")
    quotes = [{"doc": "a.md", "quote": f"missing {i}"} for i in range(300)]
    case = Case("cases/golden/A.yaml", "golden", {**E2.data, "support": quotes})
    chunks = [{"doc": "a.md", "text": f"chunk {i} " + "word " * 200} for i in range(300)]
    corpus = load_corpus(tmp_path / "corpus", tmp_path)
    normalised = [0]
    real = unicodedata.normalize

    def counting(form: Any, text: str) -> str:
        normalised[0] += len(text)
        return real(form, text)

    monkeypatch.setattr(unicodedata, "normalize", counting)
    trace = trace_case(case, {"retrieved": chunks}, corpus)
    assert trace is not None and all(q.rank is None for q in trace.quotes)
    read = 100_003 + sum(len(c["text"]) for c in chunks) + sum(len(q["quote"]) for q in quotes)
    assert normalised[0] <= 2 * read


def test_no_trace_is_unknown(corpus: Corpus) -> None:
    assert trace_case(E2, {"outcome": "answer"}, corpus) is None
    grouped = attribute([("E2", "exception", None)])
    assert grouped["unknown"] == [{"id": "E2", "slice": "exception", "missing_docs": []}]


def test_a_failure_after_a_tool_error_is_the_tool_stage(corpus: Corpus) -> None:
    calls = [
        {"name": "search", "input": "x", "output": [], "error": None},
        {"name": "lookup_order", "input": {"id": 7}, "error": "HTTP 500 " + "x" * 200},
    ]
    line = {"retrieved": [STANDARD, EXCEPTION], "context": [EXCEPTION], "tool_calls": calls}
    failed = tool_errors(line)
    assert failed == [{"name": "lookup_order", "error": "HTTP 500 " + "x" * 70 + "…"}]
    assert tool_errors({"tool_calls": calls[:1]}) == [] and tool_errors(None) == []
    trace = trace_case(E2, line, corpus)
    grouped = attribute([("E2", "exception", trace), ("E3", "x", None)], {"E2": failed})
    assert grouped["tool"] == [
        {"id": "E2", "slice": "exception", "missing_docs": [], "tools": failed}
    ]
    assert grouped["answer"] == [] and len(grouped["unknown"]) == 1
    section = retrieval_section(
        [(E2, {"outcome": "answer", "answer": "x", **line}, False, "answer")], corpus
    )
    assert section is not None
    assert [row["id"] for row in section["stages"]["tool"]] == ["E2"]
    text = "\n".join(render_lines(section))
    assert "failed at tool (1):\n    E2 (lookup_order failed: HTTP 500 xxx" in text


def test_tool_calls_alone_make_a_section_without_retrieval_metrics(corpus: Corpus) -> None:
    line = {"outcome": "answer", "answer": "x", "tool_calls": [{"name": "t", "error": "down"}]}
    section = retrieval_section([(E2, line, False, "answer")], corpus)
    assert section is not None
    assert section["cases_with_trace"] == 0 and section["mrr"] is None
    assert section["stages"]["tool"][0]["tools"] == [{"name": "t", "error": "down"}]


def test_retrieval_metrics_name_their_denominators(corpus: Corpus) -> None:
    at_two = trace_case(E2, {"retrieved": [STANDARD, EXCEPTION], "context": [EXCEPTION]}, corpus)
    missed = trace_case(E2, {"retrieved": [STANDARD], "context": [STANDARD]}, corpus)
    assert at_two is not None and missed is not None
    metrics = retrieval_metrics([at_two, missed])
    assert metrics["support_quotes"] == 2 and metrics["cases_with_trace"] == 2
    assert metrics["recall_at"] == {"1": 0.0, "3": 0.5, "5": 0.5, "10": 0.5, "all": 0.5}
    assert metrics["mrr"] == pytest.approx((1 / 2 + 0) / 2)
    assert metrics["all_support_in_context"] == 0.5
    grouped = attribute([("E2", "exception", missed), ("E9", "exception", at_two)])
    assert stages_by_slice(grouped) == {
        "exception": {"tool": 0, "retrieval": 1, "context": 0, "answer": 1, "unknown": 0}
    }


def test_false_premise_answered_with_the_contradiction_in_context(corpus: Corpus) -> None:
    premise = Case(
        "cases/golden/fp.yaml",
        "golden",
        {
            "id": "fp",
            "question": "how do i return my custom mug for a refund",
            "answerable": False,
            "tags": ["unanswerable", "false_premise"],
            "notes": "policy.md says custom-printed products are excluded",
        },
    )
    line = {"retrieved": [EXCEPTION], "context": [EXCEPTION]}
    counts = unanswerable_context([(premise, line, "answer")], corpus)
    assert counts["false_premise_with_trace"] == 1
    assert counts["contradiction_in_context"] == 1
    assert counts["answered_with_contradiction_in_context"] == 1
