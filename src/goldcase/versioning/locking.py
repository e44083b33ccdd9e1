"""Keep ``golden.version`` and ``golden.lock`` in step with the golden set and the corpus.

``verify`` compares the files on disk with the lock (the GC4xx findings, shared by
``goldcase check`` and ``goldcase lock --check``); ``update`` rewrites the lock and bumps the
version when the set or the corpus changed. ``update`` holds an exclusive ``flock`` on the
repository's folder from the moment it reads until it has written both files, so two runs
at once are serialised: the second sees the first one's lock and has nothing left to do.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from goldcase.config import Config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.gitview import committed_text, top_level
from goldcase.loader import case_hash
from goldcase.model import CaseSet, Finding
from goldcase.safeio import read_regular_text
from goldcase.versioning import lockfile
from goldcase.versioning.lockfile import Changes, Lock, LockError
from goldcase.versioning.merge import merge_versions
from goldcase.versioning.version import (
    conflict_sides,
    highest,
    next_version,
    parse_version_text,
    read_version,
    version_key,
)
from goldcase.writer import atomic_write_text

LOCK_WAIT_SECONDS = 60.0


@contextlib.contextmanager
def serialised(config: Config, *, shared: bool = False, required: bool = True) -> Iterator[None]:
    """Hold ``flock`` on the repository's own folder for the block (exclusive to write,
    shared to read). The folder, not a file in it: nothing to create, so nothing a damaged
    or hostile checkout (a file, a folder or a link where a lock file would go) can break or
    redirect. When the folder cannot be opened and the lock is not ``required``, go on
    without it."""
    try:
        fd = os.open(config.root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        if required:
            raise GoldcaseError(f"cannot lock {config.root}: {exc.strerror or exc}") from exc
        yield
        return
    try:
        _acquire(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX, config.root)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _acquire(fd: int, mode: int, where: Path) -> None:
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise GoldcaseError(
                    f"another goldcase lock has held {where} for {LOCK_WAIT_SECONDS:.0f} s; "
                    "wait for it to finish"
                ) from None
            time.sleep(0.05)


@dataclass(frozen=True, slots=True)
class OnDisk:
    """golden.version and golden.lock as found."""

    version: str | None
    version_problem: str | None
    lock: Lock | None
    lock_text: str | None  # None: no golden.lock
    lock_problem: LockError | None
    settled: tuple[str, str] | None = None  # a conflicted golden.version: (sides, resolution)


def read_on_disk(config: Config) -> OnDisk:
    version, version_problem, settled = None, None, None
    try:
        version = read_version(config)
    except GoldcaseError as exc:
        version_problem = exc.message
        settled = _settle_conflict(config)
        if settled is not None:
            version_problem = (
                f"golden.version holds merge-conflict markers ({settled[0]}); "
                f"run goldcase lock to settle it at {settled[1]}"
            )
    text, lock, problem = None, None, None
    if config.lock_file.exists():
        try:
            text = read_regular_text(config.lock_file)
            lock = lockfile.parse(text)
        except (OSError, UnicodeDecodeError) as exc:
            text = text if text is not None else ""
            problem = LockError(f"golden.lock cannot be read: {exc}")
        except LockError as exc:
            problem = exc
    return OnDisk(version, version_problem, lock, text, problem, settled)


def _settle_conflict(config: Config) -> tuple[str, str] | None:
    """A golden.version left with conflict markers, resolved by the merge driver's rule."""
    try:
        sides = conflict_sides(read_regular_text(config.version_file))
    except (OSError, UnicodeDecodeError):
        return None
    if sides is None:
        return None
    base, ours, theirs = sides
    if ours is None or theirs is None:
        return None
    try:
        return f"{ours} and {theirs}", merge_versions(base, ours, theirs)
    except GoldcaseError:
        return None


def verify(ctx: Context, case_set: CaseSet) -> list[Finding]:
    """The GC4xx findings: does the lock describe the set and corpus on disk?"""
    config = ctx.config
    disk = read_on_disk(config)
    lock_rel, version_rel = ctx.rel(config.lock_file), ctx.rel(config.version_file)
    findings: list[Finding] = []
    if disk.version_problem is not None:
        findings.append(_error(version_rel, "GC405", disk.version_problem))
    if disk.lock_text is None:
        why = "golden.lock is missing: nothing pins the set's version to its content"
        return [*findings, _error(lock_rel, "GC402", f"{why}; run goldcase lock")]
    if disk.lock is None:
        problem = disk.lock_problem or LockError("golden.lock cannot be read")
        message = f"{problem.message}; run goldcase lock to rewrite it"
        return [*findings, _error(lock_rel, "GC404", message, problem.line, problem.col)]
    findings += _content_findings(ctx, case_set, disk.lock, disk.lock_text, lock_rel)
    if disk.version_problem is None and disk.version != disk.lock.version:
        found = "is missing" if disk.version is None else f"says {disk.version!r}"
        message = f"golden.version {found} but golden.lock records {disk.lock.version!r}"
        findings.append(_error(version_rel, "GC405", f"{message}; run goldcase lock"))
    return findings


def _error(path: str, code: str, message: str, line: int = 1, col: int = 1) -> Finding:
    return Finding(path, line, col, code, "error", message)


def _content_findings(
    ctx: Context, case_set: CaseSet, lock: Lock, text: str, lock_rel: str
) -> Iterator[Finding]:
    current = lockfile.current_lock(
        lock.version, case_set, ctx.corpus, golden_hashes(ctx, case_set)
    )
    paths = {case.id: case.path for case in case_set.golden}
    why = f"since golden.lock (version {lock.version}); run goldcase lock to bump golden.version"
    cases = lockfile.compare(lock.cases, current.cases)
    for word, names in (("added", cases.added), ("changed", cases.changed)):
        for case_id in names:
            yield _error(paths[case_id], "GC401", f"golden case {case_id} {word} {why}")
    for case_id in cases.removed:
        line, col = lockfile.entry_position(text, "cases", case_id)
        message = f"golden case {case_id} removed (or moved out of the golden set) {why}"
        yield _error(lock_rel, "GC401", message, line, col)
    docs = lockfile.compare(lock.corpus, current.corpus)
    for word, names in (("added", docs.added), ("changed", docs.changed)):
        for rel in names:
            yield _error(rel, "GC403", f"corpus document {word} {why}")
    for rel in docs.removed:
        line, col = lockfile.entry_position(text, "corpus", rel)
        yield _error(lock_rel, "GC403", f"corpus document {rel} removed {why}", line, col)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What ``update`` did."""

    old_version: str | None
    version: str
    cases: Changes
    corpus: Changes
    wrote: tuple[str, ...]  # the files rewritten, relative to the root
    note: str  # why, in a few words


def lock_repository(ctx: Context) -> Outcome:
    """``goldcase lock``: read the set and rewrite what needs it, serialised by ``flock``."""
    with serialised(ctx.config):
        outcome = update(ctx, load_case_set(ctx))
    ctx.cache.save()
    return outcome


def check_repository(ctx: Context) -> tuple[list[Finding], int]:
    """``goldcase lock --check``: the GC4xx findings and the number of case files read."""
    with serialised(ctx.config, shared=True, required=False):
        case_set = load_case_set(ctx)
        findings = sorted(verify(ctx, case_set))
    ctx.cache.save()
    return findings, len(case_set.files)


_HASHES = "case-hashes"


def golden_hashes(ctx: Context, case_set: CaseSet) -> dict[str, str]:
    """Each golden case's hash, from the cache when the file's bytes (and goldcase) are the
    ones it was computed for."""
    digests = {f.path: f.digest for f in case_set.files}
    out: dict[str, str] = {}
    for case in case_set.golden:
        if case.hash:  # computed when the file was parsed
            out[case.id] = case.hash
            continue
        key = digests.get(case.path, "")
        value = ctx.cache.get(_HASHES, key)
        if not isinstance(value, str):
            value = case_hash(case.data)
            ctx.cache.put(_HASHES, key, value)
        out[case.id] = value
    return out


def update(ctx: Context, case_set: CaseSet) -> Outcome:
    """Bring golden.lock (and golden.version when the set or corpus changed) up to date."""
    config = ctx.config
    disk = read_on_disk(config)
    if disk.version_problem is not None and disk.settled is None:
        raise GoldcaseError(f"{disk.version_problem}")
    hashes = golden_hashes(ctx, case_set)
    probe = lockfile.current_lock(disk.version or "1", case_set, ctx.corpus, hashes)
    old = disk.lock
    if disk.settled is not None:
        version, note = disk.settled[1], "settled the merge conflict in golden.version"
    else:
        version, note = _decide(config, disk, probe)
    new = replace(probe, version=version)
    wrote = _write(ctx, disk, new)
    empty = Changes([], [], [])
    before = disk.settled[0] if disk.settled is not None else disk.version
    if before is None or before == version:
        before = old.version if old is not None else disk.version
    return Outcome(
        old_version=before,
        version=version,
        cases=lockfile.compare(old.cases, new.cases) if old is not None else empty,
        corpus=lockfile.compare(old.corpus, new.corpus) if old is not None else empty,
        wrote=wrote,
        note=note,
    )


def _decide(config: Config, disk: OnDisk, probe: Lock) -> tuple[str, str]:
    """The version the new lock records, and why."""
    old = disk.lock
    if old is None and disk.lock_text is None:
        return disk.version or "1", "first lock"
    if old is not None and old.same_content(probe):
        if disk.version is None:
            return old.version, "restored from golden.lock"
        if version_key(disk.version) < version_key(old.version):
            return old.version, "raised to the version golden.lock records; it never goes back"
        return disk.version, "set and corpus unchanged"
    taken_back = _committed_lock(config)
    if taken_back is not None and taken_back.same_content(probe):
        return taken_back.version, (
            "the set and corpus are again what the committed golden.lock pins; "
            "the bump is taken back"
        )
    lock_version = old.version if old is not None else None
    committed = _committed_version(config)
    if committed is None and lock_version is not None and _in_git(config):
        # Never committed: no report can name this version yet, so the first commit keeps it.
        kept = highest(disk.version, lock_version) or lock_version
        return kept, "not committed yet: the first commit makes this version"
    reference = committed if committed is not None else lock_version
    mine = disk.version
    if (
        mine is not None
        and reference is not None
        and mine != reference
        and version_key(mine) > version_key(reference)
        and (lock_version is None or version_key(mine) >= version_key(lock_version))
    ):
        return mine, "already bumped since the last commit"
    base = highest(mine, lock_version)
    if base is None:
        return "1", "first version"
    reason = "set or corpus changed" if old is not None else "golden.lock was unreadable"
    return next_version(base), reason


def _committed_lock(config: Config) -> Lock | None:
    """golden.lock as committed at HEAD, when there is one and it can be read."""
    text = committed_text(config.lock_file)
    if text is None:
        return None
    try:
        return lockfile.parse(text)
    except LockError:
        return None


def _committed_version(config: Config) -> str | None:
    text = committed_text(config.version_file)
    return parse_version_text(text) if text is not None else None


def _in_git(config: Config) -> bool:
    return top_level(config.root) is not None


def _write(ctx: Context, disk: OnDisk, new: Lock) -> tuple[str, ...]:
    config = ctx.config
    wrote: list[str] = []
    if disk.version != new.version:
        atomic_write_text(config.version_file, f"{new.version}\n")
        wrote.append(ctx.rel(config.version_file))
    text = lockfile.render(new)
    if disk.lock_text != text:
        atomic_write_text(config.lock_file, text)
        wrote.append(ctx.rel(config.lock_file))
    return tuple(wrote)


def describe(outcome: Outcome) -> list[str]:
    """What ``goldcase lock`` tells the user."""
    if not outcome.wrote:
        return [f"golden.lock is up to date (version {outcome.version})"]
    lines = []
    if outcome.old_version != outcome.version:
        before = outcome.old_version if outcome.old_version is not None else "(none)"
        lines.append(f"golden.version: {before} -> {outcome.version} ({outcome.note})")
    else:
        lines.append(f"golden.version: {outcome.version} ({outcome.note})")
    if outcome.cases:
        lines.append(f"golden cases: {outcome.cases.describe()}")
    if outcome.corpus:
        lines.append(f"corpus documents: {outcome.corpus.describe()}")
    files = " ".join(outcome.wrote)
    them = "them" if len(outcome.wrote) > 1 else "it"
    lines.append(f"wrote {' and '.join(outcome.wrote)}; add {them} to the commit: git add {files}")
    return lines
