"""Load a golden-set repository and run the check families over it."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goldcase import checks, forked, progress
from goldcase.cache import findings_from, findings_to
from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.loader import MAX_CASE_BYTES, file_digest, load_case_file
from goldcase.model import INBOX, CaseFile, CaseSet, Finding, Folder
from goldcase.safeio import NOT_REGULAR, Outside, TooLarge, kind_of_mode, read_inside, read_regular

CASE_SUFFIXES = (".yaml", ".yml")
_FILES = "files"
_SHORT = 64  # strings up to this length are interned (names, slices, ids, tags)


def case_paths(ctx: Context) -> list[str]:
    """Every case file under the cases folder, relative to the root, sorted."""
    top = ctx.config.cases_dir
    if not top.is_dir():
        return []
    out: list[str] = []
    base = len(str(ctx.root)) + 1
    stack = [str(top)]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(CASE_SUFFIXES) or _linked_folder(entry):
                    out.append(entry.path[base:].replace(os.sep, "/"))
    out.sort()
    return out


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


def load_case_set(ctx: Context) -> CaseSet:
    """Read, parse and validate every case file; unchanged files come from the cache, and a
    large number of changed ones is parsed on every core."""
    prefix = Path(ctx.config.cases).as_posix().rstrip("/") + "/"
    root = os.path.join(ctx.root, "")
    files: list[CaseFile | None] = []
    todo: list[tuple[int, str, Folder | None, bytes]] = []
    for rel in case_paths(ctx):
        known = _known_file(ctx, root, rel, prefix)
        if isinstance(known, CaseFile):
            files.append(known)
        else:
            todo.append((len(files), rel, known[0], known[1]))
            files.append(None)
    with progress.task("reading case files", len(todo), show=len(todo) >= SHOW_FROM) as advance:
        parsed = _parse_all(todo, advance)
    for (index, rel, _, raw), case_file in zip(todo, parsed, strict=True):
        case_file.raw = raw
        files[index] = case_file
        ctx.cache.put(_FILES, rel, _entry(case_file))
    return CaseSet([f for f in files if f is not None])


def _known_file(
    ctx: Context, root: str, rel: str, prefix: str
) -> CaseFile | tuple[Folder | None, bytes]:
    """The file as the cache (or a read failure) knows it, or its split and bytes to parse."""
    split = split_of(prefix, rel)
    raw, problem = _read(ctx.root, root + rel, rel)  # root ends in a separator
    if raw is None:
        return CaseFile(rel, split, "", None, [problem])
    digest = file_digest(raw)
    cached = ctx.cache.get(_FILES, rel)
    if type(cached) is list and len(cached) == 5 and cached[0] == digest and cached[1] == split:
        data, findings, case_hash = cached[2], findings_from(cached[3]), cached[4]
        if (data is None or type(data) is dict) and findings is not None and type(case_hash) is str:
            return CaseFile(rel, split, digest, data, findings, case_hash)
    return split, raw


PARALLEL_FROM = 2000  # files to parse before a second process pays for its start
SHOW_FROM = 1000  # files to parse (or families to run on as many) before a progress bar shows


def _parse_all(
    todo: list[tuple[int, str, Folder | None, bytes]], advance: progress.Advance
) -> list[CaseFile]:
    jobs = [(rel, split, raw) for _, rel, split, raw in todo]
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) < PARALLEL_FROM or workers < 2 or sys.platform != "linux":
        return [_parse(*job) for job in progress.each(advance, jobs)]
    # 8 ms to import (logging comes with them): only a cold parse of many files pays for them
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunk = len(jobs) // (4 * workers) + 1
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            results = pool.map(_parse_job, jobs, chunksize=chunk)
            parsed = list(progress.each(advance, results, chunk))
    except Exception:  # no processes to be had (a sandbox, a limit): parse here instead
        return [_parse(*job) for job in jobs]
    for case_file in parsed:  # strings interned in a worker arrive as copies: intern them here
        if case_file.data is not None:
            with contextlib.suppress(RecursionError):
                case_file.data = compact(case_file.data)
    return parsed


def _parse_job(job: tuple[str, Folder | None, bytes]) -> CaseFile:
    return _parse(*job)


def _parse(rel: str, split: Folder | None, raw: bytes) -> CaseFile:
    case_file = load_case_file(rel, split, raw)
    if case_file.data is not None:
        with contextlib.suppress(RecursionError):  # kept as parsed; a finding says why
            case_file.data = compact(case_file.data)
    return case_file


def _entry(f: CaseFile) -> list[object]:
    """A cache entry, plain data; the path is its key (so a changed file replaces its old
    entry), and the cache's folder is keyed by the code that parsed it."""
    return [f.digest, f.split, f.data, findings_to(f.findings), f.hash]


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


@dataclass(frozen=True, slots=True)
class CheckRun:
    findings: list[Finding]
    files: int  # case files looked at


def run_checks(
    ctx: Context, select: Sequence[str] = (), paths: Iterable[str] | None = None
) -> CheckRun:
    """Run the selected families (all when empty) and keep the findings for ``paths`` and
    those about the whole set (``Context.set_path``)."""
    unknown = [name for name in select if name not in checks.FAMILIES]
    if unknown:
        raise GoldcaseError(
            f"unknown check family {unknown[0]!r}; choose from {', '.join(checks.FAMILIES)}"
        )
    case_set = load_case_set(ctx)
    findings = _run_families(ctx, case_set, list(select or checks.FAMILIES))
    ctx.cache.save()
    wanted = None if paths is None else set(paths)
    if wanted is not None:  # findings about the whole set are reported whatever the paths
        findings = [f for f in findings if f.path in wanted or f.path == ctx.set_path]
    files = len(case_set.files) if wanted is None else len(wanted)
    return CheckRun(sorted(set(findings)), files)


# On a cold run these families cost the most after parsing (word shingles and MinHash for
# near-duplicates; the version and composition checks are cheap company); with many files
# parsed afresh they run in a forked child while this process runs the others.
CHILD_FAMILIES = ("leakage", "version", "composition")


def _run_families(ctx: Context, case_set: CaseSet, names: list[str]) -> list[Finding]:
    fresh = sum(f.raw is not None for f in case_set.files)
    with progress.task("running the checks", len(names), show=fresh >= SHOW_FROM) as advance:
        return _share_families(ctx, case_set, names, fresh, advance)


def _share_families(
    ctx: Context, case_set: CaseSet, names: list[str], fresh: int, advance: progress.Advance
) -> list[Finding]:
    there = [n for n in names if n in CHILD_FAMILIES]
    here = [n for n in names if n not in CHILD_FAMILIES]
    if not (there and here and fresh >= PARALLEL_FROM):
        return _families(ctx, case_set, names, advance)
    _ = ctx.corpus  # read once, before the fork, for both sides
    before = ctx.cache.namespaces()
    mine, (theirs, tables) = forked.beside(
        lambda: _families(ctx, case_set, here, advance),
        lambda: _families_and_cache(ctx, case_set, there, before),
    )
    advance(len(there))  # the child's share, whichever process did it
    ctx.cache.absorb(tables)  # a no-op when the child's share was done here
    return mine + theirs


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


def _families_and_cache(
    ctx: Context, case_set: CaseSet, names: list[str], before: set[str]
) -> tuple[list[Finding], dict[str, Any]]:
    """The findings, and the cache namespaces these families opened (for the parent, when
    this runs in a forked child)."""
    findings = _families(ctx, case_set, names)
    return findings, ctx.cache.export(ctx.cache.namespaces() - before)


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
