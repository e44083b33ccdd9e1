"""The case schema inside a golden-set repository, for editors.

Every case file goldcase writes starts with a modeline,
``# yaml-language-server: $schema=../../schema/case.schema.json``, which editors with a YAML
language server follow to validate and complete the file as it is typed. The path is relative
to the case file, so the schema must be in the repository: ``goldcase init`` and ``goldcase
import`` write ``schema/case.schema.json``, ``goldcase schema`` writes it again (``--check``
says whether it is current), and ``goldcase lock`` refreshes a copy that an upgrade of goldcase
left behind.
"""

from __future__ import annotations

import os
from pathlib import Path

from goldcase.errors import GoldcaseError
from goldcase.safeio import read_regular
from goldcase.schemas import CASE_SCHEMA, schema_bytes
from goldcase.writer import atomic_write_bytes

SCHEMA_REL = f"schema/{CASE_SCHEMA}"  # relative to the repository's root


def modeline(case_path: Path, root: Path) -> str:
    """The first line of a case file at ``case_path``: the schema, relative to the file."""
    target = os.path.relpath(root / SCHEMA_REL, case_path.parent)
    return f"# yaml-language-server: $schema={Path(target).as_posix()}"


def copy_state(root: Path) -> str:
    """``current``, ``stale`` (another goldcase's schema) or ``missing``."""
    try:
        held = read_regular(root / SCHEMA_REL)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise GoldcaseError(f"{SCHEMA_REL}: cannot read it: {exc.strerror or exc}") from None
    return "current" if held == schema_bytes(CASE_SCHEMA) else "stale"


def write_copy(root: Path) -> bool:
    """Write the installed goldcase's case schema into the repository; False when the copy
    there is already that schema."""
    if copy_state(root) == "current":
        return False
    atomic_write_bytes(root / SCHEMA_REL, schema_bytes(CASE_SCHEMA))
    return True


def refresh_copy(root: Path) -> bool:
    """Rewrite a copy that exists but is not the installed goldcase's (after an upgrade);
    a repository without one is left alone. True when the file was rewritten."""
    return copy_state(root) == "stale" and write_copy(root)
