"""The one user of gitpython: what goldcase asks git about a golden-set repository.

Git hands its hooks and merge drivers variables such as ``GIT_DIR`` and ``GIT_INDEX_FILE``.
They are right for the repository git is working on and wrong for any other: a hook of one
repository that looks at another (a test harness, a monorepo tool, ``goldcase init`` run from
inside a hook) would read the first repository's objects. So every question about a repository
is asked with those variables dropped, unless ``GIT_DIR`` already names that very repository.

Every function copes with a folder that is not a repository, a repository with no commits, a
detached HEAD, a shallow clone and paths with spaces; none raises for those states.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from goldcase.errors import GoldcaseError

if TYPE_CHECKING:
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

INHERITED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
)


def find_git_dir(path: Path) -> Path | None:
    """The ``.git`` folder of the work tree holding ``path``, found without asking git (so
    without trusting the environment)."""
    path = path.resolve()
    for folder in (path, *path.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            with contextlib.suppress(OSError, UnicodeDecodeError):
                text = dot_git.read_text(encoding="utf-8").strip()
                if text.startswith("gitdir:"):
                    return (folder / text[len("gitdir:") :].strip()).resolve()
    return None


def git_env(path: Path) -> dict[str, str]:
    """The environment for git commands about the repository at ``path``."""
    env = dict(os.environ)
    inherited = env.get("GIT_DIR")
    own = find_git_dir(path)
    if inherited and own is not None and Path(inherited).resolve() == own.resolve():
        return env  # git is working on this very repository: its index is the right one
    for name in INHERITED:
        env.pop(name, None)
    return env


@contextlib.contextmanager
def scrubbed(path: Path) -> Iterator[None]:
    """Run the block with ``os.environ`` as :func:`git_env` gives it (gitpython's commands
    inherit the process environment)."""
    saved = dict(os.environ)
    wanted = git_env(path)
    try:
        for name in set(os.environ) - set(wanted):
            del os.environ[name]
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def open_repo(path: Path) -> Iterator[git.Repo | None]:
    """The repository whose work tree holds ``path``, or None when there is none."""
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    with scrubbed(path):
        try:
            repo = git.Repo(path, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            yield None
            return
        try:
            yield repo
        finally:
            repo.close()


def top_level(path: Path) -> Path | None:
    """The root of the work tree holding ``path`` (None outside a repository or in a bare one)."""
    with open_repo(path) as repo:
        if repo is None or repo.working_tree_dir is None:
            return None
        return Path(repo.working_tree_dir).resolve()


def committed_text(path: Path) -> str | None:
    """The text of file ``path`` as committed at HEAD; None when there is no repository, no
    commit yet, or no such file at HEAD. Works on a detached HEAD and in a shallow clone."""
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    path = path.resolve()
    with open_repo(path.parent) as repo:
        if repo is None or repo.working_tree_dir is None:
            return None
        rel = path.relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
        try:
            blob = repo.head.commit.tree / rel
            data: bytes = blob.data_stream.read()
        except (ValueError, KeyError, git.BadName, git.CommandError):
            return None  # no commits yet (unborn branch), or the file is not at HEAD
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def init_repository(path: Path) -> None:
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    with scrubbed(path):
        try:
            git.Repo.init(path).close()
        except git.CommandError as exc:
            raise GoldcaseError(f"git init {path} failed: {_why(exc)}") from exc


def set_config(path: Path, key: str, value: str) -> None:
    """``git config --local key value`` in the repository holding ``path``."""
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    with open_repo(path) as repo:
        if repo is None:
            raise GoldcaseError(f"{path} is not inside a git repository")
        try:
            repo.git.config("--local", key, value)
        except git.CommandError as exc:
            raise GoldcaseError(f"git config {key} failed: {_why(exc)}") from exc


def _why(exc: Exception) -> str:
    stderr = str(getattr(exc, "stderr", "") or "").strip()
    return stderr or str(exc)


# --- reading a golden set as it was at a commit (goldcase review) ---


def resolve_commit(path: Path, ref: str) -> str:
    """The full sha of the commit ``ref`` names in the repository holding ``path``."""
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    with open_repo(path) as repo:
        if repo is None:
            raise GoldcaseError(f"{path} is not inside a git repository")
        try:
            return str(repo.commit(ref).hexsha)
        except (git.BadName, ValueError, git.GitCommandError) as exc:
            raise GoldcaseError(f"{ref!r} is not a commit in {path}: {exc}") from None


def merge_base(path: Path, first: str, second: str) -> str | None:
    """The best common ancestor of two commits, or None when they share none."""
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    with open_repo(path) as repo:
        if repo is None:
            return None
        try:
            bases = repo.merge_base(first, second)
        except (git.BadName, ValueError, git.GitCommandError):
            return None
        return str(bases[0].hexsha) if bases else None


def default_base(path: Path) -> tuple[str, str]:
    """(sha, what it is): the merge base of HEAD and ``origin/main``, else of HEAD and
    ``main``; HEAD itself when neither exists (the working tree is then compared with it)."""
    for branch in ("origin/main", "main", "origin/master", "master"):
        if _exists(path, branch):
            base = merge_base(path, "HEAD", branch)
            if base is not None:
                return base, f"merge base of HEAD and {branch}"
    return resolve_commit(path, "HEAD"), "HEAD"


def _exists(path: Path, ref: str) -> bool:
    try:
        resolve_commit(path, ref)
    except GoldcaseError:
        return False
    return True


def files_at(path: Path, ref: str, names: list[str]) -> dict[str, bytes]:
    """The files under each of ``names`` (folders or files, relative to ``path``) as they are
    at commit ``ref``, keyed by their path relative to ``path``."""

    out: dict[str, bytes] = {}
    with open_repo(path) as repo:
        if repo is None or repo.working_tree_dir is None:
            raise GoldcaseError(f"{path} is not inside a git work tree")
        prefix = path.resolve().relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
        tree = repo.commit(ref).tree
        for name in names:
            full = name if prefix == "." else f"{prefix}/{name}"
            try:
                item = tree / full
            except KeyError:
                continue
            for blob in _blobs(item):
                blob_path = str(blob.path)
                rel = blob_path if prefix == "." else blob_path[len(prefix) + 1 :]
                out[rel] = blob.data_stream.read()
    return out


def _blobs(item: git.Blob | git.Tree) -> Iterator[git.Blob]:
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    if isinstance(item, git.Blob):
        yield item
    elif isinstance(item, git.Tree):
        for child in item.traverse():
            if isinstance(child, git.Blob):
                yield child


def tracked(root: Path, rels: list[str]) -> set[str]:
    """Which of ``rels`` (paths relative to the work tree at ``root``) git tracks: in the index
    (so ``git add`` of the path, even deleted, means something). Empty outside a repository."""
    with open_repo(root) as repo:
        if repo is None or not rels:
            return set()
        try:
            listed = repo.git.ls_files("-z", "--", *rels)
        except Exception:  # GitPython's CommandError: an unreadable index tracks nothing here
            return set()
    return {name for name in listed.split("\0") if name}
