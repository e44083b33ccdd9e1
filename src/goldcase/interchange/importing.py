"""``goldcase import``: read a file in another format and build a golden-set repository.

After writing, the new repository is locked (``golden.version``, ``golden.lock``) and checked
for schema and support findings, so that every quote that does not verify is reported at
once.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from msgspec import Struct, field

from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import run_checks
from goldcase.errors import GoldcaseError
from goldcase.interchange.build import ImportedSet, write_repository
from goldcase.interchange.jsonl import read_jsonl
from goldcase.interchange.promptfoo import read_promptfoo
from goldcase.interchange.squad import read_squad
from goldcase.model import Finding
from goldcase.safeio import not_a_file
from goldcase.versioning.locking import lock_repository

FORMATS = ("jsonl", "squad", "promptfoo")


class ImportOutcome(Struct):
    root: Path
    cases: int
    documents: int
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def read_file(fmt: str, path: Path, corpus: Path | None = None) -> ImportedSet:
    problem = not_a_file(path)
    if problem is not None:
        raise GoldcaseError(f"{path}: {problem}; give the {fmt} file to import")
    if fmt == "squad":
        return read_squad(path)
    if fmt == "jsonl":
        return read_jsonl(path, corpus)
    if fmt == "promptfoo":
        return read_promptfoo(path)
    raise GoldcaseError(f"unknown import format {fmt!r}; choose from {', '.join(FORMATS)}")


def import_file(
    fmt: str,
    path: Path,
    out: Path,
    *,
    split: str = "golden",
    corpus: Path | None = None,
    check: bool = True,
) -> ImportOutcome:
    imported = read_file(fmt, path, corpus)
    if not imported.cases:
        raise GoldcaseError(f"{path}: no case could be read; nothing was written")
    existed = out.exists()
    root = write_repository(imported, out, split)
    outcome = ImportOutcome(
        root, len(imported.cases), len(imported.documents), list(imported.notes)
    )
    try:
        _lock(root)
    except GoldcaseError as exc:  # written but not locked: taken back, as if never written
        _take_back(root, keep_folder=existed)
        message = f"{exc.message}; nothing was written to {out}"
        raise GoldcaseError(message, exit_code=exc.exit_code) from exc
    if check:
        outcome.findings = _check(root)
    return outcome


def _take_back(root: Path, *, keep_folder: bool) -> None:
    """Remove the repository this import wrote; the empty folder the user gave stays."""
    shutil.rmtree(root, ignore_errors=True)
    if keep_folder:
        root.mkdir(exist_ok=True)


def _lock(root: Path) -> None:
    lock_repository(Context(load_config(root)))


def _check(root: Path) -> list[Finding]:
    return run_checks(Context(load_config(root)), ["schema", "support"]).findings
