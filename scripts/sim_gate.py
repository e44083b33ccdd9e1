#!/usr/bin/env python3
"""The comparison gate's false-alarm rate and power, by simulation: the table in
docs/compare.md.

    python scripts/sim_gate.py                 # the table (2,000 replicates a cell)
    python scripts/sim_gate.py --reps 500      # quicker, noisier

Two runs of a system, BASE and HEAD, are simulated on a golden set of k slices of n cases each
(k = 1, 6, 10; n = 20, 50), and `goldcase compare`'s gate (``goldcase.scoring.compare.judge``,
the function the command calls, at --max-drop 5 and --alpha 0.05) decides on them. A fresh set
of cases is drawn for every replicate. The systems:

- **coin**: every case passes with probability 0.8 in every run, independently: the noisiest
  system with that pass rate (two runs of it disagree on 32% of cases);
- **stable**: 80% of cases pass with probability 0.97 and 20% with 0.05 (pass rate 0.786):
  most answers reproduce, a few cases are flaky.

The changes: **none** (HEAD is the same system: every failure of the gate is a false alarm),
and a **collapse** of 15, 30 or 40 points in one slice: in HEAD each case of that slice breaks
(never passes) with probability points / (100 x the system's pass rate), so the slice's
expected pass rate drops by that many points. The share of replicates in which the gate fails
is its false-alarm rate (no change) or its power (a collapse).

Runs are single (one answer a case) or trials (5 answers a case in each run; the gate then
compares mean pass rates with the sign-flip test). For unchanged systems the old rule is shown
beside the gate: a slice failed when its point estimate dropped more than 5 points, or overall
task success dropped with a two-sided McNemar p at most 0.05.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from goldcase.scoring.compare import judge
from goldcase.scoring.paired import Pair, measure
from goldcase.scoring.significance import mcnemar_exact

MAX_DROP = 5.0
ALPHA = 0.05
TRIALS = 5
SLICES = (1, 6, 10)
SIZES = (20, 50)
COLLAPSES = (15, 30)


@dataclass(frozen=True, slots=True)
class System:
    name: str
    draw: Callable[[random.Random], float]  # a case's pass probability
    rate: float  # the mean of draw


SYSTEMS = {
    "coin": System("coin", lambda rng: 0.8, 0.8),
    "stable": System("stable", lambda rng: 0.97 if rng.random() < 0.8 else 0.05, 0.786),
}


@dataclass(frozen=True, slots=True)
class Cell:
    system: str
    slices: int
    size: int
    collapse: int  # points; 0: no change
    trials: int  # answers a case in each run; 1: single runs


def _passes(rng: random.Random, p: float, trials: int) -> int:
    return sum(rng.random() < p for _ in range(trials))


def simulate_pairs(cell: Cell, rng: random.Random) -> list[Pair]:
    """One replicate: every case of every slice in BASE and HEAD."""
    system = SYSTEMS[cell.system]
    breaks = cell.collapse / 100 / system.rate
    pairs = []
    for s in range(cell.slices):
        for i in range(cell.size):
            p = system.draw(rng)
            after = 0.0 if s == 0 and cell.collapse and rng.random() < breaks else p
            before_n, after_n = _passes(rng, p, cell.trials), _passes(rng, after, cell.trials)
            pairs.append(
                Pair(
                    f"s{s}-{i}",
                    f"s{s}",
                    before_n == cell.trials,
                    after_n == cell.trials,
                    Fraction(before_n, cell.trials),
                    Fraction(after_n, cell.trials),
                    cell.trials,
                    cell.trials,
                )
            )
    return pairs


def gate_fails(pairs: Sequence[Pair], cell: Cell) -> bool:
    trials = cell.trials > 1
    names = sorted({p.slice for p in pairs})
    slices = [
        measure(name, [p for p in pairs if p.slice == name], trials, floor=cell.size)
        for name in names
    ]
    return not judge(pairs, slices, trials, MAX_DROP, ALPHA).passed


def old_rule_fails(pairs: Sequence[Pair]) -> bool:
    """The gate before: a slice's point estimate dropping more than MAX_DROP points, or
    overall task success dropping with a two-sided exact McNemar p at most ALPHA."""
    drops: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for p in pairs:
        drops[p.slice] = drops.get(p.slice, 0) + int(p.base) - int(p.head)
        sizes[p.slice] = sizes.get(p.slice, 0) + 1
    if any(100 * drops[s] / sizes[s] > MAX_DROP for s in drops):
        return True
    regressions = sum(p.base and not p.head for p in pairs)
    improvements = sum(p.head and not p.base for p in pairs)
    return regressions > improvements and mcnemar_exact(regressions, improvements) <= ALPHA


def rates(cell: Cell, reps: int, seed: int = 17, old: bool = False) -> tuple[int, int]:
    """(gate failures, old-rule failures) in ``reps`` seeded replicates of a cell."""
    rng = random.Random(f"{seed}:{cell}")
    failed = old_failed = 0
    for _ in range(reps):
        pairs = simulate_pairs(cell, rng)
        failed += gate_fails(pairs, cell)
        if old:
            old_failed += old_rule_fails(pairs)
    return failed, old_failed


def _pct(count: int, reps: int) -> str:
    return f"{100 * count / reps:.1f}%"


def table(reps: int, trials: Sequence[int], out: Callable[[str], object] = print) -> None:
    out(
        "| system | slices x cases | runs | unchanged: old rule | unchanged: gate | "
        "15-point collapse | 30-point collapse |"
    )
    out("|---|---|---|---|---|---|---|")
    for system in SYSTEMS:
        for k in SLICES:
            for n in SIZES:
                for t in trials:
                    row = _row(system, k, n, t, reps)
                    out("| " + " | ".join(row) + " |")


def _row(system: str, k: int, n: int, t: int, reps: int) -> list[str]:
    single = t == 1
    none, old = rates(Cell(system, k, n, 0, t), reps, old=single)
    powers = [rates(Cell(system, k, n, d, t), reps)[0] for d in COLLAPSES]
    return [
        system,
        f"{k} x {n}",
        "single" if single else f"{t} trials",
        _pct(old, reps) if single else "",
        _pct(none, reps),
        *(_pct(p, reps) for p in powers),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="replicates a cell")
    parser.add_argument("--no-trials", action="store_true", help="single runs only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    table(args.reps, (1,) if args.no_trials else (1, TRIALS))
    print(
        f"\n{args.reps} replicates a cell, seed 17; --max-drop {MAX_DROP:g}, --alpha {ALPHA:g}; "
        f"{time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
