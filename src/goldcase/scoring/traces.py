"""Traces: which stage a failure belongs to, and retrieval metrics whose denominator is the
set's own support quotes.

A result line may carry ``retrieved`` (the ranked chunks retrieval returned) and ``context``
(what reached the model), each a list of ``{doc, text}`` chunks or ``{doc, start, end}`` spans
(character offsets into the document's text after Unicode NFC, end exclusive). A support quote
counts as retrieved at rank k when the k-th retrieved chunk is of its document and holds the
quote (the folding of the quote check: NFC, white space runs alike) or its span overlaps the
quote's span. When a line records ``context`` but no ``retrieved``, the context is taken as what
was retrieved.

Agents record ``tool_calls`` (``{name, input, output, error}``): a failing answerable case
whose line has a tool call with an error is attributed to the ``tool`` stage, whatever its
retrieval trace says: the failure came after a tool failed.

Stages of a failing answerable case:

| stage | meaning |
|---|---|
| tool | a tool call failed (the tools and their errors are named) |
| retrieval | a support quote was never retrieved (the documents missed are named) |
| context | every quote was retrieved, but one was left out of the context |
| answer | every quote reached the context and the answer was still wrong |
| unknown | the line records no trace |
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from msgspec import Struct

from goldcase.corpus import Corpus
from goldcase.model import Case
from goldcase.text import clip, fold_quote

KS = (1, 3, 5, 10)
STAGES = ("tool", "retrieval", "context", "answer", "unknown")


class QuoteTrace(Struct, frozen=True):
    doc: str
    rank: int | None  # 1-based rank of the first retrieved chunk holding it
    in_context: bool


class CaseTrace(Struct, frozen=True):
    case_id: str
    slice: str
    quotes: tuple[QuoteTrace, ...]

    @property
    def all_in_context(self) -> bool:
        return all(q.in_context for q in self.quotes)

    def stage(self) -> tuple[str, list[str]]:
        """The stage of a failure and the documents that went missing there."""
        never = sorted({q.doc for q in self.quotes if q.rank is None})
        if never:
            return "retrieval", never
        dropped = sorted({q.doc for q in self.quotes if not q.in_context})
        if dropped:
            return "context", dropped
        return "answer", []


def has_trace(data: Mapping[str, Any]) -> bool:
    return isinstance(data.get("retrieved"), list) or isinstance(data.get("context"), list)


def tool_errors(data: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """The failed tool calls of a line: ``{name, error}``, the error cut to 80 characters."""
    calls = data.get("tool_calls") if data is not None else None
    if not isinstance(calls, list):
        return []
    return [
        {"name": str(call.get("name")), "error": clip(call["error"])}
        for call in calls
        if isinstance(call, Mapping) and isinstance(call.get("error"), str)
    ]


def quote_span(corpus: Corpus, doc: str, folded_quote: str) -> tuple[int, int] | None:
    """Where the quote stands in the document's NFC text (first occurrence). The document is
    normalised and its white space folded once, however many quotes are placed in it."""
    document = corpus.documents.get(doc)
    if document is None or document.problem is not None or not folded_quote:
        return None
    return document.spaced.find(folded_quote)


class _Folded:
    """Each chunk's text folded the first time a quote asks, then kept: a case's quotes all
    search the same chunks."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}

    def __call__(self, chunk: Mapping[str, Any], text: str) -> str:
        folded = self._texts.get(id(chunk))
        if folded is None:
            folded = self._texts[id(chunk)] = fold_quote(text)
        return folded


def _holds(
    chunk: Any, doc: str, folded_quote: str, span: tuple[int, int] | None, fold: _Folded
) -> bool:
    if not isinstance(chunk, Mapping) or chunk.get("doc") != doc:
        return False
    text = chunk.get("text")
    if isinstance(text, str):
        return folded_quote in fold(chunk, text)
    start, end = chunk.get("start"), chunk.get("end")
    if span is None or not isinstance(start, int) or not isinstance(end, int):
        return False
    return start < span[1] and span[0] < end


def _chunks(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def trace_case(case: Case, data: Mapping[str, Any], corpus: Corpus) -> CaseTrace | None:
    """The trace of an answerable case's support, or None when the line records none."""
    if not has_trace(data) or not case.answerable:
        return None
    context = _chunks(data, "context")
    retrieved = _chunks(data, "retrieved") if isinstance(data.get("retrieved"), list) else context
    quotes = []
    fold = _Folded()  # the chunks live until the case is traced: their ids stay theirs
    for support in case.support:
        folded = fold_quote(support.quote)
        span = quote_span(corpus, support.doc, folded)
        rank = next(
            (
                i
                for i, chunk in enumerate(retrieved, 1)
                if _holds(chunk, support.doc, folded, span, fold)
            ),
            None,
        )
        in_context = any(_holds(chunk, support.doc, folded, span, fold) for chunk in context)
        quotes.append(QuoteTrace(support.doc, rank, in_context))
    return CaseTrace(case.id, case.slice, tuple(quotes))


def retrieval_metrics(traces: Sequence[CaseTrace]) -> dict[str, Any]:
    """Support recall@k (over quotes), MRR (over cases) and the share of cases whose every
    quote reached the context, each with its denominator."""
    quotes = [q for t in traces for q in t.quotes]
    recall = {
        str(k): _rate(sum(q.rank is not None and q.rank <= k for q in quotes), len(quotes))
        for k in KS
    }
    recall["all"] = _rate(sum(q.rank is not None for q in quotes), len(quotes))
    reciprocal = [
        1 / min(ranks) if (ranks := [q.rank for q in t.quotes if q.rank]) else 0.0
        for t in traces
        if t.quotes
    ]
    return {
        "cases_with_trace": len(traces),
        "support_quotes": len(quotes),
        "recall_at": recall,
        "mrr": None if not reciprocal else sum(reciprocal) / len(reciprocal),
        "all_support_in_context": _rate(sum(t.all_in_context for t in traces), len(traces)),
    }


def _rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def attribute(
    failing: Iterable[tuple[str, str, CaseTrace | None]],
    tools: Mapping[str, list[dict[str, str]]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Failing answerable cases (id, slice, trace) grouped by stage, with what was missing;
    a case in ``tools`` (id -> its failed tool calls) goes to the tool stage."""
    out: dict[str, list[dict[str, Any]]] = {stage: [] for stage in STAGES}
    for case_id, slice_name, trace in failing:
        failed_tools = (tools or {}).get(case_id)
        if failed_tools:
            row = {"id": case_id, "slice": slice_name, "missing_docs": [], "tools": failed_tools}
            out["tool"].append(row)
            continue
        if trace is None:
            out["unknown"].append({"id": case_id, "slice": slice_name, "missing_docs": []})
            continue
        stage, docs = trace.stage()
        out[stage].append({"id": case_id, "slice": slice_name, "missing_docs": docs})
    return out


def stages_by_slice(stages: Mapping[str, list[dict[str, Any]]]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for stage, rows in stages.items():
        for row in rows:
            counts.setdefault(row["slice"], dict.fromkeys(STAGES, 0))[stage] += 1
    return dict(sorted(counts.items()))


def named_documents(case: Case, corpus: Corpus) -> list[str]:
    """Corpus documents a case's notes name (a false premise names what contradicts it)."""
    notes = str(case.data.get("notes") or "")
    return sorted(name for name in corpus.documents if name in notes)


def unanswerable_context(
    rows: Iterable[tuple[Case, Mapping[str, Any], str]], corpus: Corpus
) -> dict[str, int]:
    """For unanswerable cases with a trace (case, result line, outcome): how often the context
    held text, how often it held the document a false premise's notes name, and how often the
    system answered all the same."""
    counts = dict.fromkeys(
        (
            "with_trace",
            "context_not_empty",
            "answered_with_context",
            "false_premise_with_trace",
            "contradiction_in_context",
            "answered_with_contradiction_in_context",
        ),
        0,
    )
    for case, data, outcome in rows:
        if case.answerable or not has_trace(data):
            continue
        context = _chunks(data, "context")
        counts["with_trace"] += 1
        answered = outcome == "answer"
        if context:
            counts["context_not_empty"] += 1
            counts["answered_with_context"] += answered
        if case.false_premise:
            counts["false_premise_with_trace"] += 1
            named = set(named_documents(case, corpus))
            if any(isinstance(c, Mapping) and c.get("doc") in named for c in context):
                counts["contradiction_in_context"] += 1
                counts["answered_with_contradiction_in_context"] += answered
    return counts


def retrieval_section(
    rows: Sequence[tuple[Case, Mapping[str, Any] | None, bool, str]], corpus: Corpus
) -> dict[str, Any] | None:
    """The report's ``retrieval`` block from (case, the line scored, passed, outcome) rows;
    None when no line records a trace or a tool call."""
    if not any(
        data is not None and (has_trace(data) or "tool_calls" in data) for _, data, _, _ in rows
    ):
        return None
    traces: list[CaseTrace] = []
    failing: list[tuple[str, str, CaseTrace | None]] = []
    tools: dict[str, list[dict[str, str]]] = {}
    for case, data, passed, _ in rows:
        trace = trace_case(case, data, corpus) if data is not None else None
        if trace is not None:
            traces.append(trace)
        if case.answerable and not passed:
            failing.append((case.id, case.slice, trace))
            if errors := tool_errors(data):
                tools[case.id] = errors
    stages = attribute(failing, tools)
    unanswerable = unanswerable_context(
        ((case, data, outcome) for case, data, _, outcome in rows if data is not None), corpus
    )
    return {
        **retrieval_metrics(traces),
        "stages": stages,
        "stages_by_slice": stages_by_slice(stages),
        "unanswerable": unanswerable,
    }


def render_lines(section: Mapping[str, Any], limit: int = 50) -> list[str]:
    """Plain lines for the text and Markdown reports: the metrics, then the failing cases
    under each stage with what went missing."""
    recall = section["recall_at"]
    quotes, cases = section["support_quotes"], section["cases_with_trace"]
    lines = [
        f"retrieval ({cases} answerable cases with a trace, {quotes} support quotes)",
        "  support recall@k over quotes: "
        + ", ".join(f"@{k} {_pct(v)}" for k, v in recall.items()),
        f"  MRR over cases: {'n/a' if section['mrr'] is None else format(section['mrr'], '.3f')}",
        f"  every quote reached the context: {_pct(section['all_support_in_context'])} of cases",
    ]
    for stage in STAGES:
        rows = section["stages"][stage]
        if not rows:
            continue
        lines.append(f"  failed at {stage} ({len(rows)}):")
        for row in rows[:limit]:
            lines.append(f"    {row['id']}{_detail(row)}")
        if len(rows) > limit:
            lines.append(f"    … and {len(rows) - limit} more")
    by_slice = section["stages_by_slice"]
    if by_slice:
        lines.append("  failing answerable cases by slice and stage:")
        for name, counts in by_slice.items():
            lines.append("    " + name + ": " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    una = section["unanswerable"]
    if una["false_premise_with_trace"]:
        lines.append(
            f"  false premises: the contradicting document reached the context in "
            f"{una['contradiction_in_context']} of {una['false_premise_with_trace']}, and the "
            f"system answered anyway in {una['answered_with_contradiction_in_context']}"
        )
    return lines


def _detail(row: Mapping[str, Any]) -> str:
    if row.get("tools"):
        return " (" + "; ".join(f"{t['name']} failed: {t['error']}" for t in row["tools"]) + ")"
    return f" (missing {', '.join(row['missing_docs'])})" if row["missing_docs"] else ""


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
