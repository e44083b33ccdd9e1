"""Near-duplicate questions: MinHash LSH over word shingles, confirmed by exact Jaccard.

Signatures are datasketch ``MinHash`` objects over the word shingles of each normalised
question; the bands and rows come from datasketch's own optimisation for the threshold
(``MinHashLSH`` picks them the same way). The banding itself runs on the whole signature
matrix at once with numpy: inserting tens of thousands of signatures into ``MinHashLSH`` one
by one costs seconds on every run, while the per-question band keys can be cached. A
candidate pair is reported only when the exact Jaccard similarity of the two shingle sets
reaches the threshold, so hashing can miss a pair (rarely) but never invent one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from goldcase.cache import Cache

_NAMESPACE = "leakage-bands"
_PAIRS = "leakage-pairs"
BUCKET_ALL_PAIRS = 32


@dataclass(frozen=True, slots=True)
class NearConfig:
    threshold: float = 0.7
    num_perm: int = 128
    shingle: int = 1


def shingles(normalised: str, size: int) -> frozenset[str]:
    """Word ``size``-grams of a normalised text; a text shorter than that is one shingle."""
    words = normalised.split()
    if size == 1:
        return frozenset(words)
    if len(words) <= size:
        return frozenset((normalised,)) if normalised else frozenset()
    return frozenset(" ".join(words[i : i + size]) for i in range(len(words) - size + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@lru_cache(maxsize=16)
def bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows per band), chosen by datasketch's own optimisation with false negatives
    weighted 0.9 and false positives 0.1: a false positive costs one exact Jaccard, a false
    negative is a leak not reported (equal weights miss about one pair in six at the
    threshold on SQuAD questions; these weights about one in sixty)."""
    from datasketch.lsh import _optimal_param

    b, r = _optimal_param(threshold, num_perm, 0.1, 0.9)
    return int(b), int(r)


def band_keys(texts: Sequence[str], cfg: NearConfig, cache: Cache) -> np.ndarray:
    """One row per text: its ``bands`` band keys (uint64), from the cache when known."""
    b, r = bands(cfg.threshold, cfg.num_perm)
    namespace = f"{_NAMESPACE}-{cfg.num_perm}-{cfg.shingle}-{b}x{r}"
    rows: list[bytes | None] = []
    missing: list[int] = []
    keys = [hashlib.blake2b(t.encode(), digest_size=16).hexdigest() for t in texts]
    for i, key in enumerate(keys):
        value = cache.get(namespace, key)
        rows.append(value if isinstance(value, bytes) and len(value) == 8 * b else None)
        if rows[-1] is None:
            missing.append(i)
    if missing:
        fresh = _compute_keys([texts[i] for i in missing], cfg, b, r)
        for i, row in zip(missing, fresh, strict=True):
            rows[i] = row.tobytes()
            cache.put(namespace, keys[i], rows[i])
    if not rows:
        return np.zeros((0, b), dtype=np.uint64)
    return np.frombuffer(b"".join(r for r in rows if r is not None), dtype=np.uint64).reshape(
        len(rows), b
    )


def _compute_keys(texts: Sequence[str], cfg: NearConfig, b: int, r: int) -> np.ndarray:
    from datasketch import MinHash

    sets = [[s.encode() for s in sorted(shingles(t, cfg.shingle))] or [b""] for t in texts]
    signatures = np.stack([m.hashvalues for m in MinHash.bulk(sets, num_perm=cfg.num_perm)]).astype(
        np.uint64
    )
    # A band's key mixes its r values with fixed odd multipliers; a collision only adds a
    # candidate, which the exact Jaccard then rejects.
    mix = np.random.default_rng(20240611).integers(1, 2**63, size=r, dtype=np.uint64) | 1
    shaped = signatures[:, : b * r].reshape(len(texts), b, r)
    with np.errstate(over="ignore"):
        return (shaped * mix).sum(axis=2, dtype=np.uint64)


def candidate_pairs(keys: np.ndarray, focus: np.ndarray) -> set[tuple[int, int]]:
    """Pairs (i < j) that share a band key, at least one of them in ``focus`` (a bool mask)."""
    out: set[tuple[int, int]] = set()
    for band in range(keys.shape[1]):
        order = np.argsort(keys[:, band], kind="stable")
        ordered = keys[order, band]
        for group in _runs(order, np.flatnonzero(ordered[1:] == ordered[:-1])):
            out.update(_pairs(group, focus))
    return out


def _runs(order: np.ndarray, same_as_next: np.ndarray) -> Iterator[list[int]]:
    """The groups of equal keys, from the sorted positions k where key[k] == key[k + 1]."""
    group: list[int] = []
    previous = -2
    for k in same_as_next.tolist():
        if k != previous + 1 and group:
            yield group
            group = []
        if not group:
            group.append(int(order[k]))
        group.append(int(order[k + 1]))
        previous = k
    if group:
        yield group


def _pairs(group: list[int], focus: np.ndarray) -> Iterator[tuple[int, int]]:
    """Every pair of a bucket; in a bucket larger than ``BUCKET_ALL_PAIRS`` (templated
    questions: "what does clause 12 say about …"), each member against the first only, so
    the work stays linear in the set's size."""
    members = sorted(group)
    if not focus[members].any():
        return
    heads = members if len(members) <= BUCKET_ALL_PAIRS else members[:1]
    for x, i in enumerate(heads):
        for j in members[x + 1 :]:
            if focus[i] or focus[j]:
                yield i, j


def near_pairs(
    texts: Sequence[str], focus: Sequence[bool], cfg: NearConfig, cache: Cache
) -> list[tuple[int, int, float]]:
    """Confirmed pairs (i, j, Jaccard) among distinct normalised ``texts``, at least one of
    each pair in ``focus``, sorted."""
    if len(texts) < 2 or not any(focus):
        return []
    digest = hashlib.blake2b(repr(cfg).encode(), digest_size=16)
    for text, flag in zip(texts, focus, strict=True):
        digest.update(b"\x01" if flag else b"\x00")
        digest.update(text.encode())
    known = cache.get(_PAIRS, digest.hexdigest())
    if isinstance(known, list):
        return known  # the same questions as last time: the same pairs
    pairs = _confirmed(texts, focus, cfg, cache)
    cache.put(_PAIRS, digest.hexdigest(), pairs)
    return pairs


def _confirmed(
    texts: Sequence[str], focus: Sequence[bool], cfg: NearConfig, cache: Cache
) -> list[tuple[int, int, float]]:
    keys = band_keys(texts, cfg, cache)
    mask = np.asarray(focus, dtype=bool)
    shingled: dict[int, frozenset[str]] = {}
    out = []
    for i, j in sorted(candidate_pairs(keys, mask)):
        a = shingled.setdefault(i, shingles(texts[i], cfg.shingle))
        c = shingled.setdefault(j, shingles(texts[j], cfg.shingle))
        score = jaccard(a, c)
        if score >= cfg.threshold:
            out.append((i, j, score))
    return out
