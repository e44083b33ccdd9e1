"""promptfoo's output (``promptfoo eval -o OUTPUT.json``, or ``.jsonl``) as goldcase results.

- The case is the ``id`` in the test's ``metadata``, as ``goldcase export --format promptfoo``
  writes it; a result without one is a problem (nothing is scored).
- A result promptfoo marks an error (``failureReason`` 2: the provider failed) is an ``error``
  line with promptfoo's message (first line). A failed assertion is not an error: the output
  is graded by goldcase like any other.
- The output (``response.output``) is the answer: text, or an object of goldcase's response
  fields (``outcome``, ``answer``, ``citations``, …) from a provider that returns one.
- A test repeated (``--repeat N``) gives trials 1..N, in promptfoo's test order.
- One provider and one prompt per file: a matrix of several is refused (filter it with
  ``promptfoo eval --filter-providers``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.interchange.converted import (
    MAX_BYTES,
    TOO_COSTLY,
    Converted,
    as_text,
    latency,
    parse_json,
)
from goldcase.jsonmemory import refuse_costly
from goldcase.output import plain
from goldcase.safeio import read_named
from goldcase.text import clip

ERROR = 2  # promptfoo's ResultFailureReason.ERROR (1 is a failed assertion)
WHAT = "promptfoo output (promptfoo eval -o OUTPUT.json)"


def read(path: Path, shown: str, patterns: Sequence[str]) -> Converted:
    results = _results(read_named(path, shown, WHAT, MAX_BYTES), shown)
    _one_column(results, shown)
    converted = Converted()
    trials: Counter[str] = Counter()
    for index, result in sorted(enumerate(results), key=lambda pair: _order(*pair)):
        meta = _metadata(result)
        case_id = meta.get("id")
        if not isinstance(case_id, str) or not case_id:
            converted.problems.append(
                f"result {index + 1}: its test has no goldcase id in metadata.id (export the "
                "tests with goldcase export --format promptfoo)"
            )
            continue
        if isinstance(meta.get("golden_version"), str):
            converted.versions.add(meta["golden_version"])
        trials[case_id] += 1
        response = result.get("response")
        converted.add(
            case_id,
            trials[case_id],
            response.get("output") if isinstance(response, dict) else None,
            latency(result.get("latencyMs")),
            patterns,
            error=_error(result),
        )
    return converted


def _results(raw: bytes, shown: str) -> list[dict[str, Any]]:
    """The result objects of a JSON output (``results.results``) or a JSONL one."""
    refuse_costly(raw, shown, TOO_COSTLY)  # every line of a JSONL output is kept too
    try:
        data = as_text(json.loads(raw), raw, shown, WHAT)
    except ValueError:  # not one JSON value: a JSONL output, one result a line
        return [_object(parse_json(line, shown, WHAT), shown) for line in _lines(raw)]
    except RecursionError:
        raise GoldcaseError(f"{shown}: not {WHAT}: nested too deeply") from None
    inner = data.get("results") if isinstance(data, dict) else None
    results = inner.get("results") if isinstance(inner, dict) else None
    if isinstance(results, list):
        return [_object(result, shown) for result in results]
    if isinstance(data, dict) and "testCase" in data:  # a JSONL output of one result
        return [data]
    raise GoldcaseError(f"{shown}: not {WHAT}: no results.results list")


def _lines(raw: bytes) -> Iterator[bytes]:
    return (line for line in raw.split(b"\n") if line.strip())


def _object(value: Any, shown: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise GoldcaseError(f"{shown}: not {WHAT}: a result is not an object")
    return value


def _one_column(results: list[dict[str, Any]], shown: str) -> None:
    columns = {(_provider(r), r.get("promptIdx")) for r in results}
    if len(columns) > 1:
        providers = sorted({plain(clip(provider, 80)) for provider, _ in columns})
        raise GoldcaseError(
            f"{shown}: holds {len(columns)} provider and prompt pairs ({', '.join(providers)}); "
            "goldcase scores one system at a time: run promptfoo with one provider and one "
            "prompt, or --filter-providers"
        )


def _provider(result: dict[str, Any]) -> str:
    provider = result.get("provider")
    if isinstance(provider, dict):
        return str(provider.get("label") or provider.get("id") or "")
    return str(provider or "")


def _order(index: int, result: dict[str, Any]) -> tuple[int, int]:
    test = result.get("testIdx")
    return (test if isinstance(test, int) and not isinstance(test, bool) else index, index)


def _metadata(result: dict[str, Any]) -> dict[str, Any]:
    test = result.get("testCase")
    meta = test.get("metadata") if isinstance(test, dict) else None
    if not isinstance(meta, dict):
        meta = result.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _error(result: dict[str, Any]) -> str | None:
    if result.get("failureReason") != ERROR:
        return None
    message = result.get("error")
    first = str(message).strip().splitlines()[0] if message else ""
    return f"promptfoo: {first}" if first else "promptfoo: the provider failed"
