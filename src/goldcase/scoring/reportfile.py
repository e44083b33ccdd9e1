"""Reading a report JSON back in, trusting nothing: it must parse, match
``schema/report.schema.json``, and carry a ``cases_digest`` that matches its own case list (a
report edited by hand, or cut short, is refused)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.safeio import read_regular
from goldcase.schemas import load_schema, validator
from goldcase.scoring.report import cases_digest

SCHEMA = "report.schema.json"


def load_report(path: Path, shown: str | None = None) -> dict[str, Any]:
    """The report at ``path``, validated; GoldcaseError (exit 2) naming the file otherwise."""
    name = shown or str(path)
    data = _parse(_read(path, name), name)
    _validate(data, name)
    _check_digest(data, name)
    return data


def _read(path: Path, name: str) -> bytes:
    try:
        return read_regular(path)
    except FileNotFoundError:
        raise GoldcaseError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise GoldcaseError(
            f"{name}: is a folder; give a report written by goldcase score --out"
        ) from None
    except OSError as exc:
        raise GoldcaseError(f"{name}: cannot read it: {exc.strerror or exc}") from None


def _parse(raw: bytes, name: str) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise GoldcaseError(f"{name}: not UTF-8 text; expected a JSON report") from None
    except RecursionError:
        raise GoldcaseError(f"{name}: JSON nested too deeply to be a goldcase report") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):
            raise GoldcaseError(f"{name}: {exc}; a report holds finite numbers only") from None
        raise GoldcaseError(
            f"{name}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); expected a report "
            "written by goldcase score --format json or --out"
        ) from None
    if not isinstance(data, dict):
        raise GoldcaseError(
            f"{name}: expected a JSON object (a goldcase report), found {type(data).__name__}"
        )
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _validate(data: dict[str, Any], name: str) -> None:
    """jsonschema on everything but the case list; the case list, which can hold 100,000
    entries, through the small interpreter below, and through jsonschema only when that finds
    a problem (for the message) or meets a keyword it does not know."""
    cases = data.get("cases")
    case_schema = load_schema(SCHEMA).get("$defs", {}).get("case")
    if (
        isinstance(cases, list)
        and isinstance(case_schema, dict)
        and _known(case_schema)
        and all(_valid(case, case_schema) for case in cases)
    ):
        _jsonschema({**data, "cases": []}, name)
    else:
        _jsonschema(data, name)


def _jsonschema(data: dict[str, Any], name: str) -> None:
    errors = sorted(validator(SCHEMA).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise GoldcaseError(
            f"{name}: not a valid goldcase report: at {where}: {first.message}{more}"
        )


_OBJECT_KEYS = {"type", "additionalProperties", "required", "properties", "description"}
_VALUE_KEYS = {"type", "enum", "minLength", "minimum", "maximum", "items", "uniqueItems",
               "description"}  # fmt: skip
_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _known(schema: dict[str, Any]) -> bool:
    """Whether the case schema uses only keywords ``_valid`` interprets."""
    if set(schema) - _OBJECT_KEYS or schema.get("additionalProperties") is not False:
        return False
    return all(_known_value(p) for p in schema.get("properties", {}).values())


def _known_value(schema: Any) -> bool:
    if not isinstance(schema, dict) or set(schema) - _VALUE_KEYS:
        return False
    types = schema.get("type", [])
    if any(t not in _TYPES for t in ([types] if isinstance(types, str) else types)):
        return False
    return "items" not in schema or _known_value(schema["items"])


def _valid(case: Any, schema: dict[str, Any]) -> bool:
    properties = schema.get("properties", {})
    if not isinstance(case, dict) or not set(schema.get("required", ())) <= case.keys():
        return False
    return case.keys() <= properties.keys() and all(
        _valid_value(value, properties[key]) for key, value in case.items()
    )


def _valid_value(value: Any, schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else types
        if not any(_TYPES[t](value) for t in names):
            return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return False
    if _TYPES["number"](value) and not _in_range(value, schema):
        return False
    if isinstance(value, list):
        items = schema.get("items", {})
        if not all(_valid_value(v, items) for v in value):
            return False
        if schema.get("uniqueItems") and len({json.dumps(v) for v in value}) != len(value):
            return False
    return True


def _in_range(value: float, schema: dict[str, Any]) -> bool:
    low, high = schema.get("minimum"), schema.get("maximum")
    return (low is None or value >= low) and (high is None or value <= high)


def _check_digest(data: dict[str, Any], name: str) -> None:
    computed = cases_digest(data["cases"])
    if computed != data["cases_digest"]:
        raise GoldcaseError(
            f"{name}: cases_digest does not match the report's own case list (recorded "
            f"{data['cases_digest']}, computed {computed}); the report was edited or cut "
            "short: score the run again"
        )
