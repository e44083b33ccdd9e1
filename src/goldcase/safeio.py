"""The one guarded reader: every file goldcase reads because a user, a config or a case named
it goes through here.

- ``read_regular(path, limit)``: the file's bytes, never blocking. ``Path.read_bytes`` on a
  FIFO waits for a writer that may never come, and on a character device (``/dev/zero``)
  reads until memory runs out. The file is opened non-blocking, anything but a regular file is
  refused, and nothing past ``limit`` is read (``TooLarge``, which carries the size).
- ``inside(base, name)``: a name a file wrote (a config's ``file://`` reference, a prompt glob's
  match, a case's document) as a path under ``base``: relative, without ``..`` out of it, and
  no link leading out of it, or into a ``.git`` folder, once resolved. ``read_inside`` is the
  two together.
- ``refuse_linked_output(root, out, command)``: an output file named on the command line that
  is a link, or lies under the repository behind a linked folder leading out of it, is
  refused: a repository can commit such a link, and the file is read and written there; so
  is a FIFO or a device at the name, and a file the command reads (``reads``), which the
  output would replace.

Every refusal is an ``OSError`` whose ``strerror`` says why, so each caller's
``except OSError`` names the file in its own words. Files named on the command line (a
results file, a report, training data) are the user's own choice and are read with
``read_regular`` wherever they are.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from goldcase.errors import GoldcaseError

NOT_REGULAR = "not a regular file (a FIFO, socket or device)"
DEFAULT_LIMIT = 4 * 1024**3  # far above any real input; a bound, not a policy
OUTSIDE = "outside {where}"


class TooLarge(OSError):
    """A file over the reader's limit (``size`` is its size in bytes)."""

    def __init__(self, size: int, limit: int, path: str) -> None:
        super().__init__(errno.EFBIG, f"{size:,} bytes, more than {limit:,}", path)
        self.size = size
        self.limit = limit


class Outside(OSError):
    """A name that leads outside the folder it must stay in."""

    def __init__(self, name: str, where: str) -> None:
        super().__init__(errno.EACCES, OUTSIDE.format(where=where), name)


def read_regular(path: Path | str, limit: int = DEFAULT_LIMIT, *, follow: bool = True) -> bytes:
    """The bytes of the regular file at ``path``; ``IsADirectoryError`` for a folder,
    ``OSError`` (EINVAL) for a FIFO, socket or device, ``TooLarge`` past ``limit``; with
    ``follow=False`` a link is refused (ELOOP)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, str(path))
        if info.st_size > limit:
            raise TooLarge(info.st_size, limit, str(path))
        return _read_all(fd, info.st_size, limit, str(path))
    finally:
        os.close(fd)


def _read_all(fd: int, size: int, limit: int, name: str) -> bytes:
    """One read when the file is as large as it said (the common case: one system call);
    on when it grew meanwhile, never past ``limit``."""
    data = os.read(fd, size + 1)
    if len(data) <= size:
        return data
    parts, total = [data], len(data)
    while parts[-1]:
        if total > limit:
            raise TooLarge(total, limit, name)
        parts.append(os.read(fd, 1 << 20))
        total += len(parts[-1])
    return b"".join(parts)


def open_regular(path: Path | str, limit: int = DEFAULT_LIMIT) -> BinaryIO:
    """The regular file at ``path`` opened for reading, never blocking on a FIFO: for a file
    read as a stream (a zip archive) rather than whole; refusals as ``read_regular``'s
    (``TooLarge`` for a file over ``limit`` bytes)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, str(path))
        if info.st_size > limit:
            raise TooLarge(info.st_size, limit, str(path))
        os.set_blocking(fd, True)  # a regular file: reads never wait anyway
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def named(shown: str, what: str) -> Iterator[None]:
    """Reading a file the user named on the command line (a results file, a report, a trace
    log): every refusal becomes a ``GoldcaseError`` naming it as ``shown`` and saying what to
    give instead (``what``: "the results file (JSONL)")."""
    try:
        yield
    except FileNotFoundError:
        raise GoldcaseError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise GoldcaseError(f"{shown}: is a folder; give {what}") from None
    except OSError as exc:
        raise GoldcaseError(f"{shown}: cannot read it: {exc.strerror or exc}") from None


def read_named(path: Path, shown: str, what: str, limit: int = DEFAULT_LIMIT) -> bytes:
    """``read_regular`` on a file the user named, its refusals as ``named`` words them."""
    with named(shown, what):
        return read_regular(path, limit)


def read_regular_text(path: Path | str, limit: int = DEFAULT_LIMIT) -> str:
    """``read_regular`` decoded as UTF-8 (``UnicodeDecodeError`` as ``Path.read_text``)."""
    return read_regular(path, limit).decode("utf-8")


def inside(base: Path, name: str | Path, where: str = "the repository") -> Path:
    """``name`` (relative to ``base``) as a real path inside ``base``; ``Outside`` for an
    absolute name, a ``..`` that climbs out, or a link that resolves outside."""
    text = str(name)
    pure = PurePosixPath(text.replace("\\", "/"))
    if pure.is_absolute() or text.startswith("~") or (len(text) > 1 and text[1] == ":"):
        raise Outside(text, where)
    real_base = os.path.realpath(base)
    real = os.path.realpath(os.path.join(real_base, *pure.parts))
    if not within(real, real_base):
        raise Outside(text, where)
    return Path(real)


def within(real: str, real_base: str) -> bool:
    """Whether the resolved path ``real`` is ``real_base`` or under it, and not in a ``.git``
    folder: git tracks no path through one (in any case), so only a link reaches it, and what
    is there is the clone's own (its config holds credentials), never the repository's."""
    if real != real_base and not real.startswith(os.path.join(real_base, "")):
        return False
    return GIT_FOLDER not in (p.casefold() for p in Path(os.path.relpath(real, real_base)).parts)


GIT_FOLDER = ".git"


def read_inside(
    base: Path, name: str | Path, limit: int = DEFAULT_LIMIT, where: str = "the repository"
) -> bytes:
    """The bytes of ``name`` under ``base``, guarded as ``inside`` and ``read_regular``."""
    return read_regular(inside(base, name, where), limit)


def is_inside(base: Path, name: str | Path) -> bool:
    try:
        inside(base, name)
    except Outside:
        return False
    return True


def under(root: Path, path: Path) -> str | None:
    """``path`` relative to ``root`` when it is written under it (before any link is
    resolved), else None."""
    absolute = os.path.abspath(path)
    for base in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        if absolute.startswith(os.path.join(base, "")):
            return os.path.relpath(absolute, base)
    return None


def refuse_linked_output(
    root: Path,
    out: Path,
    command: str,
    *,
    option: str = "--out",
    what: str = "file",
    whole: bool = True,
    reads: Iterable[tuple[Path, str]] = (),
) -> None:
    """Refuse an output file (or folder: ``what``) named on the command line (``option``)
    before any work: one that would be read or written through a link (a link at its name,
    which a repository can commit leading anywhere, or, under the repository ``root``, a
    linked folder leading out of it); a file that is there but is no regular file (a FIFO,
    a device), when the file is written ``whole``: one is renamed over the name, and would
    replace ``/dev/null`` (a file appended to is read first, and refused then); or one of the
    files ``command`` reads (``reads``: each path and what it is), which it would replace."""
    if os.path.islink(out):
        raise GoldcaseError(
            f"{out}: is a link (to {os.readlink(out)}); {command} writes the {what} itself, "
            f"never through a link: remove the link, or name another {what} with {option}"
        )
    rel = under(root, out)
    if rel is not None and not is_inside(root, rel):
        raise GoldcaseError(
            f"{out}: a linked folder leads outside the repository; {command} never "
            f"writes through a link: name a {what} in a real folder with {option}"
        )
    with contextlib.suppress(OSError):  # nothing there: a new file
        mode = os.stat(out).st_mode
        if whole and what == "file" and not stat.S_ISREG(mode):
            raise GoldcaseError(
                f"{out}: is {kind_of_mode(mode)}, where {command} writes a file whole (by "
                f"renaming one over the name); name a file with {option}"
            )
    real = os.path.realpath(out)
    for read, called in reads:
        if os.path.realpath(read) == real:
            raise GoldcaseError(
                f"{out}: is {called}, which {command} reads; writing there would replace "
                f"it: name another {what} with {option}"
            )


MAX_LINE_BYTES = 64 * 1024 * 1024  # a result line or a training record; memory is a few times it


def line_too_long(
    name: str, line: int | None, offset: int, limit: int = MAX_LINE_BYTES
) -> GoldcaseError:
    """The error for a line past ``limit`` (its number when known, and its first byte): read
    no further, memory would grow with it. A plain ``GoldcaseError``, so it crosses from a
    worker process as it is."""
    where = f"{name}:{line}" if line is not None else name
    return GoldcaseError(
        f"{where} (byte {offset:,}): a line longer than {limit:,} bytes; goldcase reads one "
        "line (one result, one record) at a time and refuses longer ones: split it"
    )


def bounded_lines(
    fh: BinaryIO,
    name: str,
    *,
    first: int | None = 1,
    offset: int = 0,
    limit: int = MAX_LINE_BYTES,
) -> Iterator[bytes]:
    """The lines of ``fh`` (each with its newline), never holding more than ``limit`` + 1
    bytes of one; the error (``line_too_long``) names the file, the line's number (counted
    from ``first``; None: not known, a range that starts inside the file) and its first byte
    (counted from ``offset``)."""
    number = first
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            raise line_too_long(name, number, offset, limit)
        yield line
        number = None if number is None else number + 1
        offset += len(line)


def longest_line(raw: bytes, limit: int = MAX_LINE_BYTES) -> tuple[int, int] | None:
    """(1-based line, byte offset) of the first line of ``raw`` longer than ``limit``; None
    when there is none. The line breaks are not visited one by one (a 100 MB file of short
    lines has millions): from each line's start, the last line break within ``limit`` bytes
    is the start of the next window, and a window with none starts a line that is too long
    (``rfind`` in C, about one step per ``limit`` bytes, no copy); the line's number is then
    counted once."""
    size = len(raw)
    start = 0
    while size - start > limit:
        last = raw.rfind(b"\n", start, start + limit + 1)
        if last < 0:
            return raw.count(b"\n", 0, start) + 1, start
        start = last + 1
    return None


def stat_signature(path: Path | str) -> list[int] | None:
    """What a change of the file (or of where its link leads) changes: its modification and
    change times (ns), size and inode; None when it cannot be stat'ed. Taken before the
    bytes it vouches for are read, so that a change between the two shows next time."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return signature_of(info)


def signature_of(info: os.stat_result) -> list[int]:
    """A stat result's signature (``stat_signature``), the one every cache entry records."""
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino]


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


def is_named(rel: str) -> bool:
    """Whether a file's name is UTF-8 (every report, lock and cache key can hold it): a byte
    that is not is kept by Python as a lone surrogate, which none of them can."""
    if rel.isascii():
        return True
    try:
        rel.encode()
    except UnicodeEncodeError:
        return False
    return True


def shown_path(rel: str) -> str:
    """``rel`` as a finding names it: a byte of the name that is not UTF-8 escaped as
    ``\\xff``."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
