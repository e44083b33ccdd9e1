"""Reading a results file (JSONL) and validating every line before anything is scored.

Each non-blank line is one JSON object that must match ``schema/results.schema.json``. Lines
are checked by a hand-written validator that agrees with the schema (a test holds them
together) because jsonschema is too slow for 100,000 lines; a line the fast path refuses is
handed to jsonschema for the message. Problems are collected, not raised one by one, so a user
sees all of them (up to ``MAX_SHOWN``) in one go.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.schemas import load_schema, validator
from goldcase.text import clip

SCHEMA = "results.schema.json"
MAX_SHOWN = 20
OUTCOMES = ("answer", "abstain", "error")
FIELDS = frozenset(load_schema(SCHEMA)["properties"])
_CHUNK_FIELDS = frozenset(("doc", "text", "start", "end"))
_CITATION_FIELDS = frozenset(("id", "text"))


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a results file (or the set it is scored against) cannot be scored."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class InvalidInput(GoldcaseError):
    """Validation failed: every problem is listed (at most ``MAX_SHOWN``), nothing is scored."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        shown = [str(p) for p in self.problems[:MAX_SHOWN]]
        hidden = len(self.problems) - len(shown)
        if hidden:
            shown.append(
                f"{hidden} more error{'s' if hidden > 1 else ''} not shown "
                f"({len(self.problems)} in all); nothing was scored"
            )
        # the CLI prefixes the first line with "error: "; the others get it here
        super().__init__("\nerror: ".join(shown))


@dataclass(frozen=True, slots=True)
class Result:
    """One valid result line: its 1-based line number and the object as read."""

    line: int
    data: Mapping[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def outcome(self) -> str:
        return str(self.data["outcome"])

    @property
    def trial(self) -> int | None:
        value = self.data.get("trial")
        return None if value is None else int(value)

    @property
    def confidence(self) -> float | None:
        value = self.data.get("confidence")
        return None if value is None else float(value)

    @property
    def answer(self) -> str | None:
        value = self.data.get("answer")
        return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class ResultsFile:
    path: str  # as given on the command line
    digest: str  # sha256 of the file's bytes
    results: list[Result]


def read_raw(path: Path, name: str) -> bytes:
    """The results file's bytes; a missing or unreadable file is a ``GoldcaseError``."""
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise GoldcaseError(f"{name}: is a folder; give the results file (JSONL)") from None
    except FileNotFoundError:
        raise GoldcaseError(f"{name}: no such file") from None
    except OSError as exc:
        raise GoldcaseError(f"{name}: cannot read it: {exc.strerror or exc}") from None


def read_results(path: Path, shown: str | None = None) -> ResultsFile:
    """Read and validate a results file on its own (no case ids are checked here); raise
    ``InvalidInput`` listing every bad line."""
    name = shown if shown is not None else str(path)
    raw = read_raw(path, name)
    results, problems = parse_results(raw, name)
    if problems:
        raise InvalidInput(problems)
    return ResultsFile(name, hashlib.sha256(raw).hexdigest(), results)


def parse_results(raw: bytes, name: str) -> tuple[list[Result], list[Problem]]:
    """Every valid line and every problem, duplicates included."""
    text, problem = _decode(raw, name)
    if problem is not None:
        return [], [problem]
    results: list[Result] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        data, message = _parse_line(line)
        if message is not None:
            problems.append(Problem(name, number, message))
        elif data is not None:
            results.append(Result(number, data))
    problems.extend(_duplicates(results, name))
    return results, sorted(problems, key=lambda p: p.line)


def _decode(raw: bytes, name: str) -> tuple[str, Problem | None]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return "", Problem(
            name, line, f"byte 0x{raw[exc.start]:02x} is not UTF-8; write the results file as UTF-8"
        )


class _DuplicateKey(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)


def _parse_line(line: str) -> tuple[dict[str, Any] | None, str | None]:
    """The object on one line, or the message saying why the line is not a valid result."""
    try:
        data = _DECODER.decode(line)
    except _DuplicateKey as exc:
        return None, f"field {str(exc)!r} appears twice on the line; keep one"
    except json.JSONDecodeError as exc:
        return None, (
            f"malformed JSON at column {exc.colno}: {exc.msg}; "
            "each line must be one complete JSON object"
        )
    except (ValueError, RecursionError) as exc:
        return None, f"malformed JSON: {exc}; each line must be one complete JSON object"
    if not isinstance(data, dict):
        kinds: dict[type, str] = {list: "a list", str: "a string"}
        kind = kinds.get(type(data), f"a {type(data).__name__}")
        return None, f"line holds {kind}, not an object; write one JSON object per line"
    if fast_valid(data):
        return data, None
    return None, explain(data)


def fast_valid(data: Mapping[str, Any]) -> bool:
    """True exactly when ``data`` matches results.schema.json (kept equal by a test)."""
    if not FIELDS.issuperset(data):
        return False
    case_id, outcome = data.get("id"), data.get("outcome")
    if not isinstance(case_id, str) or not case_id or outcome not in OUTCOMES:
        return False
    if outcome == "answer" and "answer" not in data and "fact" not in data:
        return False
    for key in ("fact", "answer", "scope"):
        if key in data and not isinstance(data[key], str):
            return False
    return (
        _optional(data, "confidence", _is_confidence)
        and _optional(data, "error", lambda v: v is None or isinstance(v, str))
        and _optional(data, "trial", lambda v: _is_int(v) and v >= 1)
        and _optional(data, "meta", lambda v: isinstance(v, dict))
        and _optional(data, "citations", lambda v: _is_list_of(v, _is_citation))
        and _optional(data, "retrieved", lambda v: _is_list_of(v, _is_chunk))
        and _optional(data, "context", lambda v: _is_list_of(v, _is_chunk))
    )


def _optional(data: Mapping[str, Any], key: str, test: Any) -> bool:
    return key not in data or bool(test(data[key]))


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_confidence(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not math.isnan(value) and 0 <= value <= 1


def _is_list_of(value: Any, test: Any) -> bool:
    return isinstance(value, list) and all(test(item) for item in value)


def _is_citation(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and _CITATION_FIELDS.issuperset(value)
        and all(isinstance(v, str) for v in value.values())
    )


def _is_chunk(value: Any) -> bool:
    if not isinstance(value, dict) or not _CHUNK_FIELDS.issuperset(value):
        return False
    doc = value.get("doc")
    if not isinstance(doc, str) or not doc:
        return False
    has_text = "text" in value
    has_span = "start" in value or "end" in value
    if has_text:
        return not has_span and isinstance(value["text"], str)
    return all(k in value and _is_int(value[k]) and value[k] >= 0 for k in ("start", "end"))


def _duplicates(results: Sequence[Result], name: str) -> Iterator[Problem]:
    """Two lines for one case (or one trial of it), and a case mixing lines with and without
    a trial number."""
    first: dict[tuple[str, int | None], int] = {}
    kinds: dict[str, tuple[bool, int]] = {}  # id -> (has a trial, first line)
    for result in results:
        key = (result.id, result.trial)
        trial = result.trial
        if key in first:
            what = f"case {result.id!r}" + ("" if trial is None else f" trial {trial}")
            fix = (
                "keep one line per case, or number repeated runs with trial"
                if trial is None
                else "give each trial of a case its own number"
            )
            yield Problem(
                name, result.line, f"second result for {what} (first on line {first[key]}); {fix}"
            )
            continue
        first[key] = result.line
        seen = kinds.setdefault(result.id, (trial is not None, result.line))
        if seen[0] != (trial is not None):
            yield Problem(
                name,
                result.line,
                f"case {result.id!r} has lines with and without trial (line "
                f"{seen[1]}); give every line of a repeated case a trial number",
            )


# --- messages for lines the fast path refused -------------------------------------------------


def explain(data: Mapping[str, Any]) -> str:
    """One message for everything wrong with a line, from the schema's own errors."""
    errors = sorted(validator(SCHEMA).iter_errors(data), key=lambda e: list(e.absolute_path))
    messages: list[str] = []
    for error in errors:
        for message in _messages(error):
            if message not in messages:
                messages.append(message)
    if not messages:  # pragma: no cover - the fast path and the schema agree (tested)
        return "does not match results.schema.json"
    return "; ".join(messages)


_TYPE_NAMES = {
    "string": "a string",
    "array": "a list",
    "object": "an object",
    "integer": "a whole number",
    "number": "a number",
    "null": "null",
}


def _where(path: Sequence[str | int]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or "the line"


def _messages(error: Any) -> Iterator[str]:
    path = list(error.absolute_path)
    name = _where(path)
    kind = error.validator
    if kind == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in known:
                yield _unknown_field(str(key), known, top=not path)
    elif kind == "required":
        for key in error.validator_value:
            if key not in error.instance:
                yield f"missing field {key!r}" + ("" if not path else f" in {name}")
    elif kind == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        yield f"{name} is {clip(json.dumps(error.instance), 40)}; expected one of {allowed}"
    elif kind == "type":
        wanted = error.validator_value
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        expected = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
        yield f"{name} should be {expected}, got {clip(json.dumps(error.instance), 40)}"
    elif kind in ("minimum", "maximum") and name == "confidence":
        yield f"confidence is {error.instance}; expected a number from 0 to 1"
    elif kind == "minimum":
        yield f"{name} is {error.instance}; expected at least {error.validator_value}"
    elif kind == "minLength":
        yield f"{name} is empty"
    elif kind == "anyOf" and not path:
        yield "an answer needs 'answer' (the text shown) or 'fact' (a structured key)"
    elif kind == "minProperties":
        yield f"{name} is empty; a citation needs an id or a text"
    elif kind == "oneOf":
        yield f"{name} should be {{doc, text}} or {{doc, start, end}}"
    else:
        yield f"{name}: {clip(error.message, 100)}"


def _unknown_field(key: str, known: list[str], *, top: bool) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"known fields: {', '.join(known)}"
    extra = " (fields of your own go under meta)" if top else ""
    return f"unknown field {key!r}; {hint}{extra}"
