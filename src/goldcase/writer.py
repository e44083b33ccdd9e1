"""The one place files are (re)written: atomically, and for case files with ruamel.yaml's
round-trip mode so comments, blank lines and key order survive.

Every write goes to a temporary file in the same folder, is flushed and fsynced, then renamed
over the target: a reader (or a crash) sees the old file or the new one, never a mix.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path
from typing import Any

from goldcase.errors import GoldcaseError


def atomic_write_bytes(path: Path, data: bytes) -> None:
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o7777 if path.exists() else None
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise GoldcaseError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise GoldcaseError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def round_trip_yaml() -> Any:
    """A ruamel.yaml instance set up the way goldcase writes case files."""
    from ruamel.yaml import YAML

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
