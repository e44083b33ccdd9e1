"""The JSON Schemas goldcase ships, found inside the installed package or the source tree.

A schema may refer to another one by its file name (the draft schema takes its fields from the
case schema: ``"$ref": "case.schema.json#/properties/id"``); both validators resolve such a
reference to the shipped file, never to the network.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.project import shipped

CASE_SCHEMA = "case.schema.json"
DRAFT_SCHEMA = "draft.schema.json"
_ID_BASE = "https://goldcase.dev/schema/"


def schema_dir() -> Path:
    found = shipped("schema")
    if found is not None and found.is_dir():
        return found
    raise GoldcaseError("goldcase's schema files are missing; reinstall goldcase")


@cache
def schema_bytes(name: str) -> bytes:
    try:
        return (schema_dir() / name).read_bytes()
    except OSError as exc:
        raise GoldcaseError(f"cannot read goldcase's {name}: {exc}; reinstall goldcase") from exc


@cache
def load_schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_bytes(name))
    return data


def path_name(key_path: Sequence[str | int], whole: str) -> str:
    """Where a schema error is, as messages name it: ``support[0].quote``; ``whole`` (``the
    case``, ``the line``) for the document itself."""
    out = ""
    for step in key_path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or whole


def schema_digest(name: str) -> str:
    return hashlib.blake2b(schema_bytes(name), digest_size=8).hexdigest()


@cache
def validator(name: str) -> Any:
    """A compiled Draft 2020-12 validator (jsonschema imported only when something validates)."""
    from jsonschema import Draft202012Validator  # 77 ms to import: only a failing file pays
    from referencing import Registry, Resource  # jsonschema's own dependency, as lazy

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    registry: Any = Registry()
    for other in _referenced(schema):
        registry = registry.with_resource(
            _ID_BASE + other, Resource.from_contents(load_schema(other))
        )
    return Draft202012Validator(schema, registry=registry)


def _referenced(schema: Any) -> set[str]:
    """The file names of the other shipped schemas that ``schema`` refers to."""
    found: set[str] = set()
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            found.add(ref.split("#", 1)[0])
        for value in schema.values():
            found |= _referenced(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= _referenced(value)
    return found


@cache
def defaults(name: str) -> dict[str, Any]:
    """The top-level fields the shipped schema ``name`` gives a default (``answerable``:
    true): a case that leaves one out is read, checked and hashed with it, so two files that
    differ only by writing the default out are one case, with one hash."""
    properties = load_schema(name).get("properties", {})
    return {key: sub["default"] for key, sub in properties.items() if "default" in sub}
