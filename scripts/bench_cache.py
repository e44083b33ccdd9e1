#!/usr/bin/env python3
"""The case cache's load time: goldcase's MessagePack namespace file against the pickle it
replaced, on 10,000 and 100,000 entries built from a real 10,000-case cache.

    .venv/bin/python scripts/bench.py check        # makes bench-data/check-10000 and its cache
    .venv/bin/python scripts/bench_cache.py

"msgpack" is ``goldcase.cache.decode`` (CRC-32 check and msgspec decode, the collector paused);
"pickle" is ``pickle.loads`` of the same entries in the old tuple shape, as the old cache
loaded them (collector running), and with the collector paused for comparison.
"""

from __future__ import annotations

import gc
import pickle
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from goldcase.cache import code_salt, decode, encode, location

ROOT = Path(__file__).resolve().parent.parent


def scaled(table: dict[str, Any], n: int) -> dict[str, Any]:
    """``n`` distinct entries made from the real ones (ids and questions made unique)."""
    keys = list(table)
    out = {}
    for i in range(n):
        _, split, data, findings, _ = table[keys[i % len(keys)]]
        data = dict(data, id=f"x{i:06d}", question=f"{data['question']} {i}")
        out[f"cases/golden/x{i:06d}.yaml"] = [f"{i:032x}", split, data, findings, f"{i:064x}"]
    return out


def median(run: Callable[[], object], times: int = 5) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def paused(run: Callable[[], object]) -> Callable[[], object]:
    def inner() -> object:
        gc.disable()
        try:
            return run()
        finally:
            gc.enable()

    return inner


def main() -> int:
    repo = ROOT / "bench-data" / "check-10000"
    base = location(repo)
    source = None if base is None else base / code_salt() / "files.msgpack"
    if source is None or not source.is_file():
        print("run scripts/bench.py check first (it makes bench-data/check-10000)")
        return 2
    table = decode(source.read_bytes())
    for n in (10_000, 100_000):
        print(compare(scaled(table, n)))
    return 0


def compare(entries: dict[str, Any]) -> str:
    packed = encode(entries) or b""
    old = {k: ("0" * 16, *v) for k, v in entries.items()}  # the old entry: salt first
    pickled = pickle.dumps(old, protocol=pickle.HIGHEST_PROTOCOL)
    ours = median(lambda: decode(packed))
    theirs = median(lambda: pickle.loads(pickled))
    theirs_paused = median(paused(lambda: pickle.loads(pickled)))
    return (
        f"{len(entries):,} entries: msgpack {len(packed) / 1e6:.1f} MB, load {ours:.3f} s; "
        f"pickle {len(pickled) / 1e6:.1f} MB, load {theirs:.3f} s "
        f"(collector paused: {theirs_paused:.3f} s)"
    )


if __name__ == "__main__":
    sys.exit(main())
