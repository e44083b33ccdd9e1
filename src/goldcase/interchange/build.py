"""Turn an imported set (cases, documents, notes) into a golden-set repository on disk.

The repository is written into a staging folder beside the target and renamed into place at
the end (``goldcase.writer.write_new_folder``), so an import that fails half-way leaves nothing
behind. A target that exists and is not empty is refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from goldcase.authoring.editor_schema import copies, modeline
from goldcase.authoring.formatting import dump_canonical
from goldcase.errors import GoldcaseError
from goldcase.text import half_surrogate
from goldcase.writer import write_new_folder

# every case lands in cases/<split>/, so one modeline fits them all
SCHEMA_LINE = modeline(Path("cases/golden/case.yaml"), Path(".")) + "\n"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ImportedSet(Struct):
    """What an importer read: case mappings (canonical fields), documents by basename, the
    version to start from, and notes about what could not be carried over."""

    kind: str  # jsonl, squad, promptfoo
    origin: str  # the file imported, as the user named it
    cases: list[dict[str, Any]] = field(default_factory=list)
    documents: dict[str, str] = field(default_factory=dict)
    version: str = "1"
    notes: list[str] = field(default_factory=list)


# Characters kept of a name made from the input: room for a "-nnn" paragraph number, a "-2"
# suffix and ".yaml" within a file name's 255 bytes, and within the schema's 128 for an id.
NAME_LIMIT = 80


def safe_name(value: object, fallback: str) -> str:
    """A value as an id, slice or file stem: letters, digits, '.', '_', '-'; starts with a
    letter or digit; at most ``NAME_LIMIT`` characters (see ``cut``)."""
    text = _UNSAFE.sub("-", str(value)).strip("-._")
    return text[:NAME_LIMIT].rstrip("-._") or fallback


def cut(value: object) -> bool:
    """Did ``safe_name`` shorten this value? (An importer says so in a note.)"""
    return len(_UNSAFE.sub("-", str(value)).strip("-._")) > NAME_LIMIT


class Names:
    """The names handed out so far, told apart as a case-insensitive disk tells file names
    apart. A name already taken gets the first free suffix ``-2``, ``-3``, ... (before
    ``suffix``, a file's extension). Where each name's suffixes stand is remembered: an input
    whose every question carries the same id costs a step a name, not a step for each name
    before it (20,000 of them had taken 400 million)."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._next: dict[str, int] = {}  # the suffix number to try next, by name (folded)

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._taken

    def add(self, name: str) -> None:
        self._taken.add(name.lower())

    def unique(self, name: str, suffix: str = "") -> str:
        """``name + suffix``, or the first ``name-N + suffix`` no name taken has; now taken.
        Every candidate passed over was taken when it was passed, and stays taken."""
        key = f"{name}{suffix}".lower()
        n = self._next.get(key, 1)
        candidate = f"{name}{suffix}" if n == 1 else f"{name}-{n}{suffix}"
        while candidate.lower() in self._taken:
            n += 1
            candidate = f"{name}-{n}{suffix}"
        self._next[key] = n + 1
        self._taken.add(candidate.lower())
        return candidate


def write_repository(imported: ImportedSet, out: Path, split: str) -> Path:
    """Write the repository to ``out`` (absent or an empty folder), all at once."""
    out = out.resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise GoldcaseError(f"{out} exists and is not empty; import into a new folder")
    files: dict[str, bytes] = {}
    for name, text in imported.documents.items():
        files[f"corpus/{name}"] = _utf8(text, f"document {name}")
    for case in imported.cases:
        if half_surrogate(case):  # the YAML writer would escape it, and no reader takes it back
            raise GoldcaseError(
                f"case {case['id']} holds half of a UTF-16 surrogate pair (an escape from "
                "\\ud800 to \\udfff with no other half), which is not text; fix the escape in "
                "the source file"
            )
        files[f"cases/{split}/{case['id']}.yaml"] = case_text(case).encode("utf-8")
    other = "dev" if split == "golden" else "golden"
    files[f"cases/{other}/.gitkeep"] = b""
    files["goldcase.toml"] = _config_text(imported).encode("utf-8")
    files["golden.version"] = f"{imported.version}\n".encode()
    files[".gitignore"] = b".goldcase-cache/\n"
    files.update(copies())  # the files each case's modeline names
    for rel in files:  # the last guard: a name from the input never leaves ``out``
        if rel.startswith("/") or ".." in rel.split("/"):
            raise GoldcaseError(f"refusing to write {rel!r}: it would land outside {out}")
    write_new_folder(out, files)
    return out


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # JSON's "\ud800" escapes decode to lone surrogates
        raise GoldcaseError(
            f"{what} holds {text[exc.start]!r}, half of a UTF-16 surrogate pair, which is not "
            "text; fix the escape in the source file"
        ) from None


def case_text(case: dict[str, Any]) -> str:
    return SCHEMA_LINE + dump_canonical(case)


def _config_text(imported: ImportedSet) -> str:
    return (
        f"# goldcase.toml: written by goldcase import ({imported.kind}) from "
        f"{Path(imported.origin).name}.\n"
        "# Every key has a default; docs/ lists them. Set private = true if the corpus is not\n"
        "# public: goldcase export then refuses to publish questions, answers and quotes.\n"
    )
