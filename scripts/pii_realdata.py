#!/usr/bin/env python3
"""Run goldcase's personal-data detectors over public QA text and print every hit in context.

    python scripts/pii_realdata.py                 # SQuAD 2.0 dev and COVID-QA
    python scripts/pii_realdata.py --cases cases   # the case files of a golden-set repository

The public sets are read from the folder $GOLDCASE_PUBLIC_DATA names (squad2-dev-cs224n/,
covid-qa/).

The figures in docs/personal-data.md come from this script: each hit is printed with 40
characters either side so that a person can judge it.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from goldcase.privacy import pii

ROOT = Path(__file__).resolve().parent.parent
REALDATA = Path(os.environ.get("GOLDCASE_PUBLIC_DATA", "public-data"))  # the public sets' folder
SETS = {
    "squad2-dev": REALDATA / "squad2-dev-cs224n" / "dev-v2.0.json",
    "covid-qa": REALDATA / "covid-qa" / "200423_covidQA.json",
}


def squad_texts(path: Path) -> Iterator[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            yield "context", paragraph["context"]
            for qa in paragraph["qas"]:
                yield "question", qa["question"]


def case_texts(folder: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(folder.rglob("*.y*ml")):
        yield "case file", path.read_text(encoding="utf-8")


def scan(name: str, texts: Iterator[tuple[str, str]]) -> None:
    counts: Counter[str] = Counter()
    hits: Counter[tuple[str, str]] = Counter()
    chars = 0
    started = time.perf_counter()
    shown: list[str] = []
    for kind, text in texts:
        counts[kind] += 1
        chars += len(text)
        for m in pii.find(text) if kind != "case file" else [x.match for x in pii.scan_lines(text)]:
            hits[(kind, m.kind)] += 1
            context = text[max(0, m.start - 40) : m.end + 40].replace("\n", " ")
            shown.append(f"  {kind} {m.kind} {m.value!r}: …{context}…")
    seconds = time.perf_counter() - started
    print(f"{name}: {dict(counts)}, {chars:,} characters, {seconds:.2f} s, hits {dict(hits)}")
    print("\n".join(shown))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, help="scan the case files under this folder")
    args = parser.parse_args()
    if args.cases:
        scan(str(args.cases), case_texts(args.cases))
        return 0
    for name, path in SETS.items():
        if not path.is_file():
            print(f"{name}: {path} is absent; skipped")
            continue
        scan(name, squad_texts(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
