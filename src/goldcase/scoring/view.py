"""The set as ``score`` reads it, cached whole under one key: a warm score of an unchanged set
reads no case file, builds no ``CaseFile`` and recomputes no digest.

The view holds the valid golden and dev cases (path, split, the digest of the file's bytes,
the mapping as loaded, the case hash) and the golden set's digest (``loader.set_digest``). Its
key is every case file's path and stat signature (modification and change times in ns, size,
inode; ``engine.case_entries``) and the cases folder. It is trusted only when every case file
is a plain file (not a link) older than the view's own cache file: git's racy-clean rule, so a
file changed in the same instant as the view was written is read again. Any other case (a
changed, added or removed file, a link, a racy file, a view of the wrong shape or from other
code, which ``cache.code_salt`` keeps apart) loads the set as every command does
(``engine.load_case_set``, through the case cache) and writes the view again.

A set with a problem that stops a score (a case file that does not load, an id two files use)
gets no view: it is loaded, and its problems found, on every run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import msgspec

from goldcase.collector import kept
from goldcase.context import Context
from goldcase.engine import Signature
from goldcase.model import Case, CaseSet
from goldcase.scoring.results import Problem

NAMESPACE = "score-view"
_KEY = "set"
_ENCODER = msgspec.msgpack.Encoder()
# One case: path, split, file digest, mapping, case hash. Decoded typed, so a value of any
# other shape fails in the decoder (and the set is loaded instead).
_CASES = msgspec.msgpack.Decoder(
    list[tuple[str, Literal["golden", "dev"], str, dict[str, Any], str]]
)
Entries = list[tuple[str, Signature | None]]


@dataclass(slots=True)
class ScoredSet:
    """What a score needs of the set: its cases, the problems that stop a score (in file
    order), the ids a result line may name, and the golden set's digest."""

    case_set: CaseSet
    golden_digest: str
    problems: list[Problem] = field(default_factory=list)
    known: set[str] = field(default_factory=set)


def stat_key(ctx: Context, entries: Entries) -> str | None:
    """The view's key for these case files; None when one is a link (whose own times say
    nothing of what it points to) or is not a plain file."""
    if any(signature is None for _, signature in entries):
        return None
    h = hashlib.blake2b(digest_size=16)
    h.update(Path(ctx.config.cases).as_posix().encode())
    h.update(_ENCODER.encode(entries))
    return h.hexdigest()


def cached(ctx: Context, entries: Entries) -> ScoredSet | None:
    """The set from the view, when the view's key is these files' and every file is older
    than the view; None otherwise. The view's entries are let go once read."""
    try:
        return _cached(ctx, entries)
    finally:
        ctx.cache.release(NAMESPACE)


def _cached(ctx: Context, entries: Entries) -> ScoredSet | None:
    written = ctx.cache.written_ns(NAMESPACE)
    if not all(signature is not None and signature[0] < written for _, signature in entries):
        return None  # a link, or a file as new as the view (racy): load the set
    value = ctx.cache.get(NAMESPACE, _KEY)
    if type(value) is not list or len(value) != 3:
        return None
    key, golden_digest, payload = value
    if key != stat_key(ctx, entries) or type(golden_digest) is not str:
        return None
    cases = _cases(payload)
    if cases is None:
        return None
    return ScoredSet(CaseSet([], cases), golden_digest, known={case.id for case in cases})


def _cases(payload: Any) -> list[Case] | None:
    if type(payload) is not bytes:
        return None
    try:
        with kept():  # as loading the set: objects kept for the run, none of them garbage
            rows = _CASES.decode(payload)
    except (msgspec.DecodeError, RecursionError):
        return None
    if not all(type(data.get("id")) is str for _, _, _, data, _ in rows):
        return None
    return [Case(path, split, data, digest, h) for path, split, digest, data, h in rows]


def remember(ctx: Context, key: str | None, scored: ScoredSet) -> None:
    """Write the view of a set that can be scored, saved at once and let go (a miss already
    holds the whole set; the view's bytes should not stay beside it)."""
    if key is None or scored.problems:
        return
    rows = [[c.path, c.split, c.digest, c.data, c.hash] for c in scored.case_set.cases]
    try:
        payload = _ENCODER.encode(rows)
    except (TypeError, ValueError, OverflowError):  # not plain data (a huge integer): no view
        return
    del rows
    ctx.cache.put(NAMESPACE, _KEY, [key, scored.golden_digest, payload])
    ctx.cache.save()
    ctx.cache.release(NAMESPACE)
