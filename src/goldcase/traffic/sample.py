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
from collections.abc import Sequence

from msgspec import Struct, field

from goldcase.cache import Cache
from goldcase.ids import draft_id
from goldcase.leakage.neardup import NearConfig, jaccard, near_pairs, shingles
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


class _Questions:
    """The traces' folded questions against the set's and against each other. The set's
    near-duplicates come from one MinHash LSH pass focused on the set's questions; a trace is
    compared with the traces drawn so far by exact Jaccard (they are at most ``n``); and the
    near repeats of the drawn ones from a second pass focused on them, on the same band keys."""

    def __init__(self, norms: Sequence[str], known: Sequence[Known], near: NearConfig) -> None:
        self.cfg = near
        self.cache = Cache(None)  # in memory only: the second pass reuses the first's band keys
        self.known = {k.normalised for k in known if k.normalised}
        self.counts = Counter(t for t in norms if t)
        self.texts = list(dict.fromkeys([*self.known, *self.counts]))
        self.near_known = {t for pair in self._pairs(self.known) for t in pair} - self.known
        self.drawn: dict[str, frozenset[str]] = {}  # drawn text -> its shingles

    def _pairs(self, wanted: set[str]) -> list[tuple[str, str]]:
        focus = [t in wanted for t in self.texts]
        if not any(focus):
            return []
        pairs = near_pairs(self.texts, focus, self.cfg, self.cache)
        return [(self.texts[i], self.texts[j]) for i, j, _ in pairs]

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

    def repeats(self) -> Counter[str]:
        """For each drawn question: how many other traces ask it, exactly or nearly."""
        out = Counter({t: self.counts[t] - 1 for t in self.drawn})
        for a, b in self._pairs(set(self.drawn)):
            for mine, other in ((a, b), (b, a)):
                if mine in self.drawn:
                    out[mine] += self.counts[other]
        return out


def draw(
    traces: Sequence[Trace],
    questions: Sequence[str],
    known: Sequence[Known],
    inbox: set[str],
    plan: Plan,
) -> Draw:
    """The sample: ``questions[i]`` is trace ``i``'s question scrubbed of personal data;
    ``inbox`` holds the ids of the drafts there already."""
    norms = [normalise_input(q) for q in questions]
    graph = _Questions(norms, known, plan.near)
    flagged = calibration_size(plan.n, plan.failed_share)
    result = Draw(quota=(flagged, plan.n - flagged))
    result.flagged_pool = sum(t.flagged for t in traces)
    seen: set[str] = set()  # trace keys: a line repeated verbatim is one trace
    picked: list[tuple[int, str, bool]] = []  # (trace, stratum, kept)
    for stratum, pool in _pools(traces, plan.seed):
        wanted = plan.n - len(picked) if stratum == RANDOM else flagged
        for i in pool:
            if wanted <= 0:
                break
            if traces[i].key in seen:
                continue  # drawn, or passed over, in the flagged pool
            seen.add(traces[i].key)
            kept = _drafted(traces[i], inbox)
            reason = None if kept else graph.reason(norms[i])
            if reason is not None:
                result.skipped[reason] += 1
                continue
            graph.take(norms[i])
            picked.append((i, stratum, kept))
            wanted -= 1
    repeats = graph.repeats()
    result.drawn = [
        Drawn(traces[i], questions[i], stratum, repeats[norms[i]] if norms[i] else 0, kept)
        for i, stratum, kept in picked
    ]
    return result


def _drafted(trace: Trace, inbox: set[str]) -> bool:
    """Whether the trace's draft is in the inbox already (its id is a function of the trace)."""
    return draft_id(trace.key, trace.asked.at if trace.asked else None, ()) in inbox


def _pools(traces: Sequence[Trace], seed: str) -> list[tuple[str, list[int]]]:
    """The flagged traces and all traces, each in its own seeded order (ties, which do not
    happen in practice, by line)."""
    flagged = [i for i, t in enumerate(traces) if t.flagged]
    every = list(range(len(traces)))
    return [
        (FLAGGED, sorted(flagged, key=lambda i: (rank_key(traces[i].key, seed), i))),
        (RANDOM, sorted(every, key=lambda i: (rank_key(traces[i].key, f"{seed}/random"), i))),
    ]
