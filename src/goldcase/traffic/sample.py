"""Drawing a week's sample from a trace log: mostly failures, a share of random traffic, and
no question the set or the sample already holds.

Two pools, each in a seeded order (``goldcase.scoring.split.rank_key``, the keyed hash that
orders the calibration split and the second labeller's sample, of the trace's key: no list is
shuffled, so every machine draws the same sample):

- **flagged**: traces that failed a check, hit a cap or got a thumbs-down. The first
  ``floor(failed_share x n + 1/2)`` of the draft quota come from here (round half up on the
  exact decimal share, ``goldcase.scoring.split.calibration_size``);
- **random**: all traffic, flagged or not, in a second order (the seed with ``/random``); the
  rest of the quota, and whatever the flagged pool could not fill.

Each pool is walked in its order, and a trace is passed over when its question (scrubbed of
personal data, then folded by ``goldcase.text.normalise_input``, the leakage normaliser) is:

| reason | the question is |
|---|---|
| ``duplicate`` | the same as a case's or a draft's |
| ``near_duplicate`` | a near-duplicate of a case's or a draft's (GC303's MinHash and Jaccard) |
| ``repeat`` | the same as a trace drawn before it |
| ``near_repeat`` | a near-duplicate of a trace drawn before it (exact word Jaccard) |
| ``no_words`` | nothing once folded (only punctuation or emoji) |

A trace whose draft is in the inbox already is kept as it is (``kept``) and counts toward the
quota, so running the same triage again draws the same drafts and writes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from msgspec import Struct, field

from goldcase.cache import Cache
from goldcase.ids import draft_id
from goldcase.leakage.neardup import NearConfig, jaccard, shingles
from goldcase.scoring.split import calibration_size, rank_key
from goldcase.text import normalise_input
from goldcase.traffic.traces import Trace

REASONS = {
    "duplicate": "the same question as a case or draft",
    "near_duplicate": "a near-duplicate of a case or draft",
    "repeat": "the same question as a trace drawn before it",
    "near_repeat": "a near-duplicate of a trace drawn before it",
    "no_words": "no words in the question",
}
FLAGGED, RANDOM = "flagged", "random"


class Known(Struct, frozen=True):
    """A question the set holds already: a golden or dev case's, or a draft's."""

    normalised: str
    name: str  # "golden case ret-014", "draft tr-1h4kq3bz7"


class Drawn(Struct, frozen=True):
    trace: Trace
    question: str  # scrubbed
    stratum: str  # flagged | random
    repeats: int  # other traces in the log asking the same, exactly or nearly
    kept: bool  # its draft is in the inbox already


class Draw(Struct):
    drawn: list[Drawn] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    flagged_pool: int = 0
    quota: tuple[int, int] = (0, 0)  # (flagged, random) asked for


class Plan(Struct, frozen=True):
    n: int
    failed_share: float
    seed: str
    near: NearConfig


class Source(Protocol):
    """The traces to draw from: all of them in file order, as many passes as asked."""

    def scan(self) -> Iterator[tuple[int, Trace]]: ...  # (where, trace)

    def at(self, where: int, number: int) -> Trace | None: ...


class Listed:
    """Traces held in a list (a small log, a test's): ``where`` is the index."""

    def __init__(self, traces: Sequence[Trace]) -> None:
        self.traces = traces

    def scan(self) -> Iterator[tuple[int, Trace]]:
        return iter(enumerate(self.traces))

    def at(self, where: int, number: int) -> Trace | None:
        return self.traces[where]


WINDOW = 1 << 20  # ranks of a pool held at once: 32 bytes each, 32 MiB (a few times it when cut)
BLOCK = 1 << 16  # ranks gathered before they join the window's arrays
CHUNK = 1_024  # traces folded and compared with the set at once
CHUNK_CHARS = 8 << 20  # and at most this many characters of them


def ordered(source: Source, seed: str, flagged_only: bool) -> Iterator[Trace]:
    """A pool in its seeded order (ties by line), ``WINDOW`` ranks at a time: each window is
    one pass over the log keeping the ``WINDOW`` smallest (rank, line) after the last one
    walked, as compact arrays, so memory stays bounded however long the log; a window past the
    first is read only when that many traces were walked (passed over, mostly) without
    filling the quota."""
    after: tuple[int, int, int] | None = None
    while True:
        window = _window(source, seed, flagged_only, after)
        for start in range(0, len(window), BLOCK):  # a slice at a time as Python integers
            for _, _, line, where in window[start : start + BLOCK].tolist():
                trace = source.at(where, line)
                if trace is not None:
                    yield trace
        if len(window) < WINDOW:
            return
        hi, lo, line, _ = window[-1].tolist()
        after = hi, lo, line


def _window(
    source: Source, seed: str, flagged_only: bool, after: tuple[int, int, int] | None
) -> Any:
    """The ``WINDOW`` smallest (rank as two integers, line, where) past ``after``, sorted: an
    array of four unsigned 64-bit columns."""
    import numpy as np  # numpy: the ranks of a long log are held as arrays, not objects

    best = np.zeros((0, 4), dtype=np.uint64)
    ranks, rows = bytearray(), []
    for where, trace in source.scan():
        if flagged_only and not trace.flagged:
            continue
        ranks += rank_key(trace.key, seed)
        rows.append((trace.line, where))
        if len(rows) == BLOCK:
            best = _keep(np, best, ranks, rows, after)
            ranks, rows = bytearray(), []
    return _keep(np, best, ranks, rows, after, final=True)


def _past(np: Any, block: Any, after: tuple[int, int, int]) -> Any:
    """The rows of ``block`` ordered after ``after``: (hi, lo, line) compared in turn."""
    hi, lo, line = (np.uint64(v) for v in after)
    later_line = (block[:, 1] == lo) & (block[:, 2] > line)
    return (block[:, 0] > hi) | ((block[:, 0] == hi) & ((block[:, 1] > lo) | later_line))


def _keep(
    np: Any,
    best: Any,
    ranks: bytearray,
    rows: list[tuple[int, int]],
    after: tuple[int, int, int] | None,
    final: bool = False,
) -> Any:
    """``best`` with a block of ranks added; sorted and cut to ``WINDOW`` when it holds twice
    that (and at the end), so the arrays never pass ``2 x WINDOW`` rows."""
    if rows:
        halves = np.frombuffer(bytes(ranks), dtype=">u8").astype(np.uint64).reshape(-1, 2)
        block = np.column_stack((halves, np.asarray(rows, dtype=np.uint64)))
        if after is not None:
            block = block[_past(np, block, after)]
        best = np.concatenate((best, block))
    if final or len(best) >= 2 * WINDOW:
        order = np.lexsort((best[:, 2], best[:, 1], best[:, 0]))
        best = best[order[:WINDOW]]
    return best


class _Questions:
    """The traces' folded questions against the set's and against each other. A question
    near one of the set's is found by the MinHash band keys GC303 uses (computed once for the
    set, and for the walked traces a chunk at a time) and confirmed by exact Jaccard; a trace
    is compared with the traces drawn so far by exact Jaccard (they are at most ``n``); and the
    repeats of the drawn questions are counted in one more pass over the log, on the same band
    keys. Nothing here grows with the log."""

    def __init__(self, known: Sequence[Known], near: NearConfig) -> None:
        self.cfg = near
        self.known = {k.normalised for k in known if k.normalised}
        self.set_bands = _Bands(sorted(self.known), near)
        self.drawn: dict[str, frozenset[str]] = {}  # drawn text -> its shingles
        self.near_known: set[str] = set()

    def look_at(self, texts: Sequence[str]) -> None:
        """Find which of the next chunk of walked questions are near the set's."""
        fresh = sorted({t for t in texts if t and t not in self.known})
        self.near_known = set(self.set_bands.near(fresh))

    def reason(self, text: str) -> str | None:
        if not text:
            return "no_words"
        if text in self.known:
            return "duplicate"
        if text in self.drawn:
            return "repeat"
        if text in self.near_known:
            return "near_duplicate"
        mine = shingles(text, self.cfg.shingle)
        if any(jaccard(mine, theirs) >= self.cfg.threshold for theirs in self.drawn.values()):
            return "near_repeat"
        return None

    def take(self, text: str) -> None:
        if text:
            self.drawn[text] = shingles(text, self.cfg.shingle)

    def repeats(self, norms: Iterator[str]) -> Counter[str]:
        """For each drawn question: how many other traces (of ``norms``, every trace's folded
        question) ask it, exactly or nearly."""
        out: Counter[str] = Counter()
        bands = _Bands(sorted(self.drawn), self.cfg)
        for chunk in _chunks(norms, CHUNK):
            counts = Counter(t for t in chunk if t)
            for text, count in counts.items():
                if text in self.drawn:
                    out[text] += count
            for text, theirs in bands.pairs(sorted(counts)):
                if text != theirs:
                    out[theirs] += counts[text]
        return Counter({t: out[t] - 1 for t in self.drawn})


class _Bands:
    """Fixed questions (the set's, or the drawn ones) by their MinHash band keys, to look
    others up against: a candidate shares a band key with one, and is confirmed by exact
    Jaccard, as GC303 confirms its pairs."""

    def __init__(self, texts: Sequence[str], cfg: NearConfig) -> None:
        self.cfg, self.texts = cfg, list(texts)
        self.index: dict[tuple[int, int], list[int]] = {}
        self.shingled = [shingles(t, cfg.shingle) for t in self.texts]
        for i, row in enumerate(_keys(self.texts, cfg)):
            for band, key in enumerate(row):
                self.index.setdefault((band, key), []).append(i)

    def pairs(self, others: Sequence[str]) -> Iterator[tuple[str, str]]:
        """(other, fixed) for each of ``others`` near a fixed question."""
        if not self.texts or not others:
            return
        for text, row in zip(others, _keys(others, self.cfg), strict=True):
            candidates = {
                i for band, key in enumerate(row) for i in self.index.get((band, key), ())
            }
            mine = shingles(text, self.cfg.shingle)
            for i in sorted(candidates):
                if jaccard(mine, self.shingled[i]) >= self.cfg.threshold:
                    yield text, self.texts[i]

    def near(self, others: Sequence[str]) -> Iterator[str]:
        return (text for text, _ in self.pairs(others))


def _keys(texts: Sequence[str], cfg: NearConfig) -> list[list[int]]:
    if not texts:
        return []
    from goldcase.leakage.minhash import band_keys  # numpy: only a triage that compares pays

    return [list(map(int, row)) for row in band_keys(texts, cfg, Cache(None))]


def _chunks(items: Iterator[str], size: int) -> Iterator[list[str]]:
    chunk: list[str] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def identity(text: str) -> str:
    return text


def draw(
    source: Source,
    known: Sequence[Known],
    inbox: set[str],
    plan: Plan,
    scrub: Callable[[str], str] = identity,
) -> Draw:
    """The sample: ``scrub`` replaces a question's personal data; ``inbox`` holds the ids of
    the drafts there already."""
    graph = _Questions(known, plan.near)
    flagged = calibration_size(plan.n, plan.failed_share)
    result = Draw(quota=(flagged, plan.n - flagged))
    walk = _Walk(graph, inbox, scrub, result, plan.seed)
    walk.pool(ordered(source, plan.seed, True), FLAGGED, flagged)
    walk.pool(ordered(source, f"{plan.seed}/random", False), RANDOM, plan.n - len(walk.picked))
    repeats = graph.repeats(_folded(source, scrub, result))
    result.drawn = [
        Drawn(trace, question, stratum, repeats[norm] if norm else 0, kept)
        for trace, question, norm, stratum, kept in walk.picked
    ]
    return result


def _folded(source: Source, scrub: Callable[[str], str], result: Draw) -> Iterator[str]:
    """Every trace's folded question, one more pass; the flagged ones counted on the way."""
    for _, trace in source.scan():
        result.flagged_pool += trace.flagged
        yield normalise_input(scrub(trace.question))


class _Walk:
    """Walking the pools in order: what was drawn, what was passed over, and where the
    flagged walk stopped (a trace walked there is not walked again in the random pool)."""

    def __init__(
        self,
        graph: _Questions,
        inbox: set[str],
        scrub: Callable[[str], str],
        result: Draw,
        seed: str,
    ) -> None:
        self.graph, self.inbox, self.scrub, self.result = graph, inbox, scrub, result
        self.flagged_seed = seed
        self.picked: list[tuple[Trace, str, str, str, bool]] = []
        self.picked_keys: set[str] = set()
        self.flagged_walked: tuple[bytes, int] | None = None  # the last flagged (rank, line)

    def pool(self, traces: Iterator[Trace], stratum: str, wanted: int) -> None:
        previous: str | None = None  # a line repeated verbatim is one trace: they are adjacent
        if wanted <= 0:
            return
        for chunk in _trace_chunks(traces, wanted):
            texts = [(t, self.scrub(t.question)) for t in chunk]
            norms = [normalise_input(q) for _, q in texts]
            self.graph.look_at(norms)
            for (trace, question), norm in zip(texts, norms, strict=True):
                if wanted <= 0:
                    return
                if trace.key == previous or self._walked(trace, stratum):
                    continue
                previous = trace.key
                wanted -= self._one(trace, question, norm, stratum)

    def _walked(self, trace: Trace, stratum: str) -> bool:
        """Drawn, or passed over, in the flagged pool already."""
        if stratum == FLAGGED:
            return False
        if trace.key in self.picked_keys:
            return True
        last = self.flagged_walked
        return (
            trace.flagged
            and last is not None
            and (rank_key(trace.key, self.flagged_seed), trace.line) <= last
        )

    def _one(self, trace: Trace, question: str, norm: str, stratum: str) -> int:
        if stratum == FLAGGED:
            self.flagged_walked = (rank_key(trace.key, self.flagged_seed), trace.line)
        kept = _drafted(trace, self.inbox)
        reason = None if kept else self.graph.reason(norm)
        if reason is not None:
            self.result.skipped[reason] += 1
            return 0
        self.graph.take(norm)
        self.picked.append((trace, question, norm, stratum, kept))
        self.picked_keys.add(trace.key)
        return 1


def _trace_chunks(traces: Iterator[Trace], wanted: int) -> Iterator[list[Trace]]:
    """The pool's traces a chunk at a time (folded and compared with the set together): a
    small first chunk when few are wanted, never more than ``CHUNK`` traces nor
    ``CHUNK_CHARS`` characters of questions and answers (a line may hold a MiB)."""
    size = min(max(4 * wanted, 16), CHUNK)
    chunk: list[Trace] = []
    chars = 0
    for trace in traces:
        chunk.append(trace)
        chars += len(trace.question) + len(trace.answer or "")
        if len(chunk) >= size or chars >= CHUNK_CHARS:
            yield chunk
            chunk, chars, size = [], 0, min(size * 2, CHUNK)
    if chunk:
        yield chunk


def _drafted(trace: Trace, inbox: set[str]) -> bool:
    """Whether the trace's draft is in the inbox already (its id is a function of the trace)."""
    return draft_id(trace.key, trace.asked.at if trace.asked else None, ()) in inbox
