"""The one place goldcase asks git about a golden-set repository.

Tree walks (``goldcase review``, ``goldcase init``) go through GitPython; the one-line
questions a hook asks (the work tree's top, a file at a commit, the base a branch started from,
what is not committed, staging a file) run ``git`` itself: importing GitPython alone costs
75 ms, a quarter of what a commit hook may spend.

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
import hashlib
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from goldcase.errors import GoldcaseError
from goldcase.output import plain
from goldcase.safeio import TooLarge

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
    """The ``.git`` folder of the work tree holding ``path`` (``found_git``)."""
    found = found_git(path)
    return None if found is None else found[0]


def found_git(path: Path) -> tuple[Path, Path] | None:
    """The git folder of the work tree holding ``path``, and the top of that work tree (the
    folder holding its ``.git`` folder or file), found without asking git (so without
    trusting the environment) and as git finds them: a ``.git`` folder counts only when it
    is a git directory (``HEAD``, ``objects/`` and ``refs/``, in the folder its
    ``commondir`` names when it has one), so a decoy folder holding a ``config`` alone is
    passed over as git passes it over; a ``.git`` file (a linked worktree, a submodule, a
    ``--separate-git-dir``) names its folder in any bytes."""
    path = path.resolve()
    for folder in (path, *path.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            if _is_git_directory(dot_git):
                return dot_git, folder
        elif dot_git.is_file():  # "gitdir: <path>"
            text = os.fsdecode(_small_file(dot_git) or b"").strip()
            if text.startswith("gitdir:"):
                return (folder / text[len("gitdir:") :].strip()).resolve(), folder
    return None


def _is_git_directory(folder: Path) -> bool:
    """git's own test of a folder it may take for a repository's git folder."""
    base = folder
    common = os.fsdecode(_small_file(folder / "commondir") or b"").strip()
    if common:
        base = folder / common
    # HEAD is there in any form: git reads it to decide, so a FIFO there is for
    # ``unsafe_git_folder`` to refuse, not a reason to walk on
    return (
        os.path.lexists(folder / "HEAD")
        and (base / "objects").is_dir()
        and (base / "refs").is_dir()
    )


# git reads a gitfile, ``commondir`` and a config whole; it refuses a gitfile over 1 MiB.
_GIT_FILE = 1 << 20


def _small_file(path: Path) -> bytes | None:
    """The content of ``path`` when it is a regular file (or a link to one) of at most
    ``_GIT_FILE`` bytes; None when it is missing, larger, or anything else: opened without
    blocking, so a FIFO hangs nothing, and a link to ``/dev/zero`` is not read forever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _GIT_FILE:
            return None
        data = b""
        while len(data) <= _GIT_FILE:
            chunk = os.read(fd, _GIT_FILE + 1 - len(data))
            if not chunk:
                break
            data += chunk
        return data if len(data) <= _GIT_FILE else None
    except OSError:
        return None
    finally:
        os.close(fd)


# What git reads, or waits on, before it answers anything: a FIFO there hangs every git
# command, and ``commondir`` linked to /dev/zero has git take memory until the machine has
# none. Each name is paired with whether git reads it whole (a config it reads line by line).
_READ_FIRST = (("HEAD", True), ("commondir", True), ("config", False))
# What goldcase's own git commands read (`show`, `merge-base`, `rev-parse`, `for-each-ref`,
# `diff`, `add`, `ls-files`), in the common git folder: a FIFO at any of them hangs one of
# those commands, as does one at the branch HEAD names or at a `.gitattributes` of the work
# tree's folders down to the set (`git add` of the version and lock). Any size is git's.
_READ_TOO = (
    "packed-refs",
    "shallow",
    "info/attributes",
    "info/exclude",
    "info/grafts",
    "objects/info/alternates",
)
# The loose refs git 2.39 opens when asked for the base branches (``for-each-ref
# refs/remotes/origin/main refs/heads/main ...``): every one directly in the folders on the
# way to a base ref (a FIFO at ``refs/stash`` or ``refs/remotes/foo`` hung it) and every one
# whose name starts with a base ref's (``refs/heads/main/x``, ``refs/remotes/origin/main.d/x``);
# one in ``refs/tags`` did not. ``_loose_refs`` looks at all of ``refs/heads`` and
# ``refs/remotes``, at any depth, and what lies directly in ``refs``.
_REF_TREES = ("heads", "remotes")


class UnsafeGitFolder(OSError):
    """A git folder that would hang git or exhaust memory (``unsafe_git_folder``)."""


class Unsafe(NamedTuple):
    """A file git would hang on or read without end, and whether its bound is a size."""

    path: Path
    bounded: bool = False


def unsafe_git_folder(
    own: Path, top: Path | None = None, path: Path | None = None
) -> Unsafe | None:
    """The file of the git folder ``own`` (as a tarball brings it), or of the folder its
    ``commondir`` names, that git would wait on forever or read without end: one of
    ``_READ_FIRST`` that is there and is not a regular file (a FIFO, a device, a link to
    ``/dev/zero``), or is one over 1 MiB that git reads whole (``bounded``); one of
    ``_READ_TOO``, the branch ``HEAD`` names, or a loose ref git reads for the base branches
    (``_loose_refs``) that is (through links) a FIFO, a device other than ``/dev/null``, or a
    socket; or a ``.gitattributes`` of the work tree ``top``,
    from its top down to ``path``, that is one (not through a link: git 2.32 and later open
    those without following one). One ``stat`` each."""
    folders = [own]
    if os.path.lexists(own / "commondir"):
        with contextlib.suppress(UnicodeDecodeError):
            common = (_small_file(own / "commondir") or b"").decode("utf-8").strip()
            if common:
                folders.append(Path(os.path.normpath(own / common)))
    for folder in folders:
        for name, whole in _READ_FIRST:
            if _not_regular(folder / name, _GIT_FILE if whole else None):
                return Unsafe(folder / name, whole)
    also = [folders[-1] / name for name in _READ_TOO]
    branch = (_small_file(own / "HEAD") or b"").partition(b"ref:")[2].strip()
    if branch.startswith(b"refs/"):
        also.append(folders[-1] / os.fsdecode(branch))
    also += _loose_refs(folders[-1])
    special = next((file for file in also if _special(file, os.stat)), None)
    if special is None and top is not None:
        special = next((f for f in _attributes(top, path) if _special(f, os.lstat)), None)
    return None if special is None else Unsafe(special)


def refusal(unsafe: Unsafe) -> str:
    """Why goldcase runs no git where ``unsafe`` is, and what to do."""
    bound = " of at most 1 MiB" if unsafe.bounded else ""
    return (
        f"{plain(str(unsafe.path))} is not a regular file{bound}: "
        "git would wait on it for ever or read it until memory ran out, so goldcase runs no "
        "git in this repository; replace it with the regular file git expects (or clone the "
        "repository again)"
    )


def special_attributes(path: Path, folders: Sequence[str]) -> Path | None:
    """A ``.gitattributes`` in ``folders`` of ``path`` or any folder below them (not through
    links) that is a FIFO, a device other than the null device, or a socket: ``ls-files``
    of those folders opens each (git 2.39 waited on one in ``cases/golden``).

    Two ``lstat`` a folder; its entries are listed only when it has folders below it: most
    filesystems (ext4, xfs, tmpfs) count a folder's links as 2 and one a folder below it,
    as ``find`` relies on, and a folder of 10,000 case files is not listed (8 ms). Where a
    filesystem counts 2 whatever lies below (some network and FUSE mounts), the folders
    below are not looked at, and git's bound on itself is what is left. A repository nested
    in these folders is passed over, as ``ls-files`` passes over it."""
    stack = [path / folder for folder in folders]
    while stack:
        folder = stack.pop()
        if _special(folder / ".gitattributes", os.lstat):
            return folder / ".gitattributes"
        try:
            below = os.lstat(folder).st_nlink != 2
        except OSError:
            continue
        if below:
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                stack += [
                    Path(e.path)
                    for e in entries
                    if e.name != ".git"  # git's own folder: its .gitattributes are never read
                    and e.is_dir(follow_symlinks=False)
                    and not os.path.lexists(os.path.join(e.path, ".git"))  # another repository
                ]
    return None


def _loose_refs(common: Path) -> list[Path]:
    """The loose refs git may read for the base branches in the common git folder, and the
    folders that hold them (a FIFO where a folder should be hangs git too): what lies
    directly in ``refs``, and everything in ``_REF_TREES`` at any depth (types from the
    listing; there are few loose refs, most live in ``packed-refs``)."""
    refs = common / "refs"
    found = [refs]
    with contextlib.suppress(OSError), os.scandir(refs) as entries:
        found += [Path(e.path) for e in entries if not e.is_dir(follow_symlinks=False)]
    stack = [refs / tree for tree in _REF_TREES]
    while stack:
        folder = stack.pop()
        found.append(folder)
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                below = entry.is_dir(follow_symlinks=False)
                (stack if below else found).append(Path(entry.path))
    return found


def _attributes(top: Path, path: Path | None) -> list[Path]:
    """The ``.gitattributes`` git reads for files of ``path``: the work tree's top's, and
    each folder's down to ``path`` when it lies in the work tree."""
    files = [top / ".gitattributes"]
    if path is not None:
        with contextlib.suppress(ValueError):
            below = path.resolve().relative_to(top.resolve())
            files += [top / part / ".gitattributes" for part in reversed(below.parents[:-1])]
            if below.parts:
                files.append(top / below / ".gitattributes")
    return files


_DEV_NULL = os.stat(os.devnull).st_rdev


def _special(path: Path, look: Callable[[Path], os.stat_result]) -> bool:
    """Whether ``path`` is a FIFO, a device other than the null device, or a socket (as
    ``look``, ``os.stat`` or ``os.lstat``, sees it): a file git would wait on, or read
    without end. A folder git passes over; the null device it reads as empty."""
    try:
        info = look(path)
    except OSError:
        return False
    mode = info.st_mode
    if stat.S_ISCHR(mode) and info.st_rdev == _DEV_NULL:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def _not_regular(path: Path, limit: int | None) -> bool:
    """Whether ``path`` is there and is not a regular file (followed through links), or is
    one over ``limit`` bytes."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit)


def git_env(path: Path) -> dict[str, str]:
    """The environment for git commands about the repository at ``path``. The index git
    named (``GIT_INDEX_FILE``: during ``git commit``, the index being committed) is kept when
    it lies in this repository's own git folder, so a hook that stages a file stages it in
    the commit it runs for."""
    env = dict(os.environ)
    # Every variable of git's own is dropped, GIT_DIR too: git runs a linked worktree's hook
    # with GIT_DIR set and no GIT_WORK_TREE, and a command run from a set below the top would
    # take that folder for the top of the work tree. git finds the repository again from
    # ``path``; only the index being committed is kept.
    found = found_git(path)
    own = None if found is None else found[0]
    unsafe = None if found is None else unsafe_git_folder(*found, path)
    if unsafe is not None:
        raise UnsafeGitFolder(refusal(unsafe))
    index = _own_index(env.get("GIT_INDEX_FILE"), own)
    for name in INHERITED:
        env.pop(name, None)
    if index is not None:
        env["GIT_INDEX_FILE"] = index
    guard_git_config(env)
    return _without_filters(env, _repository_filters(path, own, env))


def guard_git_config(env: dict[str, str]) -> dict[str, str]:
    """``env`` with ``safe.bareRepository=explicit`` and ``core.fsmonitor=false`` added to
    git's command-line config, which wins over every config file. A folder holding HEAD,
    objects/ and refs/ is a bare repository to git, and a stranger can commit those files
    (and a ``config`` whose ``core.fsmonitor`` is any command) into a golden set's folder: git
    run there would take it for the repository and run that command. goldcase never works on
    a bare repository, so git is told to find none unless ``GIT_DIR`` names it. A repository
    that arrives with its own ``.git/config`` (a tarball, not a clone) can set
    ``core.fsmonitor`` too, and git runs it on every command that reads the index: goldcase's
    own git commands use no file-system monitor.

    git still fetches what a partial clone lacks, as it does for every command of the
    user's: goldcase's gate needs the base's ``golden.lock``, and a CI checkout with
    ``--filter=blob:none`` has none until git fetches it. A repository that arrives with its
    git folder (a tarball) can name that remote and how to reach it (a command of its
    choosing), as it can for ``git log -p``: clone a stranger's repository, do not unpack
    one (docs/robustness.md)."""
    for key, value in _GUARDS:
        _add_config(env, key, value)
    return env


def _add_config(env: dict[str, str], key: str, value: str) -> None:
    """Add ``key=value`` to the command-line config ``env`` hands git."""
    count = env.get("GIT_CONFIG_COUNT", "0")
    index = int(count) if count.isascii() and count.isdigit() else 0
    env[f"GIT_CONFIG_KEY_{index}"] = key
    env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_CONFIG_COUNT"] = str(index + 1)


_GUARDS = (("safe.bareRepository", "explicit"), ("core.fsmonitor", "false"))


def _repository_filters(path: Path, own: Path | None, env: dict[str, str]) -> list[str]:
    """The filter drivers the repository's own config defines (its ``.git/config``, a
    worktree's ``config.worktree`` and every file they include). A repository that arrives
    with its git folder (a tarball, not a clone) can define ``filter.<name>.process`` as any
    command and point every file at it in ``.gitattributes``: git runs that command whenever
    it reads a file's content into the index or compares it with the index (``git add``,
    ``ls-files --modified`` on a file whose times moved). Filters defined in the user's own
    config are theirs and stay, and so does a driver whose every command is git-lfs's own
    (``git lfs install --local``, as actions/checkout runs it, writes those into the
    repository's config). Only a config that names filters or includes another file costs
    the ``git config`` asked here. A git too old to tell where a value comes from
    (``--show-scope``, git 2.26) has every filter emptied; a config git cannot read in time
    (an include that names a FIFO) runs no git at all."""
    if own is None or not _may_define_filters(own):
        return []
    entries = _filter_config(path, env, "--show-scope")
    if entries is None:
        entries = _filter_config(path, env)
        if entries is None:
            raise UnsafeGitFolder(f"{plain(str(own))}: git cannot read its config to list filters")
        return list(dict.fromkeys(_driver(key) for key, _ in entries))
    local: dict[str, set[str]] = {}
    for key, value in entries:
        scope, _, key = key.partition("\0")
        if scope in ("local", "worktree"):
            commands = local.setdefault(_driver(key), set())
            if key.rpartition(".")[2] in _COMMANDS:
                commands.add(value)
    return [driver for driver, commands in local.items() if not commands <= _GIT_LFS]


_COMMANDS = ("clean", "smudge", "process")
_GIT_LFS = frozenset({"git-lfs clean -- %f", "git-lfs smudge -- %f", "git-lfs filter-process"})


def _filter_config(path: Path, env: dict[str, str], *options: str) -> list[tuple[str, str]] | None:
    """``(key, value)`` of every ``filter.*`` setting git reads for the repository at
    ``path`` (``--show-scope``: the key as ``scope\0key``); None when git cannot tell."""
    try:
        done = subprocess.run(
            ["git", "config", "-z", *options, "--get-regexp", r"^filter\."],
            cwd=path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):  # 1: no filter set anywhere
        return None
    fields = os.fsdecode(done.stdout).split("\0")
    if options:  # scope, then "key\nvalue"
        pairs = zip(fields[0::2], fields[1::2], strict=False)
        records = [f"{scope}\0{rest}" for scope, rest in pairs]
    else:
        records = [field for field in fields if field]
    out = []
    for record in records:
        key, _, value = record.partition("\n")
        if key.count(".") >= 2:
            out.append((key, value))
    return out


def _driver(key: str) -> str:
    """The driver a ``filter.<driver>.<name>`` key (scope first, when given) sets."""
    key = key.rpartition("\0")[2]
    return key[len("filter.") : key.rindex(".")]


def _may_define_filters(own: Path) -> bool:
    """Whether a config file of the git folder ``own`` (or of the folder its worktrees
    share) could define a filter: it names the ``filter`` section or includes a file. Read
    here, without a git process, because almost no repository's config does."""
    folders = [own]
    with contextlib.suppress(UnicodeDecodeError):
        common = (_small_file(own / "commondir") or b"").decode("utf-8").strip()
        if common:
            folders.append((own / common).resolve())
    for folder in folders:
        for name in ("config", "config.worktree"):
            config = folder / name
            if not os.path.lexists(config):
                continue
            data = _small_file(config)
            if data is None:  # over 1 MiB, or not a file: git is asked
                return True
            if _FILTER_OR_INCLUDE.search(data):
                return True
    return False


# a section header naming filters, or an include (``[include]``, ``[includeIf "…"]``); git
# takes ``[Filter "x"]`` and a header after another on one line alike
_FILTER_OR_INCLUDE = re.compile(rb"\[\s*(?:filter|include)", re.IGNORECASE)


def _without_filters(env: dict[str, str], drivers: list[str]) -> dict[str, str]:
    """``env`` with each filter driver in ``drivers`` emptied on git's command line, which
    wins over every config file: an empty command is no filter to git, and one that is not
    ``required`` lets git read the file as it is."""
    for driver in drivers:
        for key in ("clean", "smudge", "process"):
            _add_config(env, f"filter.{driver}.{key}", "")
        _add_config(env, f"filter.{driver}.required", "false")
    return env


def _own_index(index: str | None, own: Path | None) -> str | None:
    """``GIT_INDEX_FILE`` as an absolute path when it is inside the git folder ``own``."""
    if not index or own is None:
        return None
    absolute = Path(os.path.abspath(index))  # git gives it relative to the work tree's top
    try:
        absolute.parent.resolve().relative_to(own.resolve())
    except ValueError:
        return None
    return str(absolute)


def _git(path: Path, *args: str) -> bytes | None:
    """The output of ``git args`` run in the folder ``path``; None when git fails (not a
    repository, no such commit or file) or cannot be run."""
    done = _run(path, *args)
    return done[1] if done is not None and done[0] == 0 else None


def _run(path: Path, *args: str) -> tuple[int, bytes] | None:
    """``git args`` run in the folder ``path``: its exit status and output; None when git
    cannot be run."""
    with started(path, *args) as pending:
        return pending.result()


class Pending:
    """A git command running beside goldcase's own work (a hook's few questions cost a git
    process each, 10 to 40 ms on a large set, which the other core can spend while goldcase
    reads the set). ``result`` waits for it; leaving the ``with`` block waits too, so no git
    outlives the command that started it (a ``git add`` still running when the hook returns
    would hold the index's lock against the commit)."""

    def __init__(self, proc: subprocess.Popen[bytes] | None) -> None:
        self._proc = proc
        self._done: tuple[int, bytes] | None = None

    def result(self) -> tuple[int, bytes] | None:
        """Its exit status and output; None when git could not be run or took over two
        minutes (then it is stopped: asked first, so that it removes its own index lock)."""
        proc = self._proc
        if proc is None or self._done is not None:
            return self._done
        try:
            out, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
            self._proc = None
            return None
        self._done = (proc.returncode, out)
        return self._done

    def output(self) -> bytes | None:
        """Its output, when it succeeded."""
        done = self.result()
        return done[1] if done is not None and done[0] == 0 else None

    def __enter__(self) -> Pending:
        return self

    def __exit__(self, *exc: object) -> None:
        self.result()


def started(path: Path, *args: str) -> Pending:
    """``git args`` started in the folder ``path``, not waited for. A git folder git would
    hang in, or read without end, is a ``GoldcaseError`` naming the file: the command
    cannot ask git what it needs, and says why rather than taking it for no repository."""
    try:
        env = git_env(path)
    except UnsafeGitFolder as exc:
        raise GoldcaseError(str(exc)) from None
    try:
        proc = subprocess.Popen(
            ["git", *args],
            cwd=path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return Pending(None)
    return Pending(proc)


@contextlib.contextmanager
def scrubbed(path: Path) -> Iterator[None]:
    """Run the block with ``os.environ`` as :func:`git_env` gives it (gitpython's commands
    inherit the process environment)."""
    saved = dict(os.environ)
    try:
        wanted = git_env(path)
    except UnsafeGitFolder as exc:
        raise GoldcaseError(str(exc)) from None
    try:
        for name in set(os.environ) - set(wanted):
            del os.environ[name]
        os.environ.update(wanted)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def open_repo(path: Path) -> Iterator[git.Repo | None]:
    """The repository whose work tree holds ``path``, or None when there is none. git finds
    the top (refusing a bare repository a stranger committed into a folder, as every
    question here does); GitPython's own search would take that folder for the repository."""
    import git  # GitPython takes 75 ms to import; goldcase check never asks git

    top = top_level(path)
    if top is None:
        yield None
        return
    with scrubbed(path):
        try:
            repo = git.Repo(top)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            yield None
            return
        try:
            yield repo
        finally:
            repo.close()


def top_level(path: Path) -> Path | None:
    """The root of the work tree holding ``path`` (None outside a repository or in a bare one)."""
    out = _git(path, "rev-parse", "--show-toplevel")
    if not out or not out.strip():
        return None
    return Path(os.fsdecode(out.rstrip(b"\n"))).resolve()


BASE_BRANCHES = ("origin/main", "main", "origin/master", "master")
BASE_REFS = tuple(
    f"refs/remotes/{b}" if b.startswith("origin/") else f"refs/heads/{b}" for b in BASE_BRANCHES
)
_WORK_TREE = ("rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{commit}")
_BASE_TIPS = ("for-each-ref", "--format=%(refname) %(objectname)", *BASE_REFS)


class BaseAsked:
    """The two questions every lock asks git, started together when it is made (before the
    set is read): where the work tree and HEAD are (:func:`work_tree`), and where the base
    branches are (:func:`base_of`). A commit on the main branch then waits for no git but
    the lock's listing; leaving the ``with`` block waits for both."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._where = started(path, *_WORK_TREE)
        try:
            self._tips = started(path, *_BASE_TIPS)
        except BaseException:  # the first is waited for: no git outlives the command
            self._where.result()
            raise

    def where(self) -> tuple[int, bytes] | None:
        return self._where.result()

    def tips(self) -> bytes | None:
        return self._tips.output()

    def __enter__(self) -> BaseAsked:
        return self

    def __exit__(self, *exc: object) -> None:
        self._where.result()
        self._tips.result()


def work_tree(path: Path, asked: BaseAsked | None = None) -> tuple[Path, str | None] | None:
    """(the root of the work tree holding ``path``, HEAD's sha or None before the first
    commit); None outside a repository or in a bare one. One git process answers both
    :func:`top_level` and :func:`head_commit`: a hook asks each once a commit. ``asked``:
    that process started before, for ``path``."""
    done = asked.where() if asked is not None else _run(path, *_WORK_TREE)
    if done is None or done[0] not in (0, 1):  # 1: the top printed, HEAD not a commit yet
        return None
    text = os.fsdecode(done[1]).removesuffix("\n")
    top, head = text.rsplit("\n", 1) if done[0] == 0 and "\n" in text else (text, None)
    if not top.strip():
        return None
    return Path(top).resolve(), head


def committed_text(path: Path, limit: int) -> str | None:
    """The text of file ``path`` as committed at HEAD; None when there is no repository, no
    commit yet, or no such file at HEAD. Works on a detached HEAD and in a shallow clone.
    ``TooLarge`` over ``limit`` bytes, as :func:`text_at`."""
    return text_at(path, "HEAD", limit)


def text_at(path: Path, commit: str, limit: int, known: str | None = None) -> str | None:
    """The text of file ``path`` at ``commit``; None when there is no such commit or file, or
    the file is not UTF-8. A file over ``limit`` bytes is ``TooLarge``, refused by the size
    its tree records before anything of it is read: git keeps 600 MB of one repeated byte in
    about 600 KB (zlib at its best, a thousandth), which a reader of the whole blob would
    hold three times over. ``known``: a text the caller holds (the file in the work tree),
    returned without reading the blob when the blob is that text (git's name for its bytes
    is the blob's): the size's git process is then the only one, as when the blob was read
    without it."""
    path = Path(os.path.abspath(path))
    found = _blob_at(path, commit)
    if found is None:
        return None
    blob, size = found
    if size > limit:
        raise TooLarge(size, limit, f"{path.name} at {commit}")
    if known is not None and _is_blob(known, blob):
        return known
    data = _git(path.parent, "cat-file", "blob", blob)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _blob_at(path: Path, commit: str) -> tuple[str, int] | None:
    """(object name, size in bytes) of file ``path`` at ``commit``, as its tree lists it; None
    when there is no such commit or file, or it is a folder, a submodule or a link there (a
    link's blob is the path it leads to, not a file's text). The blob is then read by its
    object name: what was measured is what is read, wherever HEAD moves."""
    fields = _tree_entry(path, commit)
    if len(fields) != 4 or fields[1] != b"blob" or fields[0] == b"120000":
        return None
    return fields[2].decode(), int(fields[3])


def kind_at(path: Path, commit: str) -> str | None:
    """What ``path`` is at ``commit`` when it is there but no file (``text_at`` gives None
    for it as for nothing): ``a symbolic link``, ``a folder`` or ``a submodule``."""
    fields = _tree_entry(Path(os.path.abspath(path)), commit)
    if len(fields) != 4:
        return None
    if fields[0] == b"120000":
        return "a symbolic link"
    return {b"tree": "a folder", b"commit": "a submodule"}.get(fields[1])


def _tree_entry(path: Path, commit: str) -> list[bytes]:
    """Mode, type, object name and size of ``path`` at ``commit`` (``git ls-tree -l``); no
    fields when there is no such commit or entry."""
    out = _git(
        path.parent,
        "--literal-pathspecs",
        "ls-tree",
        "-l",
        "-z",
        "--end-of-options",
        commit,
        "--",
        path.name,
    )
    return (out or b"").split(b"\t", 1)[0].split()


def _is_blob(text: str, blob: str) -> bool:
    """Whether ``text`` in UTF-8 is the blob git names ``blob``: git's name for a blob is
    the hash of its bytes, SHA-1, or SHA-256 in a repository of that object format."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 blob holds it
        return False
    digest = hashlib.sha1() if len(blob) == 40 else hashlib.sha256()
    digest.update(b"blob %d\x00" % len(data))
    digest.update(data)
    return digest.hexdigest() == blob


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


def config_entries(path: Path, key: str) -> list[tuple[str, str]]:
    """Every value git holds for ``key`` in the repository at ``path``, with its scope
    (system, global, local, worktree, command), in the order git reads them: the last wins."""
    done = _run(path, "config", "--show-scope", "--get-all", key)
    if done is None or done[0] not in (0, 1):  # 1: the key is not set
        raise GoldcaseError(f"git config {key} failed in {path}")
    entries = []
    for line in os.fsdecode(done[1]).splitlines():
        scope, _, value = line.partition("\t")
        entries.append((scope, value))
    return entries


def unset_local_config(path: Path, key: str) -> None:
    """``git config --local --unset-all key`` in the repository holding ``path``."""
    done = _run(path, "config", "--local", "--unset-all", key)
    if done is None or done[0] not in (0, 5):  # 5: it was not set
        raise GoldcaseError(f"git config --unset-all {key} failed in {path}")


def hooks_folder(path: Path) -> Path:
    """The folder git runs hooks from when core.hooksPath is not set: ``hooks`` in the git
    directory the repository's worktrees share (what ``git rev-parse --git-path hooks`` names
    then; asked of the common directory so that a core.hooksPath set now does not change it)."""
    out = _git(path, "rev-parse", "--git-common-dir")  # relative to ``path``, or absolute
    if not out or not out.strip():
        raise GoldcaseError(f"{path} is not inside a git work tree; run git init first")
    return (Path(path).resolve() / os.fsdecode(out.rstrip(b"\n")) / "hooks").resolve()


def _why(exc: Exception) -> str:
    stderr = str(getattr(exc, "stderr", "") or "").strip()
    return stderr or str(exc)


# --- reading a golden set as it was at a commit (goldcase review) ---


def resolve_commit(path: Path, ref: str) -> str:
    """The full sha of the commit ``ref`` names in the repository holding ``path``."""
    if _git(path, "rev-parse", "--git-dir") is None:
        raise GoldcaseError(f"{path} is not inside a git repository")
    out = _git(path, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if not out:
        raise GoldcaseError(f"{ref!r} is not a commit in {path}")
    return out.decode().strip()


def merge_base(path: Path, first: str, *others: str) -> str | None:
    """The best common ancestor of ``first`` and the others (of ``first`` and the merge of
    two others, as ``git merge-base`` reads three), or None when they share none."""
    out = _git(path, "merge-base", "--end-of-options", first, *others)
    return out.decode().split()[0] if out and out.strip() else None


def default_base(path: Path) -> tuple[str, str]:
    """(sha, what it is): the nearest merge base of HEAD and ``origin/main``, ``main``,
    ``origin/master``, ``master`` (``base_of``); HEAD itself when there is none of them (the
    working tree is then compared with it). During a merge, the base of the merge being made:
    of the branch and HEAD merged with MERGE_HEAD."""
    found = base_commit(path)
    if found is not None:
        return found
    return resolve_commit(path, "HEAD"), "HEAD"


def base_commit(path: Path) -> tuple[str, str] | None:
    """The merge base ``default_base`` describes (``HEAD`` when HEAD is on the base branch),
    or None when no base branch exists or shares history with HEAD (no commits yet, a
    shallow clone without it)."""
    head = head_commit(path)
    return None if head is None else base_of(path, head)


def base_of(path: Path, head: str, asked: BaseAsked | None = None) -> tuple[str, str] | None:
    """``base_commit`` for a HEAD already known to be the commit ``head``: of the base
    branches that exist, the nearest merge base (the one the others lead to; a tie goes to
    the first in ``BASE_BRANCHES``). A local main ahead of a stale origin/main, or behind a
    fetched one: the branch was cut from whichever it shares the later commit with.
    ``asked``: the base branches' tips asked before, for ``path``."""
    refs = BASE_REFS
    listed = asked.tips() if asked is not None else _git(path, *_BASE_TIPS)
    present = dict(line.split(" ", 1) for line in listed.decode().splitlines()) if listed else {}
    # HEAD a base branch's tip (a commit on the main branch, ahead of origin/main or not; a
    # merge into it): the commit being made follows HEAD, with no need to ask git.
    if head in present.values():
        return head, "HEAD"
    tips = ["HEAD", "MERGE_HEAD"] if _merging(path) else ["HEAD"]
    branches: dict[str, str] = {}  # a tip -> the first base branch at it
    for branch, ref in zip(BASE_BRANCHES, refs, strict=True):
        if ref in present:
            branches.setdefault(present[ref], branch)
    bases: dict[str, str] = {}  # a merge base -> the first base branch giving it
    for tip in _latest(path, list(branches)):
        base = merge_base(path, tip, *tips)
        if base is not None:
            bases.setdefault(base, branches[tip])
    nearest = _latest(path, list(bases))
    if not nearest:
        return None
    base = nearest[0]
    return base, "HEAD" if base == head else f"merge base of HEAD and {bases[base]}"


def _latest(path: Path, commits: list[str]) -> list[str]:
    """``commits`` less those another of them leads to, in their order: of two tips one of
    which is behind the other (a stale origin/main), the later one's merge base with HEAD is
    never the older. One git process, only when there are two or more."""
    if len(commits) < 2:
        return commits
    out = _git(path, "merge-base", "--independent", "--end-of-options", *commits)
    if not out:
        return commits
    kept = set(out.decode().split())
    return [sha for sha in commits if sha in kept] or commits


def _merging(path: Path) -> bool:
    git_dir = find_git_dir(path)
    return git_dir is not None and (git_dir / "MERGE_HEAD").is_file()


def head_commit(path: Path) -> str | None:
    """HEAD's sha; None outside a repository or before the first commit."""
    out = _git(path, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    return out.decode().strip() if out else None


class Gaps(NamedTuple):
    """What the commit being made holds otherwise than the disk shows it
    (``asked_uncommittable``)."""

    changed: list[str]  # on disk, not in the commit as it is there
    skipped: list[str]  # in the commit, skipped in the work tree: git does not compare them
    assumed: list[str]  # in the commit, marked assume-unchanged, and not on disk


def asked_uncommittable(path: Path, folders: list[str]) -> Pending:
    """Which files under ``folders`` (relative to ``path``, as the answer names them) the
    commit being made will not hold as they are on disk: untracked or ignored (each file, also
    inside an ignored folder), or changed since they were staged (edited, deleted, added with
    ``--intent-to-add``); and files it holds that git skips in the work tree (a sparse
    checkout's, or marked ``--skip-worktree``), whatever the disk holds, or that are marked
    ``--assume-unchanged`` and gone from the disk. Asked without waiting: ``gaps_of`` reads
    the answer, None when git cannot tell (not a work tree, an unreadable index).

    ``ls-files --others`` with no exclude rules lists untracked and ignored files alike, and
    ``--modified`` is the work tree against the index alone: ``git status`` also compares the
    index with HEAD, which this question does not need. ``--modified`` passes over skipped
    entries; only ``--cached`` tags them (``S``), and lists every tracked file with them, so
    it is asked for only when the index may hold one (``may_skip_worktree``). An entry
    marked assume-unchanged is listed by ``--modified`` only when it is not on disk (git
    takes the mark's word for its content), tagged in lower case (``-v``)."""
    special = special_attributes(path, folders)
    if special is not None:
        raise GoldcaseError(refusal(Unsafe(special)))
    cached = ["--cached"] if may_skip_worktree(path) else []
    return started(
        path,
        "--literal-pathspecs",
        "ls-files",
        "-z",
        "-v",
        "--others",
        "--modified",
        *cached,
        "--",
        *folders,
    )


def gaps_of(pending: Pending) -> Gaps | None:
    """The answer to ``asked_uncommittable``."""
    out = pending.output()
    return None if out is None else _gaps(out)


def _gaps(out: bytes) -> Gaps:
    """The records of ``asked_uncommittable``'s ``ls-files``, by what they say of the
    disk."""
    found: dict[str, dict[str, None]] = {"changed": {}, "skipped": {}, "assumed": {}}
    for record in os.fsdecode(out).split("\0"):  # as the engine lists names (bytes kept)
        tag, _, name = record.partition(" ")
        if name and tag not in ("H", "h"):  # tracked, and as on disk when not listed again
            found[_GAP.get(tag, "changed")][name] = None  # an unmerged path: once
    return Gaps(*(list(names) for names in found.values()))


# ``ls-files -v`` tags: S skip-worktree (s: also marked assume-unchanged); c, an entry marked
# assume-unchanged that ``--modified`` lists: git did not find it on disk.
_GAP = {"S": "skipped", "s": "skipped", "c": "assumed"}


class Unseen(NamedTuple):
    """The files a commit holds that the disk does not show (``unseen_in_work_tree``)."""

    skipped: list[str]  # git skips them in the work tree (sparse checkout, --skip-worktree)
    assumed: list[str]  # marked --assume-unchanged and not on disk: git does not see them gone


def unseen_in_work_tree(path: Path, folders: list[str], *, missing: bool = False) -> Unseen | None:
    """The files under ``folders`` (relative to ``path``, as the answer names them) that the
    index holds and the disk does not show as a commit holds them: skipped in the work tree
    (a sparse checkout's, or marked ``--skip-worktree``), or marked ``--assume-unchanged``
    and deleted (``git status`` does not list them; the commit keeps them). None when git
    cannot tell (not a work tree, an unreadable index).

    Asked of git only when the index may hold a skipped file (``may_skip_worktree``), or when
    the caller found a file ``missing`` (a lock pins it, the disk lacks it): the
    assume-unchanged bit fits an index of version 2, so its header cannot rule it out.
    ``-v`` tags a marked entry in lower case, and only those are looked for on disk
    (``--deleted`` would have git look for every file: 20 ms more on 10,000 cases).
    ``ls-files`` lists a sparse index's folders file by file unless told ``--sparse``."""
    if not (missing or may_skip_worktree(path)):
        return Unseen([], [])
    out = _git(path, "--literal-pathspecs", "ls-files", "-z", "-v", "--cached", "--", *folders)
    if out is None:
        return None
    skipped: dict[str, None] = {}
    assumed: dict[str, None] = {}
    for record in os.fsdecode(out).split("\0"):
        tag, _, name = record.partition(" ")
        if not name:
            continue
        if tag in ("S", "s"):
            skipped[name] = None
        elif tag.islower() and not os.path.lexists(path / name):
            assumed[name] = None
    return Unseen(list(skipped), list(assumed))


_PLAIN_INDEX = b"DIRC\0\0\0\2"


def may_skip_worktree(path: Path) -> bool:
    """Whether the index of the work tree holding ``path`` may hold an entry git skips in
    the work tree, told from its header without running git: the skip-worktree bit is an
    extended flag, which an index of version 2 cannot hold, and git writes version 3 only
    when an entry needs one (gitformat-index(5)). Version 4 (``index.version``,
    ``feature.manyFiles``), a split index (its shared part may hold them) or an index that
    cannot be read: it may."""
    own = find_git_dir(path)
    if own is None:
        return True
    try:
        index = Path(_own_index(os.environ.get("GIT_INDEX_FILE"), own) or own / "index")
        fd = os.open(index, os.O_RDONLY | os.O_NONBLOCK)  # never blocks on a FIFO
        try:
            header = os.read(fd, len(_PLAIN_INDEX))
        finally:
            os.close(fd)
        if header != _PLAIN_INDEX:
            return True
        return any(name.startswith("sharedindex.") for name in os.listdir(index.parent))
    except OSError:
        return True


def asked_removals(path: Path, folder: str) -> Pending:
    """Which files under ``folder`` (relative to ``path``) the commit being made deletes or
    renames away (as its staged changes say), asked without waiting (``removals_of`` reads
    the answer)."""
    return started(
        path,
        "diff",
        "--cached",
        "--no-renames",
        "--name-only",
        "--diff-filter=D",
        "-z",
        "--",
        folder,
    )


def removals_of(asked: Pending) -> list[str]:
    """The answer to ``asked_removals``."""
    out = asked.output()
    return [name for name in out.decode("utf-8", "replace").split("\0") if name] if out else []


def in_merge_hook() -> bool:
    """Whether this process is a hook ``git merge`` runs (pre-merge-commit): git marks the
    environment (``GITHEAD_<sha>`` names the branch being merged, ``GIT_REFLOG_ACTION``
    starts with ``merge`` or ``pull``), and, unlike ``git commit``, does not read back the
    index such a hook stages into the merge commit."""
    action = os.environ.get("GIT_REFLOG_ACTION", "")
    return action.startswith(("merge", "pull")) or any(k.startswith("GITHEAD_") for k in os.environ)


def staging_started(path: Path, rels: list[str]) -> Pending:
    """``git add`` the files ``rels`` (relative to ``path``) to the index git is committing,
    even one a .gitignore pattern matches (``*.lock``): they are the files goldcase wrote for
    this commit, and staging one without the other would commit a version without its lock.
    Started, not waited for (``staged`` waits). Without the preload of the index: its
    threads (up to 20) each walk a slice of the whole index to find the entries of the
    paths named, two for the files a lock rewrites. Without hooks: git runs
    ``post-index-change`` when it writes the index, and a repository that arrives with its
    git folder (a tarball) brings its ``hooks``. ``core.hooksPath`` on the command line, which
    wins over every config file, names the null device: no folder, so no hook."""
    return started(
        path,
        "-c",
        "core.preloadIndex=false",
        "-c",
        f"core.hooksPath={os.devnull}",
        "add",
        "--force",
        "--",
        *rels,
    )


def staged(pending: Pending, path: Path, rels: list[str]) -> None:
    """Wait for ``staging_started``'s ``git add``; a ``GoldcaseError`` when it failed."""
    if pending.output() is None:
        raise GoldcaseError(f"git add {' '.join(rels)} failed in {path}")


def files_at(path: Path, ref: str, names: list[str], limit: int, shown: str) -> dict[str, bytes]:
    """The files under each of ``names`` (folders or files, relative to ``path``) as they are
    at commit ``ref`` (``shown`` names it), keyed by their path relative to ``path``. A file
    over ``limit`` bytes is refused by its size before anything of it is read: git stores a
    file of one repeated byte in about a thousandth of its size."""

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
                out[rel] = _read_blob(blob, limit, f"{plain(rel)} at {shown}", ref, blob_path)
    return out


def _read_blob(blob: git.Blob, limit: int, shown: str, ref: str, blob_path: str) -> bytes:
    """The content of ``blob`` (``shown`` names it), refused over ``limit`` bytes by its
    size before anything of it is read, or when git lacks it and could not fetch it (a
    partial clone whose remote cannot be reached)."""
    try:
        size = blob.size  # the object's header only
    except ValueError:  # GitPython's word for an object git does not have
        raise GoldcaseError(
            f"{shown}: git does not have this file's content here (a partial clone) and could "
            f"not fetch it; fetch it with git show {ref}:{plain(blob_path)} and run again"
        ) from None
    if size > limit:
        raise GoldcaseError(
            f"{shown}: {size:,} bytes, more than the {limit:,} goldcase reads of a file of "
            "the set; goldcase check says what is wrong with it"
        )
    data: bytes = blob.data_stream.read()
    return data


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
