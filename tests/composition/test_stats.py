"""goldcase stats: counts, the slice table and the standard error, in three formats."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from composition.kit import case, healthy_files
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


# -- bounded text and Markdown: the first 50 by name, then how many more ------------------------

MANY = 1_000  # configured slices, none with a case: each under its floor


@pytest.fixture
def many_slices(make_repo: Repo) -> Path:
    """The healthy set (slice 'returns') and 1,000 configured slices, s0000 to s0999."""
    root = make_repo(healthy_files())
    tables = "".join(f"[slices.s{i:04d}]\ntraffic = 0.0001\n\n" for i in range(MANY))
    (root / "goldcase.toml").write_text(tables, encoding="utf-8")
    return root


def _slice_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip("│| ").startswith(("s0", "returns"))]


def test_text_lists_the_first_50_slices_by_name_and_how_many_more(many_slices: Path) -> None:
    result = run_cli("stats", "--repo", many_slices)
    assert result.exit_code == 0
    rows = _slice_lines(result.stdout)
    # by name: 'returns' sorts before 's0000'
    assert len(rows) == 50
    assert "returns" in rows[0] and "s0000" in rows[1] and "s0048" in rows[-1]
    assert "s0049" not in result.stdout
    more = "… and 951 more slices (951 under their floor, 0 over the synthetic cap); "
    assert more + "--format json lists them all" in result.stdout.splitlines()
    assert len(result.stdout.splitlines()) < 100


def test_markdown_lists_the_first_50_slices_and_how_many_more(many_slices: Path) -> None:
    result = run_cli("stats", "--repo", many_slices, "--format", "markdown")
    assert result.exit_code == 0
    rows = [line for line in result.stdout.splitlines() if line.startswith(("| s0", "| returns"))]
    assert len(rows) == 50
    assert rows[-1].startswith("| s0048 | 0/20 (under) |")
    assert any(
        line.startswith("… and 951 more slices (951 under") for line in result.stdout.splitlines()
    )


def test_json_lists_every_slice(many_slices: Path) -> None:
    data = json.loads(run_cli("stats", "--repo", many_slices, "--format", "json").stdout)
    assert len(data["slices"]) == MANY + 1
    assert data["slices"][-1]["slice"] == "s0999"


def test_counts_show_50_names_of_a_group_and_add_up_the_rest(make_repo: Repo) -> None:
    files = {
        f"cases/golden/c{i:02d}.yaml": case(f"c{i:02d}", slice_name=f"t{i:02d}") for i in range(60)
    }
    files["cases/dev/d1.yaml"] = case("d1", slice_name="t59")
    root = make_repo(files)
    lines = run_cli("stats", "--repo", root, "--format", "markdown").stdout.splitlines()
    assert "| slice: t49 | 1 | 0 |" in lines
    assert "| slice: t50 | 1 | 0 |" not in lines
    assert "| slice: … and 10 more | 10 | 1 |" in lines


def test_known_ambiguous_slices_are_listed_to_50(repo: Path) -> None:
    names = ", ".join(f'"a{i:03d}"' for i in range(70))
    (repo / "goldcase.toml").write_text(f"ambiguous_slices = [{names}]\n", encoding="utf-8")
    text = run_cli("stats", "--repo", repo, "--format", "markdown").stdout
    listed = next(line for line in text.splitlines() if "known-ambiguous" in line)
    assert listed.endswith("a048, a049, … and 20 more")
    assert "a050" not in listed


def test_a_long_slice_name_is_cut_at_80_characters(repo: Path) -> None:
    name = "x" * 10_000
    (repo / "goldcase.toml").write_text(f"[slices.{name}]\nfloor = 1\n", encoding="utf-8")
    lines = run_cli("stats", "--repo", repo, "--format", "markdown").stdout.splitlines()
    assert f"| {'x' * 79}… | 0/1 (under) | - | 0% | - | - |" in lines
    data = json.loads(run_cli("stats", "--repo", repo, "--format", "json").stdout)
    assert data["slices"][-1]["slice"] == name
