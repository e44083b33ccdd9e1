"""The schemas inside a golden-set repository, for editors.

Every case file goldcase writes starts with a modeline,
``# yaml-language-server: $schema=../../schema/case.schema.json``, which editors with a YAML
language server follow to validate and complete the file as it is typed; a draft in
``cases/inbox/`` names ``schema/draft.schema.json`` the same way (which takes its fields from
the case schema beside it). The path is relative to the file, so the schemas must be in the
repository: ``goldcase init`` and ``goldcase import`` write ``schema/``, ``goldcase new`` and
``goldcase triage`` write a copy that is missing, ``goldcase schema`` writes them again
(``--check`` says whether they are current), and ``goldcase lock`` refreshes copies that an
upgrade of goldcase left behind.
"""

from __future__ import annotations

import os
from pathlib import Path

from goldcase.errors import GoldcaseError
from goldcase.safeio import Outside, inside, read_regular
from goldcase.schemas import CASE_SCHEMA, DRAFT_SCHEMA, schema_bytes
from goldcase.writer import atomic_write_bytes

SCHEMA_REL = f"schema/{CASE_SCHEMA}"  # relative to the repository's root
DRAFT_SCHEMA_REL = f"schema/{DRAFT_SCHEMA}"
COPIES = {SCHEMA_REL: CASE_SCHEMA, DRAFT_SCHEMA_REL: DRAFT_SCHEMA}  # path -> shipped schema


def modeline(case_path: Path, root: Path, schema: str = SCHEMA_REL) -> str:
    """The first line of a file at ``case_path``: the schema, relative to the file."""
    target = os.path.relpath(root / schema, case_path.parent)
    return f"# yaml-language-server: $schema={Path(target).as_posix()}"


def copies() -> dict[str, bytes]:
    """What ``schema/`` holds in a repository: path -> the installed goldcase's schema."""
    return {rel: schema_bytes(name) for rel, name in COPIES.items()}


def copy_states(root: Path) -> dict[str, str]:
    """Each copy's state: ``current``, ``stale`` (another goldcase's schema) or ``missing``."""
    states = {}
    for rel, wanted in copies().items():
        try:
            held = read_regular(inside(root, rel))  # a link out: never read, never written
        except Outside:
            raise GoldcaseError(
                f"{rel}: a link that leads outside the repository; goldcase writes the schemas "
                "for editors here: remove the link (or the schema/ folder link)"
            ) from None
        except FileNotFoundError:
            states[rel] = "missing"
            continue
        except OSError as exc:
            raise GoldcaseError(f"{rel}: cannot read it: {exc.strerror or exc}") from None
        states[rel] = "current" if held == wanted else "stale"
    return states


def write_copies(root: Path, only_missing: bool = False, needed: str | None = None) -> list[str]:
    """Write the installed goldcase's schemas that the repository lacks (``only_missing``) or
    does not hold as they are; the paths written. ``needed``: only what a file naming that
    schema needs (a case needs the case schema; a draft both, its fields being the case's)."""
    wanted = copies()
    written = []
    for rel, state in copy_states(root).items():
        if needed == SCHEMA_REL and rel != SCHEMA_REL:
            continue
        if state == "missing" or (state == "stale" and not only_missing):
            atomic_write_bytes(root / rel, wanted[rel])
            written.append(rel)
    return written


def refresh_copies(root: Path) -> list[str]:
    """After an upgrade: rewrite the copies of a repository that keeps the case schema (and
    add the draft schema it may lack); a repository without one is left alone."""
    if copy_states(root)[SCHEMA_REL] == "missing":
        return []
    return write_copies(root)
