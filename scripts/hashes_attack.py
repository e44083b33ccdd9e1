#!/usr/bin/env python3
"""The word-recovery attack on a hashes file, and the n-gram floor that defeats it.

Someone holding ``golden.hashes`` (salt included) and the corpus tries to read the golden
questions back:

1. **Corpus n-grams.** Hash every word n-gram of the corpus with the file's salt; a match is
   an n-gram of a golden question, known word for word.
2. **Vocabulary n-grams.** Hash every n-gram over the corpus's vocabulary V: V**n hashes
   (run here while under ``--budget``; beyond it, only the cost is printed).
3. **Chaining.** A question's n-grams are listed in order and overlap by n - 1 words, so one
   known n-gram gives the next with V guesses (try every word after its last n - 1), and the
   one before likewise: a single foothold unrolls the whole question.

For each n the script prints the share of the golden questions' words recovered in order.

    .venv/bin/python scripts/hashes_attack.py            # the sample set, n = 1..13
    .venv/bin/python scripts/hashes_attack.py --repo DIR --max-n 8
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.leakage.hashes import Hashes, build, new_salt
from goldcase.text import normalise_input

ROOT = Path(__file__).resolve().parent.parent


def corpus_words(root: Path) -> list[list[str]]:
    """The corpus as lines of normalised words (what the attacker holds)."""
    out = []
    for path in sorted((root / "corpus").rglob("*")):
        if path.is_file():
            for line in re.split(r"[\n.]", path.read_text(encoding="utf-8", errors="replace")):
                words = normalise_input(line).split()
                if words:
                    out.append(words)
    return out


def recovered(hashes: Hashes, lines: list[list[str]], budget: int) -> tuple[int, int, str]:
    """(words recovered, words in questions with n-grams, how the first foothold was got)."""
    n = hashes.ngram
    vocab = sorted({w for line in lines for w in line})
    targets = {g for q in hashes.questions for g in q.ngrams}
    known: dict[str, tuple[str, ...]] = {}
    for line in lines:
        for i in range(len(line) - n + 1):
            gram = tuple(line[i : i + n])
            h = hashes.gram(gram)
            if h in targets:
                known[h] = gram
    how = "corpus n-grams"
    if len(vocab) ** n <= budget:
        how = f"all {len(vocab)}**{n} vocabulary n-grams"
        for gram in _product(vocab, n):
            h = hashes.gram(gram)
            if h in targets:
                known[h] = gram
    got = total = 0
    for q in hashes.questions:
        if not q.ngrams:
            continue
        total += q.words
        got += _unroll(hashes, list(q.ngrams), known, vocab)
    return got, total, how


def _product(vocab: list[str], n: int) -> list[tuple[str, ...]]:
    grams: list[tuple[str, ...]] = [()]
    for _ in range(n):
        grams = [(*g, w) for g in grams for w in vocab]
    return grams


def _unroll(
    hashes: Hashes, grams: list[str], known: dict[str, tuple[str, ...]], vocab: list[str]
) -> int:
    """Words of one question recovered: every position covered by a known n-gram, after
    extending each known n-gram forwards and backwards with V guesses a step."""
    words: dict[int, str] = {}
    found = [known.get(g) for g in grams]
    for _ in range(2):  # forwards, then backwards
        for i in range(len(grams)):
            if found[i] is None and i > 0 and found[i - 1] is not None:
                found[i] = _step(hashes, found[i - 1][1:], grams[i], vocab, after=True)
        for i in reversed(range(len(grams))):
            if found[i] is None and i + 1 < len(grams) and found[i + 1] is not None:
                found[i] = _step(hashes, found[i + 1][:-1], grams[i], vocab, after=False)
    for i, gram in enumerate(found):
        if gram is not None:
            words.update((i + k, w) for k, w in enumerate(gram))
    return len(words)


def _step(
    hashes: Hashes, keep: tuple[str, ...], target: str, vocab: list[str], *, after: bool
) -> tuple[str, ...] | None:
    for w in vocab:
        gram = (*keep, w) if after else (w, *keep)
        if hashes.gram(gram) == target:
            return gram
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--max-n", type=int, default=13)
    parser.add_argument("--budget", type=int, default=3_000_000, help="vocabulary hashes to try")
    args = parser.parse_args()
    case_set = load_case_set(Context(load_config(args.repo), Cache(None)))
    lines = corpus_words(args.repo)
    vocab = {w for line in lines for w in line}
    print(f"{len(case_set.golden)} golden questions; corpus vocabulary {len(vocab):,} words")
    salt = new_salt()
    for n in range(1, args.max_n + 1):
        hashes = build(case_set.golden, n, salt)
        got, total, how = recovered(hashes, lines, args.budget)
        cost = f"{len(vocab) ** n:.1e}"
        print(
            f"n={n:2d}: {got}/{total} words recovered ({got / max(total, 1):.0%}); "
            f"foothold from {how}; vocabulary n-grams would cost {cost} hashes"
        )


if __name__ == "__main__":
    main()
