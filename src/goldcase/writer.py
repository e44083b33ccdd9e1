"""The one place files are (re)written: atomically, and for case files with ruamel.yaml's
round-trip mode so comments, blank lines and key order survive.

Every write goes to a temporary file in the same folder, is flushed and fsynced, then renamed
over the target: a reader (or a crash) sees the old file or the new one, never a mix.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from goldcase import progress
from goldcase.errors import GoldcaseError


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``, whole: a temporary file written, fsynced and renamed
    over it, keeping the file's mode (a new file gets the mode ``open`` would give it)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        exists = path.exists()
        mode = path.stat().st_mode & 0o7777 if exists else 0o666 & ~_umask()
    except OSError as exc:
        raise GoldcaseError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    if exists and not mode & 0o222:  # a rename would replace it whatever its mode
        raise GoldcaseError(
            f"{path}: the file is read-only (mode {mode:o}); make it writable "
            "(chmod u+w) if goldcase should rewrite it"
        )
    with _written(path, data, mode) as tmp:
        os.replace(tmp, path)


def create_exclusive(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data``, whole, only if nothing is there: a temporary file
    written and fsynced, then hard-linked to the name (``link`` fails when the name exists,
    where a rename would replace it). False when the name was taken, by a file or anything
    else; nothing is written then."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GoldcaseError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    with _written(path, data, 0o666 & ~_umask()) as tmp:
        try:
            os.link(tmp, path, follow_symlinks=False)
        except FileExistsError:
            return False
    return True


@contextlib.contextmanager
def _written(path: Path, data: bytes, mode: int) -> Iterator[str]:
    """A temporary file beside ``path`` holding ``data`` (fsynced, ``mode`` set; mkstemp's 0600
    would hide it), removed when the block ends if it is still there; any failure is a
    ``GoldcaseError`` naming ``path``."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        yield tmp
    except OSError as exc:
        raise GoldcaseError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def rewrite_text(path: Path, text: str) -> None:
    """Give the existing file ``path`` the text ``text``, at once. A link stays a link and
    the file it leads to is rewritten: renaming over the link would put a file where the
    repository holds a link, and leave the file it led to as it was. (Callers have read
    ``path`` inside the repository, through the link.)"""
    atomic_write_text(Path(os.path.realpath(path)), text)


def round_trip_yaml() -> Any:
    """A ruamel.yaml instance set up the way goldcase writes case files."""
    from ruamel.yaml import YAML  # 25 ms to import: the check path imports this module too

    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load_round_trip(text: str) -> Any:
    return round_trip_yaml().load(text)


def dump_round_trip(data: Any) -> str:
    buffer = io.StringIO()
    round_trip_yaml().dump(data, buffer)
    return buffer.getvalue()


def write_new_folder(target: Path, files: dict[str, bytes]) -> None:
    """Create folder ``target`` (absent or empty) holding ``files`` (relative path -> bytes),
    all at once: the files go into a staging folder beside it, are flushed to disk with one
    ``sync`` rather than one ``fsync`` each (thousands of files), and the folder is renamed
    into place. A reader, or a crash, sees no folder or the whole of it."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise GoldcaseError(f"{target} exists and is not empty")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(
            tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        )
    except OSError as exc:
        raise GoldcaseError(f"{target}: cannot write: {exc.strerror or exc}") from exc
    try:
        os.chmod(staging, 0o777 & ~_umask())
        with progress.task(f"writing {target.name}", len(files), show=len(files) >= 1000) as step:
            for rel, data in progress.each(step, files.items()):
                _write_staged(staging, target, rel, data)
        os.sync()
        if target.exists():
            target.rmdir()
        os.replace(staging, target)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise GoldcaseError(f"{target}: cannot write: {exc.strerror or exc}") from exc
        raise


def _write_staged(staging: Path, target: Path, rel: str, data: bytes) -> None:
    path = staging / rel
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:  # name the file, not the folder: a name from the input may be at fault
        raise GoldcaseError(
            f"{target / rel}: cannot write: {exc.strerror or exc}; nothing was written"
        ) from exc


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
