"""How far a run is: a rich progress bar (done / total, rate, time left) on a terminal, and
plain lines elsewhere (a log, CI), one every tenth of the run and one at the end."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Protocol, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress


class Progress(Protocol):
    def start(self, total: int, already: int) -> None: ...

    def advance(self, outcome: str) -> None: ...

    def stop(self) -> None: ...


def progress_for(stream: TextIO | None = None) -> Progress:
    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return BarProgress(stream) if tty else LineProgress(stream)


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
    """A rich progress bar on standard error: done / total, rate, time left, errors."""

    def __init__(self, stream: TextIO) -> None:
        self._bar = RichProgress(
            TextColumn("run"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[errors]}"),
            console=Console(file=stream),
            transient=False,
        )
        self._task: Any = None
        self._errors = 0
        self._done = 0
        self._started = 0.0
        self._lock = threading.Lock()

    def start(self, total: int, already: int) -> None:
        self._started = time.monotonic()
        self._bar.start()
        self._task = self._bar.add_task("run", total=total, rate="", errors="")
        if already:
            self._bar.console.print(
                f"{already} (id, trial) pairs already in the file, not asked again"
            )

    def advance(self, outcome: str) -> None:
        with self._lock:
            self._done += 1
            self._errors += outcome == "error"
            rate = self._done / max(time.monotonic() - self._started, 1e-9)
            errors = f"{self._errors} errors" if self._errors else ""
        self._bar.update(self._task, advance=1, rate=f"{rate:.1f}/s", errors=errors)

    def stop(self) -> None:
        self._bar.stop()
