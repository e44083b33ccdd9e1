"""Reading a file a user named without hanging on it.

``Path.read_bytes`` on a FIFO waits for a writer that may never come, and on a character
device (``/dev/zero``) reads until memory runs out. ``read_regular`` opens without blocking,
refuses anything but a regular file with an ``OSError`` (so each caller's ``except OSError``
names the file in its own words), and reads at most ``limit`` bytes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

NOT_REGULAR = "not a regular file (a FIFO, socket or device)"
DEFAULT_LIMIT = 4 * 1024**3  # far above any real input; a bound, not a policy


def read_regular(path: Path, limit: int = DEFAULT_LIMIT) -> bytes:
    """The bytes of the regular file at ``path``; ``IsADirectoryError`` for a folder,
    ``OSError`` (EINVAL) for a FIFO, socket or device, or a file over ``limit`` bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, str(path))
        size = os.fstat(fd).st_size
        if size > limit:
            raise OSError(errno.EFBIG, f"{size:,} bytes, more than {limit:,}", str(path))
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def read_regular_text(path: Path) -> str:
    """``read_regular`` decoded as UTF-8 (``UnicodeDecodeError`` as ``Path.read_text``)."""
    return read_regular(path).decode("utf-8")


def kind_of_mode(mode: int) -> str:
    """What a file of this mode is, in words: ``a folder``, ``a FIFO (named pipe)``, …"""
    for test, words in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def not_a_file(path: Path) -> str | None:
    """Why ``path`` cannot be read as a file (``no such file``, ``is a folder``, ``is a FIFO
    (named pipe), not a regular file``), or None when it is a regular file (a link to one
    included). Never opens the path, so a FIFO cannot block."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "is a broken link" if os.path.islink(path) else "no such file"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISREG(mode):
        return None
    kind = kind_of_mode(mode)
    if stat.S_ISDIR(mode):
        return "is a link to a folder" if os.path.islink(path) else f"is {kind}"
    return f"is {kind}, not a regular file"
