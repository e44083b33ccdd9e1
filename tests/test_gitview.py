"""goldcase.gitview on real repositories in the states a hook meets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goldcase import gitview
from kit import commit, git, write


def repo_with_version(root: Path, version: str = "7") -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    write(root, "golden.version", f"{version}\n")
    commit(root, "version")
    return root


def test_not_a_repository(tmp_path: Path) -> None:
    assert gitview.top_level(tmp_path) is None
    assert gitview.committed_text(tmp_path / "golden.version") is None


def test_no_commits_yet(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, "golden.version", "1\n")
    assert gitview.top_level(tmp_path) == tmp_path.resolve()
    assert gitview.committed_text(tmp_path / "golden.version") is None


def test_committed_text_reads_head_not_the_work_tree(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "a b")  # a path with a space
    write(root, "golden.version", "8\n")
    assert gitview.committed_text(root / "golden.version") == "7\n"
    assert gitview.committed_text(root / "missing.txt") is None


def test_detached_head(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "r")
    git(root, "checkout", "-q", "--detach")
    assert gitview.committed_text(root / "golden.version") == "7\n"


def test_shallow_clone(tmp_path: Path) -> None:
    source = repo_with_version(tmp_path / "source")
    write(source, "golden.version", "8\n")
    commit(source, "bump")
    clone = tmp_path / "shallow clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{source}", str(clone))
    assert (clone / ".git" / "shallow").exists()
    assert gitview.committed_text(clone / "golden.version") == "8\n"


def test_sub_folder_of_a_repository(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "sets/one/golden.version", "3\n")
    commit(root, "set")
    assert gitview.top_level(root / "sets" / "one") == root.resolve()
    assert gitview.committed_text(root / "sets" / "one" / "golden.version") == "3\n"


def test_inherited_git_dir_of_another_repository_is_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = repo_with_version(tmp_path / "ours", "7")
    other = repo_with_version(tmp_path / "other", "99")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    assert gitview.committed_text(ours / "golden.version") == "7\n"
    assert "GIT_DIR" not in gitview.git_env(ours)
    assert os.environ["GIT_DIR"] == str(other / ".git")  # restored after the call


def test_git_dir_of_the_same_repository_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = repo_with_version(tmp_path / "ours", "7")
    monkeypatch.setenv("GIT_DIR", str(ours / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(ours / ".git" / "index"))
    env = gitview.git_env(ours)
    assert env["GIT_INDEX_FILE"] == str(ours / ".git" / "index")
    assert gitview.committed_text(ours / "golden.version") == "7\n"


def test_worktree(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "main")
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    assert gitview.find_git_dir(tmp_path / "wt") == (root / ".git" / "worktrees" / "wt").resolve()
    assert gitview.committed_text(tmp_path / "wt" / "golden.version") == "7\n"
