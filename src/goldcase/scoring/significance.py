"""The paired tests of the comparison gate, and the correction for testing many slices.

**The sign-flip test.** Two runs are paired case by case; each case gives a difference d =
HEAD's pass share minus BASE's (passes / trials, or 0 / 1 for a run without trials). Under "no
change", base and head are exchangeable for each case, so each non-zero difference is as
likely to carry either sign, and the 2^n sign patterns of the n non-zero differences are
equally likely. The one-sided p-value for "HEAD is worse" is the share of patterns whose sum is
at or below the observed sum.

The differences are fractions whose denominators are trial counts, so scaled by their least
common denominator they are integers, and the number of patterns reaching each sum is a
coefficient of the polynomial prod (1 + x^v) over the scaled magnitudes v. That polynomial is
multiplied exactly, with Python integers (its coefficients packed side by side into one
integer, so the C big-integer arithmetic does the convolution), for any n. Only when the packed
integer would pass ``EXACT_BITS`` (thousands of cases with mixed trial counts) is the p-value a
normal approximation with a continuity correction, and it is then labelled as one.

With single runs every difference is +1 or -1 and the test *is* the exact McNemar test: the
count of patterns is a binomial tail.

**Holm's step-down correction** keeps the chance that any test of a family rejects a true
"no change" at or under alpha, whatever the dependence between the tests. These tests are
discrete: a slice in which only k cases changed can reach no p-value below 2^-k, however they
changed. **Tarone's rule** (Tarone 1990, "A modified Bonferroni method for discrete data")
leaves such tests out of the count: with K the smallest number for which at most K tests can
reach alpha / K, only those tests form the family, and Holm runs over them. Which tests can
reach what depends only on how many cases changed, not on which way, so choosing the family
this way keeps the family-wise error at or under alpha; a test left out is never significant
(its adjusted p-value is 1).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from msgspec import Struct

# The exact count is given up past this many bits in the packed polynomial (512 KiB; about a
# thousand paired cases with 5 to 10 trials each): there the product takes about half a second
# on one core, and grows faster than the number of bits beyond it, while the normal
# approximation is already within about 1e-4 of the exact value.
EXACT_BITS = 1 << 22


class Tail(Struct, frozen=True):
    """A one-sided p-value and how it was computed."""

    p: float
    exact: bool = True

    @property
    def method(self) -> str:
        return "exact" if self.exact else "normal approximation, continuity-corrected"


def binomial_half_cdf(k: int, n: int) -> Fraction:
    """P(X <= k) for X ~ Binomial(n, 1/2), exactly."""
    if k < 0:
        return Fraction(0)
    if k >= n:
        return Fraction(1)
    tail, term = 0, 1  # term = C(n, i), stepped exactly: C(n, i + 1) = C(n, i) (n - i) / (i + 1)
    for i in range(k + 1):
        tail += term
        term = term * (n - i) // (i + 1)
    return Fraction(tail, 1 << n)


def mcnemar_lower(regressions: int, improvements: int) -> float:
    """One-sided exact McNemar p-value for "HEAD is worse": P(X >= regressions) for X ~
    Binomial(regressions + improvements, 1/2), which is P(X <= improvements)."""
    return float(binomial_half_cdf(improvements, regressions + improvements))


def mcnemar_exact(regressions: int, improvements: int) -> float:
    """Two-sided exact McNemar p-value: twice the smaller binomial tail of the discordant pairs
    at p = 1/2, capped at 1."""
    n = regressions + improvements
    return float(min(Fraction(1), 2 * binomial_half_cdf(min(regressions, improvements), n)))


def sign_flip_lower(differences: Sequence[Fraction | int]) -> Tail:
    """One-sided p-value that paired differences (HEAD minus BASE) are no lower than chance:
    the share of sign patterns of the non-zero differences whose sum is at most the observed
    sum."""
    scaled = _integers([d for d in differences if d != 0])
    if not scaled:
        return Tail(1.0)
    observed = sum(scaled)
    magnitudes = Counter(abs(v) for v in scaled)
    total = sum(abs(v) for v in scaled)
    # S = 2 U - total, where U is the sum of the magnitudes that keep a plus sign
    target = (observed + total) // 2
    n = len(scaled)
    if len(magnitudes) == 1:
        ((v, m),) = magnitudes.items()
        return Tail(float(binomial_half_cdf(target // v, m)))
    width = n + 1  # every count is at most 2^n, so n + 1 bits hold any count or sum of counts
    if (total + 1) * width > EXACT_BITS:
        return _normal_tail(observed, scaled)
    return Tail(_packed_tail(magnitudes, target, width) / (1 << n))


def sign_flip_two_sided(differences: Sequence[Fraction | int]) -> Tail:
    """Two-sided p-value of the same test: the null distribution is symmetric, so it is twice
    the lower tail at minus the absolute observed sum, capped at 1."""
    total = sum((Fraction(d) for d in differences), Fraction(0))
    mirrored = differences if total <= 0 else [-Fraction(d) for d in differences]
    lower = sign_flip_lower(mirrored)
    return Tail(min(1.0, 2 * lower.p), lower.exact)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: a test rejects at family-wise
    level alpha when its adjusted p-value is at most alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def min_p(changed: int) -> float:
    """The smallest one-sided p-value the exact test can give when ``changed`` cases changed:
    every difference negative, one pattern of 2^changed."""
    return 1.0 if changed == 0 else 2.0**-changed


def tarone_family(attainable: Sequence[float], alpha: float) -> list[int]:
    """The tests that count (their indices): Tarone's K is the smallest K for which at most K
    tests can reach a p-value of alpha / K (K = the number of tests always qualifies)."""
    for k in range(1, len(attainable) + 1):
        able = [i for i, p in enumerate(attainable) if p <= alpha / k]
        if len(able) <= k:
            return able
    return []


def tarone_holm(
    p_values: Sequence[float], attainable: Sequence[float], alpha: float
) -> list[float]:
    """Holm-adjusted p-values over Tarone's family, in the order given; 1 for a test outside
    it. A test rejects at family-wise level alpha when its adjusted p-value is at most alpha."""
    family = tarone_family(attainable, alpha)
    adjusted = [1.0] * len(p_values)
    for i, value in zip(family, holm([p_values[i] for i in family]), strict=True):
        adjusted[i] = value
    return adjusted


def _integers(differences: list[Fraction | int]) -> list[int]:
    """The differences scaled to coprime integers (same signs, same ratios)."""
    if not differences:
        return []
    if all(isinstance(d, int) for d in differences):  # single runs: +1 and -1, no fractions
        scaled = [int(d) for d in differences]
    else:
        fractions = [Fraction(d) for d in differences]
        lcd = math.lcm(*(d.denominator for d in fractions))
        scaled = [int(d * lcd) for d in fractions]
    common = math.gcd(*scaled)
    return [v // common for v in scaled]


def _packed_tail(magnitudes: Counter[int], target: int, width: int) -> int:
    """The number of sign patterns whose plus-signed magnitudes sum to at most ``target``: the
    sum of the first target + 1 coefficients of prod (1 + x^v)^m, with x = 2^width."""
    poly = 1
    for v, m in sorted(magnitudes.items()):
        poly *= ((1 << (v * width)) + 1) ** m
    low = poly & ((1 << ((target + 1) * width)) - 1)
    # the sum of the packed coefficients, by casting out (2^width - 1): the sum is at most 2^n,
    # which is less than 2^width - 1, so the remainder is the sum itself
    return low % ((1 << width) - 1)


def _normal_tail(observed: int, scaled: Sequence[int]) -> Tail:
    """P(S <= observed) by the normal approximation to the sign-flip sum (mean 0, variance the
    sum of squares), corrected by half the lattice step of S (sums move in steps of 2)."""
    sd = math.sqrt(sum(v * v for v in scaled))
    return Tail(0.5 * math.erfc(-(observed + 1) / sd / math.sqrt(2)), exact=False)
