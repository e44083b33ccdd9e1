"""Work handed to a forked child while this process does other work: the one way goldcase
uses a second core beside its own (``engine.list_aside``: the case files listed while the
case cache, or the score's view and lines, are read; ``scoring.results``: a results file's
lines checked against the schema while ``score`` builds them).

Only for work that reads little of this process's memory, forked before much is built: the
child shares this process's pages until either writes one, and every object either touches
is written (its reference count). Half of a 100,000-case grading in a child made this
process's own half as slow as the whole had been (docs/benchmarks.md).

``aside(work)`` forks; the child runs ``work()`` and writes the bytes it returns down a
pipe, then leaves without any clean-up (``os._exit``: nothing of this process's, no
``atexit``, no buffered output, runs twice). What it returns (a ``Taker``) is called when
the bytes are wanted: it reads them, reaps the child, and gives None when the child failed
(or could not be made), so that the caller does the work itself; interrupted while it waits
(a Ctrl-C sent to this process alone), it kills and reaps the child before the interruption
goes on, as ``cancel()`` does for a caller leaving before it wants the bytes. Its
``ready()`` says, without waiting, whether the child has finished its work (or there is
none): ``score`` grades ahead while it is not. The bytes are only ever the child's own
encoding of its result: a caller decodes them with a strict decoder and treats a failure as
None.

Only on Linux with two cores or more: elsewhere (or where a fork fails) ``aside`` gives a
taker that answers None at once, without forking. A Ctrl-C is blocked across the fork, so
the child never runs this process's handler: it keeps the default, which ends it outright.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
from collections.abc import Callable


class Taker:
    """The child's bytes, once, when called (None: no child ran the work to the end); and
    whether calling would return at once (``ready``)."""

    __slots__ = ("_fd", "_pid")

    def __init__(self, fd: int | None = None, pid: int = 0) -> None:
        self._fd = fd  # None: no child, and nothing to wait for
        self._pid = pid

    def ready(self) -> bool:
        """Whether the child has written its bytes or ended (a call would not wait on its
        work): the pipe has something to read, or its end was closed."""
        if self._fd is None:
            return True
        polled = select.poll()  # not select.select: a descriptor past 1023 is fine here
        polled.register(self._fd, select.POLLIN)
        return bool(polled.poll(0))

    def __call__(self) -> bytes | None:
        fd, self._fd = self._fd, None
        return None if fd is None else _taken(fd, self._pid)

    def cancel(self) -> None:
        """The child's work is not wanted (the caller is leaving on an error or a Ctrl-C):
        the child is killed and reaped, the pipe closed, and nothing waited for."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
            _killed(self._pid)


def can_fork() -> bool:
    """Whether ``aside`` forks here (Linux, two cores or more)."""
    return sys.platform == "linux" and (os.cpu_count() or 1) >= 2


def aside(work: Callable[[], bytes]) -> Taker:
    """``work()`` run by a forked child; what is returned gives its bytes once, or None when
    no child ran it to the end (the caller then does the work itself)."""
    if not can_fork():
        return Taker()
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return Taker()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid == 0:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if pid < 0:
        os.close(read_fd)
        os.close(write_fd)
        return Taker()
    if pid == 0:  # the child: the bytes down the pipe, and out
        code = 1
        try:
            os.close(read_fd)
            with os.fdopen(write_fd, "wb") as out:
                out.write(work())
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    return Taker(read_fd, pid)


def _taken(read_fd: int, pid: int) -> bytes | None:
    try:
        with os.fdopen(read_fd, "rb") as pipe:
            raw = pipe.read()
    except BaseException:  # a Ctrl-C sent to this process alone: the child's work is not wanted
        _killed(pid)
        raise
    return raw if _reaped(pid) == 0 else None


def _killed(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    _reaped(pid)


def _reaped(pid: int) -> int:
    """The child's exit status, once it has ended."""
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:  # reaped already (SIGCHLD ignored): cut bytes won't decode
        return 0
