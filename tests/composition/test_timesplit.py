"""The time split (docs/split.md, "By time"): with ``[split] by_time = true``, GC513 on every
golden case asked before the newest dev case; ``goldcase stats`` shows both sets' ranges."""

from __future__ import annotations

import json

import pytest

from checks.kit import Repo, brief, family_findings
from composition.kit import case
from kit import run_cli


def dated(case_id: str, asked: str | None) -> str:
    return case(case_id, extra=f'asked_at: "{asked}"' if asked else "")


BY_TIME = "[split]\nby_time = true\n"


def repo(make_repo: Repo, golden: dict[str, str | None], dev: dict[str, str | None]) -> Repo:
    files = {f"cases/golden/{i}.yaml": dated(i, a) for i, a in golden.items()}
    files |= {f"cases/dev/{i}.yaml": dated(i, a) for i, a in dev.items()}
    root = make_repo(files)
    (root / "goldcase.toml").write_text(BY_TIME, encoding="utf-8")
    return root


def test_golden_cases_asked_after_every_dev_case_pass(make_repo: Repo) -> None:
    root = repo(
        make_repo,
        {"g1": "2026-03-02T09:00:00Z", "g2": "2026-03-10"},
        {"d1": "2026-02-01", "d2": "2026-03-01T23:59:00Z"},
    )
    assert [f for f in family_findings(root, "composition") if f.code == "GC513"] == []


def test_a_golden_case_older_than_the_newest_dev_case_is_gc510_at_its_asked_at(
    make_repo: Repo,
) -> None:
    root = repo(
        make_repo,
        {"g1": "2026-02-03T10:00:00+01:00", "g2": "2026-03-10", "g3": None},
        {"d1": "2026-02-01", "d2": "2026-02-10T08:00:00Z", "d3": None},
    )
    found = [f for f in family_findings(root, "composition") if f.code == "GC513"]
    assert brief(found) == [("cases/golden/g1.yaml", 9, 11, "GC513", "error")]
    assert found[0].message == (
        "golden case asked 2026-02-03T09:00:00Z, before the newest dev case d2 (asked "
        "2026-02-10T08:00:00Z); with [split] by_time, golden cases come from the latest "
        "traffic: move this case to cases/dev/, or the dev case out of the way"
    )


@pytest.mark.parametrize(
    ("golden", "dev", "reported"),
    [
        ("2026-03-01", "2026-03-01T10:00:00Z", False),  # the same day: neither is older
        ("2026-03-01T09:59:00Z", "2026-03-01T10:00:00Z", True),
        ("2026-03-01T11:00:00+02:00", "2026-03-01T10:00:00Z", True),  # 09:00 UTC
        ("2026-03-01T10:00:00", "2026-03-01T10:00:00Z", False),  # no offset: UTC; equal
        ("2026-02-28", "2026-03-01", True),
    ],
)
def test_moments_compare_on_the_precision_both_carry(
    make_repo: Repo, golden: str, dev: str, reported: bool
) -> None:
    root = repo(make_repo, {"g1": golden}, {"d1": dev})
    found = [f for f in family_findings(root, "composition") if f.code == "GC513"]
    assert bool(found) is reported


def test_without_by_time_nothing_is_checked(make_repo: Repo) -> None:
    root = repo(make_repo, {"g1": "2026-01-01"}, {"d1": "2026-02-01"})
    (root / "goldcase.toml").write_text("", encoding="utf-8")
    assert [f for f in family_findings(root, "composition") if f.code == "GC513"] == []


def test_no_dated_dev_case_nothing_to_compare(make_repo: Repo) -> None:
    root = repo(make_repo, {"g1": "2026-01-01"}, {"d1": None})
    assert [f for f in family_findings(root, "composition") if f.code == "GC513"] == []


def test_by_time_must_be_true_or_false(make_repo: Repo) -> None:
    root = repo(make_repo, {}, {})
    (root / "goldcase.toml").write_text('[split]\nby_time = "yes"\n', encoding="utf-8")
    result = run_cli("check", "--repo", root)
    assert result.exit_code == 2
    assert "by_time should be bool, got str" in result.stderr


def test_stats_shows_both_ranges(make_repo: Repo) -> None:
    root = repo(
        make_repo,
        {"g1": "2026-03-02T09:00:00Z", "g2": "2026-03-10", "g3": None},
        {"d1": "2026-02-01", "d2": "2026-03-01T23:59:00Z"},
    )
    data = json.loads(run_cli("stats", "--repo", root, "--format", "json").stdout)
    assert data["asked_at"] == {
        "golden": {"first": "2026-03-02T09:00:00Z", "last": "2026-03-10", "dated": 2, "cases": 3},
        "dev": {"first": "2026-02-01", "last": "2026-03-01T23:59:00Z", "dated": 2, "cases": 2},
        "by_time": True,
    }
    text = " ".join(run_cli("stats", "--repo", root).stdout.split())  # rich wraps at 120
    assert (
        "asked (asked_at): golden 2026-03-02T09:00:00Z to 2026-03-10 (2 of 3 dated); "
        "dev 2026-02-01 to 2026-03-01T23:59:00Z (2 of 2 dated); time split checked"
    ) in text


def test_stats_says_when_no_case_is_dated(make_repo: Repo) -> None:
    root = make_repo({"cases/golden/g1.yaml": case("g1")})
    text = run_cli("stats", "--repo", root, "--format", "markdown").stdout
    assert (  # Markdown: underscores and brackets escaped
        "- asked (asked\\_at): golden: none of 1 dated; dev: none of 0 dated; "
        "time split not checked (\\[split\\] by\\_time)"
    ) in text
