"""Load a golden-set repository and run the check families over it."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec import Struct

from goldcase import checks, gitview, progress
from goldcase.aside import Taker, aside, can_fork
from goldcase.cache import findings_to
from goldcase.collector import kept
from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.loader import MAX_CASE_BYTES, file_digest, load_case_file
from goldcase.model import INBOX, CaseFile, CaseSet, Finding, Folder
from goldcase.safeio import (
    NOT_REGULAR,
    Outside,
    TooLarge,
    is_named,
    kind_of_mode,
    read_inside,
    read_regular,
    shown_path,
    signature_of,
)

CASE_SUFFIXES = (".yaml", ".yml")
_FILES = "files"
_SHORT = 64  # strings up to this length are interned (names, slices, ids, tags)


def case_paths(ctx: Context) -> list[str]:
    """Every case file under the cases folder, relative to the root, sorted."""
    return [rel for rel, _ in case_entries(ctx)]


Signature = list[int]  # a file's (mtime_ns, ctime_ns, size, inode): what a change changes
Entries = list[tuple[str, Signature | None]]  # case_entries: paths and signatures


def case_entries(ctx: Context) -> Entries:
    """Every case file under the cases folder, relative to the root, sorted, with its stat
    signature (None for a link, whose own times say nothing of what it points to)."""
    top = ctx.config.cases_dir
    if not top.is_dir():
        return []
    found: dict[str, Signature | None] = {}
    under = os.path.relpath(top, ctx.root).replace(os.sep, "/")
    stack = [(str(top), "" if under == "." else f"{under}/")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{prefix}{name}/"))
                elif name.endswith(CASE_SUFFIXES) or _linked_folder(entry):
                    named = is_named(name)  # else no signature: not cached
                    found[prefix + name] = _signature(entry) if named else None
    return [(rel, found[rel]) for rel in sorted(found)]


LIST_ASIDE_FROM = 1 << 20  # bytes of case cache (800 to 3,000 cases) from which it pays


def list_aside(ctx: Context) -> Listing:
    """``case_entries(ctx)``, taken by a forked child (``aside``) while this process does
    other work (``check`` decodes the case cache and imports the families, ``score`` reads
    the view and the result lines): the listing is 3-5 µs of ``lstat`` a file (system time,
    30-45 ms for 10,000) that a second core spends beside that work. The same function's
    result; taken here, when asked for, for a small set (a case cache under
    ``LIST_ASIDE_FROM``), one core, or any failure of the child."""
    if not can_fork() or ctx.cache.stored_bytes(_FILES) < LIST_ASIDE_FROM:
        return Listing(ctx, None)
    return Listing(ctx, aside(lambda: _ENTRIES.encode(case_entries(ctx))))


class Listing:
    """The case files' entries (``case_entries``), given once when called: a child's listing
    (``list_aside``), or, with no child, one taken then. ``ready()``: whether a call would
    not wait for a child still listing; ``cancel()``: the child killed, nothing listed."""

    __slots__ = ("_ctx", "_taker")

    def __init__(self, ctx: Context, taker: Taker | None) -> None:
        self._ctx = ctx
        self._taker = taker

    def ready(self) -> bool:
        return self._taker is None or self._taker.ready()

    def cancel(self) -> None:
        """The listing is not wanted (an error or a Ctrl-C): a child still listing is killed."""
        if self._taker is not None:
            self._taker.cancel()

    def __call__(self) -> Entries:
        if self._taker is not None:
            raw = self._taker()
            if raw is not None:
                with contextlib.suppress(msgspec.DecodeError):
                    return _ENTRIES_SHAPE.decode(raw)
        return case_entries(self._ctx)  # no child, or it failed: listed here


_ENTRIES = msgspec.msgpack.Encoder()
_ENTRIES_SHAPE = msgspec.msgpack.Decoder(list[tuple[str, list[int] | None]])


def _signature(entry: os.DirEntry[str]) -> Signature | None:
    try:
        info = entry.stat(follow_symlinks=False)  # a link's own mode is not a regular file's
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return signature_of(info)


def _linked_folder(entry: os.DirEntry[str]) -> bool:
    """A link to a folder: listed so that it gets a finding (GC113), since the cases in it are
    not read (a folder is never followed through a link, which may lead out of the
    repository) and would otherwise drop out of check, lock and score unseen."""
    return entry.is_symlink() and entry.is_dir()


def taken_ids(ctx: Context, case_set: CaseSet) -> set[str]:
    """Every id a new case or draft must not take: each file stem under the cases folder and
    each id a file there declares."""
    taken = {Path(rel).stem for rel in case_paths(ctx)}
    for case_file in case_set.files:
        if isinstance(case_file.data, dict) and isinstance(case_file.data.get("id"), str):
            taken.add(case_file.data["id"])
    return taken


def split_of(prefix: str, rel: str) -> Folder | None:
    """``golden``, ``dev`` or ``inbox`` (drafts) from a path under the cases folder
    (``prefix`` ends in ``/``)."""
    head = rel[len(prefix) :].split("/", 1)
    if len(head) == 2 and head[0] in _FOLDERS:
        return _FOLDERS[head[0]]
    return None


_FOLDERS: dict[str, Folder] = {"golden": "golden", "dev": "dev", "inbox": INBOX}


def load_case_set(
    ctx: Context,
    listed: Entries | None = None,
    *,
    prepare: Sequence[str] = (),
    imported: Sequence[str] = (),
    parallel_from: int | None = None,
) -> CaseSet:
    """Read, parse and validate every case file (``listed``: ``case_entries(ctx)`` when the
    caller has it already, so the folder is not listed and ``lstat``ed twice). A file whose
    stat signature is the one its cache entry records, and older than the cache's own file,
    is not read at all (git's racy-clean rule: a file changed in the same instant as the
    cache was written is read again); a file whose bytes are the ones cached is not parsed;
    a large number of changed files (``parallel_from``, default ``PARALLEL_FROM``) is parsed
    on every core, where the per-file work of the families named in ``prepare`` is done
    too (``checks.preparers``; its results wait in ``ctx.prepared``). The families of
    ``prepare`` and ``imported`` are imported while a child lists the case files (``check
    --lock`` runs them on the set ``lock`` loads, and prepares none of their work)."""
    if listed is None:
        take_listing = list_aside(ctx)
        try:
            ctx.cache.take(_FILES, (), _SHAPE)  # decoded (its shape checked) meanwhile
            for name in (*prepare, *imported):  # and the families imported
                checks.family(name)
        except BaseException:  # an error or a Ctrl-C: the child killed and reaped, not waited for
            take_listing.cancel()
            raise
        listed = take_listing()
    parallel = _Parallel(PARALLEL_FROM if parallel_from is None else parallel_from, prepare)
    with kept():  # the set lives as long as the command
        return _load_case_set(ctx, listed, parallel)


def release_case_cache(ctx: Context) -> None:
    """Save the case cache and let go of its entries: a command that has loaded the set and
    needs no more of it (``score``) peaks lower (the entries' lists and signatures, about
    60 MB for 100,000 cases; the cases themselves keep their data)."""
    ctx.cache.save()
    ctx.cache.release(_FILES)


class _Parallel(Struct, frozen=True):
    start: int  # files to parse from which they are parsed on every core
    prepare: Sequence[str]  # the families whose per-file work is done there too


def _load_case_set(ctx: Context, listed: Entries, parallel: _Parallel) -> CaseSet:
    prefix = Path(ctx.config.cases).as_posix().rstrip("/") + "/"
    root = os.path.join(ctx.root, "")
    cached = ctx.cache.take(_FILES, [rel for rel, _ in listed], _SHAPE)
    written = ctx.cache.written_ns(_FILES)
    files: list[CaseFile | None] = []
    todo: list[tuple[int, str, Folder | None, bytes | None, Signature | None]] = []
    links: list[str] = []
    for rel, signature in listed:
        split = split_of(prefix, rel)
        if not is_named(rel):
            files.append(_unnamed(rel, split))
            continue
        if signature is None and os.path.islink(root + rel):  # a link has no signature
            links.append(rel)
        entry = cached.get(rel)
        if entry is not None and entry[1] != split:
            entry = None
        # As recorded, and older than the cache: not read.
        if (
            entry is not None
            and signature is not None
            and signature[0] < written
            and entry[5] == signature
        ):
            files.append(_from_entry(rel, split, entry))
            continue
        # Nothing cached to compare the bytes with: the file is read where it is parsed
        # (on every core, for a cold run of many files).
        known = None if entry is None else _known_file(ctx, root, rel, split, entry, signature)
        if isinstance(known, CaseFile):
            files.append(known)
        else:
            todo.append((len(files), rel, split, known, signature))
            files.append(None)
    jobs = [(ctx.root, rel, split, raw) for _, rel, split, raw, _ in todo]
    with progress.task("reading case files", len(jobs), show=len(jobs) >= SHOW_FROM) as advance:
        parsed = _parse_all(jobs, advance, ctx, parallel)
    for (index, rel, _, _, signature), case_file in zip(todo, parsed, strict=True):
        files[index] = case_file
        if case_file.raw is not None:  # read and parsed (not a file that could not be read)
            ctx.cache.put(_FILES, rel, _entry(case_file, signature))
    return CaseSet([f for f in files if f is not None], links=links)


# A case cache entry, checked by the decoder as the cache is read: (digest, split, data,
# findings, hash, stat signature).
_Finding = tuple[str, int, int, str, Literal["error", "warning"], str]
_Entry = tuple[str, str | None, dict[str, Any] | None, list[_Finding], str, list[int] | None]
_SHAPE = dict[str, _Entry]


def _unnamed(rel: str, split: Folder | None) -> CaseFile:
    """A file whose name is not UTF-8: not read, and named by ``safeio.shown_path``."""
    shown = shown_path(rel)
    message = "the file's name is not UTF-8, so no report or lock can name it: rename it"
    return CaseFile(shown, split, "", None, [Finding(shown, 1, 1, "GC113", "error", message)])


def _from_entry(rel: str, split: Folder | None, entry: _Entry) -> CaseFile:
    findings = [Finding(*f) for f in entry[3]] if entry[3] else []
    return CaseFile(rel, split, entry[0], entry[2], findings, entry[4])


def _known_file(
    ctx: Context,
    root: str,
    rel: str,
    split: Folder | None,
    entry: _Entry,
    signature: Signature | None,
) -> CaseFile | bytes:
    """The file as its cache entry (when its bytes are the ones cached) or a read failure
    knows it, or its bytes to parse."""
    raw, problem = _read(ctx.root, root + rel, rel)  # root ends in a separator
    if raw is None:
        return CaseFile(rel, split, "", None, [problem])
    if entry[0] == file_digest(raw):
        case_file = _from_entry(rel, split, entry)
        ctx.cache.put(_FILES, rel, _entry(case_file, signature))  # trusted by stat next time
        return case_file
    return raw


PARALLEL_FROM = 2000  # files to parse before a second process pays for its start
SHOW_FROM = 1000  # files to parse (or families to run on as many) before a progress bar shows


Job = tuple[Path, str, Folder | None, bytes | None]  # root, path, split, bytes (None: read them)


def _parse_all(
    jobs: list[Job], advance: progress.Advance, ctx: Context, parallel: _Parallel
) -> list[CaseFile]:
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) < parallel.start or workers < 2 or sys.platform != "linux":
        return [_parse(*job) for job in progress.each(advance, jobs)]
    # 8 ms to import (logging comes with them): only a cold parse of many files pays for them
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = len(jobs) // (4 * workers) + 1
    chunks = [jobs[start : start + size] for start in range(0, len(jobs), size)]
    # Set up before the fork: the workers inherit the family modules, imported once.
    preparers = checks.preparers(parallel.prepare, ctx) if parallel.prepare else []
    context = multiprocessing.get_context("fork")
    parsed: list[CaseFile] = []
    try:
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(preparers,)
        ) as pool:
            for files, prepared in pool.map(_parse_chunk, chunks):
                parsed.extend(files)
                ctx.prepared.update(prepared)
                advance(len(files))
    except Exception:  # no processes to be had (a sandbox, a limit): parse here instead
        ctx.prepared.clear()
        return [_parse(*job) for job in jobs]
    # Not interned again here: a worker's interned strings arrive as one copy per chunk (the
    # pickle of a chunk keeps each object once), a few copies where interning costs 7 µs a case.
    return parsed


_PREPARERS: list[tuple[str, checks.Preparer]] = []  # in a parse worker: what it prepares


def _start_worker(preparers: list[tuple[str, checks.Preparer]]) -> None:
    _PREPARERS[:] = preparers


Prepared = dict[tuple[str, str], Any]  # (family, path) -> its per-file result (Context.prepared)


def _parse_chunk(jobs: list[Job]) -> tuple[list[CaseFile], Prepared]:
    """The files parsed, then each family's per-file work on all of them: one family at a
    time over the chunk runs in about half the time that file after file takes."""
    files = [_parse(*job) for job in jobs]
    return files, _prepared(files)


def _prepared(files: list[CaseFile]) -> Prepared:
    if not _PREPARERS:
        return {}
    some = CaseSet(files)
    found: Prepared = {}
    for name, prepare in _PREPARERS:
        try:
            results = prepare(some)
        except Exception:  # the family does the work again itself, and raises it there
            continue
        found.update(((name, path), value) for path, value in results.items())
    return found


def _parse(root: Path, rel: str, split: Folder | None, raw: bytes | None) -> CaseFile:
    """The file parsed, its bytes kept (``raw``); read first when not given."""
    if raw is None:
        raw, problem = _read(root, os.path.join(root, rel), rel)
        if raw is None:
            return CaseFile(rel, split, "", None, [problem])
    case_file = load_case_file(rel, split, raw)
    if case_file.data is not None:
        with contextlib.suppress(RecursionError):  # kept as parsed; a finding says why
            case_file.data = compact(case_file.data)
    case_file.raw = raw
    return case_file


def _entry(f: CaseFile, signature: Signature | None) -> list[object]:
    """A cache entry, plain data; the path is its key (so a changed file replaces its old
    entry), and the cache's folder is keyed by the code that parsed it."""
    return [f.digest, f.split, f.data, findings_to(f.findings), f.hash, signature]


def compact(value: Any) -> Any:
    """The same mapping with its keys and short strings interned: 100,000 cases share one
    ``question`` key, one slice name, one document name, in memory."""
    if isinstance(value, dict):
        return {_intern(k): compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [compact(v) for v in value]
    return _intern(value)


def _intern(value: Any) -> Any:
    return sys.intern(value) if type(value) is str and len(value) <= _SHORT else value


def _read(root: Path, path: str, rel: str) -> tuple[bytes | None, Finding]:
    """The file's bytes through the guarded reader: never blocking, never past the size a
    case may have, and a link only when it stays inside the repository."""
    try:
        try:
            return read_regular(path, MAX_CASE_BYTES, follow=False), _NO_FINDING
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
        return read_inside(root, rel, MAX_CASE_BYTES), _NO_FINDING  # a link: where to?
    except TooLarge as exc:
        message = f"file is {exc.size:,} bytes; a case file may be at most {MAX_CASE_BYTES:,}"
        return None, Finding(rel, 1, 1, "GC112", "error", message)
    except Outside:
        message = "a link that leads outside the repository; case files live inside it"
        return None, Finding(rel, 1, 1, "GC113", "error", message)
    except OSError as exc:
        if exc.strerror == NOT_REGULAR or isinstance(exc, IsADirectoryError):
            message = _not_a_case_file(root / rel)
        else:
            message = f"cannot read the file: {exc.strerror or exc}"
        return None, Finding(rel, 1, 1, "GC113", "error", message)


_NO_FINDING = Finding("", 0, 0, "", "error", "")


def _not_a_case_file(path: Path) -> str:
    """What a path named like a case file is instead (``os.stat`` opens nothing, so a FIFO
    cannot block it), and what to do."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot read the file: {exc.strerror or exc}"
    kind = kind_of_mode(mode)
    if stat.S_ISDIR(mode) and not path.name.endswith(CASE_SUFFIXES):
        return (
            f"a link to {kind}: the cases in it are not read (goldcase follows no folder "
            "link, which could lead out of the repository); move the folder here instead"
        )
    if stat.S_ISDIR(mode):  # only a link is listed: case_paths does not follow folders
        return (
            f"a link to {kind}, named like a case file; case files are plain files: remove "
            "the link, or rename it without .yaml if the folder must stay"
        )
    return f"{kind}, not a regular file; case files are plain files: replace it with one"


class CheckRun(Struct, frozen=True):
    findings: list[Finding]
    files: int  # case files looked at


def run_checks(
    ctx: Context,
    select: Sequence[str] = (),
    paths: Iterable[str] | None = None,
    case_set: CaseSet | None = None,
    parallel_from: int | None = None,
) -> CheckRun:
    """Run the selected families (all when empty) and keep the findings for ``paths`` and
    those about the whole set (``Context.set_path``); on ``case_set`` when the caller has
    just loaded it (``check --lock``), else on the set as it is on disk (``parallel_from``:
    see ``load_case_set``)."""
    names = selected(select)
    wanted = None if paths is None else frozenset(map(shown_path, paths))
    if wanted is not None:
        ctx.focus = wanted
        ctx.cache.partial = True
    if case_set is None:
        case_set = load_case_set(ctx, prepare=names, parallel_from=parallel_from)
    findings = _run_families(ctx, case_set, names)
    ctx.prepared.clear()  # what a family did not take (a file it skipped) is not needed
    ctx.cache.save()
    if wanted is not None:  # findings about the whole set are reported whatever the paths
        findings = [f for f in findings if f.path in wanted or f.path == ctx.set_path]
    files = len(case_set.files) if wanted is None else len(wanted)
    return CheckRun(sorted(set(findings)), files)


def selected(select: Sequence[str]) -> list[str]:
    """The families a check runs: those named, or every one; a name that is none is an
    error."""
    unknown = [name for name in select if name not in checks.FAMILIES]
    if unknown:
        raise GoldcaseError(
            f"unknown check family {unknown[0]!r}; choose from {', '.join(checks.FAMILIES)}"
        )
    return list(select or checks.FAMILIES)


@contextlib.contextmanager
def staged_focus(ctx: Context, paths: Sequence[str]) -> Iterator[Callable[[], list[str] | None]]:
    """What a commit's check reports on (``check --staged``, given the files the commit
    stages): those files when every one is a case file and the commit deletes or renames no
    case file; otherwise None, the whole set (a corpus document, a prompt, the config, or a
    case gone can break a case nobody touched). git is asked about deletions when the block
    starts, and answers while goldcase works: the block calls for the answer when it needs
    it."""
    prefix = Path(ctx.config.cases).as_posix().rstrip("/") + "/"
    if not paths or any(not (p.startswith(prefix) and p.endswith(CASE_SUFFIXES)) for p in paths):
        yield lambda: None
        return
    with gitview.asked_removals(ctx.root, ctx.config.cases) as asked:
        yield lambda: None if gitview.removals_of(asked) else list(paths)


def _run_families(ctx: Context, case_set: CaseSet, names: list[str]) -> list[Finding]:
    fresh = sum(f.raw is not None for f in case_set.files)
    with progress.task("running the checks", len(names), show=fresh >= SHOW_FROM) as advance:
        return _families(ctx, case_set, names, advance)


def findings_of(ctx: Context, case_set: CaseSet, leave_out: Sequence[str] = ()) -> list[Finding]:
    """The findings of every family but ``leave_out`` on a case set already loaded (severity
    overrides applied), sorted."""
    names = [name for name in checks.FAMILIES if name not in leave_out]
    return sorted(set(_families(ctx, case_set, names)))


def _families(
    ctx: Context, case_set: CaseSet, names: list[str], advance: progress.Advance = progress.skip
) -> list[Finding]:
    findings: list[Finding] = []
    for name in names:
        findings.extend(_apply_severity(ctx, checks.family(name).check(case_set, ctx)))
        advance(1)
    return findings


def _apply_severity(ctx: Context, findings: Iterable[Finding]) -> Iterable[Finding]:
    overrides = ctx.config.severity
    for f in findings:
        level = overrides.get(f.code)
        if level is None or level == f.severity:
            yield f
        elif level != "off":
            yield Finding(
                f.path, f.line, f.col, f.code, "error" if level == "error" else "warning", f.message
            )
