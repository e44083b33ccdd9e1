"""Fixture folders, discovered: every file under tests/data/valid/<family>/ passes that family;
every file under tests/data/invalid/<family>/ gives exactly the findings in the ``.expected``
file beside it (``LINE:COL CODE text-the-message-contains``, one line per finding)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase import checks
from kit import DATA, run_cli

CASE_SUFFIXES = (".yaml", ".yml")
WARNINGS = {code for code, (_, severity, _) in checks.all_codes().items() if severity == "warning"}


def _fixtures(kind: str) -> list[Path]:
    return sorted(p for p in (DATA / kind).glob("*/*") if p.suffix in CASE_SUFFIXES)


def _ids(paths: list[Path]) -> list[str]:
    return [f"{p.parent.name}/{p.name}" for p in paths]


def _check(make_repo: Callable[..., Path], fixture: Path) -> tuple[Path, list[str], int]:
    root = make_repo()
    target = root / "cases" / "golden" / fixture.name
    shutil.copyfile(fixture, target)
    family = fixture.parent.name
    result = run_cli("check", "--repo", root, "--select", family, target)
    lines = result.stdout.splitlines()[:-1]  # the last line is the summary
    return target, lines, result.exit_code


@pytest.mark.parametrize("fixture", _fixtures("valid"), ids=_ids(_fixtures("valid")))
def test_valid_fixture_has_no_findings(make_repo: Callable[..., Path], fixture: Path) -> None:
    _, lines, code = _check(make_repo, fixture)
    assert lines == []
    assert code == 0


@pytest.mark.parametrize("fixture", _fixtures("invalid"), ids=_ids(_fixtures("invalid")))
def test_invalid_fixture_gives_expected_findings(
    make_repo: Callable[..., Path], fixture: Path
) -> None:
    expected_file = fixture.with_suffix(".expected")
    expected = [line for line in expected_file.read_text("utf-8").splitlines() if line.strip()]
    _, lines, code = _check(make_repo, fixture)
    rel = f"cases/golden/{fixture.name}"
    assert len(lines) == len(expected), lines
    for got, want in zip(lines, expected, strict=True):
        position, code_name, text = ([*want.split(" ", 2), ""])[:3]
        line, col = position.split(":")
        assert got.startswith(f"{rel}:{line}:{col}: {code_name} "), got
        assert text in got, got
    codes = {want.split(" ")[1] for want in expected}
    assert code == (0 if codes <= WARNINGS else 1)


def test_every_invalid_fixture_has_expected_output() -> None:
    for fixture in _fixtures("invalid"):
        assert fixture.with_suffix(".expected").is_file(), fixture
