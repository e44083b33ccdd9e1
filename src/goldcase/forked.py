"""Run a function in a forked child process while this one goes on, and collect its result.

The child shares everything this process holds at the fork (the parsed case set, the config,
the corpus) without copying it, and sends back only its result, pickled, through a pipe. It
is for work that costs real seconds on a cold run; any failure in the child (an exception, a
result that does not pickle, the child dying) is reported as ``None``, and the caller does
the work itself, so the outcome never depends on whether the fork happened.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")


class Forked(Generic[T]):
    """``run()`` started in a child; ``result()`` waits for it (None when the child failed)."""

    def __init__(self, pid: int, fd: int, thaw: bool) -> None:
        self._pid = pid
        self._fd = fd
        self._thaw = thaw

    def result(self) -> T | None:
        with os.fdopen(self._fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        _thaw(self._thaw)
        if status != 0 or not data:
            return None
        try:
            value: T = pickle.loads(data)
        except Exception:
            return None
        return value

    def cancel(self) -> None:
        """Stop the child and reap it (the parent failed and will not read its result)."""
        with contextlib.suppress(OSError):
            os.close(self._fd)
        with contextlib.suppress(OSError):
            os.kill(self._pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(self._pid, 0)
        _thaw(self._thaw)


def beside(here: Callable[[], T], there: Callable[[], U]) -> tuple[T, U]:
    """``(here(), there())``, with ``there()`` run in a forked child while this process runs
    ``here()``. Where no child can be had, or the child fails, ``there()`` runs here after
    ``here()``: the result never depends on the fork."""
    child = fork(there) if can_fork() else None
    if child is None:
        return here(), there()
    try:
        mine = here()
    except BaseException:
        child.cancel()
        raise
    theirs = child.result()
    return mine, there() if theirs is None else theirs


def can_fork() -> bool:
    """Forking is safe only on Linux, with more than one core to gain, and with no other
    thread running (a lock held by another thread at the fork would never be released)."""
    return sys.platform == "linux" and (os.cpu_count() or 1) > 1 and threading.active_count() == 1


def fork(run: Callable[[], T]) -> Forked[T] | None:
    """Start ``run()`` in a child process; None when no child could be started.

    Until the child is done, every object that exists now is frozen out of the cyclic
    collector's way (``gc.freeze``), so a collection on either side does not write to them
    and copy the pages the two processes share."""
    read, write = os.pipe()
    thaw = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        _thaw(thaw)
        return None
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(run, write)
    os.close(write)
    return Forked(pid, read, thaw)


def _thaw(thaw: bool) -> None:
    if thaw:
        gc.unfreeze()


def _child(run: Callable[[], T], fd: int) -> None:
    """Run, send the result, and leave without running exit handlers or flushing the
    parent's buffered output a second time."""
    code = 1
    with contextlib.suppress(BaseException):  # a failure is reported as such: no payload
        payload = pickle.dumps(run(), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(fd, "wb") as pipe:
            pipe.write(payload)
        code = 0
    os._exit(code)
