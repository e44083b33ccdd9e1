"""Contamination scan throughput by engine, and its cost against the golden set's size
(called by ``scripts/bench.py contamination``, or run alone).

- MB/s of the local engine on 1 and 2 worker processes and of the Dask engine with 2
  single-threaded worker processes (a ``LocalCluster`` started beforehand, as a real cluster
  would be), on a generated plain-text corpus of ``--size-gb`` GB under bench-data/ (git-
  ignored; kept between runs), against 1,000 generated golden cases. The three reports
  must be equal.
- For 1k, 10k and 100k generated golden cases: the index build time, its pickled size (what
  is broadcast to each worker) and the local engine's MB/s on 2 processes over a slice of
  the corpus (0.1 GB, or less with a smaller ``--size-gb``).

The corpus is a 32 MB block of lines drawn from the sample corpus's vocabulary (a Zipf-like
spread), golden questions planted every 5,000 lines, repeated up to the size asked.

- With ``--janitor-module``: one process of goldcase against lm-evaluation-harness's C++
  janitor on the same text (the generated corpus, and Wikipedia paragraphs when
  $GOLDCASE_PUBLIC_DATA holds SQuAD 2.0's dev set), MB/s and planted questions found.

    .venv/bin/python scripts/bench_contamination.py [--size-gb 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

from bench_leakage import WORDS, make_text
from goldcase.leakage.contamination import GramIndex, Report
from goldcase.leakage.scan.run import ScanOptions, scan
from goldcase.model import Case

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data" / "contamination"
BLOCK_MB = 32
GOLDEN_SIZES = (1_000, 10_000, 100_000)
ENGINE_GOLDEN = 1_000  # cases for the engine comparison
SLICE_GB = 0.1  # corpus for the golden-size comparison
Row = tuple[str, float, str]


def golden(count: int, seed: int = 3) -> list[Case]:
    """``count`` cases with 6-24-word questions (most over 13 words: real n-gram work)."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 24))]
        question = " ".join(words).capitalize() + "?"
        fields = {"id": f"g{i:06d}", "question": question, "expected_answer": f"{i} days"}
        cases.append(Case(f"g{i:06d}.yaml", "golden", fields))
    return cases


def corpus(gigabytes: float, plant: list[str]) -> Path:
    """A plain-text file of about ``gigabytes`` GB, made once and kept under bench-data/."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"corpus-{gigabytes:g}gb.txt"
    target = int(gigabytes * 1e9)
    if path.exists() and path.stat().st_size >= target:
        return path
    block = DATA / "block.txt"
    make_text(block, BLOCK_MB, plant, jsonl=False)
    data = block.read_bytes()
    with path.open("wb") as fh:
        while fh.tell() < target:
            fh.write(data[: target - fh.tell()] if target - fh.tell() < len(data) else data)
    return path


def _mbps(index: GramIndex, path: Path, options: ScanOptions) -> tuple[float, Report]:
    began = time.perf_counter()
    report = scan(index, [path], options)
    return path.stat().st_size / 1e6 / (time.perf_counter() - began), report


def engines(size_gb: float) -> list[Row]:
    cases = golden(ENGINE_GOLDEN)
    index = GramIndex.build(cases, 13)
    path = corpus(size_gb, [c.question for c in cases[:20]])
    print(f"corpus {path.relative_to(ROOT)}: {path.stat().st_size / 1e9:.2f} GB")
    one, reference = _mbps(index, path, ScanOptions(workers=1))
    two, report = _mbps(index, path, ScanOptions(workers=2))
    assert report == reference, "2 processes disagree with 1"
    dask, started = _dask_mbps(index, path, reference)
    rows = [
        ("local engine, 1 process (MB/s)", one, "(reported)"),
        ("local engine, 2 processes (MB/s)", two, "(reported)"),
        ("dask engine, 2 workers (MB/s)", dask, "(reported)"),
        ("dask LocalCluster start (s)", started, "(reported)"),
    ]
    print(f"{len(reference.hits)} hits, {len(reference.contaminated)} cases; reports equal")
    return rows


def _dask_mbps(index: GramIndex, path: Path, reference: Report) -> tuple[float, float]:
    """MB/s on a LocalCluster of 2 worker processes, and the seconds it took to start."""
    from distributed import LocalCluster

    began = time.perf_counter()
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:
        started = time.perf_counter() - began
        options = ScanOptions("dask", cluster.scheduler_address, workers=2)
        mbps, report = _mbps(index, path, options)
    assert report == reference, "the dask engine disagrees with the local one"
    return mbps, started


def golden_sizes(size_gb: float) -> list[Row]:
    rows: list[Row] = []
    for count in GOLDEN_SIZES:
        cases = golden(count)
        began = time.perf_counter()
        index = GramIndex.build(cases, 13)
        built = time.perf_counter() - began
        size = len(pickle.dumps(index)) / 1e6
        path = corpus(min(size_gb, SLICE_GB), [c.question for c in cases[:20]])
        mbps, _ = _mbps(index, path, ScanOptions(workers=2))
        print(f"{count:,} cases: index {built:.2f} s, {size:.1f} MB pickled, {mbps:.1f} MB/s")
        rows += [
            (f"{count:,} cases: index build (s)", built, "(reported)"),
            (f"{count:,} cases: index pickled (MB)", size, "(reported)"),
            (f"{count:,} cases: scan, 2 processes (MB/s)", mbps, "(reported)"),
        ]
    return rows


def janitor(size_gb: float, module: Path | None) -> list[Row]:
    """One process of goldcase's scan against lm-evaluation-harness's janitor (``module``:
    its janitor.py, patched and with the janitor_util it imports built beside it, as
    docs/benchmarks.md says; not part of goldcase) on the same file and golden questions,
    alternating, best of three each: MB/s, the ratio, and how many of the planted questions
    each finds. The generated corpus first (the budget's), then, when $GOLDCASE_PUBLIC_DATA
    holds SQuAD 2.0's dev set, Wikipedia paragraphs: its ASCII ones for both, and all of them
    (a third hold other characters, which the C++ janitor cannot clean) for goldcase alone.
    No rows without ``module``."""
    if module is None:
        print("janitor: no --janitor-module given, row left out")
        return []
    cases = golden(ENGINE_GOLDEN)
    index = GramIndex.build(cases, 13)
    planted = [c.question for c in cases[:20]]
    cleaner = _janitor(module, [c.question for c in cases])
    rows = _versus(index, cleaner, corpus(min(size_gb, SLICE_GB), planted), "generated")
    for ascii_only in (True, False):
        path = wikipedia(min(size_gb, SLICE_GB) / 2, planted, ascii_only)
        if path is not None:
            rows += _versus(index, cleaner if ascii_only else None, path, path.stem)
    return rows


def _versus(index: GramIndex, cleaner: Any, path: Path, name: str) -> list[Row]:
    ours, theirs = [], []
    for _ in range(3):
        ours.append(_mbps(index, path, ScanOptions(workers=1))[0])
        if cleaner is not None:
            theirs.append(_janitor_mbps(cleaner, path))
    found = _mbps(index, path, ScanOptions(workers=1))[1]
    print(f"{name}: goldcase {max(ours):.1f} MB/s, finds {len(found.contaminated)} of 20")
    rows = [(f"{name}: local engine, 1 process (MB/s)", max(ours), "(reported)")]
    if cleaner is not None:
        print(f"{name}: janitor {max(theirs):.1f} MB/s, finds {_janitor_finds(cleaner, found)}")
        rows += [
            (f"{name}: janitor, 1 process (MB/s)", max(theirs), "(reference)"),
            (f"{name}: local engine, 1 process / janitor", max(ours) / max(theirs), ">= 2"),
        ]
    return rows


def wikipedia(gigabytes: float, plant: list[str], ascii_only: bool) -> Path | None:
    """SQuAD 2.0 dev paragraphs (Wikipedia), one a line, repeated to about ``gigabytes`` GB,
    a golden question planted in every 500th; made once under bench-data/. None when
    $GOLDCASE_PUBLIC_DATA (default public-data/) does not hold the set."""
    source = Path(os.environ.get("GOLDCASE_PUBLIC_DATA", "public-data"))
    source = source / "squad2-dev-cs224n" / "dev-v2.0.json"
    if not source.is_file():
        print(f"{source}: not found, the Wikipedia rows are left out")
        return None
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"wikipedia{'-ascii' if ascii_only else ''}-{gigabytes:g}gb.txt"
    if path.exists():
        return path
    data = json.loads(source.read_text(encoding="utf-8"))
    paragraphs = [
        " ".join(p["context"].split()) for article in data["data"] for p in article["paragraphs"]
    ]
    paragraphs = [p for p in paragraphs if p.isascii() or not ascii_only]
    with path.open("w", encoding="utf-8") as fh:
        line = 0
        while fh.tell() < gigabytes * 1e9:
            words = paragraphs[line % len(paragraphs)].split()
            line += 1
            if line % 500 == 0:
                words[3:3] = plant[(line // 500) % len(plant)].split()
            fh.write(" ".join(words) + "\n")
    return path


def _janitor(module: Path, questions: list[str]) -> Any:
    sys.path.insert(0, str(module.resolve().parent))  # its janitor_util
    spec = importlib.util.spec_from_file_location("janitor", module)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{module}: not a Python module")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    cpp = getattr(loaded, "JANITOR_CPP", False)
    if not cpp:
        print("janitor: its C++ janitor_util did not load; timing its Python mode")
    # No window around a dirty n-gram and no shortest piece: a clean line comes back whole
    # (the work is the same), so a line that does not was found dirty.
    cleaner = loaded.Janitor(
        ngram_n=13, too_dirty_cutoff=10**9, window_to_remove=0, minimum_slice_length=0
    )
    for question in questions:  # the *_python forms: the others print a warning each call
        (cleaner.register_contaminant if cpp else cleaner.register_contaminant_python)(question)
    clean = cleaner.clean if cpp else cleaner.clean_python
    # A clean line of 13 words or more comes back whole; as shipped, the C++ janitor takes
    # every n-gram for contamination and cuts it away.
    line = " ".join(f"unrelated{i}" for i in range(30))
    if clean(line) != [line]:
        raise SystemExit(f"{module}: flags a clean line; apply the patch in docs/benchmarks.md")
    return clean


def _janitor_mbps(cleaner: Any, path: Path) -> float:
    """The janitor over the file one line (record) at a time, as goldcase scans it."""
    began = time.perf_counter()
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            cleaner(line)
    return path.stat().st_size / 1e6 / (time.perf_counter() - began)


def _janitor_finds(cleaner: Any, report: Report) -> int:
    """Of the cases goldcase found, how many the janitor finds on the same lines: each
    planted line holds one golden question, and the janitor says only that a line is
    dirty (it cuts the line)."""
    lines = {(hit.path, hit.offset): hit.case for hit in report.hits}
    found = set()
    for (name, offset), case in sorted(lines.items()):
        with Path(name).open("rb") as fh:
            fh.seek(offset)
            line = fh.readline().decode("utf-8", "replace")
        if cleaner(line) != [line]:
            found.add(case)
    return len(found)


def bench(size_gb: float, janitor_module: Path | None = None) -> list[Row]:
    """Every row; the load average before and after says how busy the machine was."""
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (1 min) at the start")
    rows = janitor(size_gb, janitor_module) + engines(size_gb) + golden_sizes(size_gb)
    print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=2.0)
    parser.add_argument("--janitor-module", type=Path, help="lm-evaluation-harness's janitor.py")
    args = parser.parse_args()
    for name, value, _ in bench(args.size_gb, args.janitor_module):
        print(f"| {name} | {value:.3f} |")


if __name__ == "__main__":
    main()
