"""Export a split of the set in another tool's format.

- ``jsonl``: the golden-set reference layout, one case a line: id, question, answerable,
  expected_answer, support, tags, notes, then goldcase's own fields when the case sets them;
- ``promptfoo``: a promptfoo config holding ``tests:``, one test a case, each graded by
  goldcase's pass rule as one JavaScript assertion (``promptfoo_grader``: the case's checks,
  whole words and numbers as numbers, and the abstention rule of ``[run] abstain_patterns``):
  no assertion needs a grading model;
- ``inspect``: Inspect AI dataset JSONL: input, target, id, metadata (with ``--out``, a task
  file beside it whose scorer is goldcase's pass rule: ``inspect_task``);
- ``openai-evals``: OpenAI evals samples JSONL: a system and a user message, and the ideal
  answer.

A set whose config says ``private = true`` is built from private documents: its questions,
answers and quotes are not exported unless the caller says so (``allow_private``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from msgspec import Struct

from goldcase.authoring.formatting import dump_canonical
from goldcase.config import ABSTAIN_PATTERNS
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.interchange.promptfoo_grader import METRIC, grader_config, grader_javascript
from goldcase.model import INBOX, Case, Split
from goldcase.versioning.version import read_version

FORMATS = ("jsonl", "promptfoo", "inspect", "openai-evals")
EXTRA_FIELDS = (
    "slice",
    "expect",
    "probes",
    "source",
    "derived_from",
    "labelled_by",
    "resolution",
)
ABSTAIN = "I don't know."
SYSTEM_PROMPT = (
    "Answer the question from the documents you were given, as briefly as the fact allows. "
    f"If the documents do not say, reply exactly: {ABSTAIN}"
)
# What exports before this one wrote for an unanswerable case; the promptfoo import still
# reads it as answerable: false.
UNANSWERABLE_RUBRIC = (
    "The output declines to answer, or says the documents do not contain the answer. "
    "It does not state a substantive answer to the question."
)
GRADER_REF = "#/assertionTemplates/goldcase"
# promptfoo reads a var that starts with these as a file to load (and runs a .js or .py one)
# or a package's function to call, before any prompt is rendered
PROMPTFOO_LOADERS = ("file://", "package:")
# and renders a var holding these as a Nunjucks template, whose tags can reach JavaScript's
# Function constructor ({{ range.constructor('…')() }}), and replaces {{ name }} by a var
PROMPTFOO_TEMPLATE = re.compile(r"\{[{%#]")


class Exported(Struct, frozen=True):
    text: str
    cases: int
    version: str | None


def export_set(
    ctx: Context, fmt: str, split: Split = "golden", *, allow_private: bool = False
) -> Exported:
    """The chosen split in ``fmt``; refuses a private set and a set with broken case files."""
    if fmt not in FORMATS:
        raise GoldcaseError(f"unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")
    if ctx.config.private and not allow_private:
        raise GoldcaseError(
            "this set is private (private = true in its config): its questions, answers and "
            "quotes stay where the documents live; publish numbers, or pass --allow-private"
        )
    case_set = load_case_set(ctx)
    broken = [f.path for f in case_set.files if not f.valid and f.split != INBOX]
    if broken:
        raise GoldcaseError(
            f"{len(broken)} case file(s) do not pass the schema, first "
            f"{broken[0]}; run goldcase check and fix them before exporting"
        )
    cases = sorted(case_set.split(split), key=lambda c: c.id)
    version = read_version(ctx.config)
    if fmt == "promptfoo":
        text = to_promptfoo(cases, version, split, ctx.config.run.abstain_patterns)
    else:
        text = _WRITERS[fmt](cases, version, split)
    return Exported(text, len(cases), version)


def _jsonl(lines: Iterator[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def reference_line(case: Case) -> dict[str, Any]:
    """One case in the reference layout (plus goldcase's own fields, when the case sets them)."""
    line: dict[str, Any] = {"id": case.id, "question": case.question, "answerable": case.answerable}
    if case.answerable:
        line["expected_answer"] = case.expected_answer
    line["support"] = [{"doc": s.doc, "quote": s.quote} for s in case.support]
    line["tags"] = case.tags
    line["notes"] = str(case.data.get("notes") or "")
    for key in EXTRA_FIELDS:
        if key in case.data:
            line[key] = case.data[key]
    return line


def to_jsonl(cases: Sequence[Case], version: str | None, split: str) -> str:
    return _jsonl(reference_line(c) for c in cases)


def to_inspect(cases: Sequence[Case], version: str | None, split: str) -> str:
    """One sample a case. An unanswerable case's target is the abstention the system prompt
    asks for (an empty target would make Inspect's ``includes()`` pass any answer); the
    exported task's scorer grades by goldcase's pass rule from the metadata, whatever the
    target."""
    return _jsonl(
        {
            "id": c.id,
            "input": c.question,
            "target": c.expected_answer if c.answerable and c.expected_answer else ABSTAIN,
            "metadata": {"id": c.id, **_metadata(c, version, split), **_expected(c)},
        }
        for c in cases
    )


def _expected(case: Case) -> dict[str, Any]:
    return {} if case.expected_answer is None else {"expected_answer": case.expected_answer}


def _metadata(case: Case, version: str | None, split: str) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "answerable": case.answerable,
        "slice": case.slice,
        "tags": case.tags,
        "split": split,
        "golden_version": version,
        "support": [{"doc": s.doc, "quote": s.quote} for s in case.support],
    }
    if case.expect:
        meta["expect"] = dict(case.expect)
    return meta


def to_openai_evals(cases: Sequence[Case], version: str | None, split: str) -> str:
    return _jsonl(
        {
            "input": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": c.question},
            ],
            "ideal": c.expected_answer if c.answerable else ABSTAIN,
        }
        for c in cases
    )


def to_promptfoo(
    cases: Sequence[Case],
    version: str | None,
    split: str,
    patterns: Sequence[str] = ABSTAIN_PATTERNS,
) -> str:
    head = (
        f"# promptfoo tests exported by goldcase: the {split} split, version "
        f"{version or '(none)'}, {len(cases)} cases.\n"
        "# Add a provider (and a prompt reading the question as {{question}}), then run\n"
        "# promptfoo eval -c THIS_FILE -o OUTPUT.json and goldcase score --from promptfoo\n"
        "# OUTPUT.json. The one assertion is goldcase's own pass rule, in JavaScript: no\n"
        "# grading model is needed.\n"
    )
    config = {
        "description": f"goldcase {split} set {version or ''}".strip(),
        "prompts": ["{{question}}"],
        "assertionTemplates": grader_templates(patterns),
        "tests": [_promptfoo_test(c, version, split) for c in cases],
    }
    return head + dump_canonical(config, ())


def grader_templates(patterns: Sequence[str]) -> dict[str, dict[str, str]]:
    """goldcase's pass rule as a promptfoo assertion, written once and referenced by each
    test with the case's checks in its ``config``."""
    code = grader_javascript(patterns)
    return {"goldcase": {"type": "javascript", "value": code, "metric": METRIC}}


def _promptfoo_test(case: Case, version: str | None, split: str) -> dict[str, Any]:
    _promptfoo_reads_as_text(case)
    meta = {"id": case.id, **_metadata(case, version, split), **_expected(case)}
    return {
        "description": case.id,
        "vars": {"question": case.question},
        "assert": [promptfoo_assertion(case)],
        "metadata": meta,
    }


def _promptfoo_reads_as_text(case: Case) -> None:
    """Refuse a question promptfoo would not send as written: it would load a file or run a
    template instead (code from the repository, or code the question holds)."""
    loader = next((p for p in PROMPTFOO_LOADERS if case.question.startswith(p)), None)
    if loader is not None:
        raise GoldcaseError(
            f"{case.path}: the question starts with {loader!r}, which promptfoo reads as a "
            "file or a package to load (and runs when it is code), not as text; reword the "
            "question so it does not start so"
        )
    tag = PROMPTFOO_TEMPLATE.search(case.question)
    if tag is not None:
        raise GoldcaseError(
            f"{case.path}: the question holds {tag[0]!r}, which promptfoo renders as a "
            "Nunjucks template (running what the tag holds), not as text; reword the question "
            "without it"
        )


def promptfoo_assertion(case: Case) -> dict[str, Any]:
    """The case's one assertion: the grader template, with the case's checks as its config
    (``promptfoo_grader.grader_config``)."""
    return {"$ref": GRADER_REF, "config": grader_config(case)}


_WRITERS: dict[str, Callable[[Sequence[Case], str | None, str], str]] = {
    "jsonl": to_jsonl,
    "promptfoo": to_promptfoo,
    "inspect": to_inspect,
    "openai-evals": to_openai_evals,
}
