"""Git states a golden-set repository can be in, each built for real: ``goldcase check``,
``goldcase lock --check`` and ``goldcase review`` give a result or a clear ``error:`` line in
every one, never a traceback."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from kit import plant_unreadable
from robustness.kit import GOLDCASE, canonical, commit, env, git, make_set, run


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def goldcase(cwd: Path, *args: str, **extra: str) -> Outcome:
    done = subprocess.run(
        [GOLDCASE, *args],
        cwd=cwd,
        env={**env(), **extra},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    if done.returncode == 2:
        assert done.stderr.startswith("error: "), done.stderr
    return Outcome(done.returncode, done.stdout, done.stderr)


def golden_repo(root: Path, cases: int = 3) -> Path:
    """A locked golden set committed on main."""
    make_set(root, cases, canonical)
    git(root, "init", "-q", "-b", "main")
    assert run(["lock"], root).returncode in (0, 1)
    commit(root, "golden set")
    return root


def three(cwd: Path, **extra: str) -> tuple[Outcome, Outcome, Outcome]:
    return (
        goldcase(cwd, "check", "--no-cache", **extra),
        goldcase(cwd, "lock", "--check", **extra),
        goldcase(cwd, "review", "--format", "text", **extra),
    )


def clean(outcomes: tuple[Outcome, Outcome, Outcome]) -> None:
    check, lock, review = outcomes
    assert check.code == 0, check.stdout + check.stderr
    assert lock.code == 0, lock.stdout + lock.stderr
    assert review.code == 0, review.stdout + review.stderr


def test_no_commits_yet(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_set(root, 3, canonical)
    git(root, "init", "-q", "-b", "main")
    assert run(["lock"], root).returncode == 1
    check, lock, review = three(root)
    assert (check.code, lock.code) == (0, 0)
    assert review.code == 2  # nothing to compare with: a clear error
    assert review.stderr.startswith(f"error: 'HEAD' is not a commit in {root}")


def test_detached_head(tmp_path: Path) -> None:
    root = golden_repo(tmp_path / "repo")
    (root / "notes.txt").write_text("second commit\n")
    commit(root, "second")
    git(root, "checkout", "-q", "--detach", "HEAD~1")
    clean(three(root))


def test_shallow_clone(tmp_path: Path) -> None:
    origin = golden_repo(tmp_path / "origin")
    (origin / "notes.txt").write_text("second commit\n")
    commit(origin, "second")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    clean(three(clone))


def test_partial_clone(tmp_path: Path) -> None:
    origin = golden_repo(tmp_path / "origin")
    git(origin, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{origin}", str(clone))
    clean(three(clone))


def test_worktree(tmp_path: Path) -> None:
    root = golden_repo(tmp_path / "repo")
    worktree = tmp_path / "wt"
    git(root, "worktree", "add", "-q", "-b", "other", str(worktree))
    (worktree / "cases/golden/ret-004.yaml").write_text(canonical("ret-004"))
    check, lock, review = three(worktree)
    assert check.code == 1 and "GC401" in check.stdout  # added since golden.lock
    assert lock.code == 1 and "GC401" in lock.stdout
    assert review.code == 0 and "ret-004" in review.stdout


def _submodule_add(root: Path, source: Path, where: str) -> None:
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), where)
    commit(root, f"add {where}")


def test_golden_set_inside_a_submodule(tmp_path: Path) -> None:
    golden = golden_repo(tmp_path / "golden")
    app = tmp_path / "app"
    app.mkdir()
    (app / "README.md").write_text("the application\n")
    git(app, "init", "-q", "-b", "main")
    commit(app, "app")
    _submodule_add(app, golden, "golden")
    clean(three(app / "golden"))
    check = goldcase(app, "check", "--no-cache", "--repo", "golden")
    assert check.code == 0, check.stdout + check.stderr


def test_repository_containing_a_submodule(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "lib.py").write_text("x = 1\n")
    git(lib, "init", "-q", "-b", "main")
    commit(lib, "lib")
    root = golden_repo(tmp_path / "repo")
    _submodule_add(root, lib, "vendor/lib")
    clean(three(root))


def test_sparse_checkout(tmp_path: Path) -> None:
    origin = golden_repo(tmp_path / "origin")
    (origin / "prompts").mkdir()
    (origin / "prompts/system.md").write_text("You answer from the documents.\n")
    commit(origin, "prompts")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{origin}", str(clone))
    git(clone, "sparse-checkout", "set", "cases", "corpus")
    assert not (clone / "prompts").exists()
    clean(three(clone))


def _conflicting_branches(root: Path) -> None:
    git(root, "checkout", "-q", "-b", "topic")
    (root / "cases/golden/ret-001.yaml").write_text(
        canonical("ret-001").replace("14 days\n", "fourteen days\n")
    )
    commit(root, "topic edit")
    git(root, "checkout", "-q", "main")
    (root / "cases/golden/ret-001.yaml").write_text(
        canonical("ret-001").replace("14 days\n", "two weeks\n")
    )
    commit(root, "main edit")


def _conflicted(outcomes: tuple[Outcome, Outcome, Outcome]) -> None:
    check, lock, review = outcomes
    assert check.code == 1
    assert "cases/golden/ret-001.yaml:" in check.stdout and " GC111 " in check.stdout
    assert lock.code == 1  # the case no longer hashes to what golden.lock records
    assert review.code == 0


def test_merge_in_progress(tmp_path: Path) -> None:
    root = golden_repo(tmp_path / "repo")
    _conflicting_branches(root)
    merged = subprocess.run(["git", "merge", "topic"], cwd=root, env=env(), capture_output=True)
    assert merged.returncode == 1 and (root / ".git/MERGE_HEAD").exists()
    _conflicted(three(root))


def test_rebase_in_progress(tmp_path: Path) -> None:
    root = golden_repo(tmp_path / "repo")
    _conflicting_branches(root)
    git(root, "checkout", "-q", "topic")
    rebased = subprocess.run(["git", "rebase", "main"], cwd=root, env=env(), capture_output=True)
    assert rebased.returncode == 1 and (root / ".git/rebase-merge").exists()
    _conflicted(three(root))


Hookenv = Callable[[Path], dict[str, str]]


@pytest.mark.parametrize(
    "hook_env",
    [
        lambda root: {"GIT_DIR": str(root / ".git"), "GIT_INDEX_FILE": str(root / ".git/index")},
        lambda root: {"GIT_DIR": ".git", "GIT_INDEX_FILE": ".git/index"},
        lambda root: {
            "GIT_DIR": str(root / ".git"),
            "GIT_INDEX_FILE": str(root / ".git/next-index-1234.lock"),
        },
    ],
    ids=["absolute", "relative", "commit-a-index"],
)
def test_git_dir_exported_by_a_hook(tmp_path: Path, hook_env: Hookenv) -> None:
    """pre-commit runs hooks with GIT_DIR / GIT_INDEX_FILE exported (``git commit -a`` points
    GIT_INDEX_FILE at a temporary index)."""
    root = golden_repo(tmp_path / "repo")
    extra = hook_env(root)
    if "next-index" in extra["GIT_INDEX_FILE"]:
        (root / ".git/next-index-1234.lock").write_bytes((root / ".git/index").read_bytes())
    clean(three(root, **extra))


def test_git_dir_of_another_repository(tmp_path: Path) -> None:
    """A hook in one repository that checks a golden set in another (``--repo``): the
    inherited GIT_DIR belongs to the first and must not be used for the second."""
    root = golden_repo(tmp_path / "golden")
    app = tmp_path / "app"
    app.mkdir()
    git(app, "init", "-q", "-b", "main")
    extra = {"GIT_DIR": str(app / ".git"), "GIT_INDEX_FILE": str(app / ".git/index")}
    for args in (("check", "--no-cache"), ("lock", "--check"), ("review", "--format", "text")):
        outcome = goldcase(app, *args, "--repo", str(root), **extra)
        assert outcome.code == 0, outcome.stdout + outcome.stderr


@pytest.mark.parametrize("name", ["commondir", "config", "HEAD"])
def test_a_git_folder_holding_a_fifo_or_a_link_to_dev_zero(tmp_path: Path, name: str) -> None:
    for kind in ("fifo", "zero"):
        root = golden_repo(tmp_path / kind)
        plant_unreadable(root / ".git" / name, kind)
        check, lock, review = three(root)
        assert (check.code, lock.code, review.code) == (0, 2, 2), lock.stderr + review.stderr
        for refused in (lock, review):
            assert refused.stderr.startswith(
                f"error: {root / '.git' / name} is not a regular file"
            ), refused.stderr
            assert "goldcase runs no git in this repository" in refused.stderr
