"""``goldcase promote``: labelled drafts become cases of the golden or the dev set.

A draft is promoted when it is labelled (``answerable`` set, and a ``slice``) and, as the case
it would become, passes every check of its destination: the schema of a case (an answerable
case needs its expected answer and a support quote), its quotes verbatim in the corpus, no
leakage (a golden question in the dev set or a prompt, a dev question in the golden set), no
personal data, the time split when it is switched on. The checks run on the set as it would
be, with the drafts moved; any error that the move would bring is a refusal, reported at the
draft's own lines, and nothing is written. Warnings are shown and do not refuse.

The case keeps the draft's fields and comments, in the canonical order; the ``trace`` block and
the fields left blank stay behind. Its id is the slice's prefix and a suffix no other branch
will draw (``goldcase.ids``), and the file is created exclusively. Then the draft is removed.
Promoting to golden changes the set: the commit's version hook (or ``goldcase lock``) bumps
``golden.version``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from goldcase.authoring.editor_schema import modeline
from goldcase.authoring.formatting import rewrite
from goldcase.context import Context
from goldcase.engine import findings_of, load_case_set, taken_ids
from goldcase.errors import GoldcaseError
from goldcase.ids import new_id, slice_prefix, write_new_case
from goldcase.loader import Locator, load_case_file, parse_case
from goldcase.model import CaseFile, CaseSet, Finding, Split
from goldcase.repolock import serialised
from goldcase.safeio import Outside, inside, read_regular

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_DRAFT_ONLY = ("trace",)


class Candidate(Struct):
    draft_id: str
    draft_rel: str
    draft_raw: bytes
    split: Split
    prefix: str
    case_id: str
    rel: str
    text: str


class Outcome(Struct):
    split: Split
    promoted: list[tuple[str, str]] = field(default_factory=list)  # (draft, case) paths
    refused: list[Finding] = field(default_factory=list)  # errors, at the drafts' lines
    warnings: list[Finding] = field(default_factory=list)


def promote(ctx: Context, names: Sequence[str], split: Split, *, write: bool = True) -> Outcome:
    """Check every draft named (an id, or a path under the inbox) as a case of ``split``;
    write them all, or none (``write=False``: check only, as the labelling page does after
    each save). A promotion holds the repository's lock from reading the drafts to removing
    them, as a save of the labelling page does: a save then lands before the drafts are
    read, or finds them gone. Without it a save answered in between was lost (the draft it
    went into removed) or brought the promoted draft back beside its case."""
    if not write:
        return _promote(ctx, names, split, write=False)
    with serialised(ctx.config):
        return _promote(ctx, names, split, write=True)


def _promote(ctx: Context, names: Sequence[str], split: Split, *, write: bool) -> Outcome:
    case_set = load_case_set(ctx)
    taken = taken_ids(ctx, case_set)
    candidates: list[Candidate] = []
    for name in dict.fromkeys(names):
        candidate = _candidate(ctx, case_set, name, split, taken)
        taken.add(candidate.case_id)
        candidates.append(candidate)
    outcome = Outcome(split)
    drafts = {c.draft_rel for c in candidates}
    for finding in _new_findings(ctx, case_set, candidates):
        if finding.severity == "error":
            outcome.refused.append(finding)
        elif finding.path in drafts:  # a set-level warning changes with every case added
            outcome.warnings.append(finding)
    if write and not outcome.refused:
        outcome.promoted = [_write(ctx, c, taken) for c in candidates]
    return outcome


def _draft_path(ctx: Context, name: str) -> tuple[str, Path]:
    stem = Path(name).name
    if stem.endswith((".yaml", ".yml")):
        stem = stem.rsplit(".", 1)[0]
    if not _NAME.match(stem):
        raise GoldcaseError(f"{name!r} is not a draft id (tr-1h4kq3bz7) or a draft's file")
    for suffix in (".yaml", ".yml"):
        path = ctx.config.inbox_dir / f"{stem}{suffix}"
        if path.exists():
            return stem, path
    raise GoldcaseError(
        f"no draft {stem} in {ctx.rel(ctx.config.inbox_dir)}/; goldcase triage writes drafts there"
    )


def _candidate(
    ctx: Context, case_set: CaseSet, name: str, split: Split, taken: set[str]
) -> Candidate:
    draft_id, path = _draft_path(ctx, name)
    rel = path.relative_to(ctx.config.root).as_posix()
    try:  # the draft is read, then removed: never through a link out of the repository
        raw = read_regular(inside(ctx.config.root, rel))
    except Outside:
        raise GoldcaseError(
            f"{rel}: cannot read it: outside the repository (a link that leads out of it)"
        ) from None
    except OSError as exc:
        raise GoldcaseError(f"{rel}: cannot read it: {exc.strerror or exc}") from None
    data, problems = parse_case(rel, raw)
    if problems or not isinstance(data, dict):
        raise GoldcaseError(f"{rel} does not parse as a draft; run goldcase check {rel}")
    _labelled(rel, data)
    prefix = slice_prefix(case_set.parsed, str(data["slice"]), split)
    case_id = new_id(prefix, taken)
    folder = ctx.config.cases_dir / split
    text = _case_text(raw.decode("utf-8"), case_id, modeline(folder / "x.yaml", ctx.root))
    case_rel = ctx.rel(folder / f"{case_id}.yaml")
    return Candidate(draft_id, rel, raw, split, prefix, case_id, case_rel, text)


def _labelled(rel: str, data: dict[str, Any]) -> None:
    if not isinstance(data.get("answerable"), bool):
        raise GoldcaseError(
            f"{rel}: answerable is blank; label the draft first: true when the corpus answers "
            "the question (then expected_answer and a support quote), false when it does not"
        )
    if not isinstance(data.get("slice"), str) or not data["slice"].strip():
        raise GoldcaseError(f"{rel}: slice is blank; name the slice the case is reported in")


def _case_text(draft: str, case_id: str, line: str) -> str:
    def edit(root: Any) -> None:
        for key in list(root):
            value = root[key]
            if key in _DRAFT_ONLY or value is None or (key in ("support", "tags") and not value):
                del root[key]
        root["id"] = case_id
        root.ca.comment = None  # the draft's header: the case gets its own schema line

    return f"{line}\n{rewrite(draft, edit)}"


class _Overlay(Context):
    """The repository as it would be after the move: the candidates' files read from memory."""

    files: dict[str, bytes] = field(default_factory=dict)

    def read_bytes(self, rel: str) -> bytes:
        found = self.files.get(rel)
        return found if found is not None else super().read_bytes(rel)


def _new_findings(ctx: Context, case_set: CaseSet, candidates: list[Candidate]) -> list[Finding]:
    """What the checks find after the move and did not before, at the drafts' lines."""
    overlay = _Overlay(ctx.config, files={c.rel: c.text.encode("utf-8") for c in candidates})
    moved = {c.draft_rel for c in candidates}
    after_files = [f for f in case_set.files if f.path not in moved]
    for c in candidates:
        after_files.append(_case_file(c))
    leave_out = ("version",)  # the bump is expected
    before = set(findings_of(overlay, case_set, leave_out))
    after = findings_of(overlay, CaseSet(after_files), leave_out)
    by_rel = {c.rel: c for c in candidates}
    return [_at_draft(f, by_rel.get(f.path)) for f in after if f not in before]


def _case_file(candidate: Candidate) -> CaseFile:
    raw = candidate.text.encode("utf-8")
    case_file = load_case_file(candidate.rel, candidate.split, raw)
    case_file.raw = raw
    return case_file


def _at_draft(finding: Finding, candidate: Candidate | None) -> Finding:
    """A finding on a candidate, moved to the same key's line in its draft; others as they
    are."""
    if candidate is None:
        return finding
    line = finding.line
    if line > 1 or finding.col > 1:
        line = _draft_line(candidate, line)
    return Finding(
        candidate.draft_rel,
        line,
        finding.col,
        finding.code,
        finding.severity,
        f"{finding.message} (as {candidate.rel})",
    )


def _draft_line(candidate: Candidate, line: int) -> int:
    """The draft's line holding what the candidate holds at ``line``: the same top-level
    key, as many lines into it."""
    mine, theirs = _key_lines(candidate.text.encode("utf-8")), _key_lines(candidate.draft_raw)
    starts = [(start, key) for key, start in mine.items() if start <= line]
    if not starts:
        return line
    start, key = max(starts)
    return theirs.get(key, start) + line - start


def _key_lines(raw: bytes) -> dict[str, int]:
    data, _ = parse_case("x", raw)
    locator = Locator(raw)
    keys = data if isinstance(data, dict) else {}
    return {str(key): locator.key([str(key)])[0] for key in keys}


def _write(ctx: Context, candidate: Candidate, taken: set[str]) -> tuple[str, str]:
    """Create the case exclusively under the id it was checked with (another one when some
    other process took that name meanwhile), then remove the draft."""
    chosen = iter([candidate.case_id])

    def make_id(prefix: str, taken: Collection[str]) -> str:
        return next(chosen, None) or new_id(prefix, taken)

    def text_of(case_id: str) -> str:
        return candidate.text.replace(f"\nid: {candidate.case_id}\n", f"\nid: {case_id}\n", 1)

    folder = ctx.config.cases_dir / candidate.split
    _, path = write_new_case(folder, candidate.prefix, taken, text_of, make_id)
    try:
        (ctx.root / candidate.draft_rel).unlink()
    except OSError as exc:
        raise GoldcaseError(
            f"wrote {ctx.rel(path)} but cannot remove {candidate.draft_rel}: "
            f"{exc.strerror or exc}; delete the draft by hand"
        ) from None
    return candidate.draft_rel, ctx.rel(path)
