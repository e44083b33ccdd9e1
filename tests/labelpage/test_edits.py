"""The page's forms read as hostile input and written into files (goldcase.labelpage.edits):
every field checked, the template's hints dropped once a field is filled, the labeller's own
comments kept, a false premise's passage in its notes and back, writes refused over a changed
file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from goldcase.authoring.new import HINTS
from goldcase.config import load_config
from goldcase.corpus import Corpus, load_corpus
from goldcase.errors import GoldcaseError
from goldcase.labelpage.edits import (
    Conflict,
    DraftForm,
    draft_form,
    draft_text,
    expect_block,
    label_text,
    premise_note,
    probe_block,
    resolution_text,
    split_premise,
    write_if_unchanged,
)
from goldcase.loader import file_digest
from kit import write
from labelpage.kit import RETURNS

DRAFT = """\
# yaml-language-server: $schema=../../schema/draft.schema.json
# Drawn by goldcase triage from traces/week.jsonl (seed w10).
id: tr-32zcwy97p
question: is the restocking fee 20%  # as asked
answerable:
expected_answer:
support:
#   - doc: the-document.md
#     quote: the passage that answers it, copied verbatim
# expect:                        # partial checks on a free-text answer; all optional
#   contains: ["14", ["fourteen", "14"]]  # every entry must appear; a list: any one
#   not_contains: ["30 days"]    # a wrong figure an answer once carried
#   lead: "yes"                  # the first word, lower-cased
# probes:                        # answers to try the checks on (goldcase check)
#   pass: ["14 days from delivery"]      # right answers, in other words
#   fail: ["30 days", "within 14 weeks"]  # wrong ones: a confusable figure, a negation
slice:
{tags_hint}
source: transcript
labelled_by:
# my own note: check with billing
notes:
trace:
  answer: Yes, 20%.
""".format(tags_hint=HINTS["tags"][0])

QUOTE = "Opened large appliances carry a 10% restocking fee."


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    write(tmp_path, "corpus/returns-policy.md", RETURNS)
    return load_corpus(tmp_path / "corpus", tmp_path)


def selection(needle: str) -> dict[str, Any]:
    start = RETURNS.index(needle)
    return {"doc": "returns-policy.md", "start": start, "end": start + len(needle)}


def test_an_answered_draft(corpus: Corpus) -> None:
    form = draft_form(
        {
            "answerable": True,
            "expected_answer": "  10%  ",
            "support": [selection(QUOTE)],
            "expect": {"contains": [["10%", "ten per cent"], ["restocking"]], "lead": ""},
            "probes": {"pass": ["A 10% fee."], "fail": ["20%", "20%", " "]},
            "slice": "returns",
            "tags": ["numeric"],
            "labelled_by": "support-lead",
        },
        corpus,
        yaml.safe_load(DRAFT),
    )
    text = draft_text(DRAFT, form)
    data = yaml.safe_load(text)
    assert data["answerable"] is True and data["expected_answer"] == "10%"
    assert data["support"] == [{"doc": "returns-policy.md", "quote": QUOTE}]
    assert data["expect"] == {"contains": [["10%", "ten per cent"], "restocking"]}
    assert data["probes"] == {"pass": ["A 10% fee."], "fail": ["20%"]}
    assert data["tags"] == ["numeric"] and data["notes"] is None
    assert "question: is the restocking fee 20%  # as asked\n" in text
    assert "# my own note: check with billing\n" in text
    assert "# Drawn by goldcase triage" in text
    for hint in ("#   - doc: the-document.md", "# expect:", "# probes:", "# tags: [numeric"):
        assert hint not in text
    assert text.index("support:") < text.index("expect:") < text.index("probes:")
    assert text.index("probes:") < text.index("slice:") < text.index("tags:")


def test_a_false_premise_keeps_its_passage_in_the_notes(corpus: Corpus) -> None:
    fields = {
        "answerable": False,
        "false_premise": True,
        "expected_answer": "ignored: an unanswerable case has none",
        "support": [selection("Unused items may be returned")],
        "premise": selection(QUOTE),
        "expect": {"contains": [["10%"]], "not_contains": ["20%"]},
        "tags": ["unanswerable"],
        "notes": "production said 20%",
    }
    text = draft_text(DRAFT, draft_form(fields, corpus, yaml.safe_load(DRAFT)))
    data = yaml.safe_load(text)
    assert data["expected_answer"] is None and data["support"] is None
    assert data["tags"] == ["unanswerable", "false_premise"]
    assert data["notes"] == f'False premise: returns-policy.md says "{QUOTE}" production said 20%'
    placed, rest = split_premise(data["notes"], corpus)
    assert placed is not None and placed["quote"] == QUOTE and placed["found"] is True
    assert rest == "production said 20%"


def test_the_false_premise_tag_follows_the_choice(corpus: Corpus) -> None:
    current = yaml.safe_load(DRAFT)
    answered = draft_form(
        {"answerable": True, "false_premise": True, "tags": ["false_premise"]}, corpus, current
    )
    assert answered.false_premise is False and answered.tags == []


@pytest.mark.parametrize(
    ("notes", "quote", "rest"),
    [
        (premise_note("returns-policy.md", QUOTE, None), QUOTE, None),
        (premise_note("returns-policy.md", "a 10% restocking fee", "see 2."),
         "a 10% restocking fee", "see 2."),
        ('False premise: returns-policy.md says "not there at all". Hm', "not there at all", "Hm"),
    ],
)  # fmt: skip
def test_a_premise_note_reads_back(
    corpus: Corpus, notes: str, quote: str, rest: str | None
) -> None:
    placed, after = split_premise(notes, corpus)
    assert placed is not None and placed["quote"] == quote and after == rest


def test_notes_without_a_premise_are_notes(corpus: Corpus) -> None:
    assert split_premise("checked with billing", corpus) == (None, "checked with billing")
    assert split_premise(None, corpus) == (None, None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ([], "the form should be an object"),
        ({"answerable": "yes"}, "answerable should be true or false"),
        ({"expected_answer": 14}, "expected_answer should be a text, got int"),
        ({"expected_answer": "x" * 501}, "expected_answer is 501 characters; at most 500"),
        ({"notes": "a\x00b"}, "notes holds a NUL character"),
        ({"slice": "two words"}, "slice 'two words' may hold only letters"),
        ({"tags": ["ok", "no good"]}, "a tag 'no good' may hold only letters"),
        ({"tags": "numeric"}, "tags should be a list"),
        ({"support": [{"doc": "returns-policy.md", "start": 0}]}, "a start and an end offset"),
        ({"support": [{"doc": "nothing.md", "start": 0, "end": 3}]}, "no document"),
        ({"support": [{"doc": "returns-policy.md", "quote": "typed"}]}, "not typed"),
        ({"support": [{"doc": "returns-policy.md", "start": 0, "end": 3, "x": 1}]},
         "unknown field 'x'"),
        ({"support": {}}, "support should be a list"),
        ({"expect": {"contains": "10%"}}, "contains should be a list"),
        ({"expect": {"lead": "x" * 41}}, "lead is 41 characters"),
        ({"expect": {"cites": ["a.md"]}}, "unknown field 'cites'"),
        ({"probes": {"maybe": ["x"]}}, "unknown field 'maybe'"),
        ({"trace": {}}, "unknown field 'trace'"),
        ({"answerable": True, "support": [{}] * 51}, "at most 50 quotes"),
    ],
)  # fmt: skip
def test_a_bad_form_is_refused(corpus: Corpus, fields: Any, message: str) -> None:
    with pytest.raises(GoldcaseError, match=message):
        draft_form(fields, corpus, yaml.safe_load(DRAFT))


def test_blank_parts_of_a_check_are_left_out() -> None:
    assert expect_block({"contains": [[], [" "], ["14 days"]], "not_contains": []}) == {
        "contains": ["14 days"]
    }
    assert expect_block(None) == {} and probe_block({"pass": [], "fail": None}) == {}


def test_a_blank_form_leaves_a_blank_draft(corpus: Corpus) -> None:
    text = draft_text(DRAFT, DraftForm(answerable=None))
    assert yaml.safe_load(text) == yaml.safe_load(DRAFT)


LABEL = """\
# Second label for case ret-002 (sample seed s).
id: ret-002
question: "how long do i have to send back unused things"  # to read; not compared
# true when the corpus answers the question; false when the right answer is to abstain
answerable:
# the short answer (a number, a date, a name, a short phrase); blank when unanswerable
expected_answer:
expect:
"""


def test_a_label(corpus: Corpus) -> None:
    text = label_text(
        LABEL,
        {"answerable": True, "expected_answer": "30 days", "expect": {"contains": [["30 days"]]}},
    )
    data = yaml.safe_load(text)
    assert data == {
        "id": "ret-002",
        "question": "how long do i have to send back unused things",
        "answerable": True,
        "expected_answer": "30 days",
        "expect": {"contains": ["30 days"]},
    }
    assert "# true when the corpus answers the question;" in text
    assert "# to read; not compared" in text
    unanswered = yaml.safe_load(label_text(LABEL, {"answerable": False, "expected_answer": "x"}))
    assert unanswered["expected_answer"] is None and unanswered["expect"] is None


def test_a_resolution() -> None:
    case = "id: ret-002\nquestion: q  # kept\nanswerable: true\nexpected_answer: 30 days\n"
    text = resolution_text(case, " the rule ", "support-lead")
    assert yaml.safe_load(text)["resolution"] == {"rule": "the rule", "decided_by": "support-lead"}
    assert "question: q  # kept\n" in text


def test_a_write_over_a_changed_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "goldcase.toml", "")
    config = load_config(tmp_path)
    path = write(tmp_path, "x.yaml", "id: x\n")
    seen = file_digest(path.read_bytes())
    path.write_text("id: x\nquestion: changed elsewhere\n", encoding="utf-8")
    with pytest.raises(Conflict, match=r"x\.yaml changed since this page loaded it"):
        write_if_unchanged(config, path, seen, lambda text: text + "notes: mine\n")
    assert path.read_text(encoding="utf-8") == "id: x\nquestion: changed elsewhere\n"
    new = write_if_unchanged(
        config, path, file_digest(path.read_bytes()), lambda t: t + "notes: n\n"
    )
    assert path.read_bytes() == new
