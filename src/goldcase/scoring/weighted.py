"""Traffic-weighted task success: what users would see, estimated from a stratified set.

The golden set is filled slice by slice to a floor, so its own mix of slices is not the
traffic's, and its unweighted pass rate estimates nothing about traffic. Each slice's rate is
an estimate for that slice; weighted by the slices' shares of traffic (renormalised over the
slices that take part) they estimate the rate over traffic:

    p_w = sum W_s p_s,    Var(p_w) = sum W_s^2 p_s (1 - p_s) / n_s.

The 95% interval is a **stratified Wilson interval**: the Wilson score interval around p_w with
the number of cases replaced by the effective number of cases (Kish's design effect, as Korn
and Graubard 1998 use it for the Clopper-Pearson interval),

    n_eff = p~ (1 - p~) / sum W_s^2 p~_s (1 - p~_s) / n_s,    p~ = sum W_s p~_s,

where p~_s = (x_s + z^2/2) / (n_s + z^2) is each slice's Agresti-Coull-adjusted rate: a slice
at 0 or n successes still counts as uncertain, so n_eff stays defined and the interval never
collapses. n_eff is capped at the number of cases taking part. With a single slice n_eff = n_s
and the interval is exactly that slice's Wilson interval. Coverage, measured by
``scripts/sim_weighted.py`` and quoted in docs/score.md, stays near 95% for slices of 20.

Slices take part when they have a share, are not ambiguous and have at least one case.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from goldcase.config import Config
from goldcase.scoring.metrics import Z95, SliceStats, wilson_at

METHOD = "stratified Wilson on the effective number of cases"
SHARE_TOLERANCE = 1e-6


class Stratum(Struct, frozen=True):
    name: str
    total: int
    success: int
    share: float  # the traffic share, before renormalising


def weighted_rate(
    strata: list[Stratum], z: float = Z95
) -> tuple[float, tuple[float, float], float]:
    """(p_w, its 95% stratified Wilson interval, the effective number of cases)."""
    weight = sum(s.share for s in strata)
    value = sum(s.share * (s.success / s.total) for s in strata) / weight
    adjusted = variance = 0.0
    for s in strata:
        w = s.share / weight
        p = (s.success + z * z / 2) / (s.total + z * z)
        adjusted += w * p
        variance += w * w * p * (1 - p) / s.total
    cases = sum(s.total for s in strata)
    n_eff = min(float(cases), adjusted * (1 - adjusted) / variance)
    return value, wilson_at(value, n_eff, z), n_eff


def weighted_block(slices: Mapping[str, SliceStats]) -> dict[str, Any] | None:
    """The report's ``weighted`` block; None when no slice has a traffic share."""
    shared = {name: s for name, s in slices.items() if s.traffic is not None}
    if not shared:
        return None
    strata = [
        Stratum(name, s.total, s.success, s.traffic)
        for name, s in shared.items()
        if s.traffic and not s.ambiguous and s.total
    ]
    block: dict[str, Any] = {
        "value": None,
        "interval": None,
        "effective_cases": None,
        "method": METHOD,
        "slices": [s.name for s in strata],
        "shares_sum": _round(sum(s.share for s in strata)),
    }
    if strata:
        value, interval, n_eff = weighted_rate(strata)
        block.update(value=value, interval=list(interval), effective_cases=_round(n_eff))
    return block


def share_warnings(config: Config, report: Mapping[str, Any]) -> list[str]:
    """What a reader of the weighted rate should know: a slice with a share but no case scored
    (left out, so the shares of the others are scaled up to cover it), and shares that do not
    sum to 1."""
    shares = {name: s.traffic for name, s in config.slices.items() if s.traffic is not None}
    scored = report.get("slices") or {}
    out = [
        f"slice {name!r} has a traffic share of {share:g} but no case in this split; the "
        "weighted rate leaves it out and scales the other shares up"
        for name, share in sorted(shares.items())
        if share > 0 and not (scored.get(name) or {}).get("total")
    ]
    total = sum(shares.values())
    if shares and not math.isclose(total, 1.0, abs_tol=SHARE_TOLERANCE):
        out.append(
            f"the traffic shares in the config sum to {total:.4g}, not 1; the weighted rate "
            "renormalises them, but check [slices.<name>] traffic in goldcase.toml"
        )
    return out


def _round(value: float) -> float:
    return round(value, 6)
