"""Drafts: the files ``goldcase triage`` writes to ``cases/inbox/`` for a labeller to finish.

A draft is a case in the making (``schema/draft.schema.json``): the question as the user asked
it (personal data replaced by tokens), when it was asked, the fields a labeller fills in left
blank, and a ``trace`` block with what production answered and why the trace was drawn. Its
keys are in the canonical order of ``goldcase fmt``; its id is ``tr-`` and the minute the
question was asked and four characters of a hash of the trace (``goldcase.ids``), so the same
trace gives the same draft everywhere. Drafts are written exclusively: an existing file is
never replaced.
"""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct

from goldcase.authoring.formatting import dump_canonical
from goldcase.authoring.new import HINTS
from goldcase.errors import GoldcaseError
from goldcase.loader import load_case_file, parse_case
from goldcase.model import INBOX
from goldcase.safeio import read_regular
from goldcase.text import clip
from goldcase.traffic.sample import Drawn
from goldcase.writer import create_exclusive

MAX_ANSWER = 4000  # characters of production's answer kept in a draft: enough to judge it
# The commented example under a draft's blank ``support:`` (the other fields' hints are
# ``authoring.new.HINTS``).
SUPPORT_HINT = (
    "#   - doc: the-document.md",
    "#     quote: the passage that answers it, copied verbatim",
)


class Provenance(Struct, frozen=True):
    """Where a run's drafts came from, as each draft says."""

    file: str  # the trace log as named on the command line
    seed: str
    schema: str  # the draft schema, relative to the inbox folder (for editors)


def render(draft_id: str, drawn: Drawn, answer: str | None, source: Provenance) -> str:
    """The text of the draft for ``drawn`` (``answer``: production's, scrubbed)."""
    trace = drawn.trace
    block: dict[str, object] = {"answer": None if answer is None else clip(answer, MAX_ANSWER)}
    if trace.flags:
        block["flags"] = list(trace.flags)
    block |= {"drawn": drawn.stratum, "file": source.file, "line": trace.line}
    if trace.own_id is not None:
        block["id"] = trace.own_id
    block["repeats"] = drawn.repeats
    lines = [
        f"# yaml-language-server: $schema={source.schema}",
        f"# Drawn by goldcase triage from {clip(source.file, 60)} (seed {clip(source.seed, 40)}).",
        "# To label it: answerable (false when the corpus cannot answer it); when answerable,",
        "# expected_answer and a support quote copied verbatim from a corpus document; a slice.",
        f"# Then: goldcase promote {draft_id} --to golden   (or --to dev)",
        "# The trace block is what production did; promote leaves it behind (docs/triage.md).",
        _dump({"id": draft_id, "question": drawn.question}),
        "answerable:",
        "expected_answer:",
        "support:",
        *SUPPORT_HINT,
        *HINTS["expect"],
        *HINTS["probes"],
        "slice:",
        *HINTS["tags"],
        "source: transcript",
    ]
    if trace.asked is not None:
        lines.append(_dump({"asked_at": trace.asked.text()}))
    lines += ["labelled_by:", "notes:", _dump({"trace": block})]
    text = "\n".join(lines) + "\n"
    _check(draft_id, text)
    return text


def _dump(data: dict[str, object]) -> str:
    return dump_canonical(data, ()).rstrip("\n")


def _check(draft_id: str, text: str) -> None:
    """The draft schema on the text about to be written: a defect here is goldcase's own."""
    found = load_case_file(f"cases/inbox/{draft_id}.yaml", INBOX, text.encode("utf-8"))
    if found.findings:
        first = found.findings[0]
        raise GoldcaseError(
            f"draft {draft_id} would not pass the draft schema: {first.code} {first.message}"
        )


def inbox_drafts(folder: Path) -> dict[str, str | None]:
    """Each draft in ``folder`` (its file stem) and its question (None when the file cannot
    be read as a draft: goldcase check says why)."""
    out: dict[str, str | None] = {}
    if not folder.is_dir():
        return out
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            stem, suffix = os.path.splitext(entry.name)
            if suffix in (".yaml", ".yml") and not entry.name.startswith("."):
                out[stem] = _question(Path(entry.path))
    return out


MAX_DRAFT_BYTES = 1024 * 1024  # a draft is a few hundred bytes


def _question(path: Path) -> str | None:
    try:  # a link is not followed: it may lead anywhere (goldcase check reports it)
        data, _ = parse_case(path.name, read_regular(path, MAX_DRAFT_BYTES, follow=False))
    except OSError:
        return None
    question = data.get("question") if isinstance(data, dict) else None
    return question if isinstance(question, str) else None


def write_drafts(folder: Path, texts: dict[str, str]) -> tuple[list[Path], list[Path]]:
    """Create each draft (id -> text) exclusively; (written, found there already)."""
    written: list[Path] = []
    existing: list[Path] = []
    for draft_id, text in texts.items():
        path = folder / f"{draft_id}.yaml"
        if create_exclusive(path, text.encode("utf-8")):
            written.append(path)
        else:
            existing.append(path)
    return written, existing
