"""What goldcase sends to the system under test, and how its answer becomes a result line.

A request is one JSON object holding the case id, the question and the trial number, and
nothing else: no expected answer, support or expect block ever reaches the system::

    {"id": "ret-014", "question": "How many days …?", "trial": 1}

A response is one JSON object holding the fields of a result line (``schema/results.schema.
json``) that the system knows: ``answer`` or ``fact``, ``outcome`` when it abstains,
``citations``, ``scope``, ``confidence``, ``retrieved``, ``context``, ``tool_calls``, ``meta``;
and optionally ``prompt`` (the text it sent to its model, checked for golden questions and not
written) and, for an error, ``error`` with ``retryable: true`` when asking again may help. It may
repeat the ``id`` and ``trial`` it answers. goldcase adds ``id``, ``trial`` and ``latency_ms``.

A response with no ``outcome`` is an ``error`` when it carries an ``error``, an ``abstain`` when
its answer matches ``[run] abstain_patterns`` (``goldcase.scoring.abstain``), and an ``answer``
otherwise. Anything that is not such an object becomes ``outcome: error`` with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

from goldcase.model import Case
from goldcase.scoring.abstain import abstains
from goldcase.scoring.results import explain, valid_line
from goldcase.text import HALF_SURROGATE, clip, half_surrogate

NOT_WRITTEN = frozenset(("prompt", "retryable"))  # read by goldcase, not part of the line
ECHOED = ("id", "trial")  # a response may repeat them; they must then be the ones asked
MAX_REASON = 300  # characters of an error reason kept in the line


def request(case: Case, trial: int) -> dict[str, Any]:
    """The request for one trial of one case: its id, question and trial number only."""
    return {"id": case.id, "question": case.question, "trial": trial}


class Answer(Struct, frozen=True):
    """A response turned into the line to write: ``retry`` when the system said asking again
    may help; ``prompt`` when it reported what it sent to its model."""

    line: dict[str, Any]
    retry: bool = False
    prompt: str | None = None
    malformed: bool = False

    @property
    def failed(self) -> bool:
        return self.line["outcome"] == "error"


def error_line(case_id: str, trial: int, reason: str, latency_ms: float) -> dict[str, Any]:
    return {
        "id": case_id,
        "trial": trial,
        "outcome": "error",
        "error": clip(reason, MAX_REASON),
        "latency_ms": latency_ms,
    }


def malformed(case_id: str, trial: int, problem: str, latency_ms: float) -> Answer:
    reason = f"malformed response: {problem}"
    return Answer(error_line(case_id, trial, reason, latency_ms), malformed=True)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def parse_response(text: str | bytes) -> Any:
    """The JSON value of one response; ``ValueError`` saying why it is not JSON, or not text
    a results file can hold (half a surrogate pair)."""
    try:
        decoded = text.decode("utf-8") if isinstance(text, bytes) else text
        value = _DECODER.decode(decoded.strip())
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueError
        raise ValueError(f"not JSON ({clip(str(exc), 80)})") from None
    if "\\u" in decoded and half_surrogate(value):
        raise ValueError(HALF_SURROGATE)
    return value


def encode(line: Mapping[str, Any]) -> bytes:
    """One line of the results file, newline included; ``ValueError`` for a value JSON
    cannot hold (NaN, a set, an object a Python callable returned)."""
    try:
        return (json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n").encode()
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON ({clip(str(exc), 80)})") from None


def to_answer(
    case_id: str,
    trial: int,
    response: Any,
    latency_ms: float,
    patterns: Sequence[str],
) -> Answer:
    """The result line for ``response`` (a parsed JSON value), or an error line saying why
    the response is malformed."""
    problem = _shape_problem(case_id, trial, response)
    if problem is not None:
        return malformed(case_id, trial, problem, latency_ms)
    line = _line(case_id, trial, response, latency_ms, patterns)
    if not valid_line(line):
        return malformed(case_id, trial, explain(line), latency_ms)
    retry = line["outcome"] == "error" and response.get("retryable") is True
    prompt = response.get("prompt")
    return Answer(line, retry, prompt if isinstance(prompt, str) else None)


def _shape_problem(case_id: str, trial: int, response: Any) -> str | None:
    if not isinstance(response, dict):
        return f"expected a JSON object, got {type(response).__name__}"
    for key, asked in zip(ECHOED, (case_id, trial), strict=True):
        if key in response and response[key] != asked:
            return f"it answers {key} {response[key]!r}, the request was for {asked!r}"
    prompt, retryable = response.get("prompt"), response.get("retryable")
    if prompt is not None and not isinstance(prompt, str):
        return "prompt should be a string (the text sent to the model)"
    if retryable is not None and not isinstance(retryable, bool):
        return "retryable should be true or false"
    return None


def _line(
    case_id: str,
    trial: int,
    response: Mapping[str, Any],
    latency_ms: float,
    patterns: Sequence[str],
) -> dict[str, Any]:
    line: dict[str, Any] = {"id": case_id, "trial": trial}
    for key, value in response.items():
        if key not in NOT_WRITTEN and key not in ECHOED:
            line[key] = value
    if "outcome" not in line:
        line["outcome"] = _outcome(line, patterns)
    if line["outcome"] == "error" and isinstance(line.get("error"), str):
        line["error"] = clip(line["error"], MAX_REASON)
    line["latency_ms"] = latency_ms
    return line


def _outcome(line: Mapping[str, Any], patterns: Sequence[str]) -> str:
    if line.get("error") is not None:
        return "error"
    answer = line.get("answer")
    if isinstance(answer, str) and abstains(answer, patterns):
        return "abstain"
    return "answer"
