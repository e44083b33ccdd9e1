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
(``engine.load_case_set``, through the case cache), and the view is written again when the
command ends (kept once the run's result lines are let go, saved with the cache's other
namespaces: its 30 MB for 100,000 cases then take room the run no longer needs).

A set with a problem that stops a score (a case file that does not load, an id two files use)
gets no view: it is loaded, and its problems found, on every run.
"""

from __future__ import annotations

import hashlib
import operator
from pathlib import Path

import msgspec
from msgspec import Struct, field

from goldcase.context import Context
from goldcase.engine import Entries
from goldcase.model import Case, CaseSet
from goldcase.scoring.results import Problem

NAMESPACE = "score-view"
_KEY = "set"
_ENCODER = msgspec.msgpack.Encoder()
_SPLITS = ("golden", "dev")
_SIGNATURE = operator.itemgetter(1)  # of an entry (path, signature)
_MTIME = operator.itemgetter(0)  # of a signature


class ScoredSet(Struct):
    """What a score needs of the set: its cases, the golden set's digest, the problems that
    stop a score (in file order), the ids a result line may name, and, for a set loaded
    rather than read from the view, the key to remember it under (None: nothing to write)."""

    case_set: CaseSet
    golden_digest: str
    problems: list[Problem] = field(default_factory=list)
    known: set[str] = field(default_factory=set)
    view_key: str | None = None


def stat_key(ctx: Context, entries: Entries) -> str | None:
    """The view's key for these case files; None when one is a link (whose own times say
    nothing of what it points to) or is not a plain file, or when a path is not UTF-8 (such
    a file is a GC113 problem, and the set gets no view)."""
    if None in map(_SIGNATURE, entries):  # in C: 100,000 entries are looked at twice a run
        return None
    try:  # a path decoded with surrogate escapes cannot be encoded: found here, in C
        listed = _ENCODER.encode(entries)
    except UnicodeEncodeError:
        return None
    h = hashlib.blake2b(digest_size=16)
    h.update(Path(ctx.config.cases).as_posix().encode())
    h.update(listed)
    return h.hexdigest()


# The view's file as the decoder checks it while reading: the key, the golden set's digest
# and the cases, built as ``Case``s in C (a file of any other shape reads as no view).
_SHAPE = dict[str, tuple[str, str, list[Case]]]


def read(ctx: Context) -> None:
    """Read and decode the view's file now (``peek`` then finds it read): ``score`` does
    this while a child lists the case files the view is checked against."""
    ctx.cache.written_ns(NAMESPACE, _SHAPE)


class Peeked(Struct):
    """The set as the view holds it, before the case files are listed: ``confirmed`` says
    whether it is the set on disk."""

    written: int  # when the view's file was written (ns)
    key: str
    scored: ScoredSet


def peek(ctx: Context) -> Peeked | None:
    """The view's set, whether or not the case files are still the ones it was written from
    (``score`` grades against it while they are listed); None when there is no view or one
    of a shape no set has. The view's entries are let go once read."""
    try:
        written = ctx.cache.written_ns(NAMESPACE, _SHAPE)
        value = ctx.cache.get(NAMESPACE, _KEY)
    finally:
        ctx.cache.release(NAMESPACE)
    if value is None:
        return None
    key, golden_digest, cases = value
    known: set[str] = set()
    for case in cases:  # one loop: what the shape cannot say of 100,000 cases
        case_id = case.data.get("id")
        if type(case_id) is not str or case.split not in _SPLITS:
            return None
        known.add(case_id)
    return Peeked(written, key, ScoredSet(CaseSet([], cases), golden_digest, known=known))


def confirmed(ctx: Context, entries: Entries, peeked: Peeked) -> bool:
    """Whether the view ``peek`` read is the set of the case files ``entries`` lists: its key
    is theirs, and every file is a plain file older than the view (a link, or a file as new
    as the view, is loaded: git's racy-clean rule)."""
    signatures = list(map(_SIGNATURE, entries))
    if None in signatures or (signatures and max(map(_MTIME, signatures)) >= peeked.written):
        return False
    return peeked.key == stat_key(ctx, entries)


def remember(ctx: Context, scored: ScoredSet) -> None:
    """Keep the view of a set that was loaded and can be scored, to be saved when the command
    ends with the cache's other namespaces (encoded here, its bytes would add to the run's
    peak: on a 100,000-case set, 457 MB against 389)."""
    if scored.view_key is None or scored.problems:
        return
    ctx.cache.put(NAMESPACE, _KEY, (scored.view_key, scored.golden_digest, scored.case_set.cases))
