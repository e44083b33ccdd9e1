#!/usr/bin/env python3
"""Benchmarks for the budgets in docs/benchmarks.md, measured in one run on this machine.

    python scripts/bench.py                # check (10,000 cases) and --help
    python scripts/bench.py check --cases 2000
    python scripts/bench.py help
    python scripts/bench.py score memory leakage contamination
    python scripts/bench.py hooks          # git commit through the hooks; see bench_hooks.py
    python scripts/bench.py contamination --janitor-module PATH/janitor.py
    python scripts/bench.py run            # see scripts/bench_run.py
    python scripts/bench.py families       # each family's CPU, cold; see bench_families.py
    python scripts/bench.py contamination --size-gb 2   # see scripts/bench_contamination.py

`check` generates a synthetic set of N cases over a generated corpus (under bench-data/, kept
out of git), then times `goldcase check` cold (no cache), warm (nothing changed) and with one
case changed, and check-jsonschema (schema validation only) on the same files, and prints the
ratios against the budgets. Timings are wall-clock medians of a few runs.

Every row is printed with its budget and a verdict (``met`` or ``OVER``; rows shown for
reference have none), and the script exits 1 when any budget is over, so "bench.py passes"
means every budget it measured held in this run.
"""

from __future__ import annotations

import argparse
import compileall
import operator
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from goldcase.cache import location

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


_SYLLABLES = [a + b for a in "kmnrstvbdfgh" for b in "aeiou"]


def _question(rng: random.Random) -> str:
    """A question of made-up words from a large vocabulary: no two are near-duplicates, as in a
    real set (a templated question would make every pair a GC303 near-duplicate)."""
    words = ["".join(rng.choice(_SYLLABLES) for _ in range(3)) for _ in range(rng.randint(7, 12))]
    return " ".join(words) + "?"


def _sentence(rng: random.Random, serial: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return f"Clause {serial} says the {' '.join(words)} applies."


def generate(
    folder: Path, cases: int, docs: int = 50, seed: int = 7, *, probes: bool = True
) -> Path:
    """A golden-set repository of `cases` valid case files (one in ten a dev case) quoting
    `docs` generated documents, and a prompts/ folder whose few-shot examples are dev
    questions (as a real set's are).

    With `probes` (the default), each answerable case carries an `expect` block and a pass
    and a fail probe, as a case `goldcase new` writes and its author completes does: the set
    checks clean. Without, no case has them (GC603, and GC604 for a question whose made-up
    words are not in the corpus): about two findings a case, so the cost of placing findings
    shows."""
    if folder.exists():
        shutil.rmtree(folder)
    rng = random.Random(seed)
    for sub in ("corpus", "cases/golden", "cases/dev", "prompts"):
        (folder / sub).mkdir(parents=True)
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
    dev = cases // 10
    examples = []
    for i in range(cases):
        doc, quote = sentences[i]
        split, case_id = ("dev", f"d-{i:06d}") if i < dev else ("golden", f"c-{i:06d}")
        question = _question(rng)
        if split == "dev" and len(examples) < 20:
            examples.append(f"- question: {question}\n  answer: clause {i}\n")
        body = _answerable(i, doc, quote, probes) if i % 4 != 3 else _unanswerable(i)
        (folder / "cases" / split / f"{case_id}.yaml").write_text(
            f"id: {case_id}\nquestion: {question}\n{body}slice: s{i % 7}\nsource: hand-written\n"
        )
    (folder / "prompts" / "system.md").write_text(
        "You answer customers' questions from the policy documents only.\n"
        "Quote the clause you rely on; when no document answers, say so.\n"
    )
    (folder / "prompts" / "fewshot.yaml").write_text("".join(examples))
    return folder


def _answerable(i: int, doc: str, quote: str, probes: bool) -> str:
    checks = (
        f'expect:\n  contains: ["clause {i}"]\n'
        f'probes:\n  pass: ["It is clause {i}."]\n  fail: ["clause {i + 1}"]\n'
        if probes
        else ""
    )
    support = f"support:\n  - doc: {doc}\n    quote: {quote}\n"
    return f"expected_answer: clause {i}\n{support}{checks}tags: [policy]\n"


def _unanswerable(i: int) -> str:
    """A quarter of the set, half of them false premises (as GC503 and GC504 ask)."""
    return "answerable: false\ntags: [false_premise]\n" if i % 8 == 7 else "answerable: false\n"


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
    cache = location(repo)  # the user cache folder, keyed by the repository's path
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    cold = timed(goldcase, repo)
    warm = timed(goldcase, repo, runs=3)
    target = repo / "cases" / "golden" / f"c-{cases // 10:06d}.yaml"  # the first golden case
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


def compile_package() -> None:
    """Byte-compile goldcase first, as installing a wheel does: where PYTHONDONTWRITEBYTECODE
    is set (as on this machine), a source checkout would otherwise compile its changed
    modules on every run (0.06 s a run), which no installed copy does."""
    compileall.compile_dir(str(ROOT / "src" / "goldcase"), quiet=1)


def bench_help() -> list[Budget]:
    seconds = timed([str(BIN / "goldcase"), "--help"], ROOT, runs=5)
    print(f"goldcase --help: {seconds:.3f} s (budget 0.15 s)")
    return [("--help (s)", seconds, "< 0.15")]


def bench_score(cases: int, trials: int) -> list[Budget]:
    from bench_score import bench_score as run

    return run(ROOT / "bench-data", cases, trials)


def bench_memory(cases: int) -> list[Budget]:
    """Peak resident memory of `goldcase check` (warm) and `goldcase score` on a large set."""
    from bench_score import generate

    folder = generate(ROOT / "bench-data" / "memory", cases, 1)
    rows: list[Budget] = []
    for name, args in (
        ("check", ["check", "--select", "schema"]),
        ("score", ["score", "results.jsonl"]),
    ):
        subprocess.run([str(BIN / "goldcase"), *args], cwd=folder, capture_output=True)
        peak = _peak_rss_mb([str(BIN / "goldcase"), *args], folder)
        print(f"goldcase {name} on {cases:,} cases: peak {peak:.0f} MB (budget 400 MB)")
        rows.append((f"{name} peak memory, {cases:,} cases (MB)", peak, "< 400"))
    return rows


def _peak_rss_mb(cmd: list[str], cwd: Path) -> float:
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *cmd], cwd=cwd, capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip()) / 1024


_COMPARISONS = (("<=", operator.le), (">=", operator.ge), ("<", operator.lt), (">", operator.gt))


def verdict(value: float, budget: str) -> bool | None:
    """Whether ``value`` meets ``budget``: "< X", "<= X", ">= X" or "> X" (a unit such as
    " s" may follow X), or a bare number the value must equal (a count, such as commit
    attempts). None for a row shown for reference: a budget in parentheses, or one that
    starts with "reference"."""
    text = budget.strip()
    if text.startswith(("(", "reference")):
        return None
    try:
        for symbol, compare in _COMPARISONS:
            if text.startswith(symbol):
                return bool(compare(value, float(text[len(symbol) :].split()[0])))
        return value == float(text.split()[0])
    except (ValueError, IndexError):
        raise ValueError(
            f"budget {budget!r}: write it as '< X', '<= X', '>= X', '> X', a number, or "
            "'(reference)'"
        ) from None


def print_table(rows: list[Budget]) -> int:
    """The rows as a Markdown table with a verdict column, then the budgets over; the exit
    status: 1 when any budget is over, else 0."""
    print("\n| measure | value | budget | verdict |\n|---|---|---|---|")
    over = []
    for name, value, budget in rows:
        met = verdict(value, budget)
        print(f"| {name} | {value:.3f} | {budget} | {_VERDICTS[met]} |")
        if met is False:
            over.append(name)
    budgets = sum(verdict(value, budget) is not None for _, value, budget in rows)
    if over:
        print(f"\n{len(over)} of {budgets} budgets OVER: {'; '.join(over)}")
        return 1
    print(f"\nall {budgets} budgets met")
    return 0


_VERDICTS = {True: "met", False: "OVER", None: ""}


BENCHES: dict[str, Callable[[argparse.Namespace], list[Budget]]] = {
    "check": lambda a: bench_check(a.cases),
    "help": lambda a: bench_help(),
    "score": lambda a: bench_score(10_000, 10) + bench_score(100_000, 1),
    "memory": lambda a: bench_memory(100_000),
    "leakage": lambda a: __import__("bench_leakage").bench(),
    "contamination": lambda a: __import__("bench_contamination").bench(a.size_gb, a.janitor_module),
    "hooks": lambda a: __import__("bench_hooks").bench(a.cases, a.rounds),
    "run": lambda a: __import__("bench_run").bench(),
    "families": lambda a: __import__("bench_families").bench(
        generate(ROOT / "bench-data" / f"check-{a.cases}", a.cases), a.rounds
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", default=["check", "help"], choices=[*BENCHES, []])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--size-gb", type=float, default=2.0, help="contamination corpus size")
    parser.add_argument(
        "--rounds", type=int, default=5, help="hooks: commits of each kind; families: cold runs"
    )
    parser.add_argument(
        "--janitor-module",
        type=Path,
        help="contamination: lm-evaluation-harness's janitor.py, patched, its janitor_util "
        "built beside it (docs/benchmarks.md) to compare with; the rows are left out without it",
    )
    args = parser.parse_args()
    compile_package()
    rows: list[Budget] = []
    for name in args.which or ["check", "help"]:
        print(f"== {name}")
        found = BENCHES[name](args)
        for _, value, budget in found:  # a budget of no known form stops the run here
            verdict(value, budget)
        rows.extend(found)
    return print_table(rows)


if __name__ == "__main__":
    raise SystemExit(main())
