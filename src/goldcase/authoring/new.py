"""Writing a new case: an id no other branch will take, a verified quote, a file with hints.

The id is the slice's prefix and a suffix of the minute and four random characters
(``ret-1h4kq9m2x``; see ``goldcase.ids``). Every quote is looked up in its document before
anything is written; a quote that is not there is refused with the closest passage and the
first place it differs.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field
from rapidfuzz import fuzz

from goldcase.authoring.editor_schema import modeline
from goldcase.authoring.formatting import CASE_KEYS, dump_canonical
from goldcase.context import Context
from goldcase.corpus import Corpus, Document
from goldcase.engine import load_case_set, taken_ids
from goldcase.errors import GoldcaseError
from goldcase.ids import slice_prefix, write_new_case
from goldcase.loader import load_case_file, parse_case
from goldcase.model import Case, Split
from goldcase.quotes import not_found, searched
from goldcase.scoring.probes import grade_probes, why_failed
from goldcase.text import clip, fold_quote

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
SOURCES = ("transcript", "hand-written", "synthetic")

# The tags a case usually carries (the hint lists them; the labelling page offers them).
SUGGESTED_TAGS = (
    "numeric",
    "date",
    "name",
    "policy",
    "multi_doc",
    "unanswerable",
    "false_premise",
    "calculated",
)
# Commented hints for the optional fields left blank, in the canonical key order.
HINTS: dict[str, tuple[str, ...]] = {
    "expect": (
        "# expect:                        # partial checks on a free-text answer; all optional",
        '#   contains: ["14", ["fourteen", "14"]]  # every entry must appear; a list: any one',
        '#   not_contains: ["30 days"]    # a wrong figure an answer once carried',
        '#   lead: "yes"                  # the first word, lower-cased',
    ),
    "probes": (
        "# probes:                        # answers to try the checks on (goldcase check)",
        '#   pass: ["14 days from delivery"]      # right answers, in other words',
        '#   fail: ["30 days", "within 14 weeks"]  # wrong ones: a confusable figure, a negation',
    ),
    "slice": ("# slice: returns                  # the subset this case is reported in",),
    "tags": ("# tags: [numeric, policy]         # " + ", ".join(SUGGESTED_TAGS),),
    "source": ("# source: hand-written            # transcript | hand-written | synthetic",),
    "labelled_by": ("# labelled_by: your-name          # who read the source and wrote this",),
    "notes": ("# notes: why this case exists; never used in scoring",),
}


class NewCase(Struct):
    """What the author gave; ``support`` pairs a document (None: find it) with a quote."""

    split: Split = "golden"
    question: str = ""
    answerable: bool = True
    expected_answer: str | None = None
    support: list[tuple[str | None, str]] = field(default_factory=list)
    slice: str | None = None
    tags: list[str] = field(default_factory=list)
    source: str | None = None
    pass_probes: list[str] = field(default_factory=list)
    fail_probes: list[str] = field(default_factory=list)


def verify_quote(corpus: Corpus, doc: str | None, quote: str) -> str:
    """The document that holds ``quote`` verbatim (after the two foldings); raises otherwise,
    showing the closest passage and the first place it differs."""
    folded = fold_quote(quote)
    if not folded:
        raise GoldcaseError("the quote is blank; copy a passage from the document")
    if doc is None:
        return _find_document(corpus, quote, folded)
    document = corpus.documents.get(doc)
    if document is None:
        close = difflib.get_close_matches(doc, list(corpus.documents), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise GoldcaseError(f"document {doc!r} is not in {corpus.root.name}/{hint}")
    if document.problem is not None:
        raise GoldcaseError(f"document {doc!r} cannot be searched: {document.problem}")
    if folded not in document.folded:
        raise GoldcaseError(_not_found(doc, folded, document))
    return doc


def _find_document(corpus: Corpus, quote: str, folded: str) -> str:
    holders = sorted(
        n for n, d in corpus.documents.items() if d.problem is None and folded in d.folded
    )
    if len(holders) == 1:
        return holders[0]
    if holders:
        raise GoldcaseError(
            f"the quote is in {', '.join(holders[:5])}; name one with --doc, "
            "or quote a longer passage"
        )
    nearest = _nearest_document(corpus, folded)
    if nearest is None:
        raise GoldcaseError(
            f'no document in corpus/ holds the quote "{clip(quote)}"; '
            "copy it verbatim, or name the document with --doc"
        )
    document = corpus.documents[nearest]
    raise GoldcaseError(_not_found(nearest, folded, document))


def _nearest_document(corpus: Corpus, folded: str) -> str | None:
    """The document most like the quote, compared with its start as the closest passage is
    looked for (``quotes.searched``): the whole quote took each document's length times the
    square of the quote's."""
    best, best_score = None, 0.0
    for name, document in sorted(corpus.documents.items()):
        if document.problem is None and document.folded:
            score = fuzz.partial_ratio(searched(folded, document.folded), document.folded)
            if score > best_score:
                best, best_score = name, score
    return best


def _not_found(doc: str, folded: str, document: Document) -> str:
    return f"{not_found(doc, folded, document)}; nothing was written"


def case_data(spec: NewCase, case_id: str, docs: Sequence[str]) -> dict[str, Any]:
    """The case mapping, in canonical order, with only the fields given."""
    data: dict[str, Any] = {
        "id": case_id,
        "question": spec.question.strip(),
        "answerable": spec.answerable,
    }
    if spec.answerable:
        data["expected_answer"] = (spec.expected_answer or "").strip()
        data["support"] = [
            {"doc": d, "quote": q.strip()} for d, (_, q) in zip(docs, spec.support, strict=True)
        ]
    probes = {
        kind: [a.strip() for a in answers if a.strip()]
        for kind, answers in (("pass", spec.pass_probes), ("fail", spec.fail_probes))
    }
    if any(probes.values()):
        data["probes"] = {kind: answers for kind, answers in probes.items() if answers}
    if spec.slice:
        data["slice"] = spec.slice
    if spec.tags:
        data["tags"] = list(dict.fromkeys(spec.tags))
    if spec.source:
        data["source"] = spec.source
    return data


def render(data: dict[str, Any], schema_line: str) -> str:
    """The file's text: the schema line, the fields, and a commented hint for each optional
    field left blank, each at its place in the canonical order."""
    lines = [schema_line]
    for key in CASE_KEYS:
        if key in data:
            lines.append(dump_canonical({key: data[key]}).rstrip("\n"))
        elif key in HINTS:
            lines.extend(HINTS[key])
    return "\n".join(lines) + "\n"


def validate_spec(spec: NewCase) -> None:
    """Refuse what the schema would refuse, before any work is done."""
    if not spec.question.strip():
        raise GoldcaseError("the question is blank; pass --question")
    if spec.answerable and not (spec.expected_answer or "").strip():
        raise GoldcaseError("an answerable case needs --expected-answer (or pass --unanswerable)")
    if spec.answerable and not spec.support:
        raise GoldcaseError("an answerable case needs a support quote: --doc D --quote Q")
    if not spec.answerable and (spec.expected_answer or spec.support):
        raise GoldcaseError("an unanswerable case has no expected answer and no support")
    for what, value in [("slice", spec.slice), *(("tag", t) for t in spec.tags)]:
        if value is not None and not _NAME.match(value):
            raise GoldcaseError(
                f"{what} {value!r} may hold only letters, digits, '.', '_' and "
                "'-', and must start with a letter or digit"
            )
    if spec.source is not None and spec.source not in SOURCES:
        raise GoldcaseError(f"source {spec.source!r}; expected one of {', '.join(SOURCES)}")
    if spec.source == "synthetic":
        raise GoldcaseError(
            "a synthetic case needs derived_from; write it by hand from its dev case"
        )


def create_case(ctx: Context, spec: NewCase) -> Path:
    """Verify, render and write a new case file under a fresh id (``goldcase.ids``); returns
    its path. The file is created exclusively: an existing file is never replaced."""
    validate_spec(spec)
    docs = [verify_quote(ctx.corpus, doc, quote) for doc, quote in spec.support]
    case_set = load_case_set(ctx)
    folder = ctx.config.cases_dir / spec.split
    line = modeline(folder / "x.yaml", ctx.root)

    def text_of(case_id: str) -> str:
        text = render(case_data(spec, case_id, docs), line)
        _check_rendered(ctx, folder / f"{case_id}.yaml", text)
        return text

    prefix = slice_prefix(case_set.parsed, spec.slice, spec.split)
    return write_new_case(folder, prefix, taken_ids(ctx, case_set), text_of)[1]


def unheld_probes(ctx: Context, path: Path) -> list[str]:
    """What ``goldcase check`` will say about the new case's probes that do not hold (a
    probe that fails the expected answer calls for an ``expect`` block, which ``new`` does not
    write)."""
    rel = ctx.rel(path)
    data, _ = parse_case(rel, path.read_bytes())
    if not isinstance(data, dict):
        return []
    case = Case(rel, "golden", data)
    out = []
    for probe in grade_probes(case):
        if probe.holds:
            continue
        if probe.kind == "pass":
            why = why_failed(case, probe.answer, probe.failed)
            out.append(f"pass-probe {clip(probe.answer, 60)!r} fails the case's checks ({why})")
        else:
            out.append(f"fail-probe {clip(probe.answer, 60)!r} passes the case's checks")
    return out


def _check_rendered(ctx: Context, path: Path, text: str) -> None:
    """The schema check on the text about to be written: a defect here is goldcase's own."""
    rel = ctx.rel(path)
    case_file = load_case_file(rel, "golden", text.encode("utf-8"))
    if case_file.findings:
        first = case_file.findings[0]
        raise GoldcaseError(
            f"the new case would not pass the schema: {first.code} "
            f"{first.message}; nothing was written"
        )
