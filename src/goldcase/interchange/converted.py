"""Results another tool wrote, converted to goldcase result lines for ``score --from``.

Each converter reads the other tool's output as data (bounded size, JSON only: no pickle, no
code) and turns every record into a result line by the rule ``goldcase run`` uses for a
response (``goldcase.run.protocol.to_answer``): a text output is an ``answer``, or an
``abstain`` when it matches ``[run] abstain_patterns``; an output that is an object (or the
JSON text of one) holding goldcase's response fields (``outcome``, ``answer`` or ``fact``,
with ``citations``, ``confidence``, …) is read as a response; an error stays an ``error``.
A case with no record is absent, so ``score`` counts it ``missing``. The lines then go
through the same validation as any results file.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from msgspec import Struct, field

from goldcase.errors import GoldcaseError
from goldcase.jsonmemory import refuse_costly
from goldcase.run.protocol import Answer, error_line, parse_response, to_answer
from goldcase.text import HALF_SURROGATE, HALF_SURROGATE_ESCAPE, half_surrogate

FORMATS = ("promptfoo", "inspect")
MAX_BYTES = 1024**3  # a promptfoo output or an Inspect JSON log read whole, at most this


class Converted(Struct):
    """Result lines in the order the tool listed them, what could not be read, and the
    ``golden_version`` each record's metadata carried (what the export was made from)."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    versions: set[str] = field(default_factory=set)

    def take_raw(self) -> bytes:
        """The lines as a results file, given up as they are encoded: each line's answer is
        held once, in the lines or in the file, not four times (the lines, each line's text,
        the joined text and its bytes: 4 GB for an archive of 1 GB of answers)."""
        out = io.BytesIO()
        lines, self.lines = self.lines, []
        lines.reverse()  # taken from the end: each line let go once it is written
        while lines:
            out.write(json.dumps(lines.pop(), ensure_ascii=False).encode())
            out.write(b"\n")
        return out.getvalue()  # the buffer itself, not a copy, once nothing else holds it

    def check(self, shown: str) -> None:
        if self.problems:
            shown_problems = [f"{shown}: {p}" for p in self.problems[:20]]
            more = len(self.problems) - len(shown_problems)
            if more:
                shown_problems.append(f"{shown}: {more} more not shown; nothing was scored")
            raise GoldcaseError("\nerror: ".join(shown_problems))
        if not self.lines:
            raise GoldcaseError(f"{shown}: holds no results to score")

    def add(
        self,
        case_id: str,
        trial: int,
        output: Any,
        latency_ms: float,
        patterns: Sequence[str],
        error: str | None = None,
    ) -> None:
        """One record: its error, or its output (text, or goldcase's response fields)."""
        if error is not None:
            answer = Answer(error_line(case_id, trial, error, latency_ms))
        else:
            structured = _structured(output)
            response = structured if structured is not None else {"answer": _text(output)}
            answer = to_answer(case_id, trial, response, latency_ms, patterns)
        self.lines.append(answer.line)


RESPONSE_KEYS = frozenset(("outcome", "answer", "fact"))


def _structured(output: Any) -> dict[str, Any] | None:
    """goldcase's response fields, when the output is an object holding them, or text that is
    one such object in JSON (what a command-line provider prints)."""
    if isinstance(output, str) and output.lstrip().startswith("{"):
        try:
            output = parse_response(output)
        except ValueError:
            return None
    if isinstance(output, dict) and RESPONSE_KEYS & output.keys():
        return output
    return None


def _text(output: Any) -> str:
    if output is None:
        return ""
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


TOO_COSTLY = "score a log or output of fewer samples (split the evaluation)"


def parse_json(data: bytes, shown: str, what: str) -> Any:
    """``data`` decoded as JSON; a ``GoldcaseError`` naming ``shown`` when it is not JSON,
    holds half a surrogate pair, or could take more memory to decode than goldcase allows
    (``jsonmemory``: refused before it is decoded)."""
    refuse_costly(data, shown, TOO_COSTLY)
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise GoldcaseError(f"{shown}: not {what} (not JSON: {exc})") from None
    return as_text(value, data, shown, what)


def as_text(value: Any, data: bytes, shown: str, what: str) -> Any:
    """``value``, decoded from ``data``, refused when it holds half a surrogate pair: text
    no answer can be scored or shown with."""
    if HALF_SURROGATE_ESCAPE.search(data) and half_surrogate(value):
        raise GoldcaseError(f"{shown}: not {what}: {HALF_SURROGATE}")
    return value


def latency(value: Any, scale: float = 1.0) -> float:
    """A latency in milliseconds from a tool's number (None or nonsense: 0). Compared before
    it is converted: an integer of 400 digits has no float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    if not 0 <= value < MAX_LATENCY:  # NaN compares false
        return 0.0
    return round(float(value) * scale, 1)


MAX_LATENCY = 1e12  # in the tool's unit: thirty years of milliseconds, of seconds far more
