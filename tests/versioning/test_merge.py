"""goldcase merge-driver: two branches that both bumped merge without a conflict."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldcase.authoring.scaffold import MERGE_DRIVER
from goldcase.versioning.merge import merge_tables, merge_versions
from kit import case_text, commit, git, git_set, goldcase, read_lock, read_version, run_cli, write


def driver_repo(root: Path) -> Path:
    git_set(root)
    write(root, ".gitattributes", "golden.version merge=goldcase\ngolden.lock merge=goldcase\n")
    commit(root, "attributes")
    assert goldcase(root, "merge-driver", "--install").returncode == 0
    assert git(root, "config", "merge.goldcase.driver").stdout.strip() == (
        "goldcase merge-driver -- %O %A %B %P"
    )
    return root


def branch_adding(root: Path, branch: str, case_id: str, start: str = "main") -> None:
    git(root, "checkout", "-q", "-b", branch, start)
    write(root, f"cases/golden/{case_id}.yaml", case_text(case_id))
    assert goldcase(root, "lock").returncode == 1
    commit(root, f"add {case_id}")


def test_two_bumping_branches_merge_without_a_conflict(tmp_path: Path) -> None:
    root = driver_repo(tmp_path / "set")
    branch_adding(root, "one", "ret-003")
    branch_adding(root, "two", "ret-004")
    assert read_version(root) == "2"
    merged = git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    # both sides moved 1 -> 2 and the merged set differs from each: the lock says 2 + 1
    assert sorted(read_lock(root)["cases"]) == ["ret-001", "ret-002", "ret-003", "ret-004"]
    assert read_lock(root)["version"] == "3"
    # git never calls a driver for a file both sides hold alike: golden.version is still 2
    assert read_version(root) == "2"
    check = run_cli("lock", "--check", "--repo", root)
    assert check.stdout.splitlines()[0] == (
        "golden.version:1:1: GC405 golden.version says '2' but golden.lock records '3'; "
        "run goldcase lock"
    )
    fixed = run_cli("lock", "--repo", root)
    assert fixed.stdout.splitlines()[0] == (
        "golden.version: 2 -> 3 (raised to the version golden.lock records; it never goes back)"
    )
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_branches_at_different_versions_merge_to_the_next(tmp_path: Path) -> None:
    root = driver_repo(tmp_path / "set")
    branch_adding(root, "one", "ret-003")  # from main at version 1: 1 -> 2
    git(root, "checkout", "-q", "main")
    for case_id in ("ret-004", "ret-005"):  # on the main branch, each commit: 1 -> 2 -> 3
        write(root, f"cases/golden/{case_id}.yaml", case_text(case_id, answer="five days"))
        goldcase(root, "lock")
        commit(root, f"add {case_id} on main")
    assert read_version(root) == "3"
    merged = git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert (read_version(root), read_lock(root)["version"]) == ("4", "4")
    check = run_cli("lock", "--check", "--repo", root)
    assert (check.exit_code, check.stdout) == (0, "all checks passed: 5 case files\n")


def test_one_sided_bump_takes_that_side(tmp_path: Path) -> None:
    root = driver_repo(tmp_path / "set")
    branch_adding(root, "one", "ret-003")
    git(root, "checkout", "-q", "main")
    write(root, "README.md", "notes\n")
    commit(root, "unrelated")
    assert git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False).returncode == 0
    assert read_version(root) == "2"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_rebase_of_a_bumping_branch_onto_another(tmp_path: Path) -> None:
    root = driver_repo(tmp_path / "set")
    branch_adding(root, "one", "ret-003")
    branch_adding(root, "two", "ret-004")
    rebased = git(root, "rebase", "one", check=False)
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    assert read_lock(root)["version"] == "3"
    assert goldcase(root, "lock").returncode == 1  # golden.version 2 -> 3
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_the_same_case_changed_on_both_sides_is_left_to_goldcase_lock(tmp_path: Path) -> None:
    root = driver_repo(tmp_path / "set")
    git(root, "checkout", "-q", "-b", "one")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="two weeks"))
    goldcase(root, "lock")
    commit(root)
    git(root, "checkout", "-q", "-b", "two", "main")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    goldcase(root, "lock")
    commit(root)
    merged = git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False)
    assert merged.returncode == 1
    assert "CONFLICT (content): Merge conflict in cases/golden/ret-001.yaml" in merged.stdout
    assert merged.stdout.count("CONFLICT") == 1  # golden.version and golden.lock merged
    assert "both sides changed ret-001" in merged.stderr
    assert read_lock(root)["version"] == "3"
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="14 days (two weeks)"))
    # the lock (3) kept our hash for ret-001; the resolved file differs, but a merge of two
    # branches is still a branch of main: its set moves past main's version once, and the 3
    # the driver gave it is kept (a version never goes back)
    assert goldcase(root, "lock").stdout.startswith(
        "golden.version: 2 -> 3 (kept: above 2, the version after the merge base of HEAD and "
        "main's)"
    )


@pytest.mark.parametrize(
    ("base", "ours", "theirs", "merged"),
    [
        ("1", "1", "1", "1"),
        ("1", "2", "1", "2"),
        ("1", "1", "2", "2"),
        ("1", "2", "2", "2"),
        ("1", "2", "4", "5"),
        ("2026.3", "2026.4", "2026.9", "2026.10"),
        (None, "3", "5", "6"),
    ],
)
def test_merge_versions(base: str | None, ours: str, theirs: str, merged: str) -> None:
    assert merge_versions(base, ours, theirs) == merged


def test_merge_tables() -> None:
    base = {"a": "1", "b": "1", "c": "1", "d": "1"}
    ours = {"a": "2", "b": "1", "c": "2", "e": "1"}  # a changed, d removed, e added
    theirs = {"a": "1", "b": "3", "c": "3", "d": "1"}  # b changed, c changed differently
    assert merge_tables(base, ours, theirs) == ({"a": "2", "b": "3", "c": "2", "e": "1"}, ["c"])


def test_driver_refuses_an_unusable_side(tmp_path: Path) -> None:
    for name, text in (("o", ""), ("a", "2\n"), ("b", "beta\nalpha\n")):
        write(tmp_path, name, text)
    result = run_cli(
        "merge-driver", tmp_path / "o", tmp_path / "a", tmp_path / "b", "golden.version"
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "goldcase merge-driver: golden.version: their side's golden.version does not hold one "
        "version line; resolve it by hand (or take either side) and run goldcase lock\n"
    )
    assert (tmp_path / "a").read_text() == "2\n"
    other = run_cli("merge-driver", tmp_path / "o", tmp_path / "a", tmp_path / "b", "README.md")
    assert other.exit_code == 1
    assert "only merges golden.version and golden.lock" in other.stderr


def test_driver_without_its_arguments_exits_2() -> None:
    result = run_cli("merge-driver")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: merge-driver needs %O %A %B [%P] from git; see docs/version.md\n",
    )


def test_install_outside_a_repository_exits_2(tmp_path: Path) -> None:
    result = run_cli("merge-driver", "--install", "--repo", tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path} is not inside a git work tree; run git init first\n"


def test_without_the_driver_goldcase_lock_settles_the_conflicts(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")  # no .gitattributes: git merges the two files as text
    branch_adding(root, "one", "ret-003")  # 1 -> 2 on the branch
    git(root, "checkout", "-q", "main")
    write(root, "cases/golden/ret-005.yaml", case_text("ret-005", answer="five days"))
    goldcase(root, "lock")
    commit(root, "ret-005 on main")  # 1 -> 2 on main
    branch_adding(root, "two", "ret-004")  # from main at 2: 2 -> 3
    merged = git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False)
    assert "CONFLICT (content): Merge conflict in golden.version" in merged.stdout
    check = run_cli("lock", "--check", "--repo", root)
    # lines 1-4 ("{", "cases", ret-001, ret-002) are common; line 5 is git's "<<<<<<< HEAD"
    assert check.stdout.splitlines()[0] == (
        "golden.lock:5:1: GC404 golden.lock is not JSON: Expecting property name enclosed in "
        "double quotes; run goldcase lock to rewrite it"
    )
    assert check.stdout.splitlines()[1] == (
        "golden.version:1:1: GC405 golden.version holds merge-conflict markers (3 and 2); "
        "run goldcase lock to settle it at 4"
    )
    fixed = run_cli("lock", "--repo", root)
    assert fixed.stdout.splitlines()[0] == (
        "golden.version: 3 and 2 -> 4 (settled the merge conflict in golden.version)"
    )
    assert (read_version(root), read_lock(root)["version"]) == ("4", "4")
    assert sorted(read_lock(root)["cases"]) == [
        "ret-001",
        "ret-002",
        "ret-003",
        "ret-004",
        "ret-005",
    ]
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_driver_merges_three_lock_files_in_process(tmp_path: Path) -> None:
    from goldcase.versioning import lockfile

    docs = {"corpus/returns-policy.md": "a" * 64}
    base = lockfile.from_tables("1", {"ret-001": "1" * 64}, docs)
    ours = lockfile.from_tables("2", {"ret-001": "1" * 64, "ret-002": "2" * 64}, docs)
    theirs = lockfile.from_tables("2", {"ret-001": "1" * 64, "ret-003": "3" * 64}, docs)
    for name, lock in (("o", base), ("a", ours), ("b", theirs)):
        write(tmp_path, name, lockfile.render(lock))
    result = run_cli("merge-driver", tmp_path / "o", tmp_path / "a", tmp_path / "b", "golden.lock")
    assert (result.exit_code, result.stderr) == (0, "")
    merged = lockfile.parse((tmp_path / "a").read_text())
    assert merged.version == "3"
    assert dict(merged.cases) == {"ret-001": "1" * 64, "ret-002": "2" * 64, "ret-003": "3" * 64}
    write(tmp_path, "b", "{not json")
    broken = run_cli("merge-driver", tmp_path / "o", tmp_path / "a", tmp_path / "b", "golden.lock")
    assert broken.exit_code == 1
    assert broken.stderr.startswith(
        "goldcase merge-driver: golden.lock: their side's golden.lock is unusable: golden.lock "
        "is not JSON"
    )


OLDER_DRIVER = "goldcase merge-driver %O %A %B %P"  # what earlier versions configured


@pytest.mark.parametrize("driver", [MERGE_DRIVER, OLDER_DRIVER], ids=["with --", "older"])
@pytest.mark.parametrize("folder", ["--help", "-x", "--repo=elsewhere", "--install"])
def test_a_path_starting_with_a_dash_is_merged_as_a_path(
    tmp_path: Path, driver: str, folder: str
) -> None:
    """git passes %P as the file's path in the repository; a golden.version in a folder named
    like an option was read as that option (usage error, the help, or another --repo) and the
    merge left as a conflict. Both branches moved it (1 -> 3, 1 -> 5): merged, 6."""
    root = git_set(tmp_path / "set")
    write(root, ".gitattributes", "golden.version merge=goldcase\n")
    write(root, f"{folder}/golden.version", "1\n")
    commit(root, "a version file in a folder whose name starts with a dash")
    git(root, "config", "merge.goldcase.driver", driver)
    for branch, version in (("one", "3"), ("two", "5")):
        git(root, "checkout", "-q", "-b", branch, "main")
        write(root, f"{folder}/golden.version", f"{version}\n")
        commit(root, f"version {version}")
    merged = git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    assert (root / folder / "golden.version").read_text(encoding="utf-8").strip() == "6"


@pytest.mark.parametrize(
    "args",
    [
        ("--", "o", "a", "b", "--help/golden.version"),  # the driver string now
        ("o", "a", "b", "--help/golden.version"),  # the older one: four operands
        ("o", "a", "b"),  # older still: no %P, the name is our copy's
    ],
)
def test_the_driver_takes_its_operands_as_git_passes_them(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Our copy is named golden.version here, for the form without %P (the name is then our
    copy's); git names it .merge_file_…, never with a leading dash."""
    files = {"o": "1", "a": "3", "b": "5"}
    where = {w: write(tmp_path / w, "golden.version", f"{v}\n") for w, v in files.items()}
    result = run_cli("merge-driver", *(str(where[w]) if w in where else w for w in args))
    assert result.exit_code == 0, result.stderr
    assert where["a"].read_text(encoding="utf-8").strip() == "6"


@pytest.mark.parametrize(
    ("name", "size", "limit"),
    [("golden.version", 300 * 1024**2, 65_536), ("golden.lock", 600 * 1024**2, 536_870_912)],
)
def test_driver_reads_no_side_past_what_the_file_may_take(
    tmp_path: Path, name: str, size: int, limit: int
) -> None:
    """Our side a sparse file (about 300 KB in git): a golden.version of 300 MB was read whole
    and printed in the refusal (28 s, 4 GB, 1.26 GB written to standard error)."""
    write(tmp_path, "o", "")  # no common ancestor's file
    write(tmp_path, "b", "2\n" if name == "golden.version" else "{}\n")
    with (tmp_path / "a").open("wb") as fh:
        fh.truncate(size)
    result = run_cli("merge-driver", "--", tmp_path / "o", tmp_path / "a", tmp_path / "b", name)
    assert result.exit_code == 1
    assert result.stderr == (
        f"goldcase merge-driver: {name}: cannot read {tmp_path / 'a'}: {size:,} bytes, more "
        f"than the {limit:,} it may take; resolve it by hand (or take either side) and run "
        "goldcase lock\n"
    )
    assert (tmp_path / "a").stat().st_size == size  # left as it was
