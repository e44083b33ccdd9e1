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
