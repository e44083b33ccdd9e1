"""The results file of a run: resumed where it stopped, appended one whole line at a time.

Each line goes to the file in one ``write`` on a descriptor opened for appending, as soon as
its answer is in: a run that is stopped (Ctrl-C, a kill, a power cut) leaves every line it
wrote whole, except at worst the last, which a kill can cut. On resume an unfinished last line
(no newline) is dropped and the file cut back to the last whole line; every other line must be
a valid result with a trial number for a case of the set, else the run refuses to touch the
file. The ``(id, trial)`` pairs found are not asked again.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Collection
from pathlib import Path

from msgspec import Struct, field

from goldcase.errors import GoldcaseError
from goldcase.safeio import read_regular
from goldcase.scoring.results import (
    MAX_SHOWN,
    InvalidInput,
    Problem,
    Result,
    Unlisted,
    parse_results,
)
from goldcase.text import clip


class Resumed(Struct):
    """What an earlier run left in the file."""

    done: set[tuple[str, int]] = field(default_factory=set)
    dropped: int = 0  # bytes of an unfinished last line cut off


def resume(path: Path, known: Collection[str], shown: str) -> Resumed:
    """The (id, trial) pairs already in ``path``; an unfinished last line is cut off. Any
    other problem is an ``InvalidInput`` and the file is left as it is."""
    raw = _read(path, shown)
    if raw is None:
        return Resumed()
    whole = raw.rfind(b"\n") + 1
    results, problems = parse_results(raw[:whole], shown)
    problems += _strays(results, known, shown)
    if problems:
        problems.sort(key=lambda p: p.line)
        raise GoldcaseError(
            f"{InvalidInput(problems).message}\nerror: {shown}: goldcase run resumes only a "
            "file it wrote for this split; give a new --out"
        )
    if whole < len(raw):
        _cut(path, whole, shown)
    return Resumed({(r.id, r.trial or 1) for r in results}, len(raw) - whole)


def _strays(results: list[Result], known: Collection[str], shown: str) -> list[Problem]:
    """A problem for each of the first ``MAX_SHOWN`` valid lines this run could not have
    written (a case not in the split, no trial number), the rest counted in one
    ``Unlisted``: a file of another set can have a million."""
    problems: list[Problem] = []
    strays = (r for r in results if r.trial is None or r.id not in known)
    for result in itertools.islice(strays, MAX_SHOWN):
        why = (
            f"case {clip(repr(result.id))} is not in the split being run"
            if result.id not in known
            else "no trial number"
        )
        problems.append(Problem(shown, result.line, why))
    first = next(strays, None)
    if first is not None:
        rest = 1 + sum(1 for _ in strays)
        more = f"and {rest:,} more lines from here on of a case not in the split or no trial"
        problems.append(Unlisted(shown, first.line, more, rest))
    return problems


def _read(path: Path, shown: str) -> bytes | None:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GoldcaseError(f"{shown}: cannot read it: {exc.strerror or exc}") from None


def _cut(path: Path, size: int, shown: str) -> None:
    try:
        os.truncate(path, size)
    except OSError as exc:
        raise GoldcaseError(f"{shown}: cannot cut off its unfinished last line: {exc}") from None


class LineWriter:
    """Appends whole lines to the results file from any thread; after ``close`` a line is
    dropped (a worker that answers after Ctrl-C must not write)."""

    def __init__(self, path: Path, shown: str) -> None:
        self._lock = threading.Lock()
        self._shown = shown
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as exc:
            raise GoldcaseError(f"{shown}: cannot write: {exc.strerror or exc}") from None

    def write(self, data: bytes) -> bool:
        """Append one line (``data`` ends with a newline); False when the writer is closed."""
        with self._lock:
            if self._fd is None:
                return False
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self._fd, view) :]
            except OSError as exc:
                raise GoldcaseError(f"{self._shown}: cannot write: {exc.strerror or exc}") from None
            return True

    def close(self) -> None:
        with self._lock:
            if self._fd is None:
                return
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
