"""What the page gets for one item, and the agreement a second labeller sees after saving.

A second labeller works blind: the view of a label names nothing of its case until the label
is finished (``answerable`` filled in and saved). Then ``reveal`` shows the case's label and
whether the two agree, and ``agreement`` the figures so far with every disagreement (finished
labels only, so it names no case the labeller has yet to label).
"""

from __future__ import annotations

from typing import Any

from goldcase.context import Context
from goldcase.corpus import Corpus
from goldcase.labelling import agreement as stats
from goldcase.labelling import labels as labelfiles
from goldcase.labelpage.documents import locate
from goldcase.labelpage.edits import FALSE_PREMISE, split_premise
from goldcase.labelpage.items import Item, Source, state
from goldcase.loader import file_digest
from goldcase.model import Case, CaseSet
from goldcase.safeio import read_inside


def _rows(contains: Any) -> list[list[str]]:
    rows = []
    for entry in contains if isinstance(contains, list) else []:
        options = entry if isinstance(entry, list) else [entry]
        rows.append([str(option) for option in options])
    return rows


def expect_view(expect: Any) -> dict[str, Any]:
    block = expect if isinstance(expect, dict) else {}
    not_contains = block.get("not_contains")
    lead = block.get("lead")
    return {
        "contains": _rows(block.get("contains")),
        "not_contains": [str(v) for v in not_contains] if isinstance(not_contains, list) else [],
        "lead": lead if isinstance(lead, str) else None,
    }


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _base(item: Item, source: Source) -> dict[str, Any]:
    data = item.data or {}
    return {
        "key": item.key,
        "rel": item.rel,
        "hash": item.hash,
        "mode": source.mode,
        "state": state(source, item.data),
        "question": _text(data.get("question")) or "",
        "problems": [f.as_dict() for f in item.problems],
    }


def draft_view(corpus: Corpus, item: Item, source: Source) -> dict[str, Any]:
    data = item.data or {}
    tags = _strings(data.get("tags"))
    answerable = _flag(data.get("answerable"))
    false_premise = answerable is False and FALSE_PREMISE in tags
    premise, rest = split_premise(data.get("notes"), corpus) if false_premise else (None, None)
    support = [
        locate(corpus, str(entry["doc"]), str(entry["quote"]))
        for entry in data.get("support") or []
        if isinstance(entry, dict)
        and isinstance(entry.get("doc"), str)
        and isinstance(entry.get("quote"), str)
    ]
    probes = _mapping(data.get("probes"))
    trace = _mapping(data.get("trace"))
    return _base(item, source) | {
        "asked_at": _text(data.get("asked_at")),
        "trace": {
            "answer": _text(trace.get("answer")),
            "flags": _strings(trace.get("flags")),
            "drawn": _text(trace.get("drawn")),
            "repeats": trace.get("repeats") if isinstance(trace.get("repeats"), int) else None,
        },
        "fields": {
            "answerable": answerable,
            "false_premise": false_premise,
            "expected_answer": _text(data.get("expected_answer")),
            "support": support,
            "premise": premise,
            "expect": expect_view(data.get("expect")),
            "probes": {"pass": _strings(probes.get("pass")), "fail": _strings(probes.get("fail"))},
            "slice": _text(data.get("slice")),
            "tags": tags,
            "labelled_by": _text(data.get("labelled_by")),
            "notes": rest if premise is not None else _text(data.get("notes")),
        },
    }


def label_view(ctx: Context, case_set: CaseSet, item: Item, source: Source) -> dict[str, Any]:
    data = item.data or {}
    view = _base(item, source) | {
        "fields": {
            "answerable": _flag(data.get("answerable")),
            "expected_answer": _text(data.get("expected_answer")),
            "expect": expect_view(data.get("expect")),
            "notes": _text(data.get("notes")),
        },
        "reveal": None,
    }
    if item.data is not None and isinstance(item.data.get("answerable"), bool):
        view["reveal"] = reveal(case_set, item)
    return view


def reveal(case_set: CaseSet, item: Item) -> dict[str, Any]:
    """The case's own label beside the finished one, and how they compare."""
    cases = case_set.by_id()
    label, findings = labelfiles.read_label(item.rel, item.raw, set(cases))
    if label is None:
        return {"case": None, "findings": [f.as_dict() for f in findings]}
    case = cases[label.case_id]
    fields = labelfiles.differences(case, label)
    return {
        "case": _case(case),
        "agrees": not fields,
        "fields": fields,
        "detail": labelfiles.describe(case, label, fields) if fields else "",
        "findings": [],
    }


def _case(case: Case) -> dict[str, Any]:
    return {
        "id": case.id,
        "rel": case.path,
        "answerable": case.answerable,
        "expected_answer": case.expected_answer,
        "expect": expect_view(case.expect),
        "false_premise": case.false_premise,
    }


def agreement(ctx: Context, case_set: CaseSet, source: Source) -> dict[str, Any]:
    """``goldcase agreement`` for this labeller, each disagreement with the digest of its
    case file (a resolution is written only over the file the page showed) and its
    resolution so far."""
    report = stats.build_report(ctx, case_set, source.labeller)
    cases = case_set.by_id()
    for item in report["disagreements"]:
        case = cases[item["id"]]
        resolution = case.data.get("resolution")
        item["resolution"] = resolution if isinstance(resolution, (str, dict)) else None
        try:
            item["hash"] = file_digest(read_inside(ctx.root, case.path))
        except OSError:
            item["hash"] = None
    report["text"] = stats.render_text(report).splitlines()[:4]
    return report
