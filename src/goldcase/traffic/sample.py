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
| ``near_repeat`` | a near-duplicate of a trace drawn before it |
| ``no_words`` | nothing once folded (only punctuation or emoji) |

A trace whose draft is in the inbox already is kept as it is (``kept``) and counts toward the
quota, so running the same triage again draws the same drafts and writes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from goldcase.cache import Cache
from goldcase.ids import draft_id
from goldcase.leakage.neardup import NearConfig, near_pairs
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


@dataclass(frozen=True, slots=True)
class Known:
    """A question the set holds already: a golden or dev case's, or a draft's."""

    normalised: str
    name: str  # "golden case ret-014", "draft tr-1h4kq3bz7"


@dataclass(frozen=True, slots=True)
class Drawn:
    trace: Trace
    question: str  # scrubbed
    stratum: str  # flagged | random
    repeats: int  # other traces in the log asking the same, exactly or nearly
    kept: bool  # its draft is in the inbox already


@dataclass(slots=True)
class Draw:
    drawn: list[Drawn] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    flagged_pool: int = 0
    quota: tuple[int, int] = (0, 0)  # (flagged, random) asked for


@dataclass(frozen=True, slots=True)
class Plan:
    n: int
    failed_share: float
    seed: str
    near: NearConfig


class _Graph:
    """The traces' folded questions, the set's, and which of them are near-duplicates."""

    def __init__(self, norms: Sequence[str], known: Sequence[Known], near: NearConfig) -> None:
        self.known = {k.normalised for k in known if k.normalised}
        self.counts = Counter(t for t in norms if t)
        texts = list(dict.fromkeys([*self.known, *self.counts]))
        focus = [t in self.counts for t in texts]
        self.near: dict[str, list[str]] = {}
        for i, j, _ in near_pairs(texts, focus, near, Cache(None)):
            self.near.setdefault(texts[i], []).append(texts[j])
            self.near.setdefault(texts[j], []).append(texts[i])

    def repeats(self, text: str) -> int:
        return self.counts[text] - 1 + sum(self.counts[t] for t in self.near.get(text, ()))

    def reason(self, text: str, drawn: set[str]) -> str | None:
        if not text:
            return "no_words"
        if text in self.known:
            return "duplicate"
        if text in drawn:
            return "repeat"
        close = self.near.get(text, ())
        if any(t in self.known for t in close):
            return "near_duplicate"
        if any(t in drawn for t in close):
            return "near_repeat"
        return None


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
    graph = _Graph(norms, known, plan.near)
    flagged = calibration_size(plan.n, plan.failed_share)
    result = Draw(quota=(flagged, plan.n - flagged))
    result.flagged_pool = sum(t.flagged for t in traces)
    seen: set[str] = set()  # trace keys: a line repeated verbatim is one trace
    texts: set[str] = set()
    for stratum, pool in _pools(traces, plan.seed):
        wanted = plan.n - len(result.drawn) if stratum == RANDOM else flagged
        for i in pool:
            if wanted <= 0:
                break
            if traces[i].key in seen:
                continue  # drawn, or passed over, in the flagged pool
            seen.add(traces[i].key)
            picked = _consider(traces[i], questions[i], norms[i], stratum, graph, inbox, texts)
            if isinstance(picked, str):
                result.skipped[picked] += 1
                continue
            texts.add(norms[i])
            result.drawn.append(picked)
            wanted -= 1
    return result


def _pools(traces: Sequence[Trace], seed: str) -> list[tuple[str, list[int]]]:
    """The flagged traces and all traces, each in its own seeded order (ties, which do not
    happen in practice, by line)."""
    flagged = [i for i, t in enumerate(traces) if t.flagged]
    every = list(range(len(traces)))
    return [
        (FLAGGED, sorted(flagged, key=lambda i: (rank_key(traces[i].key, seed), i))),
        (RANDOM, sorted(every, key=lambda i: (rank_key(traces[i].key, f"{seed}/random"), i))),
    ]


def _consider(
    trace: Trace,
    question: str,
    text: str,
    stratum: str,
    graph: _Graph,
    inbox: set[str],
    drawn: set[str],
) -> Drawn | str:
    """The trace as drawn, or the reason it is passed over."""
    kept = draft_id(trace.key, trace.asked.at if trace.asked else None, ()) in inbox
    if not kept:
        reason = graph.reason(text, drawn)
        if reason is not None:
            return reason
    return Drawn(trace, question, stratum, graph.repeats(text) if text else 0, kept)
