"""``goldcase import``: read a file in another format and build a golden-set repository.

After writing, the new repository is locked (``golden.lock``, when this goldcase has the lock
module) and checked for schema and support findings, so that every quote that does not verify
is reported at once.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

from goldcase.errors import GoldcaseError
from goldcase.interchange.build import ImportedSet, write_repository
from goldcase.model import Finding
from goldcase.safeio import not_a_file

FORMATS = ("jsonl", "squad", "promptfoo")


@dataclass
class ImportOutcome:
    root: Path
    cases: int
    documents: int
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    locked: bool = False


def read_file(fmt: str, path: Path, corpus: Path | None = None) -> ImportedSet:
    problem = not_a_file(path)
    if problem is not None:
        raise GoldcaseError(f"{path}: {problem}; give the {fmt} file to import")
    if fmt == "squad":
        from goldcase.interchange.squad import read_squad

        return read_squad(path)
    if fmt == "jsonl":
        from goldcase.interchange.jsonl import read_jsonl

        return read_jsonl(path, corpus)
    if fmt == "promptfoo":
        from goldcase.interchange.promptfoo import read_promptfoo

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
    root = write_repository(imported, out, split)
    outcome = ImportOutcome(
        root, len(imported.cases), len(imported.documents), list(imported.notes)
    )
    outcome.locked = _lock(root)
    if check:
        outcome.findings = _check(root)
    return outcome


def lock_available() -> bool:
    return importlib.util.find_spec("goldcase.versioning.locking") is not None


def _lock(root: Path) -> bool:
    if not lock_available():
        return False
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.versioning.locking import lock_repository

    lock_repository(Context(load_config(root)))
    return True


def _check(root: Path) -> list[Finding]:
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.engine import run_checks

    return run_checks(Context(load_config(root)), ["schema", "support"]).findings
