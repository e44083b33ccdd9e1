"""``--cmd``: the system as long-lived worker processes speaking JSON lines.

Each job starts the command (split like a shell would, run without one, in the current folder,
in a process group of its own) and keeps it: one request line goes to its standard input, one
response line is read from its standard output. A worker that crashes, exits, writes a line
that is not a response, or says nothing for ``--timeout`` seconds costs that request an
``outcome: error`` with the reason, and is replaced: its whole process group is killed and the
command started again for the next request. A worker's standard error is kept (its last lines)
to explain a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any

from goldcase.errors import GoldcaseError
from goldcase.run.protocol import parse_response
from goldcase.run.systems import Reply
from goldcase.text import clip

MAX_LINE = 64 * 1024 * 1024  # a response longer than this is not one
STDERR_LINE_BYTES = 64 * 1024  # of one line of a worker's standard error, kept for messages
STDERR_LINES = 20
_READ = 1 << 16


class CommandSystem:
    kind = "cmd"

    def __init__(self, command: str) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise GoldcaseError(f"--cmd {command!r}: cannot split it into words: {exc}") from None
        if not self.argv:
            raise GoldcaseError("--cmd is empty; give the command that starts a worker")
        self.identity = command
        self.default_name = os.path.basename(self.argv[0])  # never an argument: it may be a token

    def prepare(self) -> None:
        """Nothing to check before the first worker starts: a command that cannot start is
        an error on every request, with the reason."""

    def session(self) -> Worker:
        return Worker(self.argv)


class Worker:
    """One worker process, started on first use and again after it fails."""

    def __init__(self, argv: list[str]) -> None:
        self._argv = argv
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._drainer: threading.Thread | None = None

    def ask(self, request: dict[str, Any], timeout: float) -> Reply:
        failed = self._ready()
        if failed is not None:
            return failed
        deadline = time.monotonic() + timeout
        try:
            sent = self._send(json.dumps(request, ensure_ascii=False).encode() + b"\n", deadline)
        except OSError:  # BrokenPipeError: it died before reading
            return self._crashed()
        if not sent:
            self._stop()
            return Reply(error=f"no response within {timeout:g} s", retryable=True)
        return self._response(deadline, timeout)

    def _send(self, data: bytes, deadline: float) -> bool:
        """Write ``data`` to the worker's standard input by ``deadline``; False when it has
        not read it all by then. A pipe holds 64 KiB: a longer request (a question of a case
        file's megabyte) to a worker that reads nothing blocked a plain write for ever."""
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            _, ready, _ = select.select([], [fd], [], remaining)
            if ready:
                with contextlib.suppress(BlockingIOError):  # room for less than a piece
                    view = view[os.write(fd, view[:_READ]) :]
        return True

    def _ready(self) -> Reply | None:
        """Start the worker when there is none (or it has exited); restart one that left
        output no request asked for."""
        proc = self._proc
        if proc is not None and proc.poll() is None and not self._stale():
            return None
        self._stop()
        try:
            self._start()
        except OSError as exc:
            return Reply(error=f"cannot start the worker {self._argv[0]!r}: {exc.strerror or exc}")
        return None

    def _start(self) -> None:
        self._buffer.clear()
        self._stderr.clear()
        self._proc = subprocess.Popen(
            self._argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a timeout kills all of it
        )
        assert self._proc.stdin is not None and self._proc.stderr is not None
        os.set_blocking(self._proc.stdin.fileno(), False)  # written by ``_send`` alone
        self._drainer = threading.Thread(
            target=_drain, args=(self._proc.stderr, self._stderr), daemon=True
        )
        self._drainer.start()

    def _stale(self) -> bool:
        """Output waiting from before this request: a worker that wrote two lines for one."""
        assert self._proc is not None and self._proc.stdout is not None
        if self._buffer.strip():
            return True
        ready, _, _ = select.select([self._proc.stdout.fileno()], [], [], 0)
        return bool(ready)

    def _response(self, deadline: float, timeout: float) -> Reply:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                return self._parsed(line)
            if len(self._buffer) > MAX_LINE:
                self._stop()
                return Reply(error=f"malformed response: a line longer than {MAX_LINE:,} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._stop()
                return Reply(error=f"no response within {timeout:g} s", retryable=True)
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, _READ)
                if not chunk:
                    return self._crashed()
                self._buffer += chunk

    def _parsed(self, line: bytes) -> Reply:
        try:
            return Reply(value=parse_response(line))
        except ValueError as exc:
            self._stop()  # whatever it printed, the next request starts from a clean worker
            return Reply(error=f"malformed response: {exc}")

    def _crashed(self) -> Reply:
        assert self._proc is not None
        try:
            status = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # it closed its output but lives on
            status = None
        self._stop()
        # its last words: the draining thread reads them up to the end of standard error,
        # which may lag the exit on a busy machine
        if self._drainer is not None:
            self._drainer.join(timeout=5)
        if status is None:
            how = "closed its output"
        elif status < 0:
            how = f"was killed by signal {-status}"
        else:
            how = f"exited with status {status}"
        last = next((line for line in reversed(self._stderr) if line.strip()), "")
        detail = f": {clip(last, 200)}" if last else ""
        return Reply(error=f"the worker {how}{detail}", retryable=True)

    def _stop(self) -> None:
        """Kill the worker's whole process group and forget it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def abort(self) -> None:
        proc = self._proc
        if proc is not None:
            _kill_group(proc)

    def discard(self) -> None:
        """The last response was not one: the next request goes to a new worker."""
        self._stop()

    def close(self) -> None:
        """End of the run: close its input so it can exit on its own, then stop it."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
        self._stop()  # and anything it started in its group


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _drain(stream: IO[bytes], keep: deque[str]) -> None:
    """Read a worker's standard error until it closes, keeping the last lines."""
    with contextlib.suppress(OSError, ValueError):
        # a bounded readline: a worker may write gigabytes without a line break (a \r
        # progress bar); a longer line is kept as pieces, of which the last few stay
        for raw in iter(lambda: stream.readline(STDERR_LINE_BYTES), b""):
            keep.append(raw.decode("utf-8", "replace").rstrip("\n"))
    with contextlib.suppress(OSError):
        stream.close()
