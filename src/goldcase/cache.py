"""The cache: data only, outside the working tree, and never a reason for a command to fail.

- **Data only.** Each namespace is one MessagePack file (decoded by msgspec, which builds
  plain dicts, lists, strings and numbers and never runs code), behind a header that names the
  format and a CRC-32 of the payload. A file that is missing, damaged, truncated, of another
  format or of the wrong shape reads as an empty namespace; every caller checks the shape of
  each value it takes out (``findings_from``, ``isinstance``) and recomputes on doubt.
- **Outside the working tree.** By default under the user's cache folder
  (``$XDG_CACHE_HOME/goldcase``, else ``~/.cache/goldcase``), in a folder keyed by the
  repository's real path; ``GOLDCASE_CACHE_DIR`` names the folder instead (for a CI cache).
  A folder inside the repository that git tracks anything in is not used: a committed cache
  is someone else's claim about the set.
- **Never through a symlink.** Every folder goldcase creates or enters below the base is
  opened with ``O_NOFOLLOW`` and used through its descriptor; files are created exclusively
  and renamed into place inside that folder.
- **Bounded.** The user cache folder holds one folder per repository; ``cachesweep`` records
  when each was last used and, once a day, drops those of repositories that are gone or
  unused for a month and the least recently used past 2 GiB in all.
- **Keyed by what made it.** Under the base, one folder per ``code_salt()``: goldcase's
  version and a digest of its source and schema files' content, so every install of the same
  goldcase shares the cache and an edit or an upgrade starts afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import subprocess
import time
import zlib
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from goldcase import __version__
from goldcase.cachesweep import (
    mark_used,
    record_repository,
    remove_tree,
    repos_folder,
    repository_key,
    sweep_if_due,
)
from goldcase.collector import kept
from goldcase.gitview import guard_git_config, top_level
from goldcase.model import Finding

ENV = "GOLDCASE_CACHE_DIR"
_MAGIC = b"goldcase-cache/2\n"  # the format: header, CRC-32 (4 bytes, big-endian), payload
_SUFFIX = ".msgpack"
# A run that changed a few entries of a large namespace appends them to the namespace's
# journal instead of writing the whole file again (5 MB for 10,000 cases): a run that looks
# at part of the set (``check FILE``, a hook), or a whole run that read every entry. A whole
# run that leaves entries unread (files gone) or a journal grown past a quarter of its
# namespace writes the namespace whole, without them, and empties the journal.
_JOURNAL = ".journal"
_JOURNAL_FLOOR = 256 * 1024  # bytes a journal may always reach before the namespace is rewritten
_MAX_BYTES = 2 * 1024**3  # a bound on what one namespace file may make us read
_KEEP_SALTS = 4  # folders of other goldcase versions kept beside the current one
_IGNORE = b"# created by goldcase; safe to delete\n*\n"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_SALT_NAME = re.compile(r"[^/]+-[0-9a-f]{24}")  # a build's folder, as ``code_salt`` names it
_DECODER = msgspec.msgpack.Decoder()
_ENCODER = msgspec.msgpack.Encoder()


@cache
def code_salt() -> str:
    """goldcase's version and the content of its own source and schema files: cached results
    are only as good as the code that made them. Content, not modification times, so two
    installs of one version agree (about 3 ms for the package's 600 kB)."""
    h = hashlib.blake2b(__version__.encode(), digest_size=12)
    package = Path(__file__).parent
    for top in (package, _schema_folder()):
        if top is None:
            continue
        for path in _source_files(top):
            with contextlib.suppress(OSError):
                h.update(f"\x00{path.relative_to(top).as_posix()}\x00".encode())
                h.update(path.read_bytes())
    return f"{__version__}-{h.hexdigest()}"


def _schema_folder() -> Path | None:
    from goldcase.schemas import schema_dir  # the schema module imports the cache's callers

    try:
        return schema_dir()
    except Exception:  # no schema: the salt is the source alone, and loading will say why
        return None


def _source_files(top: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found.extend(Path(folder, f) for f in files if f.endswith((".py", ".json")))
    return sorted(found)


def location(root: Path) -> Path | None:
    """Where the cache of the repository at ``root`` lives; None when it must not be used (a
    folder inside the repository with files git tracks)."""
    override = os.environ.get(ENV, "").strip()
    if override:
        folder = Path(override).expanduser()
        folder = folder if folder.is_absolute() else Path.cwd() / folder
    else:
        own = _own_folder(os.path.realpath(root))
        if own is None:  # no home folder to keep a user cache in
            return None
        folder = own
    return None if _tracked(root, folder) else folder


def _own_folder(real: str) -> Path | None:
    """The folder of the repository at the real path ``real`` in the user cache folder; None
    when there is no user cache folder (``cachesweep.repos_folder``)."""
    repos = repos_folder()
    if repos is None:
        return None
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:40]
    return repos / f"{name}-{repository_key(real)}"


def _tracked(root: Path, folder: Path) -> bool:
    """Whether ``folder`` lies inside the repository (as written, or with its links resolved)
    and git tracks a file under it, or a file (a link) where a folder on its way should be: a
    branch that commits ``.cache/goldcase/repos`` as a link elsewhere would have goldcase write
    there, and sweep what it finds (``XDG_CACHE_HOME`` inside the project, as a CI that
    caches only the project's paths sets it)."""
    top = _work_tree_top(root)
    inside = _within(top, folder)
    if not inside:
        return False
    asked = sorted({str(p) for rel in inside for p in (rel, *rel.parents) if str(p) != "."})
    env = guard_git_config({k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
    try:
        done = subprocess.run(
            ["git", "--literal-pathspecs", "ls-files", "-z", "--", *(asked or ["."])],
            cwd=top,
            capture_output=True,
            env=env,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return True  # cannot tell: do not trust it
    if done.returncode != 0 or (done.stdout and not asked):
        return True
    files = os.fsdecode(done.stdout).split("\0")
    return any(f in asked or f.startswith(tuple(f"{r}/" for r in inside)) for f in files if f)


def user_cache_tracked() -> bool:
    """Whether the user cache folder's ``repos/`` lies in a git work tree that tracks a file
    in it or on the way to it (``XDG_CACHE_HOME`` inside a project): ``goldcase gc`` must not
    sweep it, as a repository's own cache is not used (``location``). git is asked from the
    nearest folder on the way that is not a link, so a committed link is seen as a link."""
    repos = repos_folder()
    if repos is None:
        return False
    here = next((p for p in (repos, *repos.parents) if p.is_dir() and not p.is_symlink()), None)
    top = None if here is None else top_level(here)
    return top is not None and _tracked(top, repos)


def _work_tree_top(root: Path) -> Path:
    """The top of the work tree holding ``root`` (the nearest folder up with a ``.git``),
    found without running git; ``root`` itself outside one. A set in a folder of a larger
    repository has its cache folder judged against the whole work tree."""
    here = Path(os.path.abspath(root))
    return next((p for p in (here, *here.parents) if (p / ".git").exists()), here)


def _within(root: Path, folder: Path) -> list[Path]:
    """``folder`` relative to the repository at ``root``, as written and with links resolved:
    those of the two that lie inside it (none: the folder is outside the repository)."""
    out = []
    for top, path in (
        (os.path.abspath(root), os.path.abspath(folder)),
        (os.path.realpath(root), os.path.realpath(folder)),
    ):
        with contextlib.suppress(ValueError):
            out.append(Path(path).relative_to(top))
    return list(dict.fromkeys(out))


def finding_to(f: Finding) -> list[Any]:
    """A finding as cache data."""
    return [f.path, f.line, f.col, f.code, f.severity, f.message]


def finding_from(item: Any) -> Finding | None:
    """A finding read back from cache data; None for anything of another shape."""
    if type(item) is not list or len(item) != 6:
        return None
    path, line, col, code, severity, message = item
    if not (type(path) is str and type(code) is str and type(message) is str):
        return None
    if type(line) is not int or type(col) is not int or severity not in ("error", "warning"):
        return None
    return Finding(path, line, col, code, severity, message)


FINDING_CODEC = (finding_to, finding_from)  # for ``Context.per_case``


def findings_to(findings: list[Finding]) -> list[list[Any]]:
    """Findings as cache data."""
    return [finding_to(f) for f in findings]


def findings_from(value: Any) -> list[Finding] | None:
    """Findings read back from cache data; None for anything of another shape."""
    if type(value) is not list:
        return None
    out = [finding_from(item) for item in value]
    return None if any(f is None for f in out) else [f for f in out if f is not None]


class Cache:
    """Namespaced key-value store of plain data, one file per namespace.

    Only the entries read or written during a run are saved back, so entries for files that
    no longer exist drop out on the next save.
    """

    def __init__(self, folder: Path | None, repository: str | None = None) -> None:
        self._base = folder
        # The repository's real path when the folder is its own in the user cache folder
        # (recorded there, and that folder's siblings swept); None for any other folder.
        self._repository = repository
        self._old: dict[str, dict[str, Any]] = {}  # as read, less the entries used so far
        self._used: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()
        self._changed: dict[str, set[str]] = {}  # namespace -> the keys put in this run
        self._written: dict[str, int] = {}  # namespace -> its file's mtime (ns) as read
        self._sizes: dict[str, tuple[int, int]] = {}  # namespace -> (file, journal) bytes
        self._pruned: set[str] = set()  # namespaces a run dropped entries of: written whole
        # A run that looks at part of the set (``check PATHS``) keeps the entries it did not
        # read, which the rest of the set still needs: only a whole run drops stale ones.
        self.partial = False

    @classmethod
    def for_repository(cls, root: Path) -> Cache:
        """The cache of the repository at ``root`` (see ``location``)."""
        folder = location(root)
        if os.environ.get(ENV, "").strip() or folder is None:
            return cls(folder)
        return cls(folder, os.path.realpath(root))

    def opened(self) -> Cache:
        """This cache, kept to be saved by ``save_opened`` when the command ends."""
        _OPENED.append(self)
        return self

    @property
    def enabled(self) -> bool:
        return self._base is not None

    def _namespace(self, namespace: str, shape: Any = None) -> dict[str, Any]:
        if namespace not in self._old:
            self._old[namespace] = self._read(namespace, shape)
            self._used[namespace] = {}
        return self._old[namespace]

    def _read(self, namespace: str, shape: Any) -> dict[str, Any]:
        if self._base is None:
            return {}
        try:
            with _folder(self._base, create=False) as fd:
                raw, self._written[namespace] = _read_file(f"{namespace}{_SUFFIX}", fd)
                table = decode(raw, shape)
                journal = _read_optional(f"{namespace}{_JOURNAL}", fd)
        except Exception:  # missing, unreadable or damaged: start afresh
            return {}
        kept = 0  # bytes of the journal read: a record after a damaged one would never be
        for record in journal_records(journal):
            entries = decode(record, shape)
            if not entries:  # damaged, or of another shape: this and what follows are dropped
                break
            table.update(entries)
            kept += 4 + len(record)
        if kept == len(journal):  # else the namespace is written whole next (``_appended``)
            self._sizes[namespace] = (len(raw), len(journal))
        return table

    def take(
        self, namespace: str, keys: Iterable[str], shape: Any, *, only: bool = False
    ) -> dict[str, Any]:
        """The entries stored under ``keys`` (those there are), read at once: what ``get``
        gives key by key, for a caller that wants the whole table. ``shape`` is the type
        (``dict[str, T]``) the namespace's file must decode to, checked by the decoder as it
        reads: a file of any other shape reads as an empty namespace. ``only``: ``keys`` are
        every entry the namespace is to keep, even in a run over part of the set (a split's
        fact table in parts: each commit of a changed case leaves a part of a quarter of a
        megabyte behind it). The others are dropped, and the namespace written whole, once
        they number a quarter of ``keys``: writing 2 MB on every commit that leaves one
        behind costs more than decoding the few left."""
        old = self._namespace(namespace, shape)
        used = self._used[namespace]
        wanted = list(keys)
        found = {key: value for key in wanted if (value := old.pop(key, None)) is not None}
        used.update(found)
        if only and old and len(old) * 4 >= len(wanted):
            old.clear()
            self._pruned.add(namespace)
        return used

    def stored_bytes(self, namespace: str) -> int:
        """The size of the namespace's file as last saved (0 when there is none), from its
        stat alone: how much a run would decode, known before it does."""
        if self._base is None:
            return 0
        try:
            with _folder(self._base, create=False) as fd:
                return os.stat(f"{namespace}{_SUFFIX}", dir_fd=fd, follow_symlinks=False).st_size
        except Exception:  # no cache yet, or one that cannot be read: nothing to decode
            return 0

    def written_ns(self, namespace: str, shape: Any = None) -> int:
        """When the namespace's file was last written (its modification time in ns, on the
        file system's own clock), 0 when there was none: an entry that records a file's
        modification time can be trusted only for a file older than this (git's racy-clean
        rule). ``shape``: as for ``take``, when this is the namespace's first read."""
        self._namespace(namespace, shape)
        return self._written.get(namespace, 0)

    def get(self, namespace: str, key: str) -> Any:
        """The value stored under ``key``; an entry read moves from the old table to the used
        one (never both: a 100,000-entry namespace is held once)."""
        old = self._namespace(namespace)
        used = self._used[namespace]
        if key in used:
            return used[key]
        if key in old:
            value = used[key] = old.pop(key)
            return value
        return None

    def known(self, namespace: str, key: str, signature: list[int] | None) -> Any:
        """The value ``record`` stored under ``key`` for a file whose stat signature was
        ``signature`` (``safeio.stat_signature``), when the file is older than the
        namespace's file: git's racy-clean rule (a file changed in the instant the cache was
        written may hold other bytes under the same signature). None otherwise."""
        entry = self.get(namespace, key)
        if signature is None or type(entry) is not list or len(entry) != 2:
            return None
        if entry[0] != signature or signature[0] >= self.written_ns(namespace):
            return None
        return entry[1]

    def record(self, namespace: str, key: str, signature: list[int] | None, value: Any) -> None:
        """Store what was computed from a file's bytes read after its stat ``signature`` was
        taken (nothing without one), for ``known``."""
        if signature is not None:
            self.put(namespace, key, [signature, value])

    def put(self, namespace: str, key: str, value: Any) -> None:
        """Store plain data (dict, list, str, bytes, int, float, bool, None) under ``key``."""
        self._namespace(namespace).pop(key, None)
        self._used[namespace][key] = value
        self._dirty.add(namespace)
        self._changed.setdefault(namespace, set()).add(key)

    def release(self, namespace: str) -> None:
        """Let go of a namespace's entries once they are saved (a command that took what it
        needed from them): a later ``get`` reads the file again. A namespace with unsaved
        entries (or dropped ones, ``take``'s ``only``) is kept."""
        if namespace not in self._dirty and namespace not in self._pruned:
            self._old.pop(namespace, None)
            self._used.pop(namespace, None)
            self._written.pop(namespace, None)

    def save(self) -> None:
        """Write back each namespace that gained an entry or holds entries nobody read. Any
        failure (no space, no permission, a file where a folder should be) leaves the cache
        as it was: the next run is cold, nothing else."""
        if self._base is None:
            return
        todo = [
            n
            for n in self._used
            if n in self._dirty or n in self._pruned or (self._old[n] and not self.partial)
        ]
        if not todo:
            return
        with (
            contextlib.suppress(Exception),
            _folder(self._base, create=True, repository=self._repository) as fd,
        ):
            for namespace in todo:
                if not self._appended(namespace, fd):
                    self._write_whole(namespace, fd)
                self._dirty.discard(namespace)  # saved (or not data): not again
                self._pruned.discard(namespace)
                self._changed.pop(namespace, None)

    def _appended(self, namespace: str, fd: int) -> bool:
        """Whether a run's few changes went to the namespace's journal: only when its file
        and journal were read whole (a record after a damaged one would never be read), the
        journal stays under a quarter of the file (or the floor), and the run leaves nothing
        to drop (a part run keeps what it did not read; a whole run that read every entry has
        nothing stale, and rewriting 5 MB to change one entry cost a commit that locks the set
        35-45 ms). The file's time, which ``known`` measures files against, stays: only a
        whole write moves it on (another process may have appended records this run never
        checked). A run that changed every entry the namespace keeps leaves nothing of the
        file current, so it writes it whole: the score's view, one entry, was appended when
        the set shrank, and its file's time, older than the files it stands for, kept it
        untrusted for as many runs as the journal took to outgrow the file."""
        if namespace not in self._sizes or not self._sizes[namespace][0]:
            return False
        if namespace in self._pruned:  # entries dropped: written whole, without them
            return False
        if not self.partial and self._old[namespace]:  # stale entries: written whole, without
            return False
        used = self._used[namespace]
        entries = {key: used[key] for key in self._changed.get(namespace, ()) if key in used}
        if not entries:  # nothing to add (an empty record would end the journal's reading)
            return True
        if len(entries) == len(used) and not self._old[namespace]:  # every entry new
            return False
        record = encode(entries)
        if record is None:
            return False
        size, journal = self._sizes[namespace]
        if journal + len(record) > max(size // 4, _JOURNAL_FLOOR):
            return False
        _append_file(f"{namespace}{_JOURNAL}", journal_record(record), fd)
        self._sizes[namespace] = (size, journal + len(record) + 4)
        return True

    def _write_whole(self, namespace: str, fd: int) -> None:
        """The namespace written whole (a whole run: only the entries it used), its journal
        emptied: everything the journal held was read into it."""
        table = self._used[namespace]
        if self.partial:
            table = {**self._old[namespace], **table}
        payload = encode(table)
        if payload is not None:
            _write_file(f"{namespace}{_SUFFIX}", payload, fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{namespace}{_JOURNAL}", dir_fd=fd)
            self._sizes[namespace] = (len(payload), 0)
        self._old[namespace] = {}  # the entries nobody read are gone from the file


_OPENED: list[Cache] = []


def save_opened() -> None:
    """Save every cache a command opened: each command that fills the cache writes it,
    whatever it is and however it ended (one that saved already writes nothing twice)."""
    while _OPENED:
        _OPENED.pop().save()


def encode(table: dict[str, Any]) -> bytes | None:
    """A namespace's bytes; None when a value is not plain data."""
    try:
        payload = _ENCODER.encode(table)
    except (TypeError, ValueError, OverflowError):
        return None
    return _MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload


def decode(raw: bytes, shape: Any = None) -> dict[str, Any]:
    """A namespace read back (checked against ``shape`` as it is decoded, when given): any
    damage, or any other shape, gives an empty one."""
    head = len(_MAGIC) + 4
    if not raw.startswith(_MAGIC) or len(raw) < head:
        return {}
    payload = memoryview(raw)[head:]
    if zlib.crc32(payload) != int.from_bytes(raw[len(_MAGIC) : head], "big"):
        return {}
    try:
        with kept():  # a warm load builds a million small objects, all kept for the run
            table = (_DECODER if shape is None else _decoder(shape)).decode(payload)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return {}
    return table if type(table) is dict else {}


@cache
def _decoder(shape: Any) -> msgspec.msgpack.Decoder[Any]:
    return msgspec.msgpack.Decoder(shape)


@contextlib.contextmanager
def _folder(base: Path, *, create: bool, repository: str | None = None) -> Iterator[int]:
    """A descriptor of ``base/<code salt>``, every component below ``base``'s parent opened
    without following a symlink (and made, with ``create``). Entering records the use of
    ``base``; making it, for a ``repository`` in the user cache folder, records its path and
    sweeps the folder's siblings when a day has passed (``cachesweep``)."""
    parent_fd = _open_parent(base, create)
    try:
        # A folder goldcase did not make (a GOLDCASE_CACHE_DIR naming one of the user's) gets
        # no .gitignore: in a home folder kept in git, it would hide every file.
        made = create and (_made(parent_fd, base.name) or repository is not None)
        base_fd = _enter(parent_fd, base.name, create=False)
        if create and repository is not None:
            with contextlib.suppress(Exception):  # a sweep that fails costs nothing but space
                sweep_if_due(parent_fd, base.name, time.time())
    finally:
        os.close(parent_fd)
    try:
        mark_used(base_fd, time.time())
        if create:
            if made:
                _ignore_file(base_fd)
            if repository is not None:
                record_repository(base_fd, repository)
            _prune(base_fd)
        salt_fd = _enter(base_fd, code_salt(), create)
    finally:
        os.close(base_fd)
    try:
        yield salt_fd
    finally:
        os.close(salt_fd)


def _open_parent(base: Path, create: bool) -> int:
    """The base's parent: the user's own cache folder, or the folder above the override.
    Made as an ordinary folder when missing (it is the user's, not a repository's)."""
    if create:
        base.parent.mkdir(parents=True, exist_ok=True)
    return os.open(base.parent, os.O_RDONLY | os.O_DIRECTORY)


def _enter(parent_fd: int, name: str, create: bool) -> int:
    if create:
        _made(parent_fd, name)
    return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)  # a link here: ELOOP / ENOTDIR


def _made(parent_fd: int, name: str) -> bool:
    """Make the folder ``name``; whether this call made it (False: it was there already)."""
    try:
        os.mkdir(name, 0o700, dir_fd=parent_fd)
    except FileExistsError:
        return False
    return True


def _ignore_file(fd: int) -> None:
    """A ``.gitignore`` of ``*``, so a cache folder inside a repository stays out of git."""
    try:
        os.stat(".gitignore", dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        _write_file(".gitignore", _IGNORE, fd)


def _prune(fd: int) -> None:
    """Keep the folders of the last few goldcase builds; drop older ones. Only folders named
    as ``code_salt`` names them are a build's: a GOLDCASE_CACHE_DIR may name a folder of the
    user's (a home folder), whose own folders are never goldcase's to remove."""
    current = code_salt()
    entries = []
    for name in os.listdir(fd):
        if name.startswith(".") or name == current or not _SALT_NAME.fullmatch(name):
            continue
        with contextlib.suppress(OSError):
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                entries.append((info.st_mtime_ns, name))
    for _, name in sorted(entries, reverse=True)[_KEEP_SALTS:]:
        with contextlib.suppress(OSError):
            remove_tree(fd, name)


def _read_file(name: str, dir_fd: int) -> tuple[bytes, int]:
    """The file's bytes and its modification time (ns)."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
            return b"", 0
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(info.st_size + 1), info.st_mtime_ns
    finally:
        os.close(fd)


def journal_record(record: bytes) -> bytes:
    """One journal record: its length (4 bytes, big-endian), then a namespace's bytes."""
    return len(record).to_bytes(4, "big") + record


def journal_records(journal: bytes) -> Iterator[bytes]:
    """The records of a journal, up to the first that is cut short."""
    at = 0
    while at + 4 <= len(journal):
        size = int.from_bytes(journal[at : at + 4], "big")
        record = journal[at + 4 : at + 4 + size]
        if len(record) < size:
            return
        yield record
        at += 4 + size


def _read_optional(name: str, dir_fd: int) -> bytes:
    """The file's bytes; nothing when it is missing or cannot be read (a link, say): the
    namespace's own file still reads."""
    try:
        return _read_file(name, dir_fd)[0]
    except OSError:
        return b""


def _append_file(name: str, data: bytes, dir_fd: int) -> None:
    """Append ``data`` to ``name`` in one write (a link is not followed). A record cut short
    by a crash ends the journal where it was cut: what came before it still reads."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(name, flags, 0o600, dir_fd=dir_fd)  # a FIFO with no reader: ENXIO, not a wait
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        os.write(fd, data)
    finally:
        os.close(fd)


def _write_file(name: str, data: bytes, dir_fd: int) -> None:
    """Write ``name`` in the folder ``dir_fd`` whole or not at all: an exclusive temporary
    file renamed over it (a rename replaces a link, never writes through it)."""
    tmp = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(data)
        os.close(fd)
        fd = -1
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
