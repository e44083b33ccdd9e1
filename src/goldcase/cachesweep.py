"""The bound on the user cache folder: repositories' folders that are gone or unused go.

``cache.py`` keeps the last few goldcase builds inside one repository's folder; this module
bounds the ``repos/`` folder that holds one such folder per repository a user ever checked
(clones, temporary copies), which nothing else ever shrinks.

- **Use is recorded once a day.** A repository's folder has its modification time moved to
  now whenever goldcase opens it and the time is a day old or more: one ``fstat`` of a folder
  already open, and a write at most once a day, so a warm read still writes nothing else.
  A folder's modification time is its last use, to the day.
- **A sweep at most once a day.** When goldcase writes a repository's cache and the stamp
  file ``repos/.swept`` is a day old or missing, it moves the stamp to now and sweeps: it
  drops the folder of a repository that no longer exists (the folder's ``.repository`` file
  records its real path), then each folder unused for ``MAX_AGE``, then the least recently
  used folders while the total passes ``MAX_BYTES``. The folder of the repository being
  worked on is never dropped.
- **Only goldcase's, never through a link.** Only folders named as ``cache.location`` names
  them (up to 40 name characters, ``-``, 16 hex digits) are looked at, through descriptors
  opened with ``O_NOFOLLOW``; a link in their place is left alone, a link inside one is
  removed as a link (its target is never entered).
- **Other processes only miss.** A folder is renamed out of the way (``~removing-<hex>``, a
  name no repository folder takes) before it is emptied, so a process that opens it next
  finds no cache and runs cold; one that had it open reads files still there or finds them
  gone, and every cache read treats a file it cannot read as a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from goldcase.errors import GoldcaseError

DAY = 86_400  # seconds; use is recorded, and the cache swept, at most once in this
# A month unused: a clone left alone that long is most likely done with (a deleted copy, a
# finished review), and its first check after that is one cold run (seconds for 10,000
# cases, docs/benchmarks.md); thirty days keeps every clone used in a working month.
MAX_AGE = 30 * DAY
# 2 GiB for every repository's cache together: a 100,000-case set's folder, with the builds
# kept beside the current one, is about 330 MB, and half of one machine's 163 folders were
# under 0.25 MB; this keeps the half dozen largest sets one person works on at once, or
# thousands of ordinary ones, while bounding what goldcase may take of a laptop's disk.
MAX_BYTES = 2 * 1024**3
STAMP = ".swept"  # in repos/: its modification time is the last sweep's
RECORD = ".repository"  # in a repository's folder: the repository's real path
_RECORD_MAX = 4096  # bytes: a path, at most PATH_MAX
_TOMB = "~removing-"
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


class Folder(NamedTuple):
    name: str
    used: float  # its modification time: the last day goldcase used it
    size: int  # bytes of the files in it
    gone: bool  # the repository it records no longer exists


def repos_folder() -> Path | None:
    """``repos/`` of the user cache folder: ``$XDG_CACHE_HOME/goldcase``, else
    ``~/.cache/goldcase`` (an ``XDG_CACHE_HOME`` that is not absolute is ignored, as the XDG
    specification says). None when there is no home folder to put it in (``HOME`` unset, for
    a user the system does not list: a container run as a bare uid)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base and Path(base).is_absolute():
        return Path(base) / "goldcase" / "repos"
    try:
        return Path.home() / ".cache" / "goldcase" / "repos"
    except RuntimeError:  # "Could not determine home directory"
        return None


NO_HOME = (
    "no user cache folder: neither XDG_CACHE_HOME nor HOME is set, and the system names no "
    "home folder for this user; set XDG_CACHE_HOME to a folder of yours"
)


def repository_key(real: str) -> str:
    """The 16 hex digits that end the name of the folder of the repository at ``real``."""
    return hashlib.blake2b(os.fsencode(real), digest_size=8).hexdigest()


def ours(name: str) -> bool:
    """Whether ``name`` is shaped as ``cache.location`` names a repository's folder."""
    prefix, dash, key = name[:-16], name[-17:-16], name[-16:]
    if dash != "-" or len(prefix) > 40 or not all(c.isalnum() or c in "-_." for c in prefix):
        return False
    return all(c in "0123456789abcdef" for c in key)


def mark_used(fd: int, now: float) -> None:
    """Record that the folder open at ``fd`` was used today (see the module's docstring)."""
    with contextlib.suppress(OSError):
        if not 0 <= now - os.fstat(fd).st_mtime < DAY:
            os.utime(fd)


def record_repository(fd: int, real: str) -> None:
    """Write the repository's real path into its folder, once, for the sweep to check. One
    that cannot be written (or is cut short) only leaves the folder to the age and size
    rules: a record that is not the folder's own path is never believed."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    try:
        out = os.open(RECORD, flags, 0o600, dir_fd=fd)
    except OSError:  # there already (EEXIST), or not writable
        return
    with contextlib.suppress(OSError):
        os.write(out, os.fsencode(real))
    os.close(out)


def sweep_now(*, everything: bool = False) -> list[Folder]:
    """Sweep the user cache folder now, whatever its stamp says (``goldcase gc``); with
    ``everything``, remove every repository's folder. The folders removed."""
    where = repos_folder()
    if where is None:
        raise GoldcaseError(NO_HOME)
    try:
        repos_fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return []
    except OSError as e:
        raise GoldcaseError(f"cannot open the cache folder {where}: {e.strerror}") from e
    try:
        _stamp(repos_fd)
        if everything:
            return sweep(repos_fd, "", time.time(), max_age=0, max_bytes=0)
        return sweep(repos_fd, "", time.time())
    finally:
        os.close(repos_fd)


def sweep_if_due(repos_fd: int, keep: str, now: float) -> list[Folder]:
    """Sweep ``repos/`` (open at ``repos_fd``) when the last sweep is a day old or more,
    keeping the folder ``keep``; the folders removed."""
    try:
        last = os.stat(STAMP, dir_fd=repos_fd, follow_symlinks=False)
        if stat.S_ISREG(last.st_mode) and 0 <= now - last.st_mtime < DAY:
            return []
    except FileNotFoundError:
        pass
    if not _stamp(repos_fd):
        return []
    return sweep(repos_fd, keep, now)


def _stamp(repos_fd: int) -> bool:
    """Move the sweep's stamp to now first, so processes that start meanwhile do not sweep
    again; False when it cannot be written (then no sweep: it could not be recorded)."""
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK  # a FIFO: ENXIO
        fd = os.open(STAMP, flags, 0o600, dir_fd=repos_fd)
    except OSError:
        return False
    try:
        os.utime(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def sweep(
    repos_fd: int,
    keep: str,
    now: float,
    *,
    max_age: float = MAX_AGE,
    max_bytes: int = MAX_BYTES,
) -> list[Folder]:
    """Remove the folders under ``repos/`` whose repository is gone or that are unused for
    ``max_age`` seconds, then the least recently used while all of them pass ``max_bytes``;
    never ``keep``. The folders removed."""
    folders = sorted(_folders(repos_fd), key=lambda f: (f.used, f.name))
    total = sum(f.size for f in folders)
    removed = []
    for folder in folders:  # least recently used first
        due = folder.gone or now - folder.used >= max_age or total > max_bytes
        if due and folder.name != keep and remove(repos_fd, folder.name):
            removed.append(folder)
            total -= folder.size
    for name in _tombs(repos_fd):  # left by a sweep that was stopped: finish it
        _empty(repos_fd, name)
    return removed


def _folders(repos_fd: int) -> Iterator[Folder]:
    for name in os.listdir(repos_fd):
        if not ours(name):
            continue
        with contextlib.suppress(OSError):  # gone meanwhile, or not a folder: not looked at
            fd = os.open(name, DIR_FLAGS, dir_fd=repos_fd)
            try:
                yield Folder(name, os.fstat(fd).st_mtime, _size(fd), _gone(fd, name))
            finally:
                os.close(fd)


def _size(fd: int) -> int:
    """Bytes of the files in a repository's folder and in its builds' folders (one level)."""
    total = 0
    for name, info in _entries(fd):
        if stat.S_ISDIR(info.st_mode):
            with contextlib.suppress(OSError):
                inner = os.open(name, DIR_FLAGS, dir_fd=fd)
                try:
                    total += sum(i.st_size for _, i in _entries(inner))
                finally:
                    os.close(inner)
        else:
            total += info.st_size
    return total


def _entries(fd: int) -> Iterator[tuple[str, os.stat_result]]:
    for name in os.listdir(fd):
        with contextlib.suppress(OSError):
            yield name, os.stat(name, dir_fd=fd, follow_symlinks=False)


def _gone(fd: int, name: str) -> bool:
    """Whether the folder records a repository that no longer exists: a path that is its
    own (it hashes to the folder's key) and that nothing is at now. A folder without a
    record (written by an earlier goldcase) is never gone: age and size bound it."""
    try:
        rec = os.open(RECORD, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return False
    try:
        real = os.fsdecode(os.read(rec, _RECORD_MAX + 1))
    except OSError:
        return False
    finally:
        os.close(rec)
    if not os.path.isabs(real) or repository_key(real) != name[-16:]:
        return False
    try:
        os.stat(real)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):  # there but not ours to look at, or not a path: not gone
        return False
    return False


def remove(repos_fd: int, name: str) -> bool:
    """Rename the folder ``name`` out of the way, then empty and remove it; whether it was
    taken (another process may have removed it first)."""
    tomb = f"{_TOMB}{os.urandom(8).hex()}"
    try:
        os.rename(name, tomb, src_dir_fd=repos_fd, dst_dir_fd=repos_fd)
    except OSError:
        return False
    _empty(repos_fd, tomb)
    return True


def _tombs(repos_fd: int) -> list[str]:
    names = os.listdir(repos_fd)
    return [n for n in names if n.startswith(_TOMB) and len(n) == len(_TOMB) + 16]


def _empty(repos_fd: int, tomb: str) -> None:
    """Remove a renamed folder: its files, its builds' folders (files only), itself. Anything
    else in it (a folder deeper down) leaves it in place: it is not goldcase's to remove."""
    with contextlib.suppress(OSError):
        fd = os.open(tomb, DIR_FLAGS, dir_fd=repos_fd)
        try:
            for name, info in _entries(fd):
                if stat.S_ISDIR(info.st_mode):
                    remove_tree(fd, name)
                else:
                    os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(tomb, dir_fd=repos_fd)


def remove_tree(parent_fd: int, name: str) -> None:
    """Remove the folder ``name`` and the files in it (a link is removed, not followed)."""
    fd = os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    try:
        for entry in os.listdir(fd):
            os.unlink(entry, dir_fd=fd)  # a cache folder holds files only
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent_fd)
