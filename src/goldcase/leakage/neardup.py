"""Near-duplicate questions: MinHash LSH over word shingles, confirmed by exact Jaccard.

Signatures are datasketch's ``MinHash`` (its default ``affine32`` scheme, seed 1: SHA-1 of each
shingle, the MurmurHash3 finalizer, then ``a * h + b`` modulo 2^32 per permutation), computed
for many questions at once with numpy; the bands and rows are those datasketch's
``MinHashLSH`` would choose for the threshold. The tests check both against datasketch itself.
goldcase does not call datasketch at run time because importing it imports scipy (about
0.5 s), more than a commit that changed one case may spend on the whole check. The banding
runs on the signature matrix at once, and each question's band keys are cached. A candidate
pair is reported only when the exact Jaccard similarity of the two shingle sets reaches the
threshold, so hashing can miss a pair (rarely) but never invent one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from msgspec import Struct

from goldcase.cache import Cache

_PAIRS = "leakage-pairs"


class NearConfig(Struct, frozen=True):
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


def near_pairs(
    texts: Sequence[str],
    focus: Sequence[bool],
    cfg: NearConfig,
    cache: Cache,
    whole: Sequence[bool] | None = None,
) -> list[tuple[int, int, float]]:
    """Confirmed pairs (i, j, Jaccard) among distinct normalised ``texts``, at least one of
    each pair in ``focus``, sorted. The cache's folder is keyed by the code
    (``cache.code_salt``), so a changed rule finds the pairs anew.

    ``whole`` is the focus of the whole run a focused run (``check FILE``) is part of, for a
    caller that wants no pair without an end in ``whole``: when that run's pairs are cached
    for these texts, its pairs with an end in ``focus`` are these (every pair of a small
    bucket is a candidate; in a large one, the first member's pairs, whatever the focus), and
    no signature is computed."""
    if len(texts) < 2 or not any(focus):
        return []
    # normalised text holds no control characters; hashed once for both keys
    joined = hashlib.blake2b("\x00".join(texts).encode(), digest_size=16).digest()
    key = _key(focus, cfg, joined)
    known = _pairs_from(cache.get(_PAIRS, key), len(texts))
    if known is not None:
        return known  # the same questions as last time: the same pairs
    if whole is not None:
        found = _pairs_from(cache.get(_PAIRS, _key(whole, cfg, joined)), len(texts))
        if found is not None:
            return [pair for pair in found if focus[pair[0]] or focus[pair[1]]]
    from goldcase.leakage.minhash import confirmed  # numpy: only when the questions changed

    pairs = confirmed(texts, focus, cfg, cache)
    cache.put(_PAIRS, key, [[int(i), int(j), float(s)] for i, j, s in pairs])
    return pairs


def _key(focus: Sequence[bool], cfg: NearConfig, texts: bytes) -> str:
    """The cache key of the pairs of these texts (``texts``: their digest) for this focus."""
    digest = hashlib.blake2b(f"{cfg!r}".encode(), digest_size=16)
    digest.update(bytes(bool(f) for f in focus))
    digest.update(texts)
    return digest.hexdigest()


def _pairs_from(value: object, count: int) -> list[tuple[int, int, float]] | None:
    """Cached pairs, or None when the data has another shape."""
    if type(value) is not list:
        return None
    out: list[tuple[int, int, float]] = []
    for item in value:
        if type(item) is not list or len(item) != 3:
            return None
        i, j, score = item
        if type(i) is not int or type(j) is not int or type(score) is not float:
            return None
        if not (0 <= i < count and 0 <= j < count):
            return None
        out.append((i, j, score))
    return out
