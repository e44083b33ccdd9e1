"""The ``version`` check family (GC401-GC405) called directly, as ``goldcase check`` does."""

from __future__ import annotations

from pathlib import Path

from goldcase.cache import Cache
from goldcase.checks import version
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.model import Finding
from kit import case_text, golden_set, run_cli, write


def findings(root: Path) -> list[Finding]:
    ctx = Context(load_config(root), Cache(None))
    return sorted(version.check(load_case_set(ctx), ctx))


def test_codes_are_the_gc4xx_range() -> None:
    assert version.NAME == "version"
    assert sorted(version.CODES) == ["GC401", "GC402", "GC403", "GC404", "GC405"]
    assert {severity for severity, _ in version.CODES.values()} == {"error"}


def test_silent_until_versioning_starts(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    assert findings(root) == []


def test_a_locked_set_passes_and_an_added_case_fails(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    assert findings(root) == []
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    assert findings(root) == [
        Finding(
            "cases/golden/ret-003.yaml",
            1,
            1,
            "GC401",
            "error",
            "golden case ret-003 added since golden.lock (version 1); run goldcase lock to "
            "bump golden.version",
        )
    ]


def test_version_file_with_two_lines(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    write(root, "golden.version", "1\n2\n")
    assert findings(root) == [
        Finding(
            "golden.version",
            1,
            1,
            "GC405",
            "error",
            "golden.version: expected one line holding the version, found 2; write the version "
            "on a single line",
        )
    ]
