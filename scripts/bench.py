#!/usr/bin/env python3
"""Benchmarks for the budgets in DESIGN.md, measured in one run on this machine.

    python scripts/bench.py                # check (10,000 cases) and --help
    python scripts/bench.py check --cases 2000
    python scripts/bench.py help
    python scripts/bench.py contamination --size-gb 2   # see scripts/bench_contamination.py

`check` generates a synthetic set of N cases over a generated corpus (under bench-data/, kept
out of git), then times `goldcase check` cold (no cache), warm (nothing changed) and with one
case changed, and check-jsonschema (schema validation only) on the same files, and prints the
ratios against the budgets. Timings are wall-clock medians of a few runs.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
_VOCABULARY = (
    "order delivery parcel refund credit return window days customer invoice account "
    "warranty repair replacement voucher points tier express standard business within "
    "after before request policy item product sale custom printed damaged depot fee "
    "surcharge islands trade discount volume quarter payment terms card dispatch receipt"
)
WORDS = _VOCABULARY.split()

Budget = tuple[str, float, str]  # (name, seconds, limit description)


def _sentence(rng: random.Random, serial: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return f"Clause {serial} says the {' '.join(words)} applies."


def generate(folder: Path, cases: int, docs: int = 50, seed: int = 7) -> Path:
    """A golden-set repository with `cases` valid cases quoting `docs` generated documents."""
    if folder.exists():
        shutil.rmtree(folder)
    rng = random.Random(seed)
    (folder / "corpus").mkdir(parents=True)
    (folder / "cases" / "golden").mkdir(parents=True)
    (folder / "goldcase.toml").write_text("")
    sentences: list[tuple[str, str]] = []
    per_doc = max(1, cases // docs + 1)
    for d in range(docs):
        name = f"doc-{d:03d}.md"
        lines = [f"# Document {d}", ""]
        for _ in range(per_doc):
            text = _sentence(rng, len(sentences))
            sentences.append((name, text))
            lines.append(text)
        (folder / "corpus" / name).write_text("\n".join(lines) + "\n")
    for i in range(cases):
        doc, quote = sentences[i]
        case_id = f"c-{i:06d}"
        (folder / "cases" / "golden" / f"{case_id}.yaml").write_text(
            f"id: {case_id}\n"
            f"question: what does clause {i} of {doc} say about {rng.choice(WORDS)}\n"
            f"expected_answer: clause {i}\nsupport:\n  - doc: {doc}\n    quote: {quote}\n"
            f"slice: s{i % 8}\ntags: [policy]\nsource: hand-written\n"
        )
    return folder


def timed(cmd: list[str], cwd: Path, runs: int = 1, ok: tuple[int, ...] = (0,)) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        samples.append(time.perf_counter() - started)
        if proc.returncode not in ok:
            raise SystemExit(
                f"{' '.join(cmd[:3])} … exited {proc.returncode}:\n"
                f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
            )
    return statistics.median(samples)


def bench_check(cases: int) -> list[Budget]:
    repo = generate(ROOT / "bench-data" / f"check-{cases}", cases)
    goldcase = [str(BIN / "goldcase"), "check"]
    files = sorted(str(p.relative_to(repo)) for p in (repo / "cases" / "golden").glob("*.yaml"))
    schema = str(ROOT / "schema" / "case.schema.json")
    cjs = timed([str(BIN / "check-jsonschema"), "--schemafile", schema, *files], repo)
    shutil.rmtree(repo / ".goldcase-cache", ignore_errors=True)
    cold = timed(goldcase, repo)
    warm = timed(goldcase, repo, runs=3)
    target = repo / "cases" / "golden" / "c-000000.yaml"
    original = target.read_text()
    changed = []
    for n in range(3):
        target.write_text(original.replace("tags: [policy]", f"tags: [policy, t{n}]"))
        changed.append(timed(goldcase, repo))
    target.write_text(original)
    one = statistics.median(changed)
    print(f"check-jsonschema on {cases:,} files: {cjs:.2f} s")
    print(f"goldcase check cold: {cold:.2f} s = {cold / cjs:.3f} x check-jsonschema (budget 0.2 x)")
    print(f"goldcase check warm: {warm:.3f} s (budget 0.5 s)")
    print(f"goldcase check, one case changed: {one:.3f} s (budget 0.7 s)")
    return [
        ("check cold / check-jsonschema", cold / cjs, "<= 0.2"),
        ("check warm (s)", warm, "< 0.5"),
        ("check one changed (s)", one, "< 0.7"),
    ]


def bench_help() -> list[Budget]:
    seconds = timed([str(BIN / "goldcase"), "--help"], ROOT, runs=5)
    print(f"goldcase --help: {seconds:.3f} s (budget 0.15 s)")
    return [("--help (s)", seconds, "< 0.15")]


BENCHES: dict[str, Callable[[argparse.Namespace], list[Budget]]] = {
    "check": lambda a: bench_check(a.cases),
    "help": lambda a: bench_help(),
    "contamination": lambda a: __import__("bench_contamination").bench(a.size_gb),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", default=["check", "help"], choices=[*BENCHES, []])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--size-gb", type=float, default=2.0, help="contamination corpus size")
    args = parser.parse_args()
    rows: list[Budget] = []
    for name in args.which or ["check", "help"]:
        print(f"== {name}")
        rows.extend(BENCHES[name](args))
    print("\n| measure | value | budget |\n|---|---|---|")
    for name, value, budget in rows:
        print(f"| {name} | {value:.3f} | {budget} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
