"""GC1xx: each case file is well-formed YAML that matches ``schema/case.schema.json``.

Passes::

    id: ret-014                       # in cases/golden/ret-014.yaml
    question: how long do i have to ask for a credit
    expected_answer: 14 days
    support:
      - doc: returns-policy.md
        quote: A customer has 14 days from delivery to request a credit

Fails (``GC107 unknown key 'not_contain'; did you mean 'not_contains'?``)::

    expect:
      not_contain: ["30 days"]

| code | what |
|---|---|
| GC101 | YAML syntax error (line and column of the problem) |
| GC102 | duplicate key in a mapping |
| GC103 | anchor or alias |
| GC104 | custom tag |
| GC105 | more than one YAML document in the file |
| GC106 | not UTF-8, a byte-order mark, or a NUL byte (binary file) |
| GC107 | schema violation, at the offending key or value |
| GC108 | ``id`` is not the file's name without ``.yaml`` |
| GC109 | the same id in two files under ``cases/`` |
| GC110 | empty file |
| GC111 | merge-conflict markers |
| GC112 | file too large to be a case (over 1 MiB) |
| GC113 | cannot be read (permissions, not a regular file) |
| GC114 | a case file outside ``cases/golden/`` and ``cases/dev/`` |
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from goldcase.digest import case_hash
from goldcase.loader import Locator, parse_case
from goldcase.model import CaseFile, Finding, Severity, Split
from goldcase.schemas import is_valid, validator
from goldcase.text import clip

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "schema"
SCHEMA = "case.schema.json"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC101": ("error", "YAML syntax error"),
    "GC102": ("error", "duplicate key"),
    "GC103": ("error", "anchor or alias"),
    "GC104": ("error", "custom tag"),
    "GC105": ("error", "more than one YAML document"),
    "GC106": ("error", "not UTF-8, byte-order mark, or binary"),
    "GC107": ("error", "schema violation"),
    "GC108": ("error", "id differs from the file name"),
    "GC109": ("error", "one id in two files"),
    "GC110": ("error", "empty file"),
    "GC111": ("error", "merge-conflict markers"),
    "GC112": ("error", "file too large"),
    "GC113": ("error", "file cannot be read"),
    "GC114": ("error", "case file outside cases/golden and cases/dev"),
}


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    for case_file in case_set.files:
        yield from case_file.findings
    yield from _duplicate_ids(case_set)


def _duplicate_ids(case_set: CaseSet) -> Iterator[Finding]:
    """GC109 on every file that shares an id, each naming the others."""
    by_id: dict[str, list[str]] = {}
    for case_file in case_set.files:
        data = case_file.data
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            by_id.setdefault(data["id"], []).append(case_file.path)
    for case_id, paths in by_id.items():
        for path in paths if len(paths) > 1 else ():
            others = ", ".join(p for p in paths if p != path)
            yield Finding(
                path,
                1,
                1,
                "GC109",
                "error",
                f"id {case_id!r} is also used by {others}; ids are unique across cases/",
            )


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def check_file(path: str, split: Split | None, raw: bytes) -> CaseFile:
    """Parse and validate one case file: everything GC1xx knows about it on its own."""
    data, findings = parse_case(path, raw)
    if data is not None:
        findings.extend(_schema_findings(path, raw, data))
        if isinstance(data, dict):
            findings.extend(_id_findings(path, raw, data))
    if split is None:
        findings.append(
            Finding(
                path,
                1,
                1,
                "GC114",
                "error",
                "case files live in cases/golden/ or cases/dev/; move this file",
            )
        )
    value = data if isinstance(data, dict) else None
    case_file = CaseFile(path, split, digest(raw), value, sorted(findings))
    if value is not None and case_file.valid:
        case_file.hash = _content_hash(value)
    return case_file


def _content_hash(data: dict[str, Any]) -> str:
    """The case hash, kept with the parsed file (and its cache entry) so a set digest or a lock
    never re-serialises an unchanged case; "" when the content is not JSON (hashed later)."""
    try:
        return case_hash(data)
    except (TypeError, ValueError):
        return ""


def _id_findings(path: str, raw: bytes, data: dict[str, Any]) -> Iterator[Finding]:
    case_id = data.get("id")
    stem = PurePosixPath(path).stem
    if isinstance(case_id, str) and case_id != stem:
        line, col = Locator(raw).value(["id"])
        yield Finding(
            path,
            line,
            col,
            "GC108",
            "error",
            f"id {case_id!r} differs from the file name {stem!r}; "
            f"rename the file or set id: {stem}",
        )


def _schema_findings(path: str, raw: bytes, data: Any) -> list[Finding]:
    if is_valid(SCHEMA, data):
        return []
    errors = list(validator(SCHEMA).iter_errors(data))
    if not errors:
        return []
    locator = Locator(raw)
    out: list[Finding] = []
    for error in errors:
        for key_path, message, at_value in _explain(error):
            line, col = locator.value(key_path) if at_value else locator.key(key_path)
            out.append(Finding(path, line, col, "GC107", "error", message))
    return out


def _field(key_path: Sequence[str | int]) -> str:
    out = ""
    for step in key_path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or "the case"


_TYPE_NAMES = {
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
    "integer": "a whole number",
    "number": "a number",
}


def _explain(error: Any) -> Iterator[tuple[list[str | int], str, bool]]:
    """(where, message, point at the value rather than the key) for one schema error."""
    where: list[str | int] = list(error.absolute_path)
    name = _field(where)
    kind = error.validator
    if kind == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in known:
                yield [*where, key], _unknown_key(str(key), known), False
    elif kind == "required":
        for key in error.validator_value:
            if key not in error.instance:
                yield where, _missing(key, where, error), False
    elif kind == "type":
        yield where, _wrong_type(name, error), True
    elif kind == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        yield where, f"{name} is {clip(repr(error.instance))}; expected one of {allowed}", True
    elif kind in ("pattern", "minLength"):
        yield where, _bad_text(name, error), True
    elif kind == "minItems":
        yield where, f"{name} is empty; {_MIN_ITEMS.get(name, 'give at least one entry')}", True
    elif kind == "maxItems" and name == "support":
        yield where, "support must be empty when answerable is false", True
    elif kind == "not":
        yield from _forbidden(where, name, error)
    elif kind == "uniqueItems":
        yield where, f"{name} lists the same entry twice", True
    elif kind == "anyOf" and (where == ["expect", "lead"] or where[:2] == ["expect", "contains"]):
        message = f"{name} should be a string or a list of strings (any one of them)"
        if not isinstance(error.instance, (list, dict)):
            got = f"{type(error.instance).__name__} {clip(repr(error.instance), 40)}"
            message += f", got {got}{_quote_hint(error.instance)}"
        yield where, message, True
    elif kind == "anyOf" and where == ["resolution"] and isinstance(error.instance, dict):
        for sub in error.context or ():  # the {rule, decided_by} branch says what is wrong
            if sub.schema_path and sub.schema_path[0] == 1:
                yield from _explain(sub)
    elif kind == "anyOf" and where == ["resolution"]:
        got = f"{type(error.instance).__name__} {clip(repr(error.instance), 40)}"
        yield where, f"resolution should be {{rule: ..., decided_by: ...}}, got {got}", True
    else:
        yield where, f"{name}: {clip(error.message, 120)}", True


_MIN_ITEMS = {
    "support": "an answerable case needs at least one quote",
}


def _unknown_key(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(known)}"
    return f"unknown key {key!r}{hint}"


def _missing(key: str, where: list[str | int], error: Any) -> str:
    if not where and key in ("expected_answer", "support"):
        return (
            f"missing {key!r}: an answerable case needs expected_answer and support "
            "(set answerable: false if the corpus cannot answer it)"
        )
    return f"missing required key {key!r} in {_field(where)}"


def _wrong_type(name: str, error: Any) -> str:
    expected = error.validator_value
    wanted = (
        _TYPE_NAMES.get(expected, str(expected)) if isinstance(expected, str) else str(expected)
    )
    got = type(error.instance).__name__
    hint = ""
    if expected == "string" and not isinstance(error.instance, (list, dict)):
        hint = _quote_hint(error.instance)
    return f"{name} should be {wanted}, got {got} {clip(repr(error.instance), 40)}{hint}"


def _quote_hint(value: Any) -> str:
    """For a scalar YAML did not read as text: quoting it makes it text."""
    hint = "; put the value in quotes"
    if isinstance(value, bool):
        hint += " (YAML reads yes, no, on, off, true and false as booleans)"
    return hint


def _bad_text(name: str, error: Any) -> str:
    if error.validator == "minLength" or error.validator_value == "\\S":
        return f"{name} is blank"
    if name in ("id", "slice", "derived_from") or name.startswith("tags["):
        return (
            f"{name} {clip(repr(error.instance), 40)} may hold only letters, digits, '.', '_' "
            "and '-', and must start with a letter or digit"
        )
    return f"{name} does not match {error.validator_value}"


_NOT_ALLOWED = {
    "expected_answer": "expected_answer is not allowed when answerable is false "
    "(abstaining is the right answer)",
    "derived_from": "derived_from is only for source: synthetic",
}


def _forbidden(
    where: list[str | int], name: str, error: Any
) -> Iterator[tuple[list[str | int], str, bool]]:
    required = (
        error.validator_value.get("required", []) if isinstance(error.validator_value, dict) else []
    )
    for key in required:
        yield [*where, key], _NOT_ALLOWED.get(key, f"{key} is not allowed here"), False
    if not required:
        yield where, f"{name}: {clip(error.message, 120)}", True
