"""The git merge driver for golden.version and golden.lock.

Two branches that both changed the golden set both bumped golden.version and both rewrote
golden.lock, so a plain text merge conflicts on every such pull request. Git gives a driver the
ancestor's, our and their copy of one file (``%O %A %B``) and takes the result from ``%A``.

Git computes the whole merge before it writes any file of the work tree, so while a driver runs
the case files on disk are still ours, not the merged ones. The driver therefore recomputes the
merged set from the three locks themselves, which list every golden case's hash: a case changed
on one side only takes that side's hash, exactly as the merged case file will.

- golden.lock: the merged tables, and as version the higher side's version when the merged set
  and corpus are exactly that side's, else that version plus one (both sides at ``2`` with
  different cases give ``3``).
- golden.version: when only one side moved it, that side's version; when both moved it to
  different values, the higher one plus one (``4`` and ``5`` give ``6``).

Git never calls a driver when both sides hold the same text, so two branches that both went
from ``1`` to ``2`` leave golden.version at ``2`` while the merged lock says ``3``. The next
``goldcase lock`` (the goldcase-version hook in the pre-merge-commit stage, or the plain
pre-merge-commit hook) raises golden.version to the lock's version, since a version never goes
backwards; ``lock --check`` reports GC405 until then.

A case (or document) that both sides changed differently has no hash the driver can know: its
entry keeps our hash, the driver says so on stderr, and the next ``goldcase lock`` (the
goldcase-version hook on the merge commit, once the case file's own conflict is resolved)
records it and bumps the version.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from msgspec.structs import replace

from goldcase.errors import GoldcaseError
from goldcase.safeio import TooLarge, read_regular
from goldcase.versioning import lockfile
from goldcase.versioning.lockfile import Lock, LockError
from goldcase.versioning.version import (
    MAX_VERSION_BYTES,
    highest,
    next_version,
    parse_version_text,
    version_key,
)
from goldcase.writer import atomic_write_text

VERSION_NAME = "golden.version"
LOCK_NAME = "golden.lock"


def merge_versions(base: str | None, ours: str, theirs: str) -> str:
    if ours == theirs:
        return ours
    if base is not None and ours == base:
        return theirs
    if base is not None and theirs == base:
        return ours
    top = highest(ours, theirs)
    assert top is not None
    return next_version(top)


def merge_tables(
    base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Three-way merge of name -> hash tables; also the names both sides changed differently."""
    merged: dict[str, str] = {}
    clashes: list[str] = []
    for name in sorted(set(base) | set(ours) | set(theirs)):
        b, o, t = base.get(name), ours.get(name), theirs.get(name)
        if o == t or t == b:
            value = o
        elif o == b:
            value = t
        else:
            clashes.append(name)
            value = o if o is not None else t
        if value is not None:
            merged[name] = value
    return merged, clashes


def merge_locks(base: Lock | None, ours: Lock, theirs: Lock) -> tuple[Lock, list[str]]:
    base_cases = base.cases if base is not None else {}
    base_corpus = base.corpus if base is not None else {}
    cases, case_clashes = merge_tables(base_cases, ours.cases, theirs.cases)
    corpus, doc_clashes = merge_tables(base_corpus, ours.corpus, theirs.corpus)
    clashes = case_clashes + doc_clashes
    merged = lockfile.from_tables(ours.version, cases, corpus)
    return replace(merged, version=merged_lock_version(merged, ours, theirs, clashes)), clashes


def merged_lock_version(merged: Lock, ours: Lock, theirs: Lock, clashes: list[str]) -> str:
    """The higher side's version when the merged set and corpus are exactly that side's, and
    the version after it otherwise: a version never names two different sets. With entries
    both sides changed, the merged content is not known yet, so it is never a side's."""
    top = max((ours, theirs), key=lambda lock: version_key(lock.version))
    if merged.same_content(top) and not clashes:
        return top.version
    return next_version(top.version)


def run_driver(base: Path, ours: Path, theirs: Path, name: str) -> int:
    """Merge ``ours`` and ``theirs`` (with common ancestor ``base``) of the file ``name`` into
    ``ours``. 0: resolved; 1: left as a conflict, with the reason on stderr."""
    kind = Path(name).name
    try:
        if kind == VERSION_NAME:
            _merge_version_files(base, ours, theirs)
        elif kind == LOCK_NAME:
            _merge_lock_files(base, ours, theirs, name)
        else:
            raise GoldcaseError(
                f"{name}: the goldcase merge driver only merges "
                f"{VERSION_NAME} and {LOCK_NAME}; check .gitattributes"
            )
    except GoldcaseError as exc:
        print(
            f"goldcase merge-driver: {name}: {exc.message}; resolve it by hand "
            "(or take either side) and run goldcase lock",
            file=sys.stderr,
        )
        return 1
    return 0


def _read(path: Path, limit: int) -> str:
    """A side's file as git hands it over, within ``limit`` bytes (a branch's golden.version
    of 300 MB of NULs is about 300 KB in git)."""
    try:
        return read_regular(path, limit).decode("utf-8")
    except TooLarge as exc:
        raise GoldcaseError(
            f"cannot read {path}: {exc.size:,} bytes, more than the {limit:,} it may take"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(f"cannot read {path}: {exc}") from exc


def _version_of(path: Path, side: str, *, optional: bool = False) -> str | None:
    text = _read(path, MAX_VERSION_BYTES)
    version = parse_version_text(text)
    if version is None and not (optional and not text.strip()):
        raise GoldcaseError(f"{side} side's golden.version does not hold one version line")
    return version


def _merge_version_files(base: Path, ours: Path, theirs: Path) -> None:
    merged = merge_versions(
        _version_of(base, "the ancestor", optional=True),
        _version_of(ours, "our") or "",
        _version_of(theirs, "their") or "",
    )
    atomic_write_text(ours, f"{merged}\n")


def _lock_of(path: Path, side: str, *, optional: bool = False) -> Lock | None:
    text = _read(path, lockfile.MAX_LOCK_BYTES)
    if optional and not text.strip():
        return None
    try:
        return lockfile.parse(text)
    except LockError as exc:
        raise GoldcaseError(f"{side} side's golden.lock is unusable: {exc.message}") from None


def _merge_lock_files(base: Path, ours: Path, theirs: Path, name: str) -> None:
    mine = _lock_of(ours, "our")
    other = _lock_of(theirs, "their")
    assert mine is not None and other is not None
    merged, clashes = merge_locks(_lock_of(base, "the ancestor", optional=True), mine, other)
    if clashes:
        shown = ", ".join(clashes[:10]) + (" …" if len(clashes) > 10 else "")
        print(
            f"goldcase merge-driver: {name}: both sides changed {shown}; once their files "
            "are resolved, run goldcase lock",
            file=sys.stderr,
        )
    atomic_write_text(ours, lockfile.render(merged))
