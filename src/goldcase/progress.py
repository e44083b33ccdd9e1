"""Progress of a long job, on a terminal only: the one place goldcase draws a progress bar.

The CLI turns it on when standard error is a terminal (``enable``); a library function that
may run long wraps its loop in ``task(description, total)`` and calls the ``advance`` it is
given. Off (piped output, a CI log, a hook run, a test), ``task`` hands out a function that does
nothing, so callers never ask whether anyone is watching. On, one rich display on standard
error holds every task running at once and disappears when the last one ends, leaving the
output as it would be without it.

The display runs no thread of its own (rich's auto-refresh is off): it is redrawn from
``advance``, at most ten times a second, so forking a child (the check families and grading
are shared with one) never copies a lock some other thread was holding. Only the process that
turned progress on draws: in a forked child ``task`` is a no-op.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

Advance = Callable[[float], None]
T = TypeVar("T")
REDRAW_SECONDS = 0.1


class _Display:
    """The live rich display and the tasks on it; started by the first task, stopped with the
    last one."""

    def __init__(self) -> None:
        self.owner: int | None = None  # the pid that enabled progress, or None when off
        self.bar: Any = None
        self.open = 0
        self.drawn = 0.0  # when the display was last redrawn (time.monotonic)

    def start(self) -> Any:
        if self.bar is None:
            # imported here: only a terminal pays for rich's import (hooks start faster)
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
                auto_refresh=False,
                redirect_stdout=False,  # rich would send standard output to its console
                redirect_stderr=False,
            )
            self.bar.start()
        self.open += 1
        return self.bar

    def advance(self, task_id: Any, units: float) -> None:
        self.bar.advance(task_id, units)
        now = time.monotonic()  # for the display alone: nothing computed depends on it
        if now - self.drawn >= REDRAW_SECONDS:
            self.drawn = now
            self.bar.refresh()

    def finish(self) -> None:
        self.open -= 1
        if self.open == 0 and self.bar is not None:
            self.bar.stop()
            self.bar = None


_DISPLAY = _Display()


def enable(on: bool) -> None:
    """Draw progress from now on (``on``), in this process only; or never."""
    _DISPLAY.owner = os.getpid() if on else None


def enabled() -> bool:
    return _DISPLAY.owner is not None and _DISPLAY.owner == os.getpid()


def skip(_: float) -> None:
    """An ``advance`` that does nothing (progress off, or a job too small to show)."""
    return None


@contextlib.contextmanager
def task(description: str, total: float | None, *, show: bool = True) -> Iterator[Advance]:
    """A task of ``total`` units (None: unknown) shown while the block runs; yields
    ``advance(units)``. ``show=False`` for a job too small for a bar to tell anyone anything
    (it would end before it was seen)."""
    if not show or not enabled():
        yield skip
        return
    bar = _DISPLAY.start()
    task_id = bar.add_task(description, total=total)
    bar.refresh()
    try:
        yield lambda units: _DISPLAY.advance(task_id, units)
    finally:
        bar.remove_task(task_id)
        _DISPLAY.finish()


def each(advance: Advance, items: Iterable[T], step: int = 256) -> Iterator[T]:
    """The items, advancing by ``step`` at a time (and by the rest at the end): a hot loop pays
    for the display once per ``step`` items, not once per item."""
    pending = 0
    for item in items:
        yield item
        pending += 1
        if pending >= step:
            advance(pending)
            pending = 0
    if pending:
        advance(pending)
