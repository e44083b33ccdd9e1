"""The files the page works on: the drafts in ``cases/inbox/``, or one second labeller's label
files under ``labels/<labeller>/``. An item is named by its file's stem (the page never sends
a path); the file is found in its folder, kept inside the repository by the guarded reader,
read capped at a case file's size, parsed with the refusals of every case file, and named by
the digest of its bytes (what a save must still find there)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, field

from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.labelling.labels import LABELS, labeller_folder
from goldcase.loader import file_digest, parse_case
from goldcase.model import Finding
from goldcase.safeio import Outside, inside, read_regular
from goldcase.text import clip

Mode = Literal["drafts", "labels"]
MAX_FILE = 1024 * 1024  # a case file is a few hundred bytes; GC112 refuses more
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
SUFFIXES = (".yaml", ".yml")


class Source(Struct, frozen=True):
    """Where the items are: drafts, or the label files of one labeller."""

    mode: Mode
    folder: Path
    labeller: str | None = None


def source_for(ctx: Context, labeller: str | None) -> Source:
    if labeller is None:
        return Source("drafts", ctx.config.inbox_dir)
    if not NAME.match(labeller):
        raise GoldcaseError(
            f"labeller name {labeller!r} may hold only letters, digits, '.', '_' and '-'"
        )
    folder = labeller_folder(ctx.root, labeller, "the page opens none")
    if not folder.is_dir() or not keys(Source("labels", folder, labeller)):
        raise GoldcaseError(
            f"no label files under {LABELS}/{labeller}/: draw the sample first with "
            f"goldcase label sample --labeller {labeller} --seed S"
        )
    return Source("labels", folder, labeller)


def keys(source: Source) -> list[str]:
    """The items' keys (file stems), sorted; hidden and temporary files left out."""
    if not source.folder.is_dir():
        return []
    found = []
    with os.scandir(source.folder) as entries:
        for entry in entries:
            stem, suffix = os.path.splitext(entry.name)
            if suffix in SUFFIXES and not entry.name.startswith(".") and NAME.match(stem):
                found.append(stem)
    return sorted(set(found))


class Item(Struct):
    key: str
    rel: str  # relative to the repository root
    path: Path
    raw: bytes
    data: dict[str, Any] | None  # None: the file does not parse (problems say why)
    problems: list[Finding] = field(default_factory=list)

    @property
    def hash(self) -> str:
        return file_digest(self.raw)


def path_of(ctx: Context, source: Source, key: Any) -> Path:
    """The file of item ``key``: a plain name, in the source's folder, inside the repository."""
    if not isinstance(key, str) or not NAME.match(key):
        raise GoldcaseError(f"{str(key)[:80]!r} is not the name of an item")
    for suffix in SUFFIXES:
        candidate = source.folder / f"{key}{suffix}"
        if os.path.lexists(candidate):
            if os.path.islink(candidate):  # a save would write wherever it points
                raise GoldcaseError(f"{key}: the file is a link; the page edits plain files only")
            try:
                return inside(ctx.root, candidate.relative_to(ctx.root))
            except (Outside, ValueError):
                raise GoldcaseError(f"{key}: the file leads outside the repository") from None
    raise GoldcaseError(f"no item {key} (it was moved or deleted); reload the list")


def read(ctx: Context, source: Source, key: Any) -> Item:
    path = path_of(ctx, source, key)
    rel = ctx.rel(path)
    try:
        raw = read_regular(path, MAX_FILE, follow=False)
    except OSError as exc:
        raise GoldcaseError(f"{rel}: cannot read it: {exc.strerror or exc}") from None
    data, problems = parse_case(rel, raw)
    if not isinstance(data, dict):
        data = None
        problems = problems or [Finding(rel, 1, 1, "GC107", "error", "not a mapping")]
    return Item(str(key), rel, path, raw, data, problems)


def state(source: Source, data: dict[str, Any] | None) -> str:
    """``unreadable``; for a draft ``blank``, ``started`` or ``labelled`` (answerable and a
    slice: what promote asks first); for a label ``blank`` or ``done``."""
    if data is None:
        return "unreadable"
    answered = isinstance(data.get("answerable"), bool)
    if source.mode == "labels":
        return "done" if answered else "blank"
    if answered and isinstance(data.get("slice"), str) and data["slice"].strip():
        return "labelled"
    started = any(data.get(k) not in (None, "", []) for k in ("answerable", "support", "slice"))
    return "started" if started or data.get("expected_answer") else "blank"


def summary(ctx: Context, source: Source, key: str) -> dict[str, Any]:
    """One line of the page's list."""
    try:
        item = read(ctx, source, key)
    except GoldcaseError as exc:
        return {"key": key, "question": exc.message, "state": "unreadable"}
    question = item.data.get("question") if item.data else None
    return {
        "key": key,
        "question": clip(question, 160) if isinstance(question, str) else "",
        "state": state(source, item.data),
    }
