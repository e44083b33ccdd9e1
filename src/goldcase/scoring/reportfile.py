"""Reading a report JSON back in, trusting nothing: it must parse, match
``schema/report.schema.json``, and carry a ``cases_digest`` that matches its own case list (a
report edited by hand, or cut short, is refused)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError

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
        return path.read_bytes()
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
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise GoldcaseError(f"{name}: not UTF-8 text; expected a JSON report") from None
    except json.JSONDecodeError as exc:
        raise GoldcaseError(
            f"{name}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); expected a report "
            "written by goldcase score --format json or --out"
        ) from None
    if not isinstance(data, dict):
        raise GoldcaseError(
            f"{name}: expected a JSON object (a goldcase report), found {type(data).__name__}"
        )
    return data


def _validate(data: dict[str, Any], name: str) -> None:
    from goldcase.schemas import validator

    errors = sorted(validator(SCHEMA).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise GoldcaseError(
            f"{name}: not a valid goldcase report: at {where}: {first.message}{more}"
        )


def _check_digest(data: dict[str, Any], name: str) -> None:
    from goldcase.scoring.report import cases_digest

    computed = cases_digest(data["cases"])
    if computed != data["cases_digest"]:
        raise GoldcaseError(
            f"{name}: cases_digest does not match the report's own case list (recorded "
            f"{data['cases_digest']}, computed {computed}); the report was edited or cut "
            "short: score the run again"
        )
