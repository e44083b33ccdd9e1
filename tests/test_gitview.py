"""goldcase.gitview on real repositories in the states a hook meets."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from goldcase import gitview
from goldcase.errors import GoldcaseError
from goldcase.safeio import TooLarge
from goldcase.versioning.version import MAX_VERSION_BYTES
from kit import (
    GOLDCASE,
    case_text,
    commit,
    env,
    git,
    git_set,
    goldcase,
    golden_set,
    plant_unreadable,
    write,
)


def repo_with_version(root: Path, version: str = "7") -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    write(root, "golden.version", f"{version}\n")
    commit(root, "version")
    return root


def test_not_a_repository(tmp_path: Path) -> None:
    assert gitview.top_level(tmp_path) is None
    assert gitview.committed_text(tmp_path / "golden.version", MAX_VERSION_BYTES) is None


def test_no_commits_yet(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, "golden.version", "1\n")
    assert gitview.top_level(tmp_path) == tmp_path.resolve()
    assert gitview.committed_text(tmp_path / "golden.version", MAX_VERSION_BYTES) is None


def test_committed_text_reads_head_not_the_work_tree(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "a b")  # a path with a space
    write(root, "golden.version", "8\n")
    assert gitview.committed_text(root / "golden.version", MAX_VERSION_BYTES) == "7\n"
    assert gitview.committed_text(root / "missing.txt", MAX_VERSION_BYTES) is None


def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The arguments of every git command gitview runs from now on, each run as before."""
    asked: list[tuple[str, ...]] = []
    real = gitview._git

    def recorded(path: Path, *args: str) -> bytes | None:
        asked.append(args)
        return real(path, *args)

    monkeypatch.setattr(gitview, "_git", recorded)
    return asked


def test_a_file_over_the_limit_at_a_commit_is_refused_by_its_size_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size comes from the tree: git keeps 600 MB of one byte in about 600 KB, and
    reading the blob whole would hold it three times over before any caller could refuse."""
    root = repo_with_version(tmp_path / "r")
    write(root, "golden.lock", "x" * 3_000_000)
    commit(root, "a large file")
    asked = git_calls(monkeypatch)
    with pytest.raises(TooLarge) as refused:
        gitview.text_at(root / "golden.lock", "HEAD", 2_999_999)
    assert (refused.value.size, refused.value.limit) == (3_000_000, 2_999_999)
    assert refused.value.filename == "golden.lock at HEAD"
    assert not [args for args in asked if "cat-file" in args]  # nothing of it read
    assert gitview.text_at(root / "golden.lock", "HEAD", 3_000_000) == "x" * 3_000_000


def test_a_blob_that_is_the_text_held_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``known``: when the committed file is the text the caller holds (git names a blob by
    the hash of its bytes), that text is the answer and no ``cat-file`` runs; any other
    text held, even one byte apart, has the blob read."""
    root = repo_with_version(tmp_path / "r")
    write(root, "golden.lock", '{"version": "7", "cases": {"é": 1}}\n')
    commit(root, "a lock")
    asked = git_calls(monkeypatch)
    held = '{"version": "7", "cases": {"é": 1}}\n'
    assert gitview.text_at(root / "golden.lock", "HEAD", 1000, known=held) is held
    assert not [args for args in asked if "cat-file" in args]
    other = '{"version": "8", "cases": {"é": 1}}\n'
    assert gitview.text_at(root / "golden.lock", "HEAD", 1000, known=other) == held
    assert [args for args in asked if "cat-file" in args]
    assert gitview.text_at(root / "golden.lock", "HEAD", 1000, known="\udce9") == held


def test_a_folder_at_a_commit_is_no_text(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "r")
    write(root, "sub/golden.version", "1\n")
    commit(root, "a folder")
    assert gitview.text_at(root / "sub", "HEAD", MAX_VERSION_BYTES) is None


def test_a_link_at_a_commit_is_no_text(tmp_path: Path) -> None:
    """A link is committed as a blob holding the path it leads to: not the file's text."""
    root = repo_with_version(tmp_path / "r")
    write(root, "elsewhere.json", "{}\n")
    (root / "golden.lock").symlink_to("elsewhere.json")
    commit(root, "a linked lock")
    assert gitview.text_at(root / "golden.lock", "HEAD", MAX_VERSION_BYTES) is None
    assert gitview.text_at(root / "elsewhere.json", "HEAD", MAX_VERSION_BYTES) == "{}\n"


def test_detached_head(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "r")
    git(root, "checkout", "-q", "--detach")
    assert gitview.committed_text(root / "golden.version", MAX_VERSION_BYTES) == "7\n"


def test_shallow_clone(tmp_path: Path) -> None:
    source = repo_with_version(tmp_path / "source")
    write(source, "golden.version", "8\n")
    commit(source, "bump")
    clone = tmp_path / "shallow clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{source}", str(clone))
    assert (clone / ".git" / "shallow").exists()
    assert gitview.committed_text(clone / "golden.version", MAX_VERSION_BYTES) == "8\n"


def test_sub_folder_of_a_repository(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "sets/one/golden.version", "3\n")
    commit(root, "set")
    assert gitview.top_level(root / "sets" / "one") == root.resolve()
    assert (
        gitview.committed_text(root / "sets" / "one" / "golden.version", MAX_VERSION_BYTES) == "3\n"
    )


def test_inherited_git_dir_of_another_repository_is_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = repo_with_version(tmp_path / "ours", "7")
    other = repo_with_version(tmp_path / "other", "99")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    assert gitview.committed_text(ours / "golden.version", MAX_VERSION_BYTES) == "7\n"
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
    assert gitview.committed_text(ours / "golden.version", MAX_VERSION_BYTES) == "7\n"


def test_worktree(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "main")
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    assert gitview.find_git_dir(tmp_path / "wt") == (root / ".git" / "worktrees" / "wt").resolve()
    assert gitview.committed_text(tmp_path / "wt" / "golden.version", MAX_VERSION_BYTES) == "7\n"


# --- work_tree: the top and HEAD in one question ---


def test_work_tree_gives_the_top_and_head(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "a b")
    (root / "sub").mkdir()
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    assert gitview.work_tree(root / "sub") == (root.resolve(), head)
    git(root, "checkout", "-q", "--detach")
    assert gitview.work_tree(root) == (root.resolve(), head)


def test_work_tree_before_the_first_commit_outside_and_bare(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "fresh")
    assert gitview.work_tree(tmp_path / "fresh") == ((tmp_path / "fresh").resolve(), None)
    git(tmp_path, "init", "-q", "--bare", "bare.git")
    assert gitview.work_tree(tmp_path / "bare.git") is None
    (tmp_path / "plain").mkdir()
    assert gitview.work_tree(tmp_path / "plain") is None


def test_work_tree_of_a_linked_worktree(tmp_path: Path) -> None:
    root = repo_with_version(tmp_path / "main")
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    assert gitview.work_tree(tmp_path / "wt") == ((tmp_path / "wt").resolve(), head)


# --- base_commit: the merge base with the main branch, origin's first ---


def test_the_base_is_found_through_origin_main_alone(tmp_path: Path) -> None:
    """A clone whose local main was deleted (or never made): origin/main is the base."""
    source = repo_with_version(tmp_path / "source")
    git(source, "branch", "-q", "-M", "main")
    git(tmp_path, "clone", "-q", str(source), "clone")
    clone = tmp_path / "clone"
    started = git(clone, "rev-parse", "HEAD").stdout.strip()
    git(clone, "checkout", "-q", "-b", "feature")
    git(clone, "branch", "-q", "-D", "main")
    write(clone, "notes.txt", "a commit of the branch\n")
    commit(clone, "branch work")
    assert gitview.base_commit(clone) == (started, "merge base of HEAD and origin/main")


def git_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The arguments of every git command gitview runs and waits for from now on."""
    asked: list[tuple[str, ...]] = []
    real = gitview._run

    def recorded(path: Path, *args: str) -> tuple[int, bytes] | None:
        asked.append(args)
        return real(path, *args)

    monkeypatch.setattr(gitview, "_run", recorded)
    return asked


@pytest.mark.parametrize("where", ["main", "a branch", "no commit", "no repository"])
def test_the_base_asked_before_the_set_is_read_is_the_base_asked_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """``BaseAsked`` starts the work tree's question and the base branches' at once (a lock
    asks them while the set is read): ``work_tree`` and ``base_of`` answer from them what
    they answer asking git then, and on the main branch git is asked nothing more."""
    root = tmp_path / "r"
    if where == "no repository":
        root.mkdir()
    elif where == "no commit":
        root.mkdir()
        git(root, "init", "-q")
    else:
        repo_with_version(root)
        git(root, "branch", "-q", "-M", "main")
        write(root, "golden.version", "8\n")
        commit(root, "main moves on")
    if where == "a branch":
        git(root, "checkout", "-q", "-b", "feature", "HEAD~1")
        write(root, "notes.txt", "a commit of the branch\n")
        commit(root, "branch work")
    then = gitview.work_tree(root)
    base_then = gitview.base_of(root, then[1]) if then is not None and then[1] else None
    with gitview.BaseAsked(root) as asked:
        runs = git_runs(monkeypatch)
        found = gitview.work_tree(root, asked)
        base = gitview.base_of(root, found[1], asked) if found is not None and found[1] else None
    assert (found, base) == (then, base_then)
    if where == "main":
        assert base is not None and base[1] == "HEAD"
        assert runs == []
    if where == "a branch":
        assert base is not None and base[1] == "merge base of HEAD and main"
        assert [args[0] for args in runs] == ["merge-base"]  # the tips were asked before
    if where in ("no commit", "no repository"):
        assert base is None and runs == []
        assert (found is None) == (where == "no repository")


def test_origin_main_comes_before_a_stale_local_main(tmp_path: Path) -> None:
    source = repo_with_version(tmp_path / "source")
    git(source, "branch", "-q", "-M", "main")
    git(tmp_path, "clone", "-q", str(source), "clone")
    clone = tmp_path / "clone"
    write(source, "golden.version", "8\n")
    commit(source, "main moves on")
    git(clone, "fetch", "-q")
    git(clone, "checkout", "-q", "-b", "feature", "origin/main")
    write(clone, "notes.txt", "a commit of the branch\n")
    commit(clone, "branch work")
    moved = git(source, "rev-parse", "HEAD").stdout.strip()
    assert gitview.base_commit(clone) == (moved, "merge base of HEAD and origin/main")


def a_clone_of(tmp_path: Path) -> Path:
    """A clone of a repository on main through a bare "origin"."""
    source = repo_with_version(tmp_path / "source")
    git(source, "branch", "-q", "-M", "main")
    git(tmp_path, "clone", "-q", "--bare", str(source), "origin.git")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "clone")
    return tmp_path / "clone"


def test_a_branch_cut_from_main_ahead_of_origin_main_is_based_on_main(tmp_path: Path) -> None:
    """The nearer base: local main holds a commit origin/main does not (not pushed), and the
    branch was cut from it."""
    clone = a_clone_of(tmp_path)
    write(clone, "golden.version", "8\n")
    commit(clone, "main moves on, not pushed")
    ahead = git(clone, "rev-parse", "HEAD").stdout.strip()
    git(clone, "checkout", "-q", "-b", "feature")
    write(clone, "notes.txt", "a commit of the branch\n")
    commit(clone, "branch work")
    assert gitview.base_commit(clone) == (ahead, "merge base of HEAD and main")


def test_a_branch_between_diverged_mains_takes_the_nearer_base(tmp_path: Path) -> None:
    """origin/main and local main diverged (neither tip leads to the other); the branch was
    cut from local main: its merge base with origin/main, the branch preferred on a tie, is
    older."""
    clone = a_clone_of(tmp_path)
    write(clone, "local.txt", "a commit on local main only\n")
    commit(clone, "local main")
    local = git(clone, "rev-parse", "HEAD").stdout.strip()
    source = tmp_path / "source"
    write(source, "golden.version", "8\n")
    commit(source, "origin moves on")
    git(source, "push", "-q", str(tmp_path / "origin.git"), "main")
    git(clone, "fetch", "-q")
    git(clone, "checkout", "-q", "-b", "feature")
    write(clone, "notes.txt", "a commit of the branch\n")
    commit(clone, "branch work")
    assert gitview.base_commit(clone) == (local, "merge base of HEAD and main")


# --- asked_uncommittable: what the commit will not hold as it is on disk ---


def uncommittable(root: Path, folders: list[str]) -> gitview.Gaps | None:
    with gitview.asked_uncommittable(root, folders) as asked:
        return gitview.gaps_of(asked)


def committed_folders(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    write(root, "cases/golden/a.yaml", "a\n")
    write(root, "cases/golden/b.yaml", "b\n")
    write(root, "corpus/doc.md", "doc\n")
    write(root, "cases/dev/d.yaml", "d\n")
    commit(root, "set")
    return root


def test_a_clean_tree_and_staged_changes_hold_nothing_back(tmp_path: Path) -> None:
    root = committed_folders(tmp_path / "r")
    assert uncommittable(root, ["cases/golden", "corpus"]) == gitview.Gaps([], [], [])
    write(root, "cases/golden/a.yaml", "a, edited\n")
    write(root, "cases/golden/c.yaml", "c\n")
    git(root, "add", "cases/golden")
    git(root, "rm", "-q", "cases/golden/b.yaml")
    assert uncommittable(root, ["cases/golden", "corpus"]) == gitview.Gaps([], [], [])


def test_untracked_ignored_changed_and_deleted_files_are_named(tmp_path: Path) -> None:
    root = committed_folders(tmp_path / "r")
    write(root, ".gitignore", "*.tmp\nhidden-away/\n")
    write(root, "cases/golden/new.yaml", "new\n")  # untracked
    write(root, "cases/golden/scratch.tmp", "x\n")  # ignored
    write(root, "cases/golden/hidden-away/deep.yaml", "deep\n")  # in an ignored folder
    write(root, "cases/golden/a.yaml", "a, not staged\n")  # changed since staged
    (root / "corpus/doc.md").unlink()  # deleted, not staged
    write(root, "cases/dev/untracked.yaml", "dev\n")  # not a folder asked about
    found = uncommittable(root, ["cases/golden", "corpus"])
    assert found is not None
    assert found.skipped == []
    assert sorted(found.changed) == [
        "cases/golden/a.yaml",
        "cases/golden/hidden-away/deep.yaml",
        "cases/golden/new.yaml",
        "cases/golden/scratch.tmp",
        "corpus/doc.md",
    ]


def test_added_with_intent_to_add_is_not_staged_content(tmp_path: Path) -> None:
    root = committed_folders(tmp_path / "r")
    write(root, "cases/golden/c.yaml", "c\n")
    git(root, "add", "--intent-to-add", "cases/golden/c.yaml")
    found = uncommittable(root, ["cases/golden", "corpus"])
    assert found == gitview.Gaps(["cases/golden/c.yaml"], [], [])


def test_uncommittable_paths_are_the_sets_own_in_a_larger_repository(tmp_path: Path) -> None:
    mono = tmp_path / "mono"
    committed_folders(mono / "sets" / "one")
    shutil.rmtree(mono / "sets" / "one" / ".git")
    git(mono, "init", "-q")
    commit(mono, "the set inside a larger repository")
    one = mono / "sets" / "one"
    write(one, "cases/golden/new.yaml", "new\n")
    write(one, "corpus/doc.md", "doc, edited\n")
    found = uncommittable(one, ["cases/golden", "corpus"])
    assert found is not None
    assert sorted(found.changed) == ["cases/golden/new.yaml", "corpus/doc.md"]


def test_uncommittable_outside_a_repository_cannot_tell(tmp_path: Path) -> None:
    assert uncommittable(tmp_path, ["cases/golden", "corpus"]) is None


def test_folder_names_are_paths_not_pathspec_magic(tmp_path: Path) -> None:
    root = committed_folders(tmp_path / "r")
    write(root, "cases/golden/new.yaml", "new\n")
    assert uncommittable(root, [":(exclude)corpus"]) == gitview.Gaps([], [], [])


def test_files_a_sparse_checkout_leaves_out_are_skipped_not_changed(tmp_path: Path) -> None:
    """git passes over skip-worktree entries when it compares the disk with the index: they
    are named apart."""
    root = committed_folders(tmp_path / "r")
    assert not gitview.may_skip_worktree(root)
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/b.yaml")
    write(root, "cases/golden/new.yaml", "new\n")
    assert not (root / "cases/golden/b.yaml").exists()
    assert gitview.may_skip_worktree(root)
    found = uncommittable(root, ["cases/golden", "corpus"])
    assert found == gitview.Gaps(["cases/golden/new.yaml"], ["cases/golden/b.yaml"], [])


def test_during_a_merge_into_main_the_base_is_head(tmp_path: Path) -> None:
    """Merging into main's tip: HEAD is an ancestor of the merge being made."""
    root = repo_with_version(tmp_path / "r")
    git(root, "branch", "-q", "-M", "main")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "feature.txt", "feature\n")
    commit(root, "feature")
    git(root, "checkout", "-q", "main")
    write(root, "main.txt", "main\n")
    commit(root, "main moves on")
    git(root, "merge", "-q", "--no-commit", "--no-ff", "feature")
    assert (root / ".git" / "MERGE_HEAD").is_file()
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    assert gitview.base_commit(root) == (head, "HEAD")
    assert gitview.merge_base(root, "refs/heads/main", "HEAD", "MERGE_HEAD") == head


# --- a bare repository committed inside the work tree ---


def plant_bare_repository(folder: Path, marker: Path) -> None:
    """The files of a bare repository, committed into ``folder`` of a work tree as any
    stranger's pull request could: git run in ``folder`` takes it for a repository and
    its ``config`` runs ``core.fsmonitor``, a command of the stranger's choosing."""
    write(folder, "HEAD", "ref: refs/heads/main\n")
    write(folder, "objects/info/.keep", "")
    write(folder, "refs/heads/.keep", "")
    write(
        folder,
        "config",
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
        f'\tfsmonitor = "echo ran >> {marker}; false"\n',
    )


def test_a_bare_repository_committed_in_the_set_runs_nothing(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "evals/golden.version", "3\n")
    marker = tmp_path / "ran"
    plant_bare_repository(root / "evals", marker)
    commit(root, "set")
    write(root, "evals/golden.version", "4\n")
    uncommittable(root / "evals", ["."])
    with gitview.asked_removals(root / "evals", ".") as asked:
        gitview.removals_of(asked)
    gitview.work_tree(root / "evals")
    assert not marker.exists()


def test_a_bare_repository_committed_in_the_set_is_not_opened(tmp_path: Path) -> None:
    """GitPython's own search took the planted folder for the repository: ``goldcase init``
    there wrote its hooks path and merge driver into the stranger's ``config``."""
    root = tmp_path / "mono"
    root.mkdir()
    git(root, "init", "-q")
    plant_bare_repository(root / "evals", tmp_path / "ran")
    commit(root, "set")
    planted = (root / "evals" / "config").read_bytes()
    with gitview.open_repo(root / "evals") as repo:
        assert repo is None or Path(str(repo.git_dir)) == (root / ".git").resolve()
    with pytest.raises(GoldcaseError):
        gitview.set_config(root / "evals", "merge.goldcase.name", "goldcase")
    assert (root / "evals" / "config").read_bytes() == planted
    assert not (tmp_path / "ran").exists()


def test_a_file_marked_skip_worktree_by_hand_is_skipped(tmp_path: Path) -> None:
    """On disk, edited there, and never compared with the index by git."""
    root = committed_folders(tmp_path / "r")
    git(root, "update-index", "--skip-worktree", "corpus/doc.md")
    write(root, "corpus/doc.md", "doc, edited where git does not look\n")
    found = uncommittable(root, ["cases/golden", "corpus"])
    assert found == gitview.Gaps([], ["corpus/doc.md"], [])


@pytest.mark.parametrize(
    "how",
    [
        ("--index-version", "4"),  # its entries may hold the flag: the header cannot tell
        ("--split-index",),  # the shared part may hold it
    ],
)
def test_an_index_whose_header_cannot_tell_may_skip(tmp_path: Path, how: tuple[str, ...]) -> None:
    root = committed_folders(tmp_path / "r")
    git(root, "update-index", *how)
    write(root, "cases/golden/new.yaml", "new\n")
    git(root, "add", "cases/golden/new.yaml")
    assert gitview.may_skip_worktree(root)


# --- a file marked assume-unchanged: git takes the mark's word, even for a deleted file ---


def test_a_file_marked_assume_unchanged_and_deleted_is_named_apart(tmp_path: Path) -> None:
    """``git status`` shows nothing; the commit keeps the file the disk lacks. Marked and
    edited, it is not named: git does not look at its content (nor can goldcase ask it)."""
    root = committed_folders(tmp_path / "r")
    git(root, "update-index", "--assume-unchanged", "corpus/doc.md", "cases/golden/a.yaml")
    (root / "corpus/doc.md").unlink()
    write(root, "cases/golden/a.yaml", "a, edited\n")
    assert git(root, "status", "--porcelain").stdout == ""
    assert not gitview.may_skip_worktree(root)  # the mark fits an index of version 2
    assert uncommittable(root, ["cases/golden", "corpus"]) == gitview.Gaps(
        [], [], ["corpus/doc.md"]
    )
    folders = ["cases/golden", "corpus"]
    assert gitview.unseen_in_work_tree(root, folders) == gitview.Unseen([], [])  # not asked
    found = gitview.unseen_in_work_tree(root, folders, missing=True)
    assert found == gitview.Unseen([], ["corpus/doc.md"])


def test_unseen_names_skipped_and_assumed_files_in_one_question(tmp_path: Path) -> None:
    root = committed_folders(tmp_path / "r")
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/b.yaml")
    git(root, "update-index", "--assume-unchanged", "corpus/doc.md")
    (root / "corpus/doc.md").unlink()
    (root / "cases/golden/a.yaml").unlink()  # deleted as git sees it: not unseen
    found = gitview.unseen_in_work_tree(root, ["cases/golden", "corpus"])
    assert found == gitview.Unseen(["cases/golden/b.yaml"], ["corpus/doc.md"])


# --- a repository whose own .git/config names a file-system monitor ---


@pytest.mark.parametrize(
    "args",
    [("lock", "--stage"), ("lock", "--check"), ("check", "--staged"), ("review", "--base", "HEAD")],
)
def test_a_fsmonitor_in_the_repository_s_own_config_runs_nothing(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A repository that arrives as a tarball brings its ``.git/config``: its
    ``core.fsmonitor`` is a command git runs on every command that reads the index. goldcase's
    own git commands (docs/architecture.md) run none."""
    root = git_set(tmp_path / "set")
    marker = tmp_path / "ran"
    git(root, "config", "core.fsmonitor", f"echo ran >> {marker}; false")
    git(root, "status", "--porcelain")
    assert marker.exists(), "git itself runs the monitor: the test would prove nothing"
    marker.unlink()
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    done = goldcase(root, *args)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert not marker.exists(), " ".join(args)


# --- a repository whose own .git/config defines a filter driver ---


def plant_filter(root: Path, marker: Path, *, included: bool) -> None:
    """A filter driver named ``keep`` in the repository's own config (or in a file that
    config includes) whose commands append to ``marker``, and every file pointed at it."""
    section = (
        '[filter "keep"]\n'
        f'\tclean = "echo clean >> {marker}; cat"\n'
        f'\tsmudge = "echo smudge >> {marker}; cat"\n'
        f'\tprocess = "echo process >> {marker}; false"\n'
        "\trequired = true\n"
    )
    config = root / ".git" / "config"
    if included:
        (root / ".git" / "more").write_text(section)
        section = "[Include]\n\tpath = more\n"
    config.write_text(config.read_text() + section)
    write(root, ".gitattributes", "* filter=keep\n")


def touch_cases(root: Path) -> None:
    """Move every case file's times, so that git compares their content with the index."""
    for path in (root / "cases").rglob("*.yaml"):
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 2_000_000_000))


@pytest.mark.parametrize("included", [False, True], ids=["config", "included"])
@pytest.mark.parametrize(
    "args",
    [
        ("lock", "--stage"),
        ("lock", "--check"),
        ("lock",),
        ("check", "--lock"),
        ("check", "--staged"),
        ("review", "--base", "HEAD"),
    ],
)
def test_a_filter_in_the_repository_s_own_config_runs_nothing(
    tmp_path: Path, args: tuple[str, ...], included: bool
) -> None:
    """A repository that arrives with its git folder (a tarball) can define a filter driver
    as any command and point every file at it: git runs it when it hashes a file whose
    times moved (``ls-files --modified``) or stages one (``git add``). goldcase's own git
    commands run no filter the repository's config defines."""
    root = git_set(tmp_path / "set")
    marker = tmp_path / "ran"
    plant_filter(root, marker, included=included)
    touch_cases(root)
    git(root, "ls-files", "--modified", check=False)  # the process fails: git stops
    assert marker.exists(), "git itself runs the filter: the test would prove nothing"
    marker.unlink()
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    touch_cases(root)
    done = goldcase(root, *args)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert not marker.exists(), marker.read_text()


def test_a_filter_of_the_user_s_own_config_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the repository's own filters are emptied: one the user's global config defines
    (``git lfs install`` writes one there) is theirs, and git keeps running it."""
    root = git_set(tmp_path / "set")
    own = tmp_path / "global.gitconfig"
    own.write_text('[filter "upper"]\n\tclean = tr a-z A-Z\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(own))
    plant_filter(root, tmp_path / "ran", included=False)
    env = gitview.git_env(root)
    emptied = {
        env[f"GIT_CONFIG_KEY_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
        if env[f"GIT_CONFIG_VALUE_{i}"] in ("", "false")
    }
    assert {"filter.keep.clean", "filter.keep.process", "filter.keep.required"} <= emptied
    assert not any(key.startswith("filter.upper.") for key in emptied)


@pytest.mark.parametrize(
    "config",
    [
        "",
        '[remote "origin"]\n\turl = https://example.com/filters.git\n'
        "\tpartialclonefilter = blob:none\n",
        "[uploadpack]\n\tallowFilter = true\n",
    ],
    ids=["plain", "partial-clone", "allow-filter"],
)
def test_a_config_without_filters_costs_no_git_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    """The config scan answers for almost every repository: a config whose section headers
    name no filter and include nothing (the word may be in a key or a value) asks no
    ``git config`` and adds nothing to git's command line."""
    root = git_set(tmp_path / "set")
    (root / ".git" / "config").write_text((root / ".git" / "config").read_text() + config)

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"git run: {args}")

    monkeypatch.setattr(gitview.subprocess, "run", no_process)
    env = gitview.git_env(root)
    keys = [env[f"GIT_CONFIG_KEY_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))]
    assert keys[-2:] == ["safe.bareRepository", "core.fsmonitor"]
    assert not any(key.startswith("filter.") for key in keys)


def emptied(root: Path) -> set[str]:
    """The filter settings goldcase's git commands in ``root`` run with emptied."""
    env = gitview.git_env(root)
    return {
        env[f"GIT_CONFIG_KEY_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
        if env[f"GIT_CONFIG_KEY_{i}"].startswith("filter.") and env[f"GIT_CONFIG_VALUE_{i}"] == ""
    }


def test_git_lfs_installed_in_the_repository_is_kept(tmp_path: Path) -> None:
    """``git lfs install --local`` (what actions/checkout runs with ``lfs: true``) writes
    git-lfs's own commands into the repository's config: they are kept, as a filter of any
    other command there is emptied."""
    root = git_set(tmp_path / "set")
    git(root, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    git(root, "config", "filter.lfs.smudge", "git-lfs smudge -- %f")
    git(root, "config", "filter.lfs.process", "git-lfs filter-process")
    git(root, "config", "filter.lfs.required", "true")
    assert emptied(root) == set()
    git(root, "config", "filter.lfs.process", f"echo ran >> {tmp_path / 'ran'}; false")
    assert "filter.lfs.process" in emptied(root)


def test_a_decoy_git_folder_does_not_hide_the_repository_s_filters(tmp_path: Path) -> None:
    """A folder of the set holding a ``.git`` folder with only a ``config`` is no git
    directory to git, which walks on up to the repository: goldcase looks where git looks,
    so the repository's filter is emptied when git runs in that folder."""
    root = git_set(tmp_path / "set")
    marker = tmp_path / "ran"
    plant_filter(root, marker, included=False)
    write(root, "cases/golden/.git/config", "[core]\n\tbare = false\n")
    assert gitview.find_git_dir(root / "cases" / "golden") == root / ".git"
    assert "filter.keep.process" in emptied(root / "cases" / "golden")


def test_a_git_file_naming_its_folder_in_bytes_that_are_not_utf8_is_followed(
    tmp_path: Path,
) -> None:
    """A ``.git`` file names its git folder in any bytes, as git reads it: the folder is
    found, and the filter its config defines is emptied."""
    root = git_set(tmp_path / "set")
    marker = tmp_path / "ran"
    plant_filter(root, marker, included=False)
    real = tmp_path / os.fsdecode(b"git\xff")
    shutil.move(root / ".git", real)
    (root / ".git").write_bytes(b"gitdir: " + os.fsencode(real) + b"\n")
    assert gitview.find_git_dir(root) == real
    assert "filter.keep.process" in emptied(root)


# --- a repository that arrives with its own hooks ---


@pytest.mark.parametrize("args", [("lock", "--stage"), ("check", "--lock")])
def test_a_hook_in_the_repository_s_own_git_folder_runs_nothing(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A repository that arrives with its git folder (a tarball) brings ``.git/hooks``: git
    runs ``post-index-change`` whenever a command writes the index, and ``goldcase lock
    --stage`` stages with ``git add``. goldcase's own git commands run no hook."""
    root = git_set(tmp_path / "set")
    marker = tmp_path / "ran"
    hook = root / ".git" / "hooks" / "post-index-change"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    hook.chmod(0o755)
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    git(root, "add", "cases/golden/ret-001.yaml")
    assert marker.exists(), "git itself runs the hook: the test would prove nothing"
    marker.unlink()
    done = goldcase(root, *args)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "golden.lock" in git(root, "diff", "--cached", "--name-only").stdout, done.stdout
    assert not marker.exists()


# --- a partial clone, as a CI checkout with --filter=blob:none makes it ---


def test_a_partial_clone_fetches_the_base_lock_and_the_gate_holds(tmp_path: Path) -> None:
    """A branch that changes a golden case without moving golden.version, checked out as a
    CI job does with ``--filter=blob:none``: the base's golden.lock is not in the clone
    until git fetches it. goldcase's git fetches it, as every git command does, and the
    gate refuses the branch as it does in a full clone (GC405), instead of reading the base
    lock as absent and passing."""
    origin = git_set(tmp_path / "origin")
    git(origin, "config", "uploadpack.allowFilter", "true")
    git(origin, "checkout", "-q", "-b", "feat")
    write(origin, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    goldcase(origin, "lock")
    write(origin, "golden.version", "1\n")
    lock = json.loads((origin / "golden.lock").read_text())
    lock["version"] = "1"
    write(origin, "golden.lock", json.dumps(lock, indent=2) + "\n")
    commit(origin, "a golden case changed, the version not moved")
    full = goldcase(origin, "lock", "--check")
    assert full.returncode == 1 and "GC405" in full.stdout, full.stdout + full.stderr
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{origin}", "clone")
    git(clone, "checkout", "-q", "feat")
    base_lock = git(clone, "rev-parse", "origin/main:golden.lock").stdout.strip()
    missing = git(clone, "rev-list", "--objects", "--missing=print", "origin/main").stdout
    assert f"?{base_lock}" in missing, "the clone holds the base lock: the test would prove nothing"
    done = goldcase(clone, "lock", "--check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "GC405" in done.stdout, done.stdout


# --- a git folder holding a FIFO or a link to /dev/zero where git reads a file first ---


def _ends_on_its_own(root: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """``goldcase args`` in ``root`` ends (within a minute, in 2 GiB) with an exit status of
    its own, not an internal error."""
    done = subprocess.run(
        [str(GOLDCASE), *args],
        cwd=root,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_capped,
    )
    assert "internal error" not in done.stderr, done.stderr
    assert done.returncode in (0, 1, 2), done.stdout + done.stderr
    return done


def _capped() -> None:
    """A child's address space capped at 2 GiB: git reading /dev/zero stops there."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("name", ["commondir", "config", "HEAD"])
@pytest.mark.parametrize("args", [("lock", "--check"), ("check", "--lock"), ("review",)])
def test_a_git_folder_that_would_hang_git_or_exhaust_memory_ends_on_its_own(
    tmp_path: Path, args: tuple[str, ...], name: str, kind: str
) -> None:
    """A repository that arrives with its git folder (a tarball) can hold a FIFO, or a link
    to ``/dev/zero``, where git reads a file before it answers anything: git (and goldcase's
    own look at ``commondir``) waited forever, or read ``commondir`` until memory ran out.
    goldcase runs no git there; the repository is not one it can ask git about."""
    root = git_set(tmp_path / "set")
    plant_unreadable(root / ".git" / name, kind)
    _ends_on_its_own(root, args)
    with pytest.raises(gitview.UnsafeGitFolder, match=name):
        gitview.git_env(root)


def _branch_ref(root: Path) -> str:
    head = (root / ".git" / "HEAD").read_text(encoding="utf-8")
    return head.removeprefix("ref:").strip()


_GIT_READS = [
    ".git/packed-refs",
    ".git/shallow",
    ".git/info/attributes",
    ".git/info/exclude",
    ".git/info/grafts",
    ".git/objects/info/alternates",
    "the branch",
    ".git/refs/heads/zzz",  # loose refs beside the base branches', read for them
    ".git/refs/remotes/origin/feature",
    ".git/refs/stash",
    ".git/refs/remotes/foo",
    ".git/refs/heads/master/a/x",  # under a base ref's name, in folders
    ".git/refs/remotes/origin",  # where a folder of refs would be
]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        *((name, kind) for name in _GIT_READS for kind in ("fifo", "zero")),
        (".gitattributes", "fifo"),  # a link there git does not follow
    ],
)
@pytest.mark.parametrize("args", [("lock", "--check"), ("check", "--lock")])
def test_a_file_goldcase_s_git_commands_read_that_would_hang_them_ends_on_its_own(
    tmp_path: Path, args: tuple[str, ...], name: str, kind: str
) -> None:
    """A FIFO where ``show``, ``merge-base``, ``rev-parse``, ``diff``, ``ls-files`` or ``add``
    read (measured with git 2.39: each hung at one of these) kept the command waiting until
    goldcase's two-minute bound on git; goldcase now runs no git there and names the file."""
    root = git_set(tmp_path / "set")
    rel = f".git/{_branch_ref(root)}" if name == "the branch" else name
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    plant_unreadable(root / rel, kind)
    _ends_on_its_own(root, args)
    with pytest.raises(gitview.UnsafeGitFolder, match=re.escape(f"{root / rel} is not")):
        gitview.git_env(root)


def test_a_gitattributes_folder_down_to_the_set_is_looked_at_and_a_folder_passes(
    tmp_path: Path,
) -> None:
    """The set in a folder of the repository: git reads each folder's `.gitattributes` from
    the top down to the files it stages; a folder named `.gitattributes` is passed over."""
    root = git_set(tmp_path / "set")
    deep = root / "evals" / "golden"
    deep.mkdir(parents=True)
    (root / "evals" / ".gitattributes").mkdir()
    assert gitview.unsafe_git_folder(root / ".git", root, deep) is None
    os.mkfifo(deep / ".gitattributes")
    unsafe = gitview.unsafe_git_folder(root / ".git", root, deep)
    assert unsafe == gitview.Unsafe(root / "evals" / "golden" / ".gitattributes")


@pytest.mark.parametrize("layout", ["worktree", "separate"])
def test_a_work_tree_whose_git_folder_is_elsewhere_has_its_own_gitattributes_looked_at(
    tmp_path: Path, layout: str
) -> None:
    """A linked worktree (``git worktree add``) or a ``--separate-git-dir`` repository holds
    a ``.git`` file: git reads the ``.gitattributes`` of the folder holding that file, not
    of the folder beside the git folder it names."""
    if layout == "worktree":
        main = git_set(tmp_path / "set")
        tree = tmp_path / "linked"
        git(main, "worktree", "add", "-q", str(tree), "-b", "linked")
    else:
        tree = tmp_path / "tree"
        golden_set(tree, ("ret-001",))
        git(
            tmp_path,
            "init",
            "-q",
            "-b",
            "main",
            f"--separate-git-dir={tmp_path / 'away'}",
            str(tree),
        )
        commit(tree, "golden set")
        os.mkfifo(tmp_path / ".gitattributes")  # beside the git folder: git never reads it
        assert gitview.git_env(tree)
    os.mkfifo(tree / ".gitattributes")
    with pytest.raises(
        gitview.UnsafeGitFolder, match=re.escape(f"{tree / '.gitattributes'} is not")
    ):
        gitview.git_env(tree)


def test_what_git_reads_as_it_is_is_not_refused(tmp_path: Path) -> None:
    """A ``.gitattributes`` that is a link (git 2.32 and later do not follow it; even one to
    ``/dev/zero`` or a FIFO is read as no file) and a git file linked to the null device
    (git reads it as empty) leave git answering: goldcase asks it."""
    root = git_set(tmp_path / "set")
    os.mkfifo(tmp_path / "fifo")
    (root / ".gitattributes").symlink_to(tmp_path / "fifo")
    (root / "cases" / ".gitattributes").symlink_to("/dev/zero")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").unlink(missing_ok=True)
    (root / ".git" / "info" / "exclude").symlink_to(os.devnull)
    assert gitview.unsafe_git_folder(root / ".git", root, root / "cases") is None
    rels = ["golden.version"]
    gitview.staged(gitview.staging_started(root, rels), root, rels)  # git answered


def test_a_branch_named_like_a_file_git_reads_whole_is_named_without_a_size(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set")
    git(root, "branch", "-m", "commondir")
    ref = root / ".git" / "refs" / "heads" / "commondir"
    ref.unlink()
    os.mkfifo(ref)
    with pytest.raises(gitview.UnsafeGitFolder) as refused:
        gitview.git_env(root)
    assert f"{ref} is not a regular file: " in str(refused.value)


@pytest.mark.parametrize("where", ["cases/golden", "cases/golden/deep", "corpus"])
@pytest.mark.parametrize("args", [("check", "--lock"), ("lock", "--stage")])
def test_a_gitattributes_below_the_set_that_would_hang_git_is_named(
    tmp_path: Path, args: tuple[str, ...], where: str
) -> None:
    """docs/robustness.md: ``ls-files`` of the golden cases and the corpus (which files the
    commit would not hold) opens the ``.gitattributes`` of every folder below them; a FIFO
    there (git 2.39) kept the lock's question waiting until goldcase's two-minute bound on
    git. The command stops naming the file; a folder of that name is passed over."""
    root = git_set(tmp_path / "set")
    (root / "cases" / "golden" / "ret-001.yaml").write_text(
        case_text("ret-001", question="how long do i have to return a thing?")
    )
    git(root, "add", "-A")
    (root / where).mkdir(parents=True, exist_ok=True)
    (root / "corpus" / "sub" / ".gitattributes").mkdir(parents=True)  # a folder: passed over
    assert gitview.special_attributes(root, ["cases/golden", "corpus"]) is None
    os.mkfifo(root / where / ".gitattributes")
    done = _ends_on_its_own(root, args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{root / where / '.gitattributes'} is not a regular file" in done.stderr


def test_the_gitattributes_walk_passes_over_git_s_own_folder_and_links(tmp_path: Path) -> None:
    """A corpus configured as the repository itself: git never reads a `.gitattributes` in
    its own folder, nor behind a link to a folder (it does not look behind one), nor in a
    repository nested in the work tree."""
    root = git_set(tmp_path / "set")
    (root / ".git" / "deep").mkdir()
    os.mkfifo(root / ".git" / "deep" / ".gitattributes")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.mkfifo(elsewhere / ".gitattributes")
    (root / "corpus" / "linked").symlink_to(elsewhere, target_is_directory=True)
    nested = root / "vendor" / "tool"  # another repository: ls-files does not go in
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "deep").mkdir()
    os.mkfifo(nested / "deep" / ".gitattributes")
    assert gitview.special_attributes(root, ["."]) is None
    os.mkfifo(root / "corpus" / ".gitattributes")
    assert gitview.special_attributes(root, ["."]) == root / "corpus" / ".gitattributes"
