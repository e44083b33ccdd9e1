"""Reading a report JSON back in, trusting nothing: it must parse, match
``schema/report.schema.json``, and carry a ``cases_digest`` that matches its own case list (a
report edited by hand, or cut short, is refused), and agree with itself: every count, rate,
interval and slice recomputed from its cases, each case's verdict from the pass rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.jsonmemory import refuse_costly
from goldcase.loader import set_digest
from goldcase.safeio import read_named
from goldcase.schemas import load_schema, validator
from goldcase.scoring.metrics import rate, wilson
from goldcase.scoring.outcomes import accepts_correction
from goldcase.scoring.report import cases_digest
from goldcase.text import HALF_SURROGATE, HALF_SURROGATE_ESCAPE, clip, half_surrogate

if TYPE_CHECKING:
    from goldcase.context import Context

SCHEMA = "report.schema.json"


def load_report(path: Path, shown: str | None = None, ctx: Context | None = None) -> dict[str, Any]:
    """The report at ``path``, validated; GoldcaseError (exit 2) naming the file otherwise.
    With ``ctx`` (the golden-set repository), cases are checked against the set too."""
    name = shown or str(path)
    data = _parse(read_named(path, name, "a report written by goldcase score --out"), name)
    _validate(data, name)
    check_digest(data, name)
    check_consistency(data, name, corrections_allowed(data, ctx))
    return data


REPORT_FIX = "a report goldcase score --out writes is far smaller: give one it wrote"


def _parse(raw: bytes, name: str) -> dict[str, Any]:
    refuse_costly(raw, name, REPORT_FIX)
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=no_constant)
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
    refuse_half_surrogates(data, raw, name)
    return data


def refuse_half_surrogates(data: Any, raw: bytes, name: str) -> None:
    """GoldcaseError when the report (``data``, decoded from ``raw``) holds half a surrogate
    pair: JSON decodes its escape, but no UTF-8 text holds it, so neither the case list's
    digest nor a page could be written."""
    if HALF_SURROGATE_ESCAPE.search(raw) and half_surrogate(data):
        raise GoldcaseError(f"{name}: {HALF_SURROGATE}")


def no_constant(name: str) -> Any:
    """``json.loads``'s ``parse_constant``: NaN and the infinities are refused (ValueError)."""
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
        first = errors[0]  # its path and message quote the file (a key, a value): cut
        where = clip("/".join(str(p) for p in first.absolute_path), 80) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise GoldcaseError(
            f"{name}: not a valid goldcase report: at {where}: {clip(first.message, 120)}"
            f"{more}; give a report goldcase score --out wrote"
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


def check_digest(data: dict[str, Any], name: str) -> None:
    """GoldcaseError (exit 2) when ``cases_digest`` is not the digest of the report's own
    case list."""
    computed = cases_digest(data["cases"])
    if computed != data["cases_digest"]:
        raise GoldcaseError(
            f"{name}: cases_digest does not match the report's own case list (recorded "
            f"{data['cases_digest']}, computed {computed}); the report was edited or cut "
            "short: score the run again"
        )


# A report is believed only as far as it agrees with itself: every count and rate is
# recomputed from its own cases, and each case's verdict from the pass rule, so an edited
# number (or an edited case with a recomputed digest) is refused, naming the field.
_LATER = frozenset(("unanswerable", "correct_abstentions", "corrections"))
_TOLERANCE = 5e-4  # floats as written by hand to four places (counts are compared exactly)


def corrections_allowed(data: dict[str, Any], ctx: Context | None) -> frozenset[str] | None:
    """The ids of the cases that may pass by answering (false premises whose ``expect`` block
    describes the correction), when ``ctx`` holds the very set the report was scored on
    (same ``set_digest``); None when that cannot be known."""
    if ctx is None:
        return None
    try:
        case_set = load_case_set(ctx)
    except GoldcaseError:
        return None
    if set_digest(case_set.golden) != data.get("set_digest"):
        return None
    return frozenset(c.id for c in case_set.cases if accepts_correction(c))


def check_consistency(
    data: dict[str, Any], name: str, corrections: frozenset[str] | None = None
) -> None:
    """GoldcaseError (exit 2) naming the first field that disagrees with the cases.
    ``corrections``: the cases that may pass by answering, when the set is at hand."""
    cases = data["cases"]
    for index, case in enumerate(cases):
        _check_case(case, f"cases[{index}]", name, corrections)
    counts = _counts(cases)
    for field, value in counts.items():
        if field in data or field not in _LATER:  # reports written before a count was kept
            _agree(data.get(field), value, field, name)
    _check_rates(data, counts, name)
    _check_slices(data, cases, name)


def _check_case(
    case: dict[str, Any], where: str, name: str, corrections: frozenset[str] | None
) -> None:
    """The pass rule, as far as a report holds what it needs: a case passes exactly when
    nothing failed; an unanswerable case passes by abstaining, or by answering only when it
    is a false premise that accepts the correction (known when the set is at hand); an
    answerable one never by abstaining; a missing or failed result never."""
    outcome, failed, passed = case["outcome"], case["failed_checks"], case["passed"]
    expected: bool | None = not failed
    if outcome in ("missing", "error"):
        expected = False
    elif not case["answerable"] and outcome == "answer":
        may = corrections is None or case["id"] in corrections
        expected = not failed and may
    elif not case["answerable"]:
        expected = outcome == "abstain"
    elif outcome == "abstain":
        expected = False
    if passed != expected or passed != (not failed):
        raise GoldcaseError(
            f"{name}: {where}.passed is {str(passed).lower()} for case {clip(repr(case['id']))} "
            f"(answerable: {str(case['answerable']).lower()}, outcome {outcome!r}, failed checks "
            f"{failed}), which the pass rule does not give; the report was edited: score the "
            "run again"
        )


def _counts(cases: list[dict[str, Any]]) -> dict[str, int]:
    answers = [c for c in cases if c["outcome"] == "answer"]
    unanswerable = [c for c in cases if not c["answerable"]]
    return {
        "unanswerable": len(unanswerable),
        "correct_abstentions": sum(1 for c in unanswerable if c["passed"] and c not in answers),
        "corrections": sum(1 for c in unanswerable if c["passed"] and c in answers),
        "total": len(cases),
        "success": sum(1 for c in cases if c["passed"]),
        "answered": len(answers),
        "correct_answers": sum(1 for c in answers if c["passed"]),
        "errors": sum(1 for c in cases if c["outcome"] == "error"),
        "missing": sum(1 for c in cases if c["outcome"] == "missing"),
    }


def _check_rates(data: dict[str, Any], counts: dict[str, int], name: str) -> None:
    pairs = {
        "task_success": (counts["success"], counts["total"]),
        "answer_coverage": (counts["answered"], counts["total"]),
        "answered_accuracy": (counts["correct_answers"], counts["answered"]),
    }
    intervals = data.get("intervals") or {}
    for field, (k, n) in pairs.items():
        _agree(data.get(field), rate(k, n), field, name)
        _agree(intervals.get(field), _listed(wilson(k, n)), f"intervals.{field}", name)


def _check_slices(data: dict[str, Any], cases: list[dict[str, Any]], name: str) -> None:
    slices = data["slices"]
    totals: dict[str, list[int]] = {}
    for case in cases:
        seen = totals.setdefault(case["slice"], [0, 0])
        seen[0] += 1
        seen[1] += bool(case["passed"])
    _agree(sorted(slices), sorted(totals), "slices", name)
    weight = weighted = 0.0
    for slice_name, (total, success) in totals.items():
        stats, where = slices[slice_name], f"slices.{clip(slice_name)}"
        _agree(stats.get("total"), total, f"{where}.total", name)
        _agree(stats.get("success"), success, f"{where}.success", name)
        _agree(stats.get("rate"), rate(success, total), f"{where}.rate", name)
        _agree(stats.get("interval"), _listed(wilson(success, total)), f"{where}.interval", name)
        traffic = stats.get("traffic")
        if isinstance(traffic, (int, float)) and not stats.get("ambiguous") and total:
            weight += traffic
            weighted += traffic * success / total
    expected = None if weight == 0 else weighted / weight
    _agree(data.get("weighted_task_success"), expected, "weighted_task_success", name)


def _listed(interval: Any) -> list[float] | None:
    return None if interval is None else list(interval)


def _agree(recorded: Any, computed: Any, field: str, name: str) -> None:
    if not _same(recorded, computed):
        raise GoldcaseError(
            f"{name}: {field} says {clip(repr(recorded))}, but the report's own cases give "
            f"{clip(repr(computed))}; the report was edited: score the run again"
        )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= _TOLERANCE
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
