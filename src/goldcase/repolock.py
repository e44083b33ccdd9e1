"""The repository's lock: one writer at a time in a golden-set repository.

Every command that rewrites files of the set (`goldcase lock`, `promote`, `fmt`, `scrub`, a
save of `label serve`) holds it around its read-modify-write, so that none of them writes
back what it read over what another wrote in between; `goldcase lock --check` reads under
it shared. It is an ``flock`` on the repository's own folder: nothing is created, so a
damaged or hostile checkout (a file, a folder or a link where a lock file would go) cannot
break or redirect it. A holder that never lets go is waited on for ``LOCK_WAIT_SECONDS``,
then the command stops saying so.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from goldcase.config import Config
from goldcase.errors import GoldcaseError

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
                    f"another goldcase command (lock, promote, fmt, scrub, a save of label "
                    f"serve) has held the lock on {where} for {LOCK_WAIT_SECONDS:.0f} s; "
                    "wait for it to finish, then run this again"
                ) from None
            time.sleep(0.05)
