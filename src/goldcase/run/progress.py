"""How far a run is: on a terminal, the run's task on goldcase's one progress display
(``goldcase.progress``); elsewhere (a log, CI), plain lines, one every tenth of the run and one
at the end, since a run is the one long job whose log a user reads while it goes."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Protocol, TextIO

from goldcase import progress


class Progress(Protocol):
    def start(self, total: int, already: int) -> None: ...

    def advance(self, outcome: str) -> None: ...

    def stop(self) -> None: ...


def progress_for(stream: TextIO | None = None) -> Progress:
    """The bar when the CLI turned progress on (standard error is a terminal), else lines."""
    stream = stream if stream is not None else sys.stderr
    return BarProgress(stream) if progress.enabled() else LineProgress(stream)


class LineProgress:
    """``run: 40/137 asked (29%), 12.3 a second, about 8 s left, 1 error``."""

    def __init__(self, stream: TextIO, steps: int = 10) -> None:
        self._stream = stream
        self._steps = steps
        self._lock = threading.Lock()
        self._done = self._total = self._errors = 0
        self._next = 0
        self._started = 0.0

    def start(self, total: int, already: int) -> None:
        self._total, self._started = total, time.monotonic()
        self._next = self._step()
        if already:
            self._write(f"run: {already} (id, trial) pairs already in the file, not asked again")

    def _step(self) -> int:
        return min(self._total, self._done + max(1, -(-self._total // self._steps)))

    def advance(self, outcome: str) -> None:
        with self._lock:
            self._done += 1
            self._errors += outcome == "error"
            if self._done >= self._next:
                self._next = self._step()
                self._write(self.line())

    def line(self) -> str:
        elapsed = max(time.monotonic() - self._started, 1e-9)
        rate = self._done / elapsed
        share = self._done / self._total if self._total else 1.0
        parts = [f"run: {self._done}/{self._total} asked ({share:.0%})", f"{rate:.1f} a second"]
        if self._done < self._total and rate > 0:
            parts.append(f"about {(self._total - self._done) / rate:.0f} s left")
        if self._errors:
            parts.append(f"{self._errors} error{'s' if self._errors > 1 else ''}")
        return ", ".join(parts)

    def _write(self, text: str) -> None:
        self._stream.write(text + "\n")
        self._stream.flush()

    def stop(self) -> None:
        """The last line was written when the last case came in."""


class BarProgress:
    """The run as a task on the progress display; errors are counted in the run's summary."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._tasks = contextlib.ExitStack()
        self._advance: progress.Advance = progress.skip
        self._lock = threading.Lock()  # the job threads advance one display

    def start(self, total: int, already: int) -> None:
        if already:
            self._stream.write(
                f"run: {already} (id, trial) pairs already in the file, not asked again\n"
            )
        self._advance = self._tasks.enter_context(progress.task("run: asking", total))

    def advance(self, outcome: str) -> None:
        with self._lock:
            self._advance(1)

    def stop(self) -> None:
        self._tasks.close()
