"""``goldcase schema``: the case schema the case files' first line names, in the repository;
``goldcase lock`` refreshes a copy an upgrade left behind and leaves a repository without one
alone."""

from __future__ import annotations

from pathlib import Path

from kit import REPO_ROOT, golden_set, run_cli

SHIPPED = (REPO_ROOT / "schema" / "case.schema.json").read_bytes()


def test_schema_writes_the_copy_and_check_says_whether_it_is_current(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    missing = run_cli("schema", "--check", "--repo", root)
    assert (missing.exit_code, missing.stdout) == (
        1,
        "schema/case.schema.json is missing; run goldcase schema to write it\n",
    )
    written = run_cli("schema", "--repo", root)
    assert (written.exit_code, written.stdout) == (
        1,
        "wrote schema/case.schema.json; add it to the commit: git add schema/case.schema.json\n",
    )
    assert (root / "schema" / "case.schema.json").read_bytes() == SHIPPED
    current = run_cli("schema", "--check", "--repo", root)
    assert (current.exit_code, current.stdout) == (0, "schema/case.schema.json is current\n")
    (root / "schema" / "case.schema.json").write_text('{"title": "an older goldcase"}\n')
    stale = run_cli("schema", "--check", "--repo", root)
    assert (stale.exit_code, stale.stdout) == (
        1,
        "schema/case.schema.json is another goldcase's schema; run goldcase schema to write it\n",
    )


def test_lock_refreshes_a_stale_copy_and_leaves_none_alone(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    assert run_cli("lock", "--repo", root).exit_code == 1  # the first lock
    unchanged = run_cli("lock", "--repo", root)
    assert (unchanged.exit_code, unchanged.stdout) == (0, "golden.lock is up to date (version 1)\n")
    assert not (root / "schema").exists()  # no copy: lock does not start one
    (root / "schema").mkdir()
    (root / "schema" / "case.schema.json").write_text('{"title": "an older goldcase"}\n')
    refreshed = run_cli("lock", "--repo", root)
    assert refreshed.exit_code == 1  # a fixer changed a file: add it and commit again
    assert refreshed.stdout.splitlines() == [
        "golden.lock is up to date (version 1)",
        "wrote schema/case.schema.json (the installed goldcase's case schema); add it to the "
        "commit: git add schema/case.schema.json",
    ]
    assert (root / "schema" / "case.schema.json").read_bytes() == SHIPPED
