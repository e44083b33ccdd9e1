"""Import the golden-set reference JSONL (the layout ``goldcase export --format jsonl`` writes).

Each line is one case: id, question, answerable, expected_answer, support, tags, notes, and
goldcase's own fields (slice, expect, probes, source, derived_from, labelled_by, resolution) when
set.
The corpus comes from ``--corpus DIR``, or from a ``corpus/`` folder beside the file; the
version from a ``golden.version`` beside the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from goldcase.authoring.formatting import CASE_KEYS
from goldcase.errors import GoldcaseError
from goldcase.interchange.build import ImportedSet
from goldcase.jsonmemory import refuse_costly
from goldcase.safeio import read_inside, read_regular, read_regular_text
from goldcase.text import HALF_SURROGATE, HALF_SURROGATE_ESCAPE, half_surrogate

_DROP_WHEN_EMPTY = ("tags", "notes")
MAX_IMPORT_BYTES = 1024**3  # a file named on the command line, or a document beside it
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def read_jsonl(path: Path, corpus: Path | None) -> ImportedSet:
    imported = ImportedSet("jsonl", str(path))
    try:
        raw = read_regular(path, MAX_IMPORT_BYTES)
        refuse_costly(raw, str(path), "split the file and import the parts")
        lines = raw.decode("utf-8").splitlines()
        del raw
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(f"{path}: cannot read it: {exc}") from exc
    first: dict[str, int] = {}  # id (case-folded: file names) -> the line that holds it
    for number, line in enumerate(lines, start=1):
        case = _case(path, number, line, imported) if line.strip() else None
        if case is None:
            continue
        key = str(case["id"]).casefold()
        if key in first:
            imported.notes.append(
                f"{path.name}:{number}: id {case['id']!r} is also on line {first[key]}; "
                "ids are unique: line skipped"
            )
            continue
        first[key] = number
        imported.cases.append(case)
    imported.version = _version(path.parent / "golden.version")
    folder = corpus if corpus is not None else path.parent / "corpus"
    if folder.is_dir():
        imported.documents = _documents(folder)
    else:
        imported.notes.append(
            f"no corpus folder ({folder}); pass --corpus DIR so that the quotes can be verified"
        )
    return imported


def _case(path: Path, number: int, line: str, imported: ImportedSet) -> dict[str, Any] | None:
    where = f"{path.name}:{number}"
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        imported.notes.append(f"{where}: not JSON ({exc.msg}); line skipped")
        return None
    except ValueError:  # an integer of more digits than Python converts
        imported.notes.append(f"{where}: not JSON (a number too long to read); line skipped")
        return None
    except RecursionError:
        imported.notes.append(f"{where}: JSON nested too deeply to be a case; line skipped")
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        imported.notes.append(f"{where}: expected an object with a string id; line skipped")
        return None
    if HALF_SURROGATE_ESCAPE.search(line.encode()) and half_surrogate(raw):
        imported.notes.append(f"{where}: {HALF_SURROGATE}; line skipped")
        return None
    if not _ID.match(raw["id"]):  # the id names the file: "../x" would write outside --out
        imported.notes.append(
            f"{where}: id {raw['id'][:80]!r} may hold only letters, digits, '.', '_' and '-', "
            "and must start with a letter or digit; line skipped"
        )
        return None
    unknown = sorted(set(raw) - set(CASE_KEYS))
    if unknown:
        imported.notes.append(f"{where}: unknown field(s) {', '.join(unknown)}; line skipped")
        return None
    case = {key: raw[key] for key in CASE_KEYS if key in raw}
    for key in _DROP_WHEN_EMPTY:
        if case.get(key) in ("", []):
            del case[key]
    if case.get("answerable") is False and case.get("support") == []:
        del case["support"]
    return case


def _version(path: Path) -> str:
    try:
        text = read_regular_text(path, MAX_IMPORT_BYTES)
        lines = [x.strip() for x in text.splitlines() if x.strip()]
    except (OSError, UnicodeDecodeError):
        return "1"
    return lines[0] if len(lines) == 1 else "1"


def _documents(folder: Path) -> dict[str, str]:
    documents: dict[str, str] = {}
    for item in sorted(folder.rglob("*")):
        if item.is_file() and not item.name.startswith("."):
            try:  # inside the corpus folder (a link out is refused), regular, capped
                raw = read_inside(folder, item.relative_to(folder), MAX_IMPORT_BYTES, str(folder))
                documents.setdefault(item.name, raw.decode("utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                raise GoldcaseError(f"{item}: cannot read the document: {exc}") from exc
    return documents
