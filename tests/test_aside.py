"""Work handed to a forked child (``goldcase.aside``): its bytes come back whole however
many there are, a child that fails (or one that could not be made) gives None so that the
caller does the work itself, and nothing is left behind either way."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from goldcase import aside as aside_module
from goldcase.aside import aside, can_fork
from kit import needs_cores, recorded_forks


@needs_cores
def test_the_child_does_the_work_and_its_bytes_come_back_whole() -> None:
    """More bytes than a pipe holds (64 KiB on Linux): the child blocks until they are read."""
    payload = os.urandom(3 * 2**20)
    taken = aside(lambda: str(os.getpid()).encode() + b"|" + payload)
    pid, _, raw = taken().partition(b"|")  # type: ignore[union-attr]
    assert int(pid) != os.getpid()
    assert raw == payload


@needs_cores
def test_a_child_whose_work_fails_gives_none(tmp_path: Path) -> None:
    def failing() -> bytes:
        (tmp_path / f"ran-in-{os.getpid()}").touch()
        raise RuntimeError("the work cannot be done")

    assert aside(failing)() is None
    [mark] = tmp_path.glob("ran-in-*")  # it ran, in another process, and failed there
    assert int(mark.name.rsplit("-", 1)[1]) != os.getpid()


@needs_cores
def test_a_child_is_reaped_and_its_pipe_closed_once_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forks = recorded_forks(monkeypatch)
    assert aside(lambda: b"done")() == b"done"
    [_] = forks.children
    [(_, write_fd)] = forks.pipes
    with pytest.raises(OSError):  # this process's end of the child's side: closed at once
        os.fstat(write_fd)
    forks.left_nothing()


def test_with_one_core_nothing_is_forked_and_the_caller_does_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(aside_module.os, "cpu_count", lambda: 1)
    assert not can_fork()
    taken = aside(lambda: (tmp_path / "ran").touch() or b"x")
    assert taken() is None
    assert not (tmp_path / "ran").exists()


@needs_cores
def test_a_fork_that_fails_gives_none_and_leaves_no_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    forks = recorded_forks(monkeypatch)

    def fork() -> int:
        raise OSError("no more processes")

    monkeypatch.setattr(aside_module.os, "fork", fork)
    assert aside(lambda: b"x")() is None
    for fd in forks.pipes[0]:
        with pytest.raises(OSError):
            os.fstat(fd)


class _Interrupted:
    """The pipe's reading end, where a Ctrl-C arrives while the bytes are awaited."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> _Interrupted:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def read(self) -> bytes:
        raise KeyboardInterrupt


@needs_cores
def test_an_interrupted_wait_kills_and_reaps_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C that reaches this process alone while it waits: the child's work is not
    wanted, so the child (here one that would never end) is killed and reaped, its pipe
    closed, and the interruption goes on."""
    hold_read, hold_write = os.pipe()  # the child waits on it for ever: both ends stay open
    try:
        forks = recorded_forks(monkeypatch)
        taken = aside(lambda: os.read(hold_read, 1))
        real_fdopen = os.fdopen

        def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if mode == "rb":
                return _Interrupted(fd)
            return real_fdopen(fd, mode, *args, **kwargs)

        monkeypatch.setattr(aside_module.os, "fdopen", fdopen)
        with pytest.raises(KeyboardInterrupt):
            taken()
        forks.left_nothing()
    finally:
        os.close(hold_read)
        os.close(hold_write)


@needs_cores
def test_ready_says_whether_the_child_is_done_without_waiting() -> None:
    """``ready`` is False while the child's work is held (here until the test lets it go),
    True once the child has written its bytes, and True when there is nothing to wait for."""
    hold_read, hold_write = os.pipe()
    try:
        taken = aside(lambda: os.read(hold_read, 1) + b" done")
        assert not taken.ready()  # the child cannot have written: it waits on the pipe
        assert not taken.ready()
        os.write(hold_write, b"x")
        while not taken.ready():  # bounded by the test's timeout, not by a clock of its own
            os.sched_yield()
        assert taken() == b"x done"
        assert taken.ready() and taken() is None  # taken once; nothing more to wait for
    finally:
        taken.cancel()  # a child still held (an assertion failed first) is not left behind
        os.close(hold_read)
        os.close(hold_write)


@needs_cores
def test_cancel_kills_and_reaps_a_child_still_at_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller leaving before it wants the bytes (an error, a Ctrl-C): the child (here one
    that would never end) is killed and reaped and its pipe closed, without a wait; the
    taker then has nothing to give, and a second cancel nothing to do."""
    hold_read, hold_write = os.pipe()
    try:
        forks = recorded_forks(monkeypatch)
        taken = aside(lambda: os.read(hold_read, 1))
        taken.cancel()
        forks.left_nothing()
        assert taken.ready() and taken() is None
        taken.cancel()
    finally:
        os.close(hold_read)
        os.close(hold_write)


def test_with_no_child_ready_is_true_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aside_module.os, "cpu_count", lambda: 1)
    taken = aside(lambda: b"x")
    assert taken.ready() and taken() is None
