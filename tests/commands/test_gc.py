"""``goldcase gc``: the user cache folder swept now, by the rules of the daily sweep."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from goldcase.cache import Cache, location
from kit import commit, git, run_cli


@pytest.fixture
def repos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "goldcase" / "repos"


def _fill(root: Path, days_unused: float = 0, size: int = 1_048_576) -> Path:
    root.mkdir(parents=True)
    cache = Cache.for_repository(root)
    cache.put("ns", "key", b"x" * size)
    cache.save()
    folder = location(root)
    assert folder is not None
    _age(folder, days_unused)
    return folder


def _age(folder: Path, days_unused: float) -> None:
    then = time.time() - days_unused * 86_400
    os.utime(folder, (then, then))


def test_gc_removes_the_old_and_the_gone_and_says_so(repos: Path, tmp_path: Path) -> None:
    old, gone = _fill(tmp_path / "old", 31), _fill(tmp_path / "gone")
    recent = _fill(tmp_path / "recent", 29)
    (tmp_path / "gone").rmdir()
    done = run_cli("gc")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == f"removed 2 cache folders (2.0 MiB) from {repos}\n"
    assert not old.exists() and not gone.exists() and recent.is_dir()
    again = run_cli("gc")
    assert (again.exit_code, again.stdout) == (0, f"nothing to remove in {repos}\n")
    _age(recent, 31)
    last = run_cli("gc")
    assert last.stdout == f"removed 1 cache folder (1.0 MiB) from {repos}\n"


def test_gc_all_removes_every_repository_folder_and_nothing_else(
    repos: Path, tmp_path: Path
) -> None:
    folders = [_fill(tmp_path / name) for name in ("one", "two")]
    stranger = repos / "notes"
    stranger.mkdir()
    (stranger / "todo.txt").write_text("mine\n", encoding="utf-8")
    done = run_cli("gc", "--all")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith("removed 2 cache folders (2.0 MiB) from ")
    assert not any(folder.exists() for folder in folders)
    assert (stranger / "todo.txt").read_text(encoding="utf-8") == "mine\n"


def test_gc_without_a_cache_folder_removes_nothing(repos: Path) -> None:
    done = run_cli("gc")
    assert (done.exit_code, done.stdout) == (0, f"nothing to remove in {repos}\n")
    assert not repos.exists()


def test_gc_counts_less_than_a_mebibyte_in_kibibytes(repos: Path, tmp_path: Path) -> None:
    folder = _fill(tmp_path / "small", size=10_240)
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    done = run_cli("gc", "--all")
    assert done.stdout == f"removed 1 cache folder ({size / 1024:.1f} KiB) from {repos}\n"
    assert 10.0 < size / 1024 < 11.0


def test_gc_does_not_sweep_through_a_link_a_repository_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """XDG_CACHE_HOME inside a project (a CI that caches only its paths) whose branch commits
    .cache/goldcase/repos as a link elsewhere: gc removes nothing there, and says why."""
    project = tmp_path / "project"
    (project / ".cache" / "goldcase").mkdir(parents=True)
    outside = tmp_path / "outside"
    notes = outside / "notes-0123456789abcdef"
    notes.mkdir(parents=True)
    (notes / "todo.txt").write_text("mine\n", encoding="utf-8")
    _age(notes, 60)
    (project / ".cache" / "goldcase" / "repos").symlink_to(outside)
    git(project, "init", "-q", "-b", "main")
    commit(project, "a link")
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))
    done = run_cli("gc")
    assert done.exit_code == 2
    assert done.stderr == (
        f"error: {project}/.cache/goldcase/repos is in a git work tree that tracks a file in "
        "it or on the way to it (a committed link would have gc remove what it leads to), so "
        "nothing was removed; set XDG_CACHE_HOME to a folder outside the repository\n"
    )
    assert (notes / "todo.txt").read_text(encoding="utf-8") == "mine\n"
