"""A content-hash cache under ``.goldcase-cache/``: safe to delete, never trusted across
goldcase versions, and never a reason for a command to fail."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from goldcase import __version__
from goldcase.schemas import CASE_SCHEMA, DRAFT_SCHEMA, schema_digest

_IGNORE = "# created by goldcase; safe to delete\n*\n"
# Beside the core's own modules, the folders whose code decides what a cached entry holds:
# the check families and the domains they (and the commands that share the cache) run.
_SALTED = (
    "checks",
    "leakage",
    "versioning",
    "labelling",
    "composition",
    "review",
    "privacy",
    "authoring",
)


class Cache:
    """Namespaced key-value store kept in one pickle file per namespace.

    Only the entries read or written during a run are saved back, so entries for files that
    no longer exist drop out on the next save.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder / __version__ if folder is not None else None
        self._base = folder
        self._old: dict[str, dict[str, Any]] = {}  # as read, less the entries used so far
        self._used: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()

    def _namespace(self, namespace: str) -> dict[str, Any]:
        if namespace not in self._old:
            self._old[namespace] = self._read(namespace)
            self._used[namespace] = {}
        return self._old[namespace]

    def _read(self, namespace: str) -> dict[str, Any]:
        if self.folder is None:
            return {}
        try:
            with (self.folder / f"{namespace}.pickle").open("rb") as fh:
                data = pickle.load(fh)
        except Exception:  # missing, truncated or from another Python: start afresh
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, namespace: str, key: str) -> Any:
        """The value stored under ``key``; an entry read moves from the old table to the used
        one (never both: a 100,000-entry namespace is held once)."""
        old = self._namespace(namespace)
        used = self._used[namespace]
        if key in used:
            return used[key]
        if key in old:
            value = used[key] = old.pop(key)
            return value
        return None

    def put(self, namespace: str, key: str, value: Any) -> None:
        self._namespace(namespace).pop(key, None)
        self._used[namespace][key] = value
        self._dirty.add(namespace)

    def namespaces(self) -> set[str]:
        """The namespaces this run has opened so far."""
        return set(self._used)

    def export(self, names: set[str]) -> dict[str, Any]:
        """The state of ``names``, for ``absorb`` in another process (a forked child's)."""
        return {n: (self._used[n], self._old[n], n in self._dirty) for n in names}

    def absorb(self, tables: dict[str, Any]) -> None:
        """Take namespaces another process filled. One this process has opened too keeps its
        own entries: the cache is only ever a saving, so losing the other side's costs one
        recomputation on the next run, never a wrong result."""
        for name, (used, old, dirty) in tables.items():
            if name in self._used:
                continue
            self._used[name], self._old[name] = used, old
            if dirty:
                self._dirty.add(name)

    def save(self) -> None:
        """Write back each namespace that gained an entry or holds entries nobody read."""
        if self.folder is None or self._base is None:
            return
        for namespace, used in self._used.items():
            if namespace not in self._dirty and not self._old[namespace]:
                continue
            with contextlib.suppress(OSError):
                self._write(namespace, used)

    def _write(self, namespace: str, data: dict[str, Any]) -> None:
        assert self.folder is not None and self._base is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self._base / ".gitignore"
        if not ignore.exists():
            ignore.write_text(_IGNORE, encoding="utf-8")
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{namespace}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.folder / f"{namespace}.pickle")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def code_salt() -> str:
    """Cached results are only as good as the code that made them: key them by the schema and
    by the package's own files (name, size, mtime), so an upgrade or an edit starts afresh."""
    schemas = schema_digest(CASE_SCHEMA) + schema_digest(DRAFT_SCHEMA)
    h = hashlib.blake2b(schemas.encode(), digest_size=8)
    package = Path(__file__).parent
    for folder in (package, *(package / name for name in _SALTED)):
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.endswith(".py"):
                    info = entry.stat()
                    h.update(f"{entry.name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return h.hexdigest()
