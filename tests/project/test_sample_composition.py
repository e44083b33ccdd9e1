"""The sample set shipped in this repository passes its own composition, privacy and probe
rules."""

from __future__ import annotations

import pytest

from goldcase.cache import Cache
from goldcase.composition.stats import compute
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import run_checks
from kit import REPO_ROOT

GOLDEN = REPO_ROOT / "cases" / "golden"
COUNT = len(list(GOLDEN.glob("*.yaml"))) if GOLDEN.is_dir() else 0
pytestmark = pytest.mark.skipif(
    COUNT < 120, reason=f"the sample set is not complete yet: {COUNT} of 120 golden cases"
)


def test_no_composition_privacy_or_probe_findings() -> None:
    """Every probe holds, every answerable golden case has a fail probe, every slice holds both
    outcomes, every resolution names who decided (issue 24)."""
    ctx = Context(load_config(REPO_ROOT), Cache(None))
    found = run_checks(ctx, ["composition", "privacy", "probes"]).findings
    assert [f"{f.path}:{f.line}:{f.col}: {f.code} {f.message}" for f in found] == []


def test_every_reported_slice_meets_its_floor_and_cap() -> None:
    stats = compute(Context(load_config(REPO_ROOT), Cache(None)))
    assert len(stats["slices"]) >= 5  # issue 3: at least five slices of 20 or more
    for row in stats["slices"]:
        assert row["cases"] >= 20, row
        assert row["synthetic_share"] <= 0.2, row
    assert stats["unanswerable_share"] >= 0.25
    assert stats["splits"]["golden"]["false_premise"] >= 15
