"""Fit an abstention threshold with a finite-sample bound on the risk of wrong answers.

The risk controlled is the *selective* risk: among the cases the system answers at threshold
``t`` (confidence at least ``t``), the share whose answer is wrong. A threshold is certified
for a target risk ``A`` when the one-sided Clopper-Pearson upper bound on that share, at
confidence ``1 - delta / m``, is at most ``A``.

The search is the selection-with-guaranteed-risk procedure of Geifman and El-Yaniv (2017): the
distinct confidences are the candidate thresholds, highest first; a binary search over them
tests at most ``m = ceil(log2(candidates + 1))`` thresholds, and the union bound over those
tests is why each uses ``delta / m``. The search starts at the highest threshold that answers
enough cases for a bound within ``A`` to be possible at all (``cases_needed``): above it the
bound is too wide whatever the answers, and starting there would only send the search upwards,
away from every threshold that can pass. The lowest tested threshold whose bound is within
``A`` wins. If none is, or if even a run with no wrong answer at all could not certify ``A`` with
this many answers, the result is to abstain from everything.

The guarantee: if the calibration cases and the cases the threshold is later used on are
exchangeable (drawn alike from the same population), then with probability at least
``1 - delta`` the selective risk of the chosen threshold on new cases is at most its bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from msgspec import Struct, field

from goldcase.errors import GoldcaseError

Answer = tuple[float, bool]  # (confidence, passed) of one answered case


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space so large n does not overflow."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    base = math.lgamma(n + 1)
    terms = [
        math.exp(base - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q)
        for i in range(k + 1)
    ]
    return min(1.0, math.fsum(terms))


def clopper_pearson_upper(k: int, n: int, delta: float) -> float:
    """The one-sided upper confidence bound, at level 1 - delta, on a binomial proportion
    observed as k successes in n trials: the p at which P(X <= k) equals delta."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0 or k == n:
        return 1.0
    if k == 0:
        return 1.0 - delta ** (1.0 / n)
    lo, hi = k / n, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if binomial_cdf(k, n, mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return hi


class Step(Struct, frozen=True):
    """One tested threshold: how many cases it answers, how many of those are wrong."""

    threshold: float
    answered: int
    wrong: int
    bound: float
    certified: bool


class Calibration(Struct, frozen=True):
    target_risk: float
    delta: float
    total: int  # calibration cases, whatever their outcome
    threshold: float  # answers with a confidence under it count as abstentions
    answered: int  # answered at that threshold
    wrong: int
    bound: float | None  # upper bound on the selective risk; None when nothing is answered
    certified: bool
    reason: str  # one line: why this threshold
    steps: tuple[Step, ...] = field(default=())

    @property
    def coverage(self) -> float | None:
        return None if self.total == 0 else self.answered / self.total

    @property
    def risk(self) -> float | None:
        return None if self.answered == 0 else self.wrong / self.answered


def _check(target_risk: float, delta: float, total: int, answers: Sequence[Answer]) -> None:
    if not 0 < target_risk < 1:
        raise GoldcaseError(f"--target-risk should be between 0 and 1, got {target_risk}")
    if not 0 < delta < 1:
        raise GoldcaseError(f"--delta should be between 0 and 1, got {delta}")
    if total < len(answers):
        raise GoldcaseError(f"{len(answers)} answers for only {total} calibration cases")
    for confidence, _ in answers:
        if not 0 <= confidence <= 1:
            raise GoldcaseError(f"a confidence should be between 0 and 1, got {confidence}")


def search_tests(candidates: int) -> int:
    """How many thresholds the binary search may test: ceil(log2(candidates + 1))."""
    return max(1, math.ceil(math.log2(candidates + 1)))


def cases_needed(target_risk: float, delta: float) -> int:
    """The fewest answered cases that could certify ``target_risk`` even with no wrong
    answer: the smallest n with 1 - delta^(1/n) <= target_risk. Exact for a target so small
    (1e-320) that the float quotient overflows: a number of some 320 digits, not an error."""
    per_case = -math.log1p(-target_risk)
    needed = -math.log(delta) / per_case
    if math.isfinite(needed):
        return math.ceil(needed)
    return math.ceil(Fraction(-math.log(delta)) / Fraction(per_case))


def _many(count: int) -> str:
    """A count as written, or its order of magnitude past a trillion (``10^320``)."""
    return str(count) if count < 10**12 else f"10^{len(str(count)) - 1}"


def _step(answers: Sequence[Answer], threshold: float, level: float, target: float) -> Step:
    kept = [passed for confidence, passed in answers if confidence >= threshold]
    wrong = kept.count(False)
    bound = clopper_pearson_upper(wrong, len(kept), level)
    return Step(threshold, len(kept), wrong, bound, bound <= target)


def calibrate(
    answers: Sequence[Answer], total: int, target_risk: float, delta: float = 0.05
) -> Calibration:
    """Choose the lowest threshold whose selective risk is certified under ``target_risk``.

    ``answers`` holds (confidence, passed) for every calibration case the system answered;
    ``total`` counts every calibration case (abstentions, errors and missing results too).
    """
    _check(target_risk, delta, total, answers)
    candidates = sorted({confidence for confidence, _ in answers}, reverse=True)
    level = delta / search_tests(len(candidates))
    steps = _search(answers, candidates, level, target_risk)
    passing = [s for s in steps if s.certified]
    if not passing:
        return _abstain_all(answers, total, target_risk, delta, level, steps)
    best = min(passing, key=lambda s: s.threshold)
    reason = f"lowest tested threshold whose bound is within {target_risk:g}"
    return Calibration(
        target_risk, delta, total, best.threshold, best.answered, best.wrong, best.bound,
        True, reason, steps,
    )  # fmt: skip


def _search(
    answers: Sequence[Answer], candidates: Sequence[float], level: float, target: float
) -> tuple[Step, ...]:
    """The binary search over candidate thresholds (highest first), from the first one that
    answers enough cases for the bound to reach ``target``: every step it tested."""
    steps: list[Step] = []
    lo = _first_feasible(answers, candidates, cases_needed(target, level)) - 1
    hi = len(candidates)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        steps.append(_step(answers, candidates[mid], level, target))
        lo, hi = (mid, hi) if steps[-1].certified else (lo, mid)
    return tuple(steps)


def _first_feasible(answers: Sequence[Answer], candidates: Sequence[float], need: int) -> int:
    """The index of the highest candidate threshold that answers at least ``need`` cases:
    above it, even answers with no wrong one could not bring the bound down to the target."""
    confidences = sorted((confidence for confidence, _ in answers), reverse=True)
    if len(confidences) < need:
        return len(candidates)
    return candidates.index(confidences[need - 1])


def _abstain_all(
    answers: Sequence[Answer],
    total: int,
    target_risk: float,
    delta: float,
    level: float,
    steps: tuple[Step, ...],
) -> Calibration:
    top = max((confidence for confidence, _ in answers), default=0.0)
    threshold = 1.0 if top < 1.0 else math.nextafter(1.0, 2.0)
    best_possible = clopper_pearson_upper(0, len(answers), level)
    if best_possible > target_risk:
        need = cases_needed(target_risk, level)
        reason = (
            f"too few answered calibration cases to certify {target_risk:g}: {len(answers)} "
            f"answers with none wrong would still bound the risk at {best_possible:.3f}; "
            f"about {_many(need)} are needed at delta {delta:g}; abstaining from everything"
        )
    else:
        reason = (
            f"no tested threshold keeps the bound within {target_risk:g}; "
            "abstaining from everything"
        )
    return Calibration(target_risk, delta, total, threshold, 0, 0, None, False, reason, steps)


def answers_from_report(report: Mapping[str, Any]) -> tuple[list[Answer], int, int]:
    """(answers, total, unrated) from a report scored without a threshold: every answered case
    with its confidence and whether it passed, the number of cases, and the number of answers
    that gave no confidence (a threshold turns those into abstentions, so no threshold can
    keep them)."""
    answers: list[Answer] = []
    unrated = 0
    for case in report["cases"]:
        if case["outcome"] != "answer":
            continue
        if case.get("confidence") is None:
            unrated += 1
        else:
            answers.append((float(case["confidence"]), bool(case["passed"])))
    return answers, len(report["cases"]), unrated
