"""Helpers for the labelling page's tests: a small golden-set repository with drafts drawn by
goldcase triage and a second labeller's sample, the page served in a thread, and what a
labeller does with the mouse in a browser (select words of a document)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.labelpage import documents
from goldcase.labelpage.app import App
from goldcase.labelpage.items import source_for
from goldcase.labelpage.server import LabelServer
from goldcase.labelpage.server import serving as server_serving
from kit import run_cli, write

RETURNS = """\
# Returns and credits

## 1. Damaged deliveries

A customer has 14 days from delivery to request a credit
for a damaged delivery. Photographs of the damage help us
decide quickly.

## 2. Standard returns

Unused items may be returned within 30 days of delivery.
Opened large appliances carry a 10% restocking fee.
Custom-printed products are excluded from the standard return window.
"""

DELIVERY = """\
# Delivery

Standard delivery takes 3 to 5 business days and costs £4.95.
Large items are delivered by a two-person team for £29.
Parcels we could not deliver are held at the depot for 7 days.
"""

# A document whose text looks like markup: the page must show it as text.
HOSTILE_DOC = """\
# Gift cards

Gift cards <b>never</b> expire. <img src=x onerror="document.title='pwned'">
"""

GOLDEN = """\
# yaml-language-server: $schema=../../schema/case.schema.json
id: ret-001
question: can i send back a personalised mug
answerable: false
slice: returns
tags: [unanswerable]
source: hand-written
"""

GOLDEN_ANSWERED = """\
id: ret-002
question: how long do i have to send back unused things
answerable: true
expected_answer: 30 days
support:
  - doc: returns-policy.md
    quote: Unused items may be returned within 30 days of delivery.
probes:
  fail: [14 days]
slice: returns
source: transcript
"""

DEV = """\
id: dev-del-001
question: how long is a parcel kept at the depot
answerable: true
expected_answer: 7 days
support:
  - doc: delivery.md
    quote: Parcels we could not deliver are held at the depot for 7 days.
slice: delivery
source: hand-written
"""

ANSWERED = (
    "my fridge came dented, how long have i got to claim and what does large item delivery cost"
)
PREMISE = "the restocking fee on an opened washing machine is 20% right"
ABSENT = "do you sell gift wrapping"
HOSTILE = (
    "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
    " where is my order"
)

TRACES = [
    {"id": "t-1", "time": "2026-03-02T09:00:00Z", "question": ANSWERED,
     "answer": "You have 30 days and large item delivery is free.", "failed_check": True},
    {"id": "t-2", "time": "2026-03-03T10:00:00Z", "question": PREMISE,
     "answer": "Yes, the restocking fee is 20%.", "thumbs_down": True},
    {"id": "t-3", "time": "2026-03-04T11:00:00Z", "question": ABSENT,
     "answer": "Yes, gift wrapping is £3.", "failed_check": True},
]  # fmt: skip

HOSTILE_TRACE = {
    "id": "t-4",
    "time": "2026-03-05T12:00:00Z",
    "question": HOSTILE,
    "answer": "<b>bold</b> <script>document.title='pwned'</script>",
    "failed_check": True,
}


def build(root: Path, traces: list[dict[str, Any]] | None = None) -> Path:
    """The repository, and drafts drawn from ``traces`` by goldcase triage."""
    write(root, "goldcase.toml", "")
    write(root, "corpus/returns-policy.md", RETURNS)
    write(root, "corpus/delivery.md", DELIVERY)
    write(root, "cases/golden/ret-001.yaml", GOLDEN)
    write(root, "cases/golden/ret-002.yaml", GOLDEN_ANSWERED)
    write(root, "cases/dev/dev-del-001.yaml", DEV)
    rows = TRACES if traces is None else traces
    log = write(root, "traces/week.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    made = run_cli("triage", "--repo", root, log, "--n", str(len(rows)), "--seed", "w10")
    assert made.exit_code == 0, made.stdout + made.stderr
    return root


def drafts(root: Path) -> dict[str, str]:
    """Each draft's question -> its id."""
    import yaml

    out = {}
    for path in sorted((root / "cases" / "inbox").glob("*.yaml")):
        out[yaml.safe_load(path.read_text(encoding="utf-8"))["question"]] = path.stem
    return out


def context(root: Path) -> Context:
    return Context(load_config(root), Cache(None))


def app(root: Path, labeller: str | None = None) -> App:
    ctx = context(root)
    return App(ctx, source_for(ctx, labeller))


def serving(
    root: Path, labeller: str | None = None, token: str | None = None
) -> AbstractContextManager[LabelServer]:
    """The page served from a thread on a free port, shut down afterwards."""
    return server_serving(app(root, labeller), 0, token)


# Select the words of ``needle`` in the open document, as a mouse drag does: the document's
# line breaks may fall anywhere inside it.
SELECT = r"""(needle) => {
  const box = document.getElementById("doc-text");
  const escape = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(needle.trim().split(/\s+/).map(escape).join("\\s+"));
  const found = pattern.exec(box.textContent);
  if (!found) throw new Error("not in the document: " + needle);
  const point = (offset) => {
    const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    let node; let seen = 0;
    while ((node = walk.nextNode())) {
      if (seen + node.length >= offset) return [node, offset - seen];
      seen += node.length;
    }
    throw new Error("offset past the end");
  };
  const [startNode, startOffset] = point(found.index);
  const [endNode, endOffset] = point(found.index + found[0].length);
  const range = document.createRange();
  range.setStart(startNode, startOffset);
  range.setEnd(endNode, endOffset);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}"""


def counted_offsets(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each document whose UTF-16 offsets the page counts from now on (how a
    test holds the page to counting a document once without timing it)."""
    built: list[int] = []

    class CountingOffsets(documents.Offsets):
        def __init__(self, text: str) -> None:
            built.append(len(text))
            super().__init__(text)

    monkeypatch.setattr(documents, "Offsets", CountingOffsets)
    return built
