"""The page's operations, one function each, called by name with a JSON object; the HTTP
layer (``server.py``) knows nothing of what they do.

| operation | body | does |
|---|---|---|
| ``state`` | ``{}`` | the items and what the page offers (slices, tags, the corpus) |
| ``item`` | ``{key}`` | one draft or label as the page shows it |
| ``document`` | ``{name}`` | a corpus document's text and its pieces |
| ``quote`` | ``{doc, start, end, digest}`` | the quote a selection makes, in its context |
| ``search`` | ``{q}`` | corpus passages for a query |
| ``offers`` | ``{quotes, premise?, question?}`` | figures and names to click |
| ``save`` | ``{key, hash, fields, to?}`` | write the item, run its checks (and promote's) |
| ``promote`` | ``{keys, to}`` | ``goldcase promote`` |
| ``resolve`` | ``{id, hash, rule, decided_by}`` | write a disagreement's resolution into its case |

Every operation runs under one lock: the page is one labeller's, and a save, its checks and
the cache they use never interleave with another's.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from goldcase.authoring.new import SUGGESTED_TAGS
from goldcase.context import Context
from goldcase.engine import load_case_set, run_checks
from goldcase.errors import GoldcaseError
from goldcase.labelpage import documents, edits, items, offers, views
from goldcase.model import CaseSet, Finding, Split
from goldcase.safeio import inside
from goldcase.traffic.promote import promote

Operation = Callable[["App", dict[str, Any]], dict[str, Any]]


class App:
    def __init__(self, ctx: Context, source: items.Source) -> None:
        self.ctx = ctx
        self.source = source
        self.lock = threading.Lock()
        self._signature = _signature(ctx.config.corpus_dir)
        self._index = documents.Index(ctx.corpus)

    def call(self, name: str, body: dict[str, Any]) -> dict[str, Any]:
        """Run operation ``name`` (one of ``OPERATIONS``)."""
        operation = OPERATIONS[name]
        with self.lock:
            self._refresh()
            return operation(self, body)

    def _refresh(self) -> None:
        """A fresh context when a corpus document changed: quotes are cut from what is on
        disk now."""
        signature = _signature(self.ctx.config.corpus_dir)
        if signature != self._signature:
            self.ctx = Context(self.ctx.config, self.ctx.cache)
            self._signature = signature
            self._index = documents.Index(self.ctx.corpus)

    @property
    def corpus(self) -> Any:
        return self.ctx.corpus


def _signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            out.append((path, info.st_mtime_ns, info.st_size))
    return tuple(out)


def _split(value: Any) -> Split:
    if value in (None, "golden"):
        return "golden"
    if value == "dev":
        return "dev"
    raise edits.FormError("to should be golden or dev")


def _findings(found: list[Finding]) -> list[dict[str, Any]]:
    return [f.as_dict() for f in found]


def _file_checks(ctx: Context, select: tuple[str, ...], rel: str) -> list[Finding]:
    """The findings at one file. The set's own (a slice under its floor) are left out: they
    change with every case added and are ``goldcase check``'s to show."""
    return [f for f in run_checks(ctx, select, [rel]).findings if f.path == rel]


# -- reading --------------------------------------------------------------------------------


def state(app: App, body: dict[str, Any]) -> dict[str, Any]:
    ctx, source = app.ctx, app.source
    case_set = load_case_set(ctx)
    slices = set(ctx.config.slices) | {case.slice for case in case_set.cases}
    out: dict[str, Any] = {
        "mode": source.mode,
        "labeller": source.labeller,
        "folder": ctx.rel(source.folder),
        "repository": ctx.root.name,
        "repository_id": hashlib.blake2b(str(ctx.root).encode(), digest_size=8).hexdigest(),
        "items": [items.summary(ctx, source, key) for key in items.keys(source)],
        "slices": sorted(slices - set(ctx.config.ambiguous_slices))
        + sorted(set(ctx.config.ambiguous_slices)),
        "tags": list(SUGGESTED_TAGS),
        "seconds_per_item": ctx.config.triage.seconds_per_item,
        "documents": sorted(app.corpus.documents),
        "agreement": None,
    }
    if source.mode == "labels":
        out["agreement"] = views.agreement(ctx, case_set, source)
    return out


def item(app: App, body: dict[str, Any]) -> dict[str, Any]:
    found = items.read(app.ctx, app.source, body.get("key"))
    return _view(app, found)


def _view(app: App, found: items.Item, case_set: CaseSet | None = None) -> dict[str, Any]:
    if app.source.mode == "drafts":
        return views.draft_view(app.corpus, found, app.source)
    return views.label_view(app.ctx, case_set or load_case_set(app.ctx), found, app.source)


def document(app: App, body: dict[str, Any]) -> dict[str, Any]:
    return documents.view(documents.shown(app.corpus, body.get("name")))


def quote(app: App, body: dict[str, Any]) -> dict[str, Any]:
    """A quote cut from a document at the offsets of a selection, with its context."""
    found = _cut(app.corpus, body)
    return found.as_dict() | {"digest": documents.digest(app.corpus.documents[found.doc])}


def search(app: App, body: dict[str, Any]) -> dict[str, Any]:
    return {"results": app._index.search(body.get("q"))}


def offer(app: App, body: dict[str, Any]) -> dict[str, Any]:
    """Figures and names in the selected quotes, each figure's other spellings, and the
    confusable figures near the quotes (for a false premise: near its passage, and the
    question's own figures the passage contradicts)."""
    corpus = app.corpus
    quotes = body.get("quotes") or []
    if not isinstance(quotes, list) or len(quotes) > edits.MAX_ITEMS:
        raise edits.FormError("quotes should be a list")
    cuts = [_cut(corpus, entry) for entry in quotes]
    premise = body.get("premise")
    if premise is not None:
        cuts.append(_cut(corpus, premise))
    texts = [c.quote for c in cuts]
    figures, named = offers.for_answer(texts)
    near: list[str] = []
    question = body.get("question")
    if premise is not None and isinstance(question, str):
        near.extend(offers.premise(question[:2000], texts[-1]))
    for c in cuts:
        document = corpus.documents[c.doc]
        offsets = documents.offsets_of(document)  # built once a document, not once a quote
        near.extend(
            offers.confusable(document.text, offsets.from16(c.start), offsets.from16(c.end))
        )
    return {
        "figures": [{"text": f, "spellings": offers.spellings(f)} for f in figures],
        "names": named,
        "not_contains": list(dict.fromkeys(near))[: offers.MAX_OFFERS],
    }


def _cut(corpus: Any, entry: Any) -> documents.Cut:
    if not isinstance(entry, dict):
        raise edits.FormError("a quote should be an object")
    document = documents.shown(corpus, entry.get("doc"))
    return documents.cut(document, entry.get("start"), entry.get("end"), entry.get("digest"))


# -- writing --------------------------------------------------------------------------------


def save(app: App, body: dict[str, Any]) -> dict[str, Any]:
    ctx, source = app.ctx, app.source
    found = items.read(ctx, source, body.get("key"))
    if found.data is None:
        raise GoldcaseError(
            f"{found.rel} does not parse ({found.problems[0].message}); fix it in an editor "
            f"(goldcase check {found.rel} says where)"
        )
    fields = body.get("fields")
    if source.mode == "drafts":
        form = edits.draft_form(fields, app.corpus, found.data)
        edits.write_if_unchanged(
            ctx.config, found.path, body.get("hash"), lambda t: edits.draft_text(t, form)
        )
    else:
        edits.write_if_unchanged(
            ctx.config, found.path, body.get("hash"), lambda t: edits.label_text(t, fields)
        )
    saved = items.read(ctx, source, found.key)
    if source.mode == "drafts":
        return {
            "item": _view(app, saved),
            "checks": _draft_checks(app, saved, _split(body.get("to"))),
        }
    case_set = load_case_set(ctx)
    checks = _file_checks(ctx, ("labelling",), saved.rel)
    return {
        "item": _view(app, saved, case_set),
        "checks": {"findings": _findings(checks), "preview": None},
        "agreement": views.agreement(ctx, case_set, source),
    }


def _draft_checks(app: App, saved: items.Item, split: Split) -> dict[str, Any]:
    """The checks a draft earns in the inbox (schema, personal data, duplicates of the set),
    and once it is labelled, what promoting it to ``split`` would find."""
    own = _file_checks(app.ctx, (), saved.rel)
    preview: dict[str, Any] | None = None
    if items.state(app.source, saved.data) == "labelled":
        try:
            outcome = promote(app.ctx, [saved.key], split, write=False)
        except GoldcaseError as exc:
            preview = {"to": split, "error": exc.message, "refused": [], "warnings": []}
        else:
            preview = {
                "to": split,
                "error": None,
                "refused": _findings(outcome.refused),
                "warnings": _findings(outcome.warnings),
            }
    return {"findings": _findings(own), "preview": preview}


def promote_drafts(app: App, body: dict[str, Any]) -> dict[str, Any]:
    if app.source.mode != "drafts":
        raise GoldcaseError("a second labeller's labels are not promoted; they are compared")
    keys = body.get("keys")
    if not isinstance(keys, list) or not keys or len(keys) > 1000:
        raise edits.FormError("keys should name the drafts to promote")
    for key in keys:
        items.path_of(app.ctx, app.source, key)  # each one a draft of the inbox
    split = _split(body.get("to"))
    # under the lock a save takes (promote holds it): another server's save lands before the
    # drafts are read, or finds them gone; never written into a draft about to be removed
    outcome = promote(app.ctx, [str(k) for k in keys], split)
    return {
        "to": split,
        "promoted": [{"draft": d, "case": c} for d, c in outcome.promoted],
        "refused": _findings(outcome.refused),
        "warnings": _findings(outcome.warnings),
    }


def resolve(app: App, body: dict[str, Any]) -> dict[str, Any]:
    """Write the resolution of a disagreement the page listed into its case file."""
    ctx, source = app.ctx, app.source
    if source.mode != "labels":
        raise GoldcaseError("resolutions are written for a second labeller's disagreements")
    case_set = load_case_set(ctx)
    report = views.agreement(ctx, case_set, source)
    listed = {d["id"]: d for d in report["disagreements"]}
    case_id = body.get("id")
    if not isinstance(case_id, str) or case_id not in listed:
        raise GoldcaseError(f"{str(case_id)[:80]!r} is not a disagreement of this labeller")
    rel = listed[case_id]["case"]
    path = inside(ctx.root, rel)
    edits.write_if_unchanged(
        ctx.config,
        path,
        body.get("hash"),
        lambda t: edits.resolution_text(t, body.get("rule"), body.get("decided_by")),
    )
    case_set = load_case_set(ctx)
    checks = _file_checks(ctx, ("schema", "labelling", "composition"), rel)
    return {
        "case": rel,
        "findings": _findings(checks),
        "agreement": views.agreement(ctx, case_set, source),
        "golden": rel.startswith(f"{ctx.rel(ctx.config.cases_dir)}/golden/"),
    }


OPERATIONS: dict[str, Operation] = {
    "state": state,
    "item": item,
    "document": document,
    "quote": quote,
    "search": search,
    "offers": offer,
    "save": save,
    "promote": promote_drafts,
    "resolve": resolve,
}
