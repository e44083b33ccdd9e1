"""The calibration / eval split of the golden set: stratified, seeded, and stable.

Every golden case goes to ``calibration`` (where an abstention threshold is fitted) or ``eval``
(where the fitted threshold is measured). The split is stratified on *answerable x slice*: each
stratum of ``size`` cases gets exactly ``floor(fraction * size + 1/2)`` calibration cases
(round half up, computed on exact fractions, never Python's banker's ``round``), so a stratum
of 5 at 0.5 gets 3, and a stratum of 5 at 0.4 gets 2.

Inside a stratum the cases are ranked by a keyed hash of their id,
``blake2b(id, key=str(seed), digest_size=16)``, and the lowest-ranked ones go to calibration.
No list is shuffled, so the split is the same on every machine and Python version, and adding
or removing one case moves at most one other case between the two halves (the one at the
boundary of its stratum).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from msgspec import Struct

from goldcase.errors import GoldcaseError
from goldcase.model import Case

CALIBRATION = "calibration"
EVAL = "eval"
SPLITS = (CALIBRATION, EVAL)

Stratum = tuple[bool, str]  # (answerable, slice)


def rank_key(case_id: str, seed: int | str) -> bytes:
    """The keyed hash that orders a stratum, for this split and for the second labeller's
    sample alike: the same bytes everywhere for one seed and id (blake2b keys stop at 64
    bytes, so a longer seed counts by its first 64)."""
    key = str(seed).encode("utf-8")[:64]
    return hashlib.blake2b(case_id.encode("utf-8"), key=key, digest_size=16).digest()


def calibration_size(size: int, fraction: float) -> int:
    """``floor(fraction * size + 1/2)``: round half up, on the exact decimal ``fraction``
    (``0.4`` is read as 2/5, not as the nearest binary float)."""
    exact = Fraction(repr(float(fraction))) * size + Fraction(1, 2)
    return math.floor(exact)


def check_fraction(fraction: float) -> None:
    if not (isinstance(fraction, int | float) and 0 <= fraction <= 1) or math.isnan(fraction):
        raise GoldcaseError(f"split fraction should be between 0 and 1, got {fraction!r}")


def strata(cases: Iterable[Case]) -> dict[Stratum, list[str]]:
    """Case ids by (answerable, slice)."""
    out: dict[Stratum, list[str]] = {}
    for case in cases:
        out.setdefault((case.answerable, case.slice), []).append(case.id)
    return out


def assign_split(cases: Sequence[Case], seed: int, fraction: float) -> dict[str, str]:
    """Case id -> ``"calibration"`` or ``"eval"``, for every case given."""
    check_fraction(fraction)
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        duplicate = sorted(i for i in set(ids) if ids.count(i) > 1)[0]
        raise GoldcaseError(f"two cases share the id {duplicate!r}; fix the set before splitting")
    out: dict[str, str] = {}
    for members in strata(cases).values():
        ranked = sorted(members, key=lambda case_id: (rank_key(case_id, seed), case_id))
        cut = calibration_size(len(ranked), fraction)
        for position, case_id in enumerate(ranked):
            out[case_id] = CALIBRATION if position < cut else EVAL
    return dict(sorted(out.items()))


class StratumSummary(Struct, frozen=True):
    answerable: bool
    slice: str
    size: int
    calibration: int

    @property
    def eval(self) -> int:
        return self.size - self.calibration


class SplitSummary(Struct, frozen=True):
    seed: int
    fraction: float
    assignment: Mapping[str, str]
    strata: tuple[StratumSummary, ...]

    def ids(self, name: str) -> list[str]:
        return [case_id for case_id, where in self.assignment.items() if where == name]

    def as_dict(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "fraction": self.fraction,
            "total": len(self.assignment),
            "calibration": len(self.ids(CALIBRATION)),
            "eval": len(self.ids(EVAL)),
            "strata": [
                {
                    "answerable": s.answerable,
                    "slice": s.slice,
                    "size": s.size,
                    "calibration": s.calibration,
                    "eval": s.eval,
                }
                for s in self.strata
            ],
            "cases": dict(self.assignment),
        }


def summarise_split(cases: Sequence[Case], seed: int, fraction: float) -> SplitSummary:
    """The split and, per stratum (slice order, answerable first), how many went where."""
    assignment = assign_split(cases, seed, fraction)
    rows = []
    for (answerable, name), members in sorted(strata(cases).items(), key=_stratum_order):
        calibration = sum(1 for case_id in members if assignment[case_id] == CALIBRATION)
        rows.append(StratumSummary(answerable, name, len(members), calibration))
    return SplitSummary(seed, fraction, assignment, tuple(rows))


def _stratum_order(item: tuple[Stratum, list[str]]) -> tuple[str, bool]:
    (answerable, name), _ = item
    return (name, not answerable)


def select(cases: Sequence[Case], split: str, seed: int, fraction: float) -> list[Case]:
    """The cases of one half (``calibration`` or ``eval``); ``all`` keeps every case."""
    if split == "all":
        return list(cases)
    if split not in SPLITS:
        raise GoldcaseError(f"unknown split {split!r}; choose calibration, eval or all")
    assignment = assign_split(cases, seed, fraction)
    return [case for case in cases if assignment[case.id] == split]
