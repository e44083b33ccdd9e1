"""Near-duplicate search: datasketch's banding, no false positives, and the defaults on real
questions (SQuAD 2.0 dev against XQuAD, which is drawn from SQuAD 1.1 dev)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import goldcase.cache
from goldcase.cache import Cache
from goldcase.config import LeakageConfig
from goldcase.leakage import minhash
from goldcase.leakage.minhash import bands, minhash_signatures
from goldcase.leakage.neardup import NearConfig, jaccard, near_pairs, shingles
from goldcase.text import normalise_input
from kit import REALDATA


@pytest.mark.parametrize("threshold", [0.5, 0.6, 0.7, 0.8, 0.9])
@pytest.mark.parametrize("num_perm", [64, 128, 256])
def test_bands_are_datasketchs_choice(threshold: float, num_perm: int) -> None:
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, weights=(0.1, 0.9))
    assert bands(threshold, num_perm) == (lsh.b, lsh.r)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.frozensets(st.text(min_size=1, max_size=12), max_size=12), max_size=8))
def test_signatures_are_datasketchs(sets: list[frozenset[str]]) -> None:
    from datasketch import MinHash

    ours = minhash_signatures(sets, 128)
    for items, row in zip(sets, ours, strict=True):
        theirs = MinHash(num_perm=128)
        theirs.update_batch([item.encode() for item in items])
        assert theirs.hashvalues.tolist() == row.tolist()


def test_signatures_across_blocks_are_datasketchs() -> None:
    """Many sets are hashed a block of shingles at a time: rows on both sides of a block's
    edge, empty sets among them, and one set larger than a block are datasketch's too."""
    from datasketch import MinHash

    sets = [frozenset(f"w{i}-{j}" for j in range(i % 13)) for i in range(900)]
    sets.insert(450, frozenset(f"big{j}" for j in range(6000)))
    ours = minhash_signatures(sets, 64)
    for items, row in zip(sets, ours, strict=True):
        theirs = MinHash(num_perm=64)
        theirs.update_batch([item.encode() for item in items])
        assert theirs.hashvalues.tolist() == row.tolist()


def test_shingles() -> None:
    assert shingles("a b c a", 1) == frozenset({"a", "b", "c"})
    assert shingles("a b c d", 3) == frozenset({"a b c", "b c d"})
    assert shingles("a b", 3) == frozenset({"a b"})
    assert jaccard(shingles("a b c", 1), shingles("a b d", 1)) == 2 / 4


def test_defaults() -> None:
    config = LeakageConfig()
    assert (config.near_threshold, config.shingle, config.num_perm) == (0.7, 1, 128)


WORDS = st.sampled_from(
    [
        "what",
        "when",
        "how",
        "many",
        "days",
        "credit",
        "refund",
        "order",
        "parcel",
        "late",
        "damaged",
    ]
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=3, max_size=9), min_size=2, max_size=30, unique_by=tuple))
def test_every_reported_pair_reaches_the_threshold(questions: list[list[str]]) -> None:
    texts = sorted({" ".join(q) for q in questions})
    focus = [i % 2 == 0 for i in range(len(texts))]
    cfg = NearConfig(0.7, 64, 1)
    for i, j, score in near_pairs(texts, focus, cfg, Cache(None)):
        assert score == jaccard(shingles(texts[i], 1), shingles(texts[j], 1)) >= 0.7
        assert focus[i] or focus[j]


def _questions(path: str) -> list[str]:
    data = json.loads((REALDATA / path).read_text(encoding="utf-8"))
    return [qa["question"] for art in data["data"] for p in art["paragraphs"] for qa in p["qas"]]


@pytest.mark.realdata
def test_real_paraphrases_at_the_default_threshold() -> None:
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is absent")
    golden = {normalise_input(q) for q in _questions("xquad-en/xquad.en.json")}
    dev = {normalise_input(q) for q in _questions("squad2-dev-cs224n/dev-v2.0.json")} - golden
    texts = sorted(golden) + sorted(dev)
    focus = [t in golden for t in texts]
    pairs = {
        (texts[i], texts[j]): s for i, j, s in near_pairs(texts, focus, NearConfig(), Cache(None))
    }
    august = normalise_input("How many companies were listed on the WSE on August 2009?")
    april = normalise_input("How many companies were listed on the WSE on April 2009?")
    assert august in golden and april in dev
    assert pairs[(august, april)] == 9 / 11
    # a merely similar pair (a shared question frame) stays under the threshold: 3 of 5 words
    rhodophyte, isobaric = normalise_input("What does rhodophyte mean?"), "what does isobaric mean"
    assert rhodophyte in golden and isobaric in dev
    assert (rhodophyte, isobaric) not in pairs


def test_a_changed_rule_finds_the_pairs_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cached pairs and band keys live in the cache's folder for the code
    (``cache.code_salt``): an edit that changes the rule (and so the salt) is not answered from
    the cache of the old rule."""
    texts = ["refund within fourteen days of delivery", "refund after thirty days of the order"]
    focus = [True, False]
    cfg = NearConfig(0.7, 128, 1)

    def pairs() -> list[tuple[int, int, float]]:
        cache = Cache(tmp_path / "cache")
        found = near_pairs(texts, focus, cfg, cache)
        cache.save()
        return found

    assert pairs() == []  # Jaccard 3/10: no pair under the rule as written
    # the rule changes: a question's shingles are its first word only
    monkeypatch.setattr(minhash, "shingles", lambda text, size: frozenset(text.split()[:1]))
    assert pairs() == []  # the same code salt: the cached answer of the old rule
    monkeypatch.setattr(goldcase.cache, "code_salt", lambda: "edited")
    assert pairs() == [(0, 1, 1.0)]
