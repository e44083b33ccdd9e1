"""The version hooks' guard and base, attacked: a commit whose golden.lock pins a case the
commit does not hold, a hook in a linked worktree of a larger repository, and the base of
commits made on the main branch ahead of origin/main (docs/version.md, "Staging" and "How
often the version moves: once per branch")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import (
    GOLDCASE,
    case_text,
    commit,
    git,
    git_set,
    golden_set,
    read_version,
    run,
    run_cli,
    write,
)


def staged_names(root: Path) -> list[str]:
    return git(root, "diff", "--cached", "--name-only").stdout.split()


def test_stage_refuses_a_golden_case_linked_to_a_file_the_commit_does_not_hold(
    tmp_path: Path,
) -> None:
    """A case file may be a link to a file elsewhere in the repository (docs/check.md,
    GC113): the commit holds the link, the lock pins the content of its target, which here
    is untracked. The lock must not be staged."""
    root = git_set(tmp_path / "set")
    write(root, "drafts/ret-003.yaml", case_text("ret-003"))  # untracked
    (root / "cases/golden/ret-003.yaml").symlink_to("../../drafts/ret-003.yaml")
    git(root, "add", "cases/golden/ret-003.yaml")
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert "not staged: cases/golden/ret-003.yaml (a link to drafts/ret-003.yaml)" in result.stdout
    assert staged_names(root) == ["cases/golden/ret-003.yaml"]


def test_the_plain_hook_refuses_a_commit_of_a_case_linked_to_an_untracked_file(
    tmp_path: Path,
) -> None:
    """The commit hook runs the same guard: the commit is refused, naming the link and the
    file it leads to, and nothing is staged behind the user's back."""
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    write(root, "drafts/ret-003.yaml", case_text("ret-003"))
    (root / "cases/golden/ret-003.yaml").symlink_to("../../drafts/ret-003.yaml")
    git(root, "add", "cases/golden/ret-003.yaml")
    done = run(["git", "commit", "-q", "--no-gpg-sign", "-m", "a linked case"], root, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cases/golden/ret-003.yaml (a link to drafts/ret-003.yaml)" in done.stdout + done.stderr
    assert staged_names(root) == ["cases/golden/ret-003.yaml"]


def test_stage_takes_a_golden_case_linked_to_a_file_the_commit_holds(tmp_path: Path) -> None:
    """The same link, its target staged (here under a hidden folder, which the listing of
    case files skips but a link may still lead to): the lock pins what the commit holds and
    is staged with it."""
    root = git_set(tmp_path / "set")
    write(root, ".drafts/ret-003.yaml", case_text("ret-003"))
    (root / "cases/golden/ret-003.yaml").symlink_to("../../.drafts/ret-003.yaml")
    git(root, "add", "cases/golden/ret-003.yaml", ".drafts/ret-003.yaml")
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 0, result.stdout
    assert staged_names(root) == [
        ".drafts/ret-003.yaml",
        "cases/golden/ret-003.yaml",
        "golden.lock",
        "golden.version",
    ]


def test_stage_refuses_a_golden_case_linked_to_a_file_changed_since_it_was_staged(
    tmp_path: Path,
) -> None:
    """The target is tracked under a hidden folder but edited since: the commit holds the
    staged copy, the lock would pin the one on disk."""
    root = git_set(tmp_path / "set")
    write(root, ".drafts/ret-003.yaml", case_text("ret-003"))
    (root / "cases/golden/ret-003.yaml").symlink_to("../../.drafts/ret-003.yaml")
    git(root, "add", "cases/golden/ret-003.yaml", ".drafts/ret-003.yaml")
    write(root, ".drafts/ret-003.yaml", case_text("ret-003", answer="free over 200 pounds"))
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert "(a link to .drafts/ret-003.yaml)" in result.stdout
    assert staged_names(root) == [".drafts/ret-003.yaml", "cases/golden/ret-003.yaml"]


def test_stage_refuses_golden_cases_inside_a_nested_repository(tmp_path: Path) -> None:
    """A folder of cases that is a repository of its own: git names the folder
    (``cases/golden/extra/``), never the case files in it, and no commit of the outer
    repository holds them; the lock pins them all the same."""
    root = git_set(tmp_path / "set")
    git(root, "init", "-q", "cases/golden/extra")
    write(root, "cases/golden/extra/ret-003.yaml", case_text("ret-003"))
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert "not staged" in result.stdout
    assert staged_names(root) == []


def test_the_plain_hook_in_a_linked_worktree_of_a_larger_repository(tmp_path: Path) -> None:
    """git runs a hook of a linked worktree with GIT_DIR set (and no GIT_WORK_TREE): kept
    as it is, git takes the folder it runs in (the set's, below the top) for the top of the
    work tree, so every file of the set looked untracked and the base lock absent. The
    commit that adds a case must go through with the version moved past the base's."""
    mono = tmp_path / "mono"
    mono.mkdir()
    git(mono, "init", "-q", "-b", "main")
    root = golden_set(mono / "sets" / "one")
    run([GOLDCASE, "git-hooks", "--install", "--repo", root], mono)
    assert run_cli("lock", "--repo", root).exit_code == 1  # wrote the first lock
    commit(mono, "the set")
    linked = tmp_path / "linked"
    git(mono, "worktree", "add", "-q", str(linked), "-b", "feature")
    write(linked, "sets/one/cases/golden/ret-003.yaml", case_text("ret-003"))
    git(linked, "add", "sets/one/cases/golden/ret-003.yaml")
    done = run(["git", "commit", "-q", "--no-gpg-sign", "-m", "add ret-003"], linked, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(linked, "show", "HEAD:sets/one/golden.version").stdout == "2\n"
    assert read_version(linked / "sets" / "one") == "2"


def test_each_commit_on_main_ahead_of_origin_main_moves_the_version(tmp_path: Path) -> None:
    """Docs: "On the main branch each commit's base is the commit before it … a version names one
    set" (docs/version.md). A clone whose main is ahead of origin/main (commits not pushed
    yet) took origin/main's tip as the base of every commit on main: two commits that
    changed the set both recorded version 2."""
    source = git_set(tmp_path / "source")
    git(tmp_path, "clone", "-q", str(source), "clone")
    clone = tmp_path / "clone"
    write(clone, "cases/golden/ret-003.yaml", case_text("ret-003"))
    assert run_cli("lock", "--repo", clone).stdout.startswith("golden.version: 1 -> 2")
    commit(clone, "first change on main")
    write(clone, "cases/golden/ret-002.yaml", case_text("ret-002", answer="the card"))
    second = run_cli("lock", "--repo", clone).stdout.splitlines()[0]
    assert second == "golden.version: 2 -> 3 (set or corpus changed since HEAD, version 2)"
    commit(clone, "second change on main")
    assert run_cli("lock", "--check", "--repo", clone).exit_code == 0


def test_stage_refuses_in_a_sparse_checkout_that_leaves_golden_cases_out(tmp_path: Path) -> None:
    """A sparse checkout leaves cases/golden/eu/ off the disk while the index (and so the
    commit) still holds them: the lock written from the disk drops them ("1 removed"), and
    the commit would pin a set without a case it holds."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/eu/ret-003.yaml", case_text("ret-003"))
    run_cli("lock", "--repo", root)
    commit(root, "a folder of cases")
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/eu/")
    assert not (root / "cases/golden/eu").exists()
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    git(root, "add", "cases/golden/ret-001.yaml")
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "not staged: cases/golden/eu/ret-003.yaml is in this commit but not in the work tree "
        "(left out by a sparse checkout, or marked skip-worktree), so golden.lock, "
        "built from the disk, would not pin the set this commit holds; widen the sparse "
        "checkout to the golden cases and the corpus (git sparse-checkout add FOLDER, or git "
        "sparse-checkout disable), or clear the mark (git update-index --no-skip-worktree FILE)"
    )
    assert staged_names(root) == ["cases/golden/ret-001.yaml"]


def test_stage_refuses_a_corpus_document_marked_skip_worktree(tmp_path: Path) -> None:
    """Marked by hand (git update-index --skip-worktree), a document stays on disk but git
    no longer compares it: edited there, the lock pins the edit while the commit holds the
    document as it was."""
    root = git_set(tmp_path / "set")
    git(root, "update-index", "--skip-worktree", "corpus/returns-policy.md")
    write(root, "corpus/returns-policy.md", "# Returns policy\n\nRewritten.\n")
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert "not staged: corpus/returns-policy.md is in this commit but not" in result.stdout
    assert staged_names(root) == []


@pytest.mark.parametrize(
    ("folder", "new_file"),
    [
        ("corpus", "new.md"),
        ("cases", "golden/ret-003.yaml"),
    ],
)
def test_stage_refuses_an_untracked_file_behind_a_linked_set_folder(
    tmp_path: Path, folder: str, new_file: str
) -> None:
    """corpus/ (or cases/) is a link to a folder elsewhere in the repository, and goldcase
    reads the set through it; git, asked about the link's path, never looks behind it. The
    untracked file there is pinned by the lock, not held by the commit."""
    root = git_set(tmp_path / "set")
    git(root, "mv", folder, f"real-{folder}")
    (root / folder).symlink_to(f"real-{folder}")
    commit(root, "the folder moved behind a link")
    assert run_cli("lock", "--repo", root).stdout == "golden.lock is up to date (version 1)\n"
    text = case_text("ret-003") if new_file.endswith(".yaml") else "Another document.\n"
    write(root, f"real-{folder}/{new_file}", text)
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert "not staged" in result.stdout
    assert staged_names(root) == []


def test_stage_with_golden_lock_ignored_says_why_and_stages_both_or_neither(
    tmp_path: Path,
) -> None:
    """A .gitignore that catches golden.lock (``*.lock``): git add stages golden.version and
    refuses golden.lock. The hook must stage both (they are the set's own files, written
    for this commit), or neither and say that golden.lock is ignored; it staged one and
    said only "git add … failed"."""
    root = golden_set(tmp_path / "set")
    git(root, "init", "-q", "-b", "main")
    write(root, ".gitignore", "*.lock\n")
    commit(root, "a set not locked yet")
    result = run_cli("lock", "--stage", "--repo", root)
    staged = staged_names(root)
    if result.exit_code == 0:
        assert staged == ["golden.lock", "golden.version"]
    else:
        assert staged == [], staged
        assert "ignored" in result.stdout + result.stderr


def test_a_branch_cut_from_main_ahead_of_origin_main_moves_past_mains_version(
    tmp_path: Path,
) -> None:
    """Docs: "once per branch", measured from the merge base with the main branch. A feature
    branch cut from a local main one commit ahead of origin/main (not pushed) measured
    against origin/main's older lock: it recorded version 2, the version local main's lock
    gives another set, where the base it was cut from says 3."""
    source = git_set(tmp_path / "source")
    git(tmp_path, "clone", "-q", "--bare", str(source), "origin.git")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "clone")
    clone = tmp_path / "clone"
    write(clone, "cases/golden/ret-003.yaml", case_text("ret-003"))
    assert run_cli("lock", "--repo", clone).stdout.startswith("golden.version: 1 -> 2")
    commit(clone, "a change on main, not pushed")
    assert git(clone, "status", "-sb").stdout.startswith("## main...origin/main [ahead 1]")
    git(clone, "checkout", "-q", "-b", "feature")
    write(clone, "notes.txt", "the branch's first commit leaves the set alone\n")
    commit(clone, "notes")
    write(clone, "cases/golden/ret-002.yaml", case_text("ret-002", answer="the card"))
    moved = run_cli("lock", "--repo", clone).stdout.splitlines()[0]
    assert moved == (
        "golden.version: 2 -> 3 (set or corpus changed since the merge base of HEAD and main, "
        "version 2)"
    )
    commit(clone, "a change on the branch")
    assert run_cli("lock", "--check", "--repo", clone).exit_code == 0


# --- git beside goldcase: the questions and git add run while the set is read and checked ---


def test_a_git_add_that_fails_while_the_checks_run_is_an_error_not_a_pass(tmp_path: Path) -> None:
    """``check --lock`` starts ``git add`` and checks the set while it runs (docs/hooks.md,
    "What the hook costs"). A git add that fails (here, another git holds the index) must
    still fail the hook, naming the files, and never claim they were staged."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="14 days from delivery"))
    git(root, "add", "cases/golden/ret-001.yaml")
    (root / ".git/index.lock").write_bytes(b"")  # another git at work on the index
    result = run_cli("check", "--staged", "--lock", "--repo", root, "cases/golden/ret-001.yaml")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "git add golden.version golden.lock failed" in result.stderr
    assert "staged golden" not in result.stdout + result.stderr
    (root / ".git/index.lock").unlink()
    assert staged_names(root) == ["cases/golden/ret-001.yaml"]


def test_a_commit_of_dev_cases_alone_still_stages_a_lock_left_stale(tmp_path: Path) -> None:
    """git is asked early what the commit holds only when a staged file may change the lock;
    a lock left stale by an earlier commit (``--no-verify``) is still rewritten and staged
    when the next commit touches dev cases alone."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    commit(root, "a golden case committed past the hook")
    dev = case_text(
        "dev-001",
        question="How soon are credits paid?",
        answer="within five working days",
        quote="within five working days",
    )
    write(root, "cases/dev/dev-001.yaml", dev)
    git(root, "add", "cases/dev/dev-001.yaml")
    result = run_cli("check", "--staged", "--lock", "--repo", root, "cases/dev/dev-001.yaml")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "staged golden.version and golden.lock in this commit" in result.stderr
    assert staged_names(root) == ["cases/dev/dev-001.yaml", "golden.lock", "golden.version"]
    assert read_version(root) == "2"


def test_check_lock_refuses_a_path_outside_the_set_before_writing(tmp_path: Path) -> None:
    """A path outside the repository is a usage error found before anything is written:
    golden.version and golden.lock stay as they were."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    before = {name: (root / name).read_bytes() for name in ("golden.version", "golden.lock")}
    outside = write(tmp_path, "elsewhere/ret-009.yaml", case_text("ret-009"))
    result = run_cli("check", "--lock", "--repo", root, outside)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert {name: (root / name).read_bytes() for name in before} == before


def test_an_edit_saved_just_after_the_set_is_read_is_not_staged_behind_its_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git is asked whether the commit holds the golden cases as they were read only once
    they are read: an edit saved in between (an editor, a formatter) is seen, and the lock,
    which pins what was read, is not staged for a commit that holds other bytes."""
    from goldcase.versioning import locking

    root = git_set(tmp_path / "set")
    path = write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    git(root, "add", "cases/golden/ret-001.yaml")
    real = locking.load_case_set

    def read_then_edited(*args: object, **kwargs: object) -> object:
        case_set = real(*args, **kwargs)  # type: ignore[arg-type]
        path.write_text(case_text("ret-001", answer="two weeks"), encoding="utf-8")
        return case_set

    monkeypatch.setattr(locking, "load_case_set", read_then_edited)
    result = run_cli("check", "--staged", "--lock", "--repo", root, "cases/golden/ret-001.yaml")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "not staged: cases/golden/ret-001.yaml is on disk but not in this commit" in (
        result.stderr
    )
    assert staged_names(root) == ["cases/golden/ret-001.yaml"]


def test_stage_names_a_staged_case_marked_assume_unchanged_and_deleted_as_not_on_disk(
    tmp_path: Path,
) -> None:
    """A new case, staged, then marked assume-unchanged and deleted: no lock pinned it, and
    the commit holds it while the disk does not. The refusal says so (not "on disk but not
    in this commit", the other way round)."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-004.yaml", case_text("ret-004"))
    git(root, "add", "cases/golden/ret-004.yaml")
    git(root, "update-index", "--assume-unchanged", "cases/golden/ret-004.yaml")
    (root / "cases/golden/ret-004.yaml").unlink()
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    git(root, "add", "cases/golden/ret-001.yaml")
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "not staged: cases/golden/ret-004.yaml is in this commit but not on disk (marked "
        "assume-unchanged, so git does not see it deleted), so golden.lock, built from the "
        "disk, would not pin the set this commit holds; clear the mark and restore the file "
        "(git update-index --no-assume-unchanged FILE, then git checkout -- FILE), or delete "
        "it from the index too (git rm FILE)"
    )
    assert sorted(staged_names(root)) == ["cases/golden/ret-001.yaml", "cases/golden/ret-004.yaml"]
