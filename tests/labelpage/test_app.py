"""The page's operations (goldcase.labelpage.app), called as the server calls them: what the
page sees of a draft or a label, quotes cut from documents, saves that keep comments and run
the checks, conflicts by content hash, paths confined to the repository, the second
labeller's blindness, resolutions and promotion."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from goldcase.errors import GoldcaseError
from goldcase.labelpage.app import App
from goldcase.labelpage.edits import Conflict
from kit import run_cli, write
from labelpage.kit import ABSENT, ANSWERED, PREMISE, app, build, counted_offsets, drafts


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return build(tmp_path / "repo")


@pytest.fixture
def page(repo: Path) -> App:
    return app(repo)


def utf16(text: str, needle: str) -> tuple[int, int]:
    """The offsets a browser gives for ``needle`` in ``text`` (BMP text: as Python's)."""
    start = text.index(needle)
    return start, start + len(needle)


def quote_at(page: App, doc: str, needle: str) -> dict[str, Any]:
    text = page.call("document", {"name": doc})["text"]
    start, end = utf16(text, needle)
    return {"doc": doc, "start": start, "end": end}


def draft_path(repo: Path, question: str) -> Path:
    return repo / "cases" / "inbox" / f"{drafts(repo)[question]}.yaml"


def item(page: App, repo: Path, question: str) -> dict[str, Any]:
    return page.call("item", {"key": drafts(repo)[question]})


def save(page: App, view: dict[str, Any], fields: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return page.call("save", {"key": view["key"], "hash": view["hash"], "fields": fields, **extra})


ANSWERED_FIELDS: dict[str, Any] = {
    "answerable": True,
    "expected_answer": "14 days",
    "expect": {"contains": [["14 days", "fourteen days"]], "not_contains": ["30 days"]},
    "probes": {"fail": ["You have 30 days."]},
    "slice": "returns",
    "labelled_by": "support-lead",
}


def test_the_state_lists_the_drafts_and_what_the_page_offers(page: App, repo: Path) -> None:
    state = page.call("state", {})
    assert state["mode"] == "drafts" and state["folder"] == "cases/inbox"
    assert sorted(i["question"] for i in state["items"]) == sorted([ANSWERED, PREMISE, ABSENT])
    assert {i["state"] for i in state["items"]} == {"blank"}
    assert state["slices"] == ["delivery", "returns"]
    assert state["documents"] == ["delivery.md", "returns-policy.md"]
    assert state["seconds_per_item"] == 60
    assert "false_premise" in state["tags"]


def test_a_draft_shows_its_question_and_what_production_did(page: App, repo: Path) -> None:
    view = item(page, repo, ANSWERED)
    assert view["question"] == ANSWERED
    assert view["asked_at"] == "2026-03-02T09:00:00Z"
    assert view["trace"] == {
        "answer": "You have 30 days and large item delivery is free.",
        "flags": ["failed_check"],
        "drawn": "flagged",
        "repeats": 0,
    }
    assert view["fields"]["answerable"] is None and view["fields"]["support"] == []


def test_a_quote_is_cut_from_the_document_and_shown_in_context(page: App) -> None:
    text = page.call("document", {"name": "returns-policy.md"})["text"]
    start = text.index("A customer has 14 days")
    end = text.index("damaged delivery.") + len("damaged delivery.")
    cut = page.call("quote", {"doc": "returns-policy.md", "start": start - 1, "end": end + 1})
    # the line breaks of the document are folded; the spaces at either end trimmed
    assert cut["quote"] == (
        "A customer has 14 days from delivery to request a credit for a damaged delivery."
    )
    assert (cut["start"], cut["end"]) == (start, end)
    assert cut["context"] == {
        "line": 5,
        "before": "Damaged deliveries",  # "## 1." is a sentence of its own
        "lead": "",
        "tail": "",
        "after": "Photographs of the damage help us decide quickly.",
    }


def test_a_save_writes_the_quotes_and_keeps_the_labellers_comments(page: App, repo: Path) -> None:
    path = draft_path(repo, ANSWERED)
    text = path.read_text(encoding="utf-8").replace(
        f"question: {ANSWERED}\n", f"question: {ANSWERED}  # as the customer typed it\n"
    )
    path.write_text(text, encoding="utf-8")
    view = item(page, repo, ANSWERED)
    support = [
        quote_at(page, "returns-policy.md", "A customer has 14 days from delivery to request"),
        quote_at(page, "delivery.md", "Large items are delivered by a two-person team for £29."),
    ]
    result = save(page, view, {**ANSWERED_FIELDS, "support": support})
    written = path.read_text(encoding="utf-8")
    data = yaml.safe_load(written)
    assert data["support"] == [
        {"doc": "returns-policy.md", "quote": "A customer has 14 days from delivery to request"},
        {"doc": "delivery.md", "quote": "Large items are delivered by a two-person team for £29."},
    ]
    assert data["expect"] == {
        "contains": [["14 days", "fourteen days"]],
        "not_contains": ["30 days"],
    }
    assert f"question: {ANSWERED}  # as the customer typed it\n" in written
    assert written.startswith("# yaml-language-server: $schema=../../schema/draft.schema.json\n")
    assert "#   - doc: the-document.md" not in written  # the hints of filled fields go
    assert "# expect:" not in written and "# probes:" not in written
    assert "# tags: [numeric, policy]" in written  # tags are not filled: their hint stays
    assert data["trace"]["answer"] == "You have 30 days and large item delivery is free."
    assert result["item"]["state"] == "labelled"
    assert result["checks"]["findings"] == []
    assert result["checks"]["preview"] == {
        "to": "golden",
        "error": None,
        "refused": [],
        "warnings": [],
    }
    assert result["item"]["hash"] != view["hash"]


def test_a_save_shows_what_promotion_would_find(page: App, repo: Path) -> None:
    view = item(page, repo, ANSWERED)
    fields = {**ANSWERED_FIELDS, "expected_answer": "30 days", "probes": None, "expect": None}
    fields["support"] = [quote_at(page, "returns-policy.md", "A customer has 14 days")]
    preview = save(page, view, fields, to="dev")["checks"]["preview"]
    assert preview["to"] == "dev" and preview["refused"] == []
    assert [w["code"] for w in preview["warnings"]] == ["GC208"]
    golden = save(page, page.call("item", {"key": view["key"]}), fields)["checks"]["preview"]
    assert sorted(w["code"] for w in golden["warnings"]) == ["GC208", "GC603"]


def test_a_draft_not_labelled_yet_has_no_promotion_preview(page: App, repo: Path) -> None:
    result = save(page, item(page, repo, ABSENT), {"answerable": False})
    assert result["item"]["state"] == "started"
    assert result["checks"] == {"findings": [], "preview": None}


def test_a_save_reports_the_drafts_own_findings(page: App, repo: Path) -> None:
    view = item(page, repo, ABSENT)
    result = save(page, view, {"answerable": False, "notes": "call me on 07700 900123"})
    assert [f["code"] for f in result["checks"]["findings"]] == ["GC505"]


def test_a_new_quote_cannot_be_typed(page: App, repo: Path) -> None:
    view = item(page, repo, ANSWERED)
    typed = {"doc": "returns-policy.md", "quote": "A customer has 30 days"}
    with pytest.raises(GoldcaseError, match="a new quote is selected in its document, not typed"):
        save(page, view, {**ANSWERED_FIELDS, "support": [typed]})


def test_a_quote_the_file_holds_is_kept_as_it_is(page: App, repo: Path) -> None:
    """A quote written in an editor, even one the document does not hold, is sent back and
    kept; the checks say what is wrong with it."""
    path = draft_path(repo, ANSWERED)
    text = path.read_text(encoding="utf-8").replace(
        "support:\n", "support:\n  - doc: returns-policy.md\n    quote: A customer has 15 days\n"
    )
    path.write_text(text, encoding="utf-8")
    view = item(page, repo, ANSWERED)
    assert view["fields"]["support"] == [
        {"doc": "returns-policy.md", "quote": "A customer has 15 days", "start": None,
         "end": None, "context": None, "found": False},
    ]  # fmt: skip
    kept = [{"doc": "returns-policy.md", "quote": "A customer has 15 days"}]
    result = save(page, view, {**ANSWERED_FIELDS, "support": kept})
    assert yaml.safe_load(path.read_text("utf-8"))["support"] == kept
    assert [f["code"] for f in result["checks"]["preview"]["refused"]] == ["GC202"]


def test_a_stale_save_is_refused_and_writes_nothing(page: App, repo: Path) -> None:
    view = item(page, repo, ABSENT)
    save(page, view, {"answerable": False, "slice": "general"})
    before = draft_path(repo, ABSENT).read_bytes()
    with pytest.raises(Conflict, match="changed since this page loaded it"):
        save(page, view, {"answerable": True, "slice": "returns"})  # the first tab's hash
    assert draft_path(repo, ABSENT).read_bytes() == before


def test_a_quote_from_a_changed_document_is_refused(page: App, repo: Path) -> None:
    shown = page.call("document", {"name": "delivery.md"})
    write(repo, "corpus/delivery.md", shown["text"].replace("£29", "£39"))
    start, end = utf16(shown["text"], "Large items are delivered")
    selection = {"doc": "delivery.md", "start": start, "end": end, "digest": shown["digest"]}
    with pytest.raises(GoldcaseError, match=r"delivery\.md changed since the page showed it"):
        page.call("quote", selection)
    assert "£39" in page.call("document", {"name": "delivery.md"})["text"]


@pytest.mark.parametrize(
    "key", ["../golden/ret-001", "ret-001/..", "/etc/passwd", "", None, 7, "a" * 200, ".hidden"]
)
def test_an_item_is_a_name_in_its_folder(page: App, key: Any) -> None:
    with pytest.raises(GoldcaseError, match="is not the name of an item"):
        page.call("item", {"key": key})


def test_a_linked_draft_is_refused(page: App, repo: Path, tmp_path: Path) -> None:
    outside = write(tmp_path, "elsewhere.yaml", "id: tr-outside\nquestion: x\n")
    os.symlink(outside, repo / "cases" / "inbox" / "tr-linked.yaml")
    os.symlink(repo / "cases" / "golden" / "ret-001.yaml", repo / "cases" / "inbox" / "tr-in.yaml")
    for key in ("tr-linked", "tr-in"):
        with pytest.raises(GoldcaseError, match="the file is a link; the page edits plain files"):
            page.call("item", {"key": key})


@pytest.mark.parametrize(
    "name", ["../goldcase.toml", "corpus/delivery.md", "/etc/passwd", "delivery", None, ["x"]]
)
def test_a_document_is_a_name_of_the_corpus(page: App, name: Any) -> None:
    with pytest.raises(GoldcaseError, match=r"no document .* in the corpus"):
        page.call("document", {"name": name})


def test_an_unreadable_draft_is_shown_and_not_saved(page: App, repo: Path) -> None:
    path = draft_path(repo, ABSENT)
    path.write_text("id: [unclosed\n", encoding="utf-8")
    view = page.call("item", {"key": path.stem})
    assert view["state"] == "unreadable" and view["problems"][0]["code"] == "GC101"
    with pytest.raises(GoldcaseError, match="does not parse"):
        save(page, view, {"answerable": False})


def test_offers_from_a_quote(page: App) -> None:
    quote = quote_at(page, "returns-policy.md", "A customer has 14 days from delivery")
    offers = page.call("offers", {"quotes": [quote]})
    assert offers == {
        "figures": [{"text": "14 days", "spellings": ["14 days", "fourteen days", "14-day"]}],
        "names": [],
        "not_contains": ["30 days"],
    }


def test_offers_for_a_false_premise(page: App) -> None:
    passage = quote_at(page, "returns-policy.md", "carry a 10% restocking fee")
    offers = page.call("offers", {"quotes": [], "premise": passage, "question": PREMISE})
    assert offers["figures"] == [
        {"text": "10%", "spellings": ["10%", "10 per cent", "ten per cent"]}
    ]
    assert offers["not_contains"] == ["20%"]


def test_offers_for_many_quotes_count_a_document_s_offsets_once(
    page: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each quote of an offers request counted its whole document's UTF-16 offsets again (a
    Python loop over every character, under the page's one lock): fifty quotes in a 3.5 MB
    document took 10 s. Now once a document, as placing quotes does."""
    quotes = [quote_at(page, "returns-policy.md", "A customer has 14 days from delivery")] * 50
    built = counted_offsets(monkeypatch)
    offers = page.call("offers", {"quotes": quotes})
    assert offers["not_contains"] == ["30 days"]
    assert len(built) <= 1, built


def test_promote_moves_the_drafts_named(page: App, repo: Path) -> None:
    view = item(page, repo, ABSENT)
    save(page, view, {"answerable": False, "slice": "general", "tags": ["unanswerable"]})
    result = page.call("promote", {"keys": [view["key"]], "to": "dev"})
    assert result["refused"] == [] and result["to"] == "dev"
    [moved] = result["promoted"]
    assert moved["draft"] == f"cases/inbox/{view['key']}.yaml"
    assert moved["case"].startswith("cases/dev/dev-")
    assert not (repo / moved["draft"]).exists() and (repo / moved["case"]).exists()


def test_promote_refuses_a_draft_not_labelled(page: App, repo: Path) -> None:
    with pytest.raises(GoldcaseError, match="answerable is blank"):
        page.call("promote", {"keys": [drafts(repo)[ABSENT]], "to": "golden"})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"keys": []}, "keys should name the drafts"),
        ({"keys": "tr-x"}, "keys should name the drafts"),
        ({"keys": ["../golden/ret-001"]}, "is not the name of an item"),
        ({"keys": ["tr-nothing"]}, "no item tr-nothing"),
    ],
)
def test_promote_takes_names_of_drafts(page: App, body: dict[str, Any], message: str) -> None:
    with pytest.raises(GoldcaseError, match=message):
        page.call("promote", body)


# -- a second labeller ----------------------------------------------------------------------


@pytest.fixture
def labels(repo: Path) -> App:
    made = run_cli("label", "sample", "--repo", repo, "--n", "2", "--seed", "s")
    assert made.exit_code == 0, made.stdout + made.stderr
    return app(repo, "second")


def test_a_pending_label_names_nothing_of_its_case(labels: App) -> None:
    view = labels.call("item", {"key": "ret-002"})
    state = labels.call("state", {})
    assert view["reveal"] is None
    seen = json.dumps([view, state])
    assert "30 days" not in seen
    assert "cases/golden" not in seen
    assert state["agreement"]["items"] == 0 and state["agreement"]["disagreements"] == []


def test_a_saved_label_reveals_the_case_and_the_agreement(labels: App, repo: Path) -> None:
    view = labels.call("item", {"key": "ret-002"})
    result = save(labels, view, {"answerable": True, "expected_answer": "14 days"})
    reveal = result["item"]["reveal"]
    assert reveal["case"]["expected_answer"] == "30 days"
    assert reveal["agrees"] is False and reveal["fields"] == ["expected_answer"]
    assert result["checks"]["findings"] == []
    [disagreement] = result["agreement"]["disagreements"]
    assert disagreement["id"] == "ret-002" and disagreement["resolved"] is False
    label = yaml.safe_load((repo / "labels" / "second" / "ret-002.yaml").read_text("utf-8"))
    assert label["answerable"] is True and label["expected_answer"] == "14 days"
    text = (repo / "labels" / "second" / "ret-002.yaml").read_text("utf-8")
    assert "# Answer from the corpus documents, without opening the case file." in text


def test_a_label_field_the_file_does_not_know_is_refused(labels: App) -> None:
    view = labels.call("item", {"key": "ret-002"})
    with pytest.raises(GoldcaseError, match="unknown field 'support'"):
        save(labels, view, {"answerable": True, "support": []})


def test_a_resolution_is_written_into_the_case(labels: App, repo: Path) -> None:
    view = labels.call("item", {"key": "ret-002"})
    result = save(labels, view, {"answerable": True, "expected_answer": "14 days"})
    [disagreement] = result["agreement"]["disagreements"]
    body = {"id": "ret-002", "hash": disagreement["hash"], "rule": "30 days for unused items",
            "decided_by": "support-lead"}  # fmt: skip
    resolved = labels.call("resolve", body)
    assert resolved["case"] == "cases/golden/ret-002.yaml" and resolved["golden"] is True
    assert resolved["findings"] == []
    assert resolved["agreement"]["disagreements"][0]["resolved"] is True
    case = yaml.safe_load((repo / "cases" / "golden" / "ret-002.yaml").read_text("utf-8"))
    assert case["resolution"] == {"rule": "30 days for unused items", "decided_by": "support-lead"}
    with pytest.raises(Conflict):
        labels.call("resolve", body)  # the case changed: that hash is stale


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"id": "ret-001"}, "'ret-001' is not a disagreement of this labeller"),
        ({"id": "../x"}, "is not a disagreement"),
    ],
)
def test_a_resolution_is_for_a_listed_disagreement(
    labels: App, body: dict[str, Any], message: str
) -> None:
    with pytest.raises(GoldcaseError, match=message):
        labels.call("resolve", body)


def test_a_resolution_needs_a_rule_and_who_decided(labels: App) -> None:
    view = labels.call("item", {"key": "ret-002"})
    found = save(labels, view, {"answerable": True, "expected_answer": "14 days"})
    digest = found["agreement"]["disagreements"][0]["hash"]
    with pytest.raises(GoldcaseError, match="needs the rule that decides it and who decided"):
        labels.call("resolve", {"id": "ret-002", "hash": digest, "rule": "x", "decided_by": " "})


def test_labels_are_not_promoted(labels: App) -> None:
    with pytest.raises(GoldcaseError, match="labels are not promoted"):
        labels.call("promote", {"keys": ["ret-002"], "to": "golden"})


def test_a_labeller_without_files_is_a_clear_error(repo: Path) -> None:
    with pytest.raises(GoldcaseError, match=r"no label files under labels/nobody/: draw"):
        app(repo, "nobody")
    with pytest.raises(GoldcaseError, match="may hold only letters"):
        app(repo, "../cases")
