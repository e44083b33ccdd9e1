"""Counts, rates with named denominators, Wilson intervals, and the SQuAD answer metrics. Pure
functions over graded cases; no I/O. (The traffic-weighted rate is in ``scoring.weighted``.)

| name | numerator / denominator |
|---|---|
| task_success | success / total |
| answer_coverage | answered / total |
| answered_accuracy | correct_answers / answered |
| slice rate | success in the slice / total in the slice |

A rate whose denominator is 0 is ``None`` (null in JSON), never 0. Errors and missing results
stay in every denominator.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import attrgetter

from msgspec import Struct

from goldcase.config import Config
from goldcase.scoring.outcomes import Graded

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal

Interval = tuple[float, float]


def rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def wilson(successes: int, n: int, z: float = Z95) -> Interval | None:
    """The Wilson score interval for a binomial proportion (None when n is 0)."""
    if n == 0:
        return None
    return wilson_at(successes / n, n, z)


def wilson_at(p: float, n: float, z: float = Z95) -> Interval:
    """The Wilson score interval around a rate ``p`` observed on ``n`` cases, where ``n`` may be
    an effective number of cases (not a whole number). n must be positive."""
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z2 / (4 * n * n)) / denominator
    # at a rate of 0 or 1 the bound is exactly 0 or 1; floating point would miss it by 1e-17
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return (low, high)


class Counts(Struct, frozen=True):
    total: int = 0
    success: int = 0
    answered: int = 0
    correct_answers: int = 0
    errors: int = 0
    missing: int = 0

    def rates(self) -> dict[str, float | None]:
        return {
            "task_success": rate(self.success, self.total),
            "answer_coverage": rate(self.answered, self.total),
            "answered_accuracy": rate(self.correct_answers, self.answered),
        }

    def intervals(self) -> dict[str, Interval | None]:
        return {
            "task_success": wilson(self.success, self.total),
            "answer_coverage": wilson(self.answered, self.total),
            "answered_accuracy": wilson(self.correct_answers, self.answered),
        }


_OUTCOME_PASSED = attrgetter("outcome", "passed")
_SLICE_PASSED = attrgetter("slice", "passed")


def count(graded: Iterable[Graded]) -> Counts:
    # the cases tallied by (outcome, passed) in C, then the few kinds added up here
    total = success = answered = correct = errors = missing = 0
    for (outcome, passed), n in Counter(map(_OUTCOME_PASSED, graded)).items():
        total += n
        success += passed * n
        if outcome == "answer":
            answered += n
            correct += passed * n
        elif outcome == "error":
            errors += n
        elif outcome == "missing":
            missing += n
    return Counts(total, success, answered, correct, errors, missing)


class SliceStats(Struct, frozen=True):
    total: int
    success: int
    traffic: float | None
    floor: int
    ambiguous: bool

    @property
    def rate(self) -> float | None:
        return rate(self.success, self.total)

    def as_dict(self) -> dict[str, object]:
        interval = wilson(self.success, self.total)
        return {
            "total": self.total,
            "success": self.success,
            "rate": self.rate,
            "interval": None if interval is None else list(interval),
            "traffic": self.traffic,
            "floor": self.floor,
            "ambiguous": self.ambiguous,
        }


def slice_stats(graded: Iterable[Graded], config: Config) -> dict[str, SliceStats]:
    """Per slice (sorted by name): total, success, and what the config says about it."""
    totals: Counter[str] = Counter()
    successes: Counter[str] = Counter()
    for (name, passed), n in Counter(map(_SLICE_PASSED, graded)).items():  # tallied in C
        totals[name] += n
        successes[name] += passed * n
    out: dict[str, SliceStats] = {}
    for name in sorted(totals):
        own = config.slices.get(name)
        out[name] = SliceStats(
            total=totals[name],
            success=successes[name],
            traffic=None if own is None else own.traffic,
            floor=config.slice_floor(name),
            ambiguous=name in config.ambiguous_slices,
        )
    return out


# Exact match and token F1 are those of the SQuAD v2.0 evaluation script (evaluate-v2.0.py):
# its normalize_answer lower-cases, deletes the characters of string.punctuation (ASCII only),
# replaces the words a / an / the by a space (re's Unicode word boundaries) and splits on white
# space. Nothing else is folded: "Café" and "café’s" keep their accent and curly apostrophe,
# unlike the pass rule's matching (goldcase.text.normalise_answer, with Unicode folding).
# (The punctuation is deleted by an expression: str.translate deletes through a lookup per
# character, half again the instructions.)
_SQUAD_PUNCTUATION = re.compile("[" + re.escape(string.punctuation) + "]+")
_SQUAD_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def squad_tokens(text: str) -> list[str]:
    """``normalize_answer(text).split()`` of the SQuAD v2.0 evaluation script."""
    return _SQUAD_ARTICLES.sub(" ", _SQUAD_PUNCTUATION.sub("", text.lower())).split()


def exact_match(prediction: str, truth: str) -> float:
    """SQuAD v2.0's exact match (``compute_exact``)."""
    return float(squad_tokens(prediction) == squad_tokens(truth))


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD v2.0's token F1 (``compute_f1``)."""
    return _f1(squad_tokens(prediction), squad_tokens(truth))


def _f1(predicted: list[str], expected: list[str]) -> float:
    if predicted == expected:  # both empty counts as a match, as in SQuAD
        return 1.0
    if not predicted or not expected:
        return 0.0
    left: dict[str, int] = {}  # the multiset intersection, without building two Counters
    for token in expected:
        left[token] = left.get(token, 0) + 1
    common = 0
    for token in predicted:
        if left.get(token, 0) > 0:
            left[token] -= 1
            common += 1
    if common == 0:
        return 0.0
    precision = common / len(predicted)
    recall = common / len(expected)
    return 2 * precision * recall / (precision + recall)


def answer_metrics(graded: Sequence[Graded]) -> tuple[float | None, float | None, int]:
    """Mean exact match, mean token F1 and their denominator: answered answerable cases with
    a free-text answer. Each text is normalised once."""
    truths: dict[str, list[str]] = {}
    em = f1 = 0.0
    n = 0
    for g in graded:
        if g.outcome != "answer" or not g.answerable or g.answer is None:
            continue
        if g.expected_answer is None:
            continue
        truth = truths.get(g.expected_answer)
        if truth is None:
            truth = truths[g.expected_answer] = squad_tokens(g.expected_answer)
        predicted = squad_tokens(g.answer)
        n += 1
        em += predicted == truth
        f1 += _f1(predicted, truth)
    if n == 0:
        return None, None, 0
    return em / n, f1 / n, n
