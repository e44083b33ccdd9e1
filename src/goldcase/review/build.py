"""What a branch does to the set, for the person reviewing it.

Two states of the repository are compared: the base (by default the merge base of HEAD and
``origin/main``, else ``main``) and the head (by default the working tree, else a commit).
Cases are matched by id, so a case moved between ``cases/golden/`` and ``cases/dev/`` is one
case that moved. For each case added, changed, removed or moved: what changed in it, field by
field (``expect`` entry by entry), its support quotes in the context of their document, and the
findings goldcase's checks report on it in the head state. Whether ``golden.version`` moved is
said once, and a golden change without a version move is pointed out.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from msgspec import Struct, field

from goldcase import gitview
from goldcase.authoring.formatting import CASE_KEYS, EXPECT_KEYS
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.corpus import MAX_DOC_BYTES
from goldcase.engine import CASE_SUFFIXES, case_paths, run_checks
from goldcase.errors import GoldcaseError
from goldcase.loader import MAX_CASE_BYTES, parse_case
from goldcase.model import Case, Finding
from goldcase.safeio import read_inside, shown_path
from goldcase.schemacheck import checker
from goldcase.scoring.probes import Probe, grade_probes
from goldcase.sentences import InContext, Sentences, Spaced
from goldcase.writer import write_new_folder

STATUSES = ("added", "changed", "moved", "removed")
_CONFIG_FILES = ("goldcase.toml", "pyproject.toml", "golden.version", "golden.lock")


class FieldChange(Struct, frozen=True):
    field: str  # a top-level key, or expect.<key>
    old: Any  # None: absent
    new: Any


class QuoteView(Struct, frozen=True):
    doc: str
    quote: str
    found: InContext | None  # None: not in the document (a finding says more)


class CaseChange(Struct):
    id: str
    status: str  # added | changed | moved | removed
    old_split: str | None
    new_split: str | None
    path: str  # the head path, or the base path of a removed case
    old_path: str | None = None  # the base path, for a moved case
    changes: list[FieldChange] = field(default_factory=list)
    quotes: list[QuoteView] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)  # in the head state, with verdicts

    @property
    def split(self) -> str:
        if self.old_split and self.new_split and self.old_split != self.new_split:
            return f"{self.old_split} → {self.new_split}"
        return str(self.new_split or self.old_split)


class Side(Struct, frozen=True):
    """How one side of the comparison was named: a ref and its commit, or the working tree."""

    ref: str | None  # as the user gave it; None: the working tree, or the default base
    sha: str | None  # None: the working tree
    how: str = ""  # for a default base: "merge base of HEAD and main"

    def __str__(self) -> str:
        if self.sha is None:
            return "the working tree"
        name = self.ref if self.ref is not None else self.how
        return f"{name} ({self.sha[:7]})"


class Review(Struct):
    base: Side
    head: Side
    old_version: str | None
    new_version: str | None
    cases: list[CaseChange]
    notes: list[str] = field(default_factory=list)

    @property
    def version_moved(self) -> bool:
        return self.old_version != self.new_version

    @property
    def golden_changed(self) -> bool:
        return any("golden" in (c.old_split, c.new_split) for c in self.cases)

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for c in self.cases if c.status == s) for s in STATUSES}


class State(Struct):
    """One side of the comparison: case files and documents by path, and the version."""

    cases: dict[str, tuple[str, str, dict[str, Any]]]  # id -> (path, split, data)
    documents: dict[str, str]  # basename -> text
    version: str | None


def review(ctx: Context, base: str | None = None, head: str | None = None) -> Review:
    """Compare ``base`` (default: the merge base) with ``head`` (default: the working tree)."""
    root = ctx.root
    if base is None:
        base_sha, how = gitview.default_base(root)
        base_side = Side(None, base_sha, how)
    else:
        base_side = Side(base, gitview.resolve_commit(root, base))
    old = _state(ctx, _committed(root, base_side, _names(ctx)))
    if head is None:
        head_side = Side(None, None)
        new, findings, notes = _working_tree(ctx)
    else:
        head_side = Side(head, gitview.resolve_commit(root, head))
        files = _committed(root, head_side, [*_names(ctx), ctx.config.prompts])
        new = _state(ctx, files)
        if _checked(ctx, files) == _working_files(ctx, with_config=True):
            findings, notes = _run_checks(ctx)  # the commit is what is on disk: check it there
        else:
            findings, notes = _findings_at(ctx, files)
    cases = compare(old, new, findings)
    return Review(base_side, head_side, old.version, new.version, cases, notes)


def _committed(root: Path, side: Side, names: list[str]) -> dict[str, bytes]:
    """The set's files at a side's commit, none larger than a corpus document may be."""
    return gitview.files_at(root, str(side.sha), names, MAX_DOC_BYTES, str(side))


def _names(ctx: Context) -> list[str]:
    return [ctx.config.cases, ctx.config.corpus, *_CONFIG_FILES]


def _state(ctx: Context, files: Mapping[str, bytes]) -> State:
    cases_dir = PurePosixPath(ctx.config.cases)
    corpus_dir = PurePosixPath(ctx.config.corpus)
    state = State({}, {}, _version(files.get("golden.version")))
    for rel, raw in sorted(files.items()):
        path = PurePosixPath(rel)
        if path.is_relative_to(corpus_dir):
            state.documents.setdefault(path.name, raw.decode("utf-8", "replace"))
        elif path.is_relative_to(cases_dir) and rel.endswith(CASE_SUFFIXES):
            split = path.relative_to(cases_dir).parts[0]
            if split in ("golden", "dev"):
                shown = shown_path(rel)  # as the checks name it (GC113 when it is not UTF-8)
                parsed, _ = parse_case(shown, raw)  # the checks report what is wrong with it
                data = parsed if isinstance(parsed, dict) else {}
                stem = PurePosixPath(shown).stem
                key = data.get("id") if isinstance(data.get("id"), str) else stem
                state.cases.setdefault(str(key), (shown, split, data))
    return state


def _version(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    lines = [x.strip() for x in raw.decode("utf-8", "replace").splitlines() if x.strip()]
    return lines[0] if lines else None


def _working_tree(ctx: Context) -> tuple[State, list[Finding], list[str]]:
    findings, notes = _run_checks(ctx)
    return _state(ctx, _working_files(ctx)), findings, notes


def _working_files(ctx: Context, *, with_config: bool = False) -> dict[str, bytes]:
    """The files of the set on disk, keyed as ``gitview.files_at`` keys them."""
    files = {rel: _on_disk(ctx, rel, MAX_CASE_BYTES) for rel in case_paths(ctx)}
    for document in ctx.corpus.documents.values():
        files[document.rel] = document.raw
    names = [*_CONFIG_FILES, *_prompt_files(ctx)] if with_config else ["golden.version"]
    for name in names:
        if (ctx.root / name).is_file():
            files[name] = _on_disk(ctx, name, MAX_DOC_BYTES)
    return files


def _on_disk(ctx: Context, rel: str, limit: int) -> bytes:
    """A file of the work tree, or nothing when the checks refuse to read it (a FIFO, a link
    out of the repository, a file over ``limit``): their finding says why."""
    try:
        return read_inside(ctx.root, rel, limit)
    except OSError:
        return b""


def _checked(ctx: Context, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The files the checks read: no hidden files, only YAML under cases/."""
    cases = PurePosixPath(ctx.config.cases)
    out: dict[str, bytes] = {}
    for rel, raw in files.items():
        path = PurePosixPath(rel)
        if any(part.startswith(".") for part in path.parts):
            continue
        if path.is_relative_to(cases) and not rel.endswith(CASE_SUFFIXES):
            continue
        out[rel] = raw
    return out


def _prompt_files(ctx: Context) -> list[str]:
    folder = ctx.config.prompts_dir
    if not folder.is_dir():
        return []
    return sorted(ctx.rel(p) for p in folder.rglob("*") if p.is_file())


def _findings_at(ctx: Context, files: Mapping[str, bytes]) -> tuple[list[Finding], list[str]]:
    """Check the head commit's files in a scratch copy of the repository."""
    with tempfile.TemporaryDirectory(prefix="goldcase-review-") as scratch:
        root = Path(scratch) / "set"
        write_new_folder(root, dict(files))
        return _run_checks(Context(load_config(root)))


def _run_checks(ctx: Context) -> tuple[list[Finding], list[str]]:
    try:
        return run_checks(ctx).findings, []
    except GoldcaseError as exc:
        return [], [f"the checks could not run on the head: {exc.message}"]


def compare(old: State, new: State, findings: Iterable[Finding] = ()) -> list[CaseChange]:
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    out: list[CaseChange] = []
    placing: dict[int, _Placing] = {}
    for case_id in sorted(set(old.cases) | set(new.cases)):
        change = _change(case_id, old.cases.get(case_id), new.cases.get(case_id))
        if change is None:
            continue
        side = new if change.status != "removed" else old
        data = (new.cases.get(case_id) or old.cases[case_id])[2]
        placed = placing.setdefault(id(side), _Placing(side.documents))
        change.quotes = [placed.quote(s) for s in _support(data)]
        change.findings = sorted(by_path.get(change.path, [])) if change.status != "removed" else []
        change.probes = _probes(new.cases[case_id]) if change.status != "removed" else []
        out.append(change)
    return out


def _probes(entry: tuple[str, str, dict[str, Any]]) -> list[Probe]:
    """The case's probes graded with its checks; none for a case the schema refuses (the
    findings say what is wrong with it)."""
    path, split, data = entry
    if not data.get("probes") or not checker("case.schema.json")(data):
        return []
    return grade_probes(Case(path, "dev" if split == "dev" else "golden", data))


def _change(
    case_id: str,
    old: tuple[str, str, dict[str, Any]] | None,
    new: tuple[str, str, dict[str, Any]] | None,
) -> CaseChange | None:
    if old is None and new is not None:
        return CaseChange(case_id, "added", None, new[1], new[0], changes=diff({}, new[2]))
    if new is None and old is not None:
        return CaseChange(case_id, "removed", old[1], None, old[0], changes=diff(old[2], {}))
    assert old is not None and new is not None
    changes = diff(old[2], new[2])
    if old[1] != new[1]:
        return CaseChange(case_id, "moved", old[1], new[1], new[0], old[0], changes)
    if changes:
        return CaseChange(case_id, "changed", old[1], new[1], new[0], changes=changes)
    return None


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldChange]:
    """Field by field, in the canonical order; ``expect`` key by key and ``support`` entry by
    entry (``support[0].quote``)."""
    out: list[FieldChange] = []
    for key in _ordered(old, new, CASE_KEYS):
        if key == "id" and not (old and new):
            continue  # an added or removed case: its id is said already
        before, after = old.get(key), new.get(key)
        if key == "expect" and _mapping(before) and _mapping(after):
            out.extend(_expect_changes(before or {}, after or {}))
        elif key == "support" and _listing(before) and _listing(after):
            out.extend(_support_changes(before or [], after or []))
        elif before != after:
            out.append(FieldChange(key, before, after))
    return out


def _expect_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterable[FieldChange]:
    for sub in _ordered(old, new, EXPECT_KEYS):
        if old.get(sub) != new.get(sub):
            yield FieldChange(f"expect.{sub}", old.get(sub), new.get(sub))


def _support_changes(old: list[Any], new: list[Any]) -> Iterable[FieldChange]:
    for index in range(max(len(old), len(new))):
        before = old[index] if index < len(old) else None
        after = new[index] if index < len(new) else None
        if isinstance(before, dict | None) and isinstance(after, dict | None):
            yield from (
                FieldChange(
                    f"support[{index}].{key}", (before or {}).get(key), (after or {}).get(key)
                )
                for key in _ordered(before or {}, after or {}, ("doc", "quote"))
                if (before or {}).get(key) != (after or {}).get(key)
            )
        elif before != after:
            yield FieldChange(f"support[{index}]", before, after)


def _listing(value: Any) -> bool:
    return value is None or isinstance(value, list)


def _mapping(value: Any) -> bool:
    return value is None or isinstance(value, Mapping)


def _ordered(old: Mapping[str, Any], new: Mapping[str, Any], order: Iterable[str]) -> list[str]:
    known = list(order)
    extra = [k for k in [*old, *new] if k not in known]
    return [k for k in known if k in old or k in new] + list(dict.fromkeys(extra))


def _support(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    support = data.get("support")
    if not isinstance(support, list):
        return []
    return [
        (str(s["doc"]), str(s["quote"]))
        for s in support
        if isinstance(s, dict) and isinstance(s.get("doc"), str) and isinstance(s.get("quote"), str)
    ]


class _Placing:
    """Quotes placed in one side's documents: each document's white space folded and its
    sentences found once, for every quote of every case (not again for each quote)."""

    def __init__(self, documents: Mapping[str, str]) -> None:
        self._documents = documents
        self._spaced: dict[str, Spaced] = {}
        self._sentences: dict[str, Sentences] = {}

    def quote(self, entry: tuple[str, str]) -> QuoteView:
        doc, quote = entry
        text = self._documents.get(doc)
        if text is None:
            return QuoteView(doc, quote, None)
        if doc not in self._spaced:
            self._spaced[doc] = Spaced(text)
        span = self._spaced[doc].find(quote)
        if span is None:
            return QuoteView(doc, quote, None)
        if doc not in self._sentences:
            self._sentences[doc] = Sentences(text)
        return QuoteView(doc, quote, self._sentences[doc].context(*span))
