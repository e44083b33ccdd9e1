"""The decoded-memory bound (docs/score.md, "Memory"): the estimate is at least what decoding
really takes, for the shapes that expand most; a file too small to reach the budget is never
scanned; a larger one past the budget is refused before it is decoded."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from goldcase import jsonmemory
from goldcase.errors import GoldcaseError
from goldcase.jsonmemory import estimate, refuse_costly
from goldcase.scoring.results import parse_lines


def _lines(unit: bytes, count: int) -> bytes:
    return unit * count


def _array(item: bytes, count: int) -> bytes:
    return b"[" + b",".join([item] * count) + b"]\n"


SHAPES = {
    "empty objects a line": _lines(b"{}\n", 60_000),
    "empty lists a line": _lines(b"[]\n", 60_000),
    "one-key objects a line": _lines(b'{"":0}\n', 30_000),
    "nested lists": _lines(b"[" * 400 + b"]" * 400 + b"\n", 250),
    "nested objects": _lines(b'{"":' * 400 + b"{}" + b"}" * 400 + b"\n", 100),
    "lists of empty lists": _array(b"[]", 60_000),
    "lists of two-letter strings": _array(b'"ab"', 40_000),
    "lists of floats": _array(b"1.5", 40_000),
    "lists of five-digit numbers": _array(b"12345", 40_000),
    "objects of distinct keys": b"{" + b",".join(b'"%d":0' % i for i in range(30_000)) + b"}\n",
    "strings of four-byte characters": _array('"a\U0001f600"'.encode(), 30_000),
}


def _traced_peak(decode: Callable[[bytes], Any], raw: bytes) -> int:
    tracemalloc.start()
    try:
        kept = decode(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del kept
    return peak + len(raw)  # the bytes were allocated before tracing began


@pytest.mark.parametrize("name", SHAPES)
def test_the_estimate_is_at_least_what_decoding_takes(name: str) -> None:
    raw = SHAPES[name]
    assert estimate(raw) >= _traced_peak(lambda r: parse_lines(r, "results.jsonl"), raw)
    assert estimate(raw) >= _traced_peak(json.loads, b"[" + raw.replace(b"\n", b",")[:-1] + b"]")


def test_no_shape_expands_past_the_worst_case_that_skips_the_scan() -> None:
    """A file at most BUDGET / WORST_EXPANSION bytes is not scanned: only safe when no shape
    takes more than WORST_EXPANSION times its size."""
    for raw in SHAPES.values():
        peak = _traced_peak(lambda r: parse_lines(r, "results.jsonl"), raw)
        assert peak <= jsonmemory.WORST_EXPANSION * len(raw)


def test_a_file_too_small_to_reach_the_budget_is_not_scanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def scanned(raw: bytes) -> int:
        raise AssertionError("scanned")

    monkeypatch.setattr(jsonmemory, "estimate", scanned)
    refuse_costly(b"{}\n" * (jsonmemory.BUDGET // jsonmemory.WORST_EXPANSION // 3), "f", "fix")


def test_past_the_budget_the_file_is_refused_naming_it_and_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonmemory, "BUDGET", 1024**2)
    with pytest.raises(GoldcaseError) as caught:
        refuse_costly(b"{}\n" * 100_000, "big.jsonl", "split it")
    assert caught.value.message == (
        "big.jsonl: decoding its 300,000 bytes of JSON could take about 33 MiB of memory (its "
        "braces, brackets, commas and colons each become an object), more than the 1 MiB "
        "goldcase allows; split it"
    )


def test_a_large_file_of_long_strings_is_within_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonmemory, "BUDGET", 1024**2)
    refuse_costly(b'["' + b"a" * 200_000 + b'"]\n', "long.jsonl", "split it")


def test_decoded_text_is_encoded_again_only_when_its_bytes_could_reach_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """refuse_costly_text: ASCII text is one byte a character, any other at most four; text
    whose bytes cannot reach the budget is passed without being encoded and counted."""
    monkeypatch.setattr(jsonmemory, "BUDGET", 64 * 1024)  # 1,024 bytes at the worst expansion
    seen: list[int] = []
    monkeypatch.setattr(jsonmemory, "refuse_costly", lambda raw, *_: seen.append(len(raw)))
    jsonmemory.refuse_costly_text("{}," * 341, "golden.lock", "")  # 1,023 ASCII bytes
    jsonmemory.refuse_costly_text("é" * 256, "golden.lock", "")  # 512 bytes, 1,024 at worst
    assert seen == []
    jsonmemory.refuse_costly_text("{}," * 342, "golden.lock", "")  # 1,026 bytes: counted
    jsonmemory.refuse_costly_text("é" * 257, "golden.lock", "")  # may be 1,028: counted
    assert seen == [1026, 514]
