"""MinHash signatures, LSH banding and the confirmed near-duplicate pairs (see
``goldcase.leakage.neardup``). Kept apart because it needs numpy, which a warm check never
imports."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from functools import lru_cache

import numpy as np

from goldcase.cache import Cache
from goldcase.leakage.neardup import NearConfig, jaccard, shingles

_NAMESPACE = "leakage-bands"
BUCKET_ALL_PAIRS = 32


@lru_cache(maxsize=16)
def bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows per band) minimising 0.1 x the false-positive area plus 0.9 x the
    false-negative area under the LSH S-curve, as datasketch's ``_optimal_param`` does with
    these weights: a false positive costs one exact Jaccard, a false negative is a leak not
    reported (equal weights miss about one pair in six at the threshold on SQuAD questions,
    these about one in sixty-five). The integrands are polynomials of degree at most
    ``num_perm``, which Gauss-Legendre quadrature with enough nodes integrates exactly."""
    nodes, weights = np.polynomial.legendre.leggauss(num_perm // 2 + 2)
    lo_s = threshold / 2 * nodes + threshold / 2  # nodes on [0, threshold]
    hi_s = (1 - threshold) / 2 * nodes + (1 + threshold) / 2  # nodes on [threshold, 1]
    best, choice = float("inf"), (1, 1)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = threshold / 2 * float(np.dot(weights, 1 - (1 - lo_s**r) ** b))
            fn = (1 - threshold) / 2 * float(np.dot(weights, (1 - hi_s**r) ** b))
            error = 0.1 * fp + 0.9 * fn
            if error < best:
                best, choice = error, (b, r)
    return choice


def band_keys(texts: Sequence[str], cfg: NearConfig, cache: Cache) -> np.ndarray:
    """One row per text: its band keys (uint64). Kept in the cache (whose folder is keyed by
    the code) as one table (question hash -> row, and the rows), so a run looks up tens of
    thousands of questions at once and computes signatures only for the new ones."""
    b, r = bands(cfg.threshold, cfg.num_perm)
    slot = f"{cfg.num_perm}-{cfg.shingle}-{b}x{r}"
    ids = [hashlib.blake2b(t.encode(), digest_size=16).digest() for t in texts]
    index, table = _table(cache.get(_NAMESPACE, slot), b)
    where = np.array([index.get(i, -1) for i in ids], dtype=np.int64)
    rows = np.zeros((len(texts), b), dtype=np.uint64)
    have = where >= 0
    rows[have] = table[where[have]]
    missing = np.flatnonzero(~have)
    if missing.size:
        rows[missing] = _compute_keys([texts[i] for i in missing.tolist()], cfg, b, r)
    if missing.size or len(index) != len(ids):
        cache.put(_NAMESPACE, slot, [b"".join(ids), rows.astype("<u8").tobytes()])
    return rows


def _table(value: object, b: int) -> tuple[dict[bytes, int], np.ndarray]:
    """The cached table: the questions' 16-byte hashes end to end, and their rows of ``b``
    little-endian uint64 band keys; an empty one when the two do not fit together."""
    if type(value) is list and len(value) == 2 and all(type(v) is bytes for v in value):
        ids, rows = value
        count = len(ids) // 16
        if len(ids) == 16 * count and len(rows) == 8 * b * count:
            index = {ids[16 * k : 16 * k + 16]: k for k in range(count)}
            table = np.frombuffer(rows, dtype="<u8").astype(np.uint64).reshape(count, b)
            return index, table
    return {}, np.zeros((0, b), dtype=np.uint64)


def _compute_keys(texts: Sequence[str], cfg: NearConfig, b: int, r: int) -> np.ndarray:
    # A band's key mixes its r values with fixed odd multipliers; a collision only adds a
    # candidate, which the exact Jaccard then rejects.
    signatures = minhash_signatures([shingles(t, cfg.shingle) for t in texts], cfg.num_perm)
    mix = np.random.default_rng(20240611).integers(1, 2**63, size=r, dtype=np.uint64) | 1
    shaped = signatures[:, : b * r].astype(np.uint64).reshape(len(texts), b, r)
    with np.errstate(over="ignore"):
        return (shaped * mix).sum(axis=2, dtype=np.uint64)


_MAX32 = np.uint32(0xFFFFFFFF)
# Shingles hashed at once: their table of permuted hashes (2 MB at 128 permutations) stays in
# the processor's cache while it is reduced; 16,384 at once took a fifth longer.
_BLOCK = 4096


@lru_cache(maxsize=4)
def _permutations(num_perm: int) -> tuple[np.ndarray, np.ndarray]:
    """datasketch's affine32 permutations for seed 1: odd ``a``, any ``b``, both uint32."""
    gen = np.random.RandomState(1)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a, b


def _fmix32(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def minhash_signatures(sets: Sequence[frozenset[str]], num_perm: int) -> np.ndarray:
    """One row per shingle set: ``datasketch.MinHash(num_perm).update_batch(...)``'s
    ``hashvalues`` for the UTF-8 shingles (all ones for an empty set)."""
    out = np.full((len(sets), num_perm), _MAX32, dtype=np.uint32)
    start = 0
    while start < len(sets):
        stop, size = start, 0
        while stop < len(sets) and (size < _BLOCK or stop == start):
            size += len(sets[stop])
            stop += 1
        _signature_block(sets, start, stop, num_perm, out)
        start = stop
    return out


def _signature_block(
    sets: Sequence[frozenset[str]], start: int, stop: int, num_perm: int, out: np.ndarray
) -> None:
    """Rows ``start:stop`` of ``out``: every shingle's permuted hashes, then the minimum over
    each row's run of shingles (rows are contiguous, so one ``reduceat``)."""
    a, b = _permutations(num_perm)
    block = sets[start:stop]
    sha1 = hashlib.sha1
    digests = b"".join([sha1(item.encode()).digest()[:4] for items in block for item in items])
    if not digests:
        return
    hashed = _fmix32(np.frombuffer(digests, dtype="<u4").astype(np.uint32))
    with np.errstate(over="ignore"):  # one table, added to in place: no second of its size
        values = np.multiply.outer(hashed, a)
        values += b
    counts = np.fromiter(map(len, block), dtype=np.intp, count=len(block))
    rows = np.flatnonzero(counts) + start
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[counts > 0]
    out[rows] = np.minimum.reduceat(values, starts, axis=0)


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


def confirmed(
    texts: Sequence[str], focus: Sequence[bool], cfg: NearConfig, cache: Cache
) -> list[tuple[int, int, float]]:
    keys = band_keys(texts, cfg, cache)
    mask = np.asarray(focus, dtype=bool)
    shingled: dict[int, frozenset[str]] = {}
    out = []
    for i, j in sorted(candidate_pairs(keys, mask)):
        for k in (i, j):
            if k not in shingled:
                shingled[k] = shingles(texts[k], cfg.shingle)
        a, c = shingled[i], shingled[j]
        score = jaccard(a, c)
        if score >= cfg.threshold:
            out.append((i, j, score))
    return out
