"""goldcase stats: counts, the slice table and the standard error, in three formats."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from composition.kit import healthy_files
from goldcase.composition.stats import standard_error
from kit import run_cli

Repo = Callable[..., Path]


def test_standard_error_at_90_percent() -> None:
    # sqrt(0.9 * 0.1 / 20) = sqrt(0.0045) = 0.06708: 6.7 points on 20 items
    assert standard_error(20) == pytest.approx(0.06708, abs=1e-5)
    # 100 items: sqrt(0.0009) = 0.03
    assert standard_error(100) == pytest.approx(0.03)
    assert standard_error(0) is None
    assert math.isclose(standard_error(9) or 0, 0.1)


@pytest.fixture
def repo(make_repo: Repo) -> Path:
    root = make_repo(healthy_files())
    (root / "goldcase.toml").write_text(
        "[slices.returns]\ntraffic = 0.5\n\n[slices.refunds]\nfloor = 5\ntraffic = 0.1\n",
        encoding="utf-8",
    )
    return root


def test_json(repo: Path) -> None:
    result = run_cli("stats", "--repo", repo, "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    golden = data["splits"]["golden"]
    assert (golden["total"], golden["answerable"], golden["unanswerable"]) == (20, 15, 5)
    assert golden["false_premise"] == 2
    assert golden["source"] == {"hand-written": 16, "synthetic": 4}
    assert golden["tag"] == {"false_premise": 2}
    assert data["splits"]["dev"]["total"] == 1
    assert data["unanswerable_share"] == 0.25
    refunds, returns = data["slices"]
    assert refunds == {
        "slice": "refunds",
        "cases": 0,
        "floor": 5,
        "meets_floor": False,
        "synthetic": 0,
        "synthetic_share": None,
        "synthetic_ok": True,
        "set_share": 0.0,
        "traffic_share": 0.1,
        "se_at_90": None,
    }
    assert returns["cases"] == 20 and returns["meets_floor"] is True
    assert returns["synthetic_share"] == 0.2 and returns["synthetic_ok"] is True
    assert returns["set_share"] == 1.0 and returns["traffic_share"] == 0.5
    assert returns["se_at_90"] == pytest.approx(0.06708, abs=1e-5)


def test_markdown(repo: Path) -> None:
    result = run_cli("stats", "--repo", repo, "--format", "markdown")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "| refunds | 0/5 (under) | - | 0% | 10% | - |" in lines
    assert "| returns | 20/20 | 20% | 100% | 50% | ±6.7 pts |" in lines
    assert "| source: synthetic | 4 | 0 |" in lines
    assert "- unanswerable share of the golden set: 25% (floor 25%)" in lines


def test_text_has_no_colour_when_not_a_terminal(repo: Path) -> None:
    result = run_cli("stats", "--repo", repo)
    assert result.exit_code == 0
    assert "\x1b[" not in result.stdout
    assert "golden-set slices" in result.stdout
    assert "±6.7 pts" in result.stdout
    assert "0/5 (under)" in result.stdout


def test_ambiguous_slices_are_listed_not_reported(repo: Path) -> None:
    (repo / "goldcase.toml").write_text('ambiguous_slices = ["returns"]\n', encoding="utf-8")
    data = json.loads(run_cli("stats", "--repo", repo, "--format", "json").stdout)
    assert data["slices"] == []
    assert data["ambiguous_slices"] == ["returns"]
