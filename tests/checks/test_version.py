"""The ``version`` check family (GC401-GC405) called directly, as ``goldcase check`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def _version_findings(root: Path, *paths: str) -> list[dict[str, object]]:
    named = [root / rel for rel in paths]
    done = run_cli("check", "--repo", root, "--select", "version", "--format", "json", *named)
    assert done.exit_code in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)["findings"]
    return found


@pytest.mark.parametrize(
    "change",
    ["edited", "added", "duplicate-id", "lock-damaged", "version-moved"],
)
def test_a_run_on_one_file_reports_what_the_whole_run_reports_on_it(
    tmp_path: Path, change: str
) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    assert _version_findings(root) == []  # fills the cache, the lock's table with it
    if change == "edited":
        write(root, "cases/golden/ret-002.yaml", case_text("ret-002", answer="a voucher"))
    elif change == "added":
        write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    elif change == "duplicate-id":  # the same id in a .yml beside the .yaml: the last one counts
        write(root, "cases/golden/ret-002.yml", case_text("ret-002", answer="a voucher"))
    elif change == "lock-damaged":
        write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
        write(root, "golden.lock", (root / "golden.lock").read_text()[:-40])
    else:
        write(root, "golden.version", "7\n")
        write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    whole = _version_findings(root)
    assert whole  # every change is a finding somewhere
    for path in sorted((root / "cases" / "golden").iterdir()):
        rel = path.relative_to(root).as_posix()
        for _ in range(2):  # computed, then from the cache
            assert _version_findings(root, rel) == [f for f in whole if f["path"] == rel]


def test_a_changed_lock_is_read_again(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    before = (root / "golden.lock").read_text()
    edited = "cases/golden/ret-002.yaml"
    write(root, edited, case_text("ret-002", answer="a voucher"))
    assert [f["code"] for f in _version_findings(root, edited)] == ["GC401"]
    run_cli("lock", "--repo", root)  # the lock now pins the edit
    assert _version_findings(root, edited) == []
    write(root, "golden.lock", before)  # back by hand, as a checkout would put it
    assert [f["code"] for f in _version_findings(root, edited)] == ["GC401"]
