"""``goldcase schema``: the case schema the case files' first line names and the draft schema
the drafts' first line names, in the repository; ``goldcase lock`` refreshes copies an upgrade
left behind and leaves a repository without them alone."""

from __future__ import annotations

from pathlib import Path

from kit import REPO_ROOT, golden_set, run_cli

CASE = "schema/case.schema.json"
DRAFT = "schema/draft.schema.json"
SHIPPED = {rel: (REPO_ROOT / rel).read_bytes() for rel in (CASE, DRAFT)}


def test_schema_writes_the_copies_and_check_says_whether_they_are_current(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    missing = run_cli("schema", "--check", "--repo", root)
    assert (missing.exit_code, missing.stdout.splitlines()) == (
        1,
        [
            f"{CASE} is missing; run goldcase schema to write it",
            f"{DRAFT} is missing; run goldcase schema to write it",
        ],
    )
    written = run_cli("schema", "--repo", root)
    assert (written.exit_code, written.stdout) == (
        1,
        f"wrote {CASE} and {DRAFT}; add to the commit: git add {CASE} {DRAFT}\n",
    )
    for rel, shipped in SHIPPED.items():
        assert (root / rel).read_bytes() == shipped
    current = run_cli("schema", "--check", "--repo", root)
    assert (current.exit_code, current.stdout) == (0, f"{CASE} and {DRAFT} are current\n")
    (root / CASE).write_text('{"title": "an older goldcase"}\n')
    stale = run_cli("schema", "--check", "--repo", root)
    assert (stale.exit_code, stale.stdout) == (
        1,
        f"{CASE} is another goldcase's schema; run goldcase schema to write it\n",
    )
    rewritten = run_cli("schema", "--repo", root)
    assert rewritten.stdout == f"wrote {CASE}; add to the commit: git add {CASE}\n"
    assert (root / CASE).read_bytes() == SHIPPED[CASE]


def test_lock_refreshes_stale_copies_and_leaves_none_alone(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    assert run_cli("lock", "--repo", root).exit_code == 1  # the first lock
    unchanged = run_cli("lock", "--repo", root)
    assert (unchanged.exit_code, unchanged.stdout) == (0, "golden.lock is up to date (version 1)\n")
    assert not (root / "schema").exists()  # no copy: lock does not start one
    (root / "schema").mkdir()
    (root / CASE).write_text('{"title": "an older goldcase"}\n')  # and no draft schema yet
    refreshed = run_cli("lock", "--repo", root)
    assert refreshed.exit_code == 1  # a fixer changed a file: add it and commit again
    assert refreshed.stdout.splitlines() == [
        "golden.lock is up to date (version 1)",
        f"wrote {CASE} and {DRAFT} (the installed goldcase's schemas); add to the commit: "
        f"git add {CASE} {DRAFT}",
    ]
    for rel, shipped in SHIPPED.items():
        assert (root / rel).read_bytes() == shipped


def test_a_schema_folder_linked_out_of_the_repository_is_never_written(tmp_path: Path) -> None:
    """A cloned repository whose schema/ is a link elsewhere: lock (the version hook), schema
    and triage would have written goldcase's schemas outside the repository."""
    root = golden_set(tmp_path / "set")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "case.schema.json").write_text('{"title": "an older goldcase"}\n')
    (root / "schema").symlink_to(elsewhere)
    for args in (["schema"], ["lock"]):
        result = run_cli(*args, "--repo", root)
        assert result.exit_code == 2, result.stdout
        assert f"{CASE}: a link that leads outside the repository" in result.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["case.schema.json"]
    assert (elsewhere / "case.schema.json").read_text() == '{"title": "an older goldcase"}\n'
