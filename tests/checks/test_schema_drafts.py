"""Drafts in cases/inbox/: the draft schema (blank fields allowed, a ``trace`` block), and
``asked_at`` on cases and drafts, as docs/triage.md and docs/check.md describe them."""

from __future__ import annotations

import pytest

from checks.kit import Repo, brief, family_findings
from composition.kit import case
from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.loader import load_case_file

BLANK_DRAFT = """\
# yaml-language-server: $schema=../../schema/draft.schema.json
id: tr-01h4kq2xa
question: my parcel never came, can i get a credit
asked_at: "2026-03-02T09:14:00Z"
answerable:
expected_answer:
support: []
slice:
tags: []
source: transcript
labelled_by:
notes:
trace:
  answer: You can ask for a credit within 30 days.
  flags: [failed_check, thumbs_down]
  drawn: flagged
  file: traces/week-10.jsonl
  line: 42
  id: abc-123
  repeats: 2
"""


def test_a_blank_draft_passes_the_draft_schema(make_repo: Repo) -> None:
    root = make_repo({"cases/inbox/tr-01h4kq2xa.yaml": BLANK_DRAFT})
    assert family_findings(root, "schema") == []


def test_drafts_are_apart_from_the_set(make_repo: Repo) -> None:
    root = make_repo(
        {"cases/inbox/tr-01h4kq2xa.yaml": BLANK_DRAFT, "cases/golden/r1.yaml": case("r1")}
    )
    case_set = load_case_set(Context(load_config(root), Cache(None)))
    assert [c.id for c in case_set.cases] == ["r1"]
    assert [c.id for c in case_set.drafts] == ["tr-01h4kq2xa"]
    assert [c.id for c in case_set.parsed] == ["r1"]
    assert case_set.split("inbox")[0].split == "inbox"
    assert case_set.golden[0].id == "r1" and case_set.dev == []


@pytest.mark.parametrize(
    ("line", "where", "message"),
    [
        ("trace:\n  answr: x", (13, 3), "unknown key 'answr'; did you mean 'answer'?"),
        ("trace:\n  flags: [slow]", (13, 11), "trace.flags[0] is 'slow'; expected one of"),
        ("resolution: a rule", (12, 1), "unknown key 'resolution'"),
        ("answerable: maybe", (12, 13), "answerable should be true or false, got str"),
    ],
)
def test_what_a_draft_may_not_hold(
    make_repo: Repo, line: str, where: tuple[int, int], message: str
) -> None:
    head = BLANK_DRAFT.split("trace:")[0].replace("answerable:\n", "").replace("tr-01h4kq2xa", "d")
    found = load_case_file("cases/inbox/d.yaml", "inbox", f"{head}{line}\n".encode())
    assert [(f.line, f.col, f.code) for f in found.findings] == [(*where, "GC107")]
    assert message in found.findings[0].message


def test_a_labelled_draft_passes_too(make_repo: Repo) -> None:
    labelled = (
        BLANK_DRAFT.replace("answerable:\n", "answerable: true\n")
        .replace("expected_answer:\n", "expected_answer: 14 days\n")
        .replace(
            "support: []\n",
            "support:\n  - doc: returns-policy.md\n"
            "    quote: A customer has 14 days from delivery to request a credit\n",
        )
        .replace("slice:\n", "slice: returns\n")
    )
    root = make_repo({"cases/inbox/tr-01h4kq2xa.yaml": labelled})
    assert family_findings(root, "schema") == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-03-02", "asked_at should be a string, got date"),
        ('"2026-02-30"', "asked_at '2026-02-30' is not a real date"),
        ('"2 March 2026"', "asked_at '2 March 2026' is not an ISO 8601 date"),
        ('"2026-03-02T25:00"', "is not an ISO 8601 date"),
    ],
)
def test_a_bad_asked_at_is_gc107_at_its_value(make_repo: Repo, value: str, message: str) -> None:
    root = make_repo({"cases/golden/r1.yaml": case("r1", extra=f"asked_at: {value}")})
    found = family_findings(root, "schema")
    assert brief(found) == [("cases/golden/r1.yaml", 9, 11, "GC107", "error")]
    assert message in found[0].message


@pytest.mark.parametrize(
    "value",
    ['"2026-03-02"', '"2026-03-02T09:14:00Z"', '"2026-03-02 09:14"', '"2026-03-02T10:14+01:00"'],
)
def test_asked_at_in_iso_8601_passes(make_repo: Repo, value: str) -> None:
    root = make_repo({"cases/golden/r1.yaml": case("r1", extra=f"asked_at: {value}")})
    assert family_findings(root, "schema") == []


def test_a_file_elsewhere_under_cases_names_the_three_folders(make_repo: Repo) -> None:
    root = make_repo({"cases/drafts/r1.yaml": case("r1")})
    found = family_findings(root, "schema")
    assert brief(found) == [("cases/drafts/r1.yaml", 1, 1, "GC114", "error")]
    assert "drafts in cases/inbox/" in found[0].message
