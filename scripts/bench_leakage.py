"""Leakage and contamination timings (called by scripts/bench.py, or run alone).

- ``leakage_warm``: the leakage check on 10,000 golden cases against 50,000 few-shot lines
  (a JSONL prompt file), warm (second run, cache filled): budget 1.5 s.
- ``contamination_mbps``: ``goldcase contamination``'s scanning core on one core, MB/s, over a
  generated plain-text file and a generated JSONL file.

Inputs are generated (seeded) in a temporary folder, never in the repository. Questions are
drawn from a vocabulary of real words with a Zipf-like spread, so near-duplicate buckets and
Aho-Corasick matches behave as they would on real text; some copies and one-word edits of
golden questions are planted so every path does real work.

    .venv/bin/python scripts/bench_leakage.py [--golden 10000] [--fewshot 50000] [--mb 50]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def _vocabulary() -> list[str]:
    """Every word of the sample corpus, repeats kept: drawing from it follows real word
    frequencies (a Zipf-like spread)."""
    words: list[str] = []
    for doc in sorted((REPO / "corpus").glob("*.md")):
        words.extend(w.strip(".,;:()*#|'`") for w in doc.read_text("utf-8").split())
    return [w for w in words if w.isalpha()] or ["what", "is", "the", "refund", "window"]


WORDS = _vocabulary()


def _question(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "?"


def make_leakage_repo(root: Path, golden: int, fewshot: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    (root / "cases" / "golden").mkdir(parents=True)
    (root / "cases" / "dev").mkdir(parents=True)
    (root / "prompts").mkdir()
    (root / "goldcase.toml").write_text("", encoding="utf-8")
    questions = [_question(rng) for _ in range(golden)]
    for i, q in enumerate(questions):
        text = f"id: g{i:05d}\nquestion: {json.dumps(q)}\nanswerable: false\n"
        (root / "cases" / "golden" / f"g{i:05d}.yaml").write_text(text, encoding="utf-8")
    lines = []
    for i in range(fewshot):
        if i % 1000 == 0:  # a planted copy
            q = questions[rng.randrange(golden)].upper()
        elif i % 1000 == 500:  # a planted one-word edit
            words = questions[rng.randrange(golden)].split()
            words[rng.randrange(len(words))] = rng.choice(WORDS)
            q = " ".join(words)
        else:
            q = _question(rng)
        lines.append(json.dumps({"input": q, "output": "See the policy."}))
    (root / "prompts" / "fewshot.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def leakage_warm(golden: int = 10_000, fewshot: int = 50_000, runs: int = 3) -> dict[str, Any]:
    """Seconds for the leakage family (loading the set included), on a generated repository:
    cold (no cache), warm (nothing changed; best of ``runs``) and after one golden question
    was reworded (the findings, the exact and inside checks and the near-duplicate pairs are
    recomputed; signatures and prompt parses come from the cache)."""
    from goldcase.cache import Cache
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.engine import run_checks

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_leakage_repo(root, golden, fewshot)
        config = load_config(root)

        def once() -> tuple[float, int]:
            began = time.perf_counter()
            run = run_checks(Context(config, Cache.for_repository(config.root)), ["leakage"])
            return time.perf_counter() - began, len(run.findings)

        cold, findings = once()
        warm = min(once()[0] for _ in range(runs))
        changed = []
        target = root / "cases" / "golden" / "g00000.yaml"
        for n in range(runs):
            target.write_text(
                f'id: g00000\nquestion: "A reworded question number {n}"\nanswerable: false\n',
                encoding="utf-8",
            )
            changed.append(once()[0])
    return {
        "golden": golden,
        "fewshot_lines": fewshot,
        "cold_s": round(cold, 3),
        "warm_s": round(warm, 3),
        "one_changed_s": round(sorted(changed)[len(changed) // 2], 3),
        "findings": findings,
        "budget_warm_s": 1.5,
    }


def bench() -> list[tuple[str, float, str]]:
    """Rows for scripts/bench.py: (measure, value, budget)."""
    warm = leakage_warm()
    speed = contamination_mbps()
    print(json.dumps(warm, indent=1))
    print(json.dumps(speed, indent=1))
    return [
        ("leakage warm, 10k golden vs 50k few-shot (s)", warm["warm_s"], "< 1.5"),
        ("leakage one golden case changed (s)", warm["one_changed_s"], "(reported)"),
        ("contamination plain text, one core (MB/s)", speed["text_mb_per_s"], "(reported)"),
        ("contamination JSONL, one core (MB/s)", speed["jsonl_mb_per_s"], "(reported)"),
        *(
            [("contamination, sample set vs Wikipedia (MB/s)", speed[key], "(reported)")]
            if (key := "wikipedia_sample_set_mb_per_s") in speed
            else []
        ),
    ]


def make_text(path: Path, megabytes: float, plant: list[str], jsonl: bool, seed: int = 11) -> None:
    rng = random.Random(seed)
    target = int(megabytes * 1e6)
    written = 0
    with path.open("w", encoding="utf-8") as fh:
        line_no = 0
        while written < target:
            line_no += 1
            words = [rng.choice(WORDS) for _ in range(rng.randint(8, 40))]
            if plant and line_no % 5000 == 0:
                words[3:3] = plant[(line_no // 5000) % len(plant)].split()
            text = " ".join(words)
            line = json.dumps({"text": text, "meta": {"n": line_no}}) if jsonl else text
            fh.write(line + "\n")
            written += len(line) + 1


def contamination_mbps(megabytes: float = 50, golden: int = 10_000) -> dict[str, Any]:
    """Single-core MB/s of the scanning core.

    - worst case: ``golden`` generated questions against generated text (plain and JSONL)
      drawn from the same vocabulary, so almost no record can be skipped by its anchors;
    - realistic (when $GOLDCASE_PUBLIC_DATA names the public sets' folder): the sample golden set
      against Wikipedia paragraphs (SQuAD 2.0 dev contexts, repeated to ``megabytes``).
    """
    from goldcase.leakage.contamination import GramIndex
    from goldcase.model import Case

    rng = random.Random(3)
    cases = [
        Case(
            f"g{i}.yaml",
            "golden",
            {"id": f"g{i:05d}", "question": _question(rng), "expected_answer": "14 days"},
        )
        for i in range(golden)
    ]
    index = GramIndex.build(cases, 13)
    plant = [c.question for c in cases[:20]]
    out: dict[str, Any] = {"golden": golden, "mb": megabytes}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, jsonl in (("text", False), ("jsonl", True)):
            path = Path(tmp) / f"corpus.{'jsonl' if jsonl else 'txt'}"
            make_text(path, megabytes, plant, jsonl)
            out[f"{kind}_mb_per_s"], out[f"{kind}_hits"] = _scan_speed(index, path)
        wiki = _wikipedia(Path(tmp) / "wiki.txt", megabytes)
        if wiki is not None:
            sample = GramIndex.build(_sample_golden(), 13)
            out["wikipedia_sample_set_mb_per_s"], _ = _scan_speed(sample, wiki)
    return out


def _scan_speed(index: Any, path: Path) -> tuple[float, int]:
    from goldcase.leakage.contamination import scan_file

    began = time.perf_counter()
    hits = scan_file(index, path)
    return round(path.stat().st_size / 1e6 / (time.perf_counter() - began), 1), len(hits)


def _wikipedia(path: Path, megabytes: float) -> Path | None:
    folder = Path(os.environ.get("GOLDCASE_PUBLIC_DATA", "public-data"))
    source = folder / "squad2-dev-cs224n" / "dev-v2.0.json"
    if not source.is_file():
        return None
    data = json.loads(source.read_text(encoding="utf-8"))
    paragraphs = [p["context"].replace("\n", " ") for a in data["data"] for p in a["paragraphs"]]
    written = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < megabytes * 1e6:
            for paragraph in paragraphs:
                fh.write(paragraph + "\n")
                written += len(paragraph.encode()) + 1
    return path


def _sample_golden() -> list[Any]:
    from goldcase.cache import Cache
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.engine import load_case_set

    return load_case_set(Context(load_config(REPO), Cache(None))).golden


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=int, default=10_000)
    parser.add_argument("--fewshot", type=int, default=50_000)
    parser.add_argument("--mb", type=float, default=50)
    args = parser.parse_args()
    print(json.dumps(leakage_warm(args.golden, args.fewshot), indent=1))
    print(json.dumps(contamination_mbps(args.mb, args.golden), indent=1))


if __name__ == "__main__":
    main()
