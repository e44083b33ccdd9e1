"""How the near-duplicate defaults were chosen (docs/leakage.md): confirmed pair counts for a
grid of thresholds and shingle sizes on public QA sets, and a seeded sample of the pairs at a
setting, printed for a person to label.

    .venv/bin/python scripts/leakage_defaults.py grid
    .venv/bin/python scripts/leakage_defaults.py sample --threshold 0.7 --shingle 1

Reads the public QA sets from the folder named by $GOLDCASE_PUBLIC_DATA (squad2-dev-cs224n/,
xquad-en/, covid-qa/: SQuAD 2.0 dev half, XQuAD English, COVID-QA) and the sample set's cases/.
Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from goldcase.cache import Cache
from goldcase.leakage.neardup import NearConfig, near_pairs
from goldcase.text import normalise_input

REPO = Path(__file__).resolve().parent.parent
REALDATA = Path(os.environ.get("GOLDCASE_PUBLIC_DATA", "public-data"))


@dataclass(frozen=True)
class Item:
    question: str
    source: str  # the paragraph (or paper) the question was written on
    impossible: bool


def squad(path: Path) -> list[Item]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        Item(qa["question"], p["context"][:80], bool(qa.get("is_impossible", False)))
        for art in data["data"]
        for p in art["paragraphs"]
        for qa in p["qas"]
    ]


def pairs(golden: list[Item], other: list[Item], cfg: NearConfig) -> Iterator[tuple]:
    """(score, golden item, other item): golden against other, or golden against golden
    when ``other`` is empty; exact duplicates (same normalised text) are left out."""
    owners: dict[str, list[tuple[bool, Item]]] = {}
    for flag, items in ((True, golden), (False, other)):
        for item in items:
            owners.setdefault(normalise_input(item.question), []).append((flag, item))
    texts = sorted(owners)
    focus = [any(flag for flag, _ in owners[t]) for t in texts]
    for i, j, score in near_pairs(texts, focus, cfg, Cache(None)):
        gi = [it for flag, it in owners[texts[i]] if flag]
        gj = [it for flag, it in owners[texts[j]] if flag]
        oi = [it for flag, it in owners[texts[i]] if not flag or not other]
        oj = [it for flag, it in owners[texts[j]] if not flag or not other]
        if gi and oj:
            yield score, gi[0], oj[0]
        elif gj and oi:
            yield score, gj[0], oi[0]


def datasets() -> dict[str, tuple[list[Item], list[Item]]]:
    xquad = squad(REALDATA / "xquad-en" / "xquad.en.json")
    squad2 = squad(REALDATA / "squad2-dev-cs224n" / "dev-v2.0.json")
    covid = squad(REALDATA / "covid-qa" / "200423_covidQA.json")
    return {"xquad-vs-squad2": (xquad, squad2), "covid-golden": (covid, [])}


def grid() -> None:
    sets = datasets()
    print("set                shingle threshold pairs same-source")
    for name, (golden, other) in sets.items():
        for shingle in (1, 2, 3):
            for threshold in (0.5, 0.6, 0.7, 0.8, 0.9):
                found = list(pairs(golden, other, NearConfig(threshold, 128, shingle)))
                same = sum(1 for _, a, b in found if a.source == b.source)
                print(f"{name:18} {shingle:7} {threshold:9} {len(found):5} {same:11}")


def sample(threshold: float, shingle: int, size: int) -> None:
    rng = random.Random(20261130)
    for name, (golden, other) in datasets().items():
        found = sorted(
            pairs(golden, other, NearConfig(threshold, 128, shingle)),
            key=lambda p: (p[1].question, p[2].question),
        )
        cross = [p for p in found if p[1].source != p[2].source]
        same = [p for p in found if p[1].source == p[2].source]
        print(f"== {name}: {len(found)} pairs, {len(same)} on the same source")
        for score, a, b in cross + rng.sample(same, min(size, len(same))):
            where = "same" if a.source == b.source else "other"
            flag = " (unanswerable)" if b.impossible else ""
            print(f"{score:.2f} {where:5} | {a.question} || {b.question}{flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("grid", "sample"))
    parser.add_argument("--threshold", type=float, default=0.7)
    parser.add_argument("--shingle", type=int, default=1)
    parser.add_argument("--size", type=int, default=25)
    args = parser.parse_args()
    if not REALDATA.is_dir():
        raise SystemExit(
            f"error: {REALDATA} is absent; set GOLDCASE_PUBLIC_DATA to the public sets' folder"
        )
    if args.what == "grid":
        grid()
    else:
        sample(args.threshold, args.shingle, args.size)


if __name__ == "__main__":
    main()
