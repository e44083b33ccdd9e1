"""The run's provenance: a sidecar file beside the results, ``RESULTS.jsonl.run.json``.

    {
      "format": "goldcase-run", "version": 1, "goldcase_version": "0.1.0",
      "golden_version": "2", "set_digest": "<sha256>", "corpus_digest": "<sha256>",
      "split": "golden", "trials": 1, "cases": 137,
      "system": {"name": "baseline-k1", "kind": "cmd", "digest": "<sha256>"},
      "sessions": [{"started": "2026-12-01T07:00:00+00:00", "ended": "…",
                    "asked": 137, "written": 137, "errors": 0, "ended_by": "complete"}]
    }

The system is known by its name (``--system``) and the sha256 of its kind and its command,
URL or ``module:function``: the command itself may hold a token, so it is never written. A
session is one invocation that asked anything: ``ended_by`` is ``complete``, ``interrupted``
(Ctrl-C), ``leak`` (a prompt held another golden question), ``failed``, or ``running`` when it
was killed before it could say.

A run refuses to resume a file begun on another set, corpus, split or system: its lines would
mix two runs. ``goldcase score`` reads the manifest and warns when the set has changed since.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec import Struct

from goldcase import __version__
from goldcase.errors import GoldcaseError
from goldcase.output import plain
from goldcase.safeio import Outside, read_inside, read_regular
from goldcase.text import HALF_SURROGATE, clip, half_surrogate
from goldcase.writer import atomic_write_text

FORMAT = "goldcase-run"
VERSION = 1
SUFFIX = ".run.json"
MAX_BYTES = 16 * 1024 * 1024  # a manifest is a few hundred bytes a session
# keys that must agree for a run to continue in the same file: (key, what it is called)
_SAME = (
    ("set_digest", "set"),
    ("corpus_digest", "corpus"),
    ("split", "split"),
)


def manifest_path(results: Path) -> Path:
    return results.with_name(results.name + SUFFIX)


def system_digest(kind: str, identity: str) -> str:
    return hashlib.sha256(f"{kind}\0{identity}".encode()).hexdigest()


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Provenance(Struct, frozen=True):
    golden_version: str | None
    set_digest: str
    corpus_digest: str
    split: str
    trials: int
    cases: int
    system_name: str
    system_kind: str
    system_digest: str

    def head(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "goldcase_version": __version__,
            "golden_version": self.golden_version,
            "set_digest": self.set_digest,
            "corpus_digest": self.corpus_digest,
            "split": self.split,
            "trials": self.trials,
            "cases": self.cases,
            "system": {
                "name": self.system_name,
                "kind": self.system_kind,
                "digest": self.system_digest,
            },
        }


def read_manifest(path: Path, root: Path | None = None) -> dict[str, Any] | None:
    """The manifest at ``path``; None when there is none; ``GoldcaseError`` when it is not
    one goldcase wrote, or is a link leading outside the repository ``root`` (with no root,
    a link is never followed)."""
    try:
        data = json.loads(_read(path, root))
    except FileNotFoundError:
        return None
    except Outside:
        raise GoldcaseError(
            f"{path}: the run manifest is a link{_where(path, root)}, so it was not read: "
            "replace the link with the manifest itself"
        ) from None
    except OSError as exc:
        raise GoldcaseError(
            f"{path}: cannot read the run manifest: {exc.strerror or exc}"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise GoldcaseError(f"{path}: not a run manifest (not JSON: {exc})") from None
    unwritable = _unwritable(data)  # a run writes the manifest back: it must be able to
    if unwritable is not None:
        raise GoldcaseError(f"{path}: not a run manifest goldcase wrote: {unwritable}")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GoldcaseError(f'{path}: not a run manifest (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise GoldcaseError(
            f"{path}: run manifest version {clip(repr(data.get('version')))}; this goldcase "
            f"reads version {VERSION}"
        )
    return data


def _read(path: Path, root: Path | None) -> bytes:
    """The manifest's bytes, read as a case file is: never blocking (a FIFO, a device are
    refused), never past ``MAX_BYTES``, and through a link only when where it leads is
    inside ``root``. The manifest sits beside a results file the user named, but the
    repository chose it: a committed link could lead to any file of the user's."""
    try:
        return read_regular(path, MAX_BYTES, follow=False)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
    if root is None:
        raise Outside(str(path), "the repository")
    real_root = os.path.realpath(root)
    return read_inside(root, os.path.relpath(os.path.realpath(path), real_root), MAX_BYTES)


def _where(path: Path, root: Path | None) -> str:
    """Where the refused link leads, as the refusal says it (nothing with no repository)."""
    if root is None:
        return ""
    if os.path.realpath(path).startswith(os.path.join(os.path.realpath(root), "")):
        return " that leads into git's own folder"
    return " that leads outside the repository"


MAX_DEPTH = 32  # goldcase writes three levels; a run writes the manifest back


def _unwritable(data: Any) -> str | None:
    """Why ``data`` cannot be written back as JSON text, or None: half a surrogate pair, or
    nesting past ``MAX_DEPTH`` (counted without recursion, so the count itself is safe)."""
    level = [(data, 1)]
    while level:
        value, depth = level.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return f"nested more than {MAX_DEPTH} levels deep"
            inner = value.values() if isinstance(value, dict) else value
            level += [(v, depth + 1) for v in inner]
    return HALF_SURROGATE if half_surrogate(data) else None


class Manifest:
    """The manifest of one results file, kept up to date during a session."""

    def __init__(self, path: Path, provenance: Provenance, earlier: dict[str, Any] | None):
        self.path = path
        self.data = provenance.head()
        sessions = earlier.get("sessions") if earlier else None
        self.data["sessions"] = list(sessions) if isinstance(sessions, list) else []
        if earlier and isinstance(earlier.get("trials"), int):
            self.data["trials"] = max(provenance.trials, earlier["trials"])

    def start(self) -> None:
        self.data["sessions"].append(
            {"started": now(), "ended": None, "asked": 0, "written": 0, "errors": 0,
             "ended_by": "running"}
        )  # fmt: skip
        self.save()

    def end(self, ended_by: str, asked: int, written: int, errors: int) -> None:
        session = self.data["sessions"][-1]
        session.update(ended=now(), asked=asked, written=written, errors=errors, ended_by=ended_by)
        self.save()

    def save(self) -> None:
        atomic_write_text(self.path, json.dumps(self.data, indent=2, ensure_ascii=False) + "\n")


def open_manifest(results: Path, shown: str, provenance: Provenance) -> Manifest:
    """The manifest for a run into ``results``; refuses to go on with a file begun on another
    set, corpus, split or system, or one with no manifest."""
    if results.is_dir():
        raise GoldcaseError(f"{shown}: is a folder; give the results file to write (JSONL)")
    path = manifest_path(results)
    earlier = read_manifest(path)
    if not results.exists() or results.stat().st_size == 0:
        return Manifest(path, provenance, None)
    if earlier is None:
        raise GoldcaseError(
            f"{shown} has no manifest ({path.name}): goldcase run did not make it, so it cannot "
            "tell what the lines were made on; give a new --out"
        )
    new = provenance.head()
    for key, what in _SAME:
        if earlier.get(key) != new[key]:
            raise GoldcaseError(_mismatch(shown, what, earlier.get(key), new[key], earlier))
    if (earlier.get("system") or {}).get("digest") != provenance.system_digest:
        raise GoldcaseError(
            f"{shown} was begun with another system (its command, URL or callable differs): "
            "its lines would mix two systems; give a new --out"
        )
    return Manifest(path, provenance, earlier)


def _quoted(value: Any) -> str:
    """A value of the manifest (committed beside the results, so anyone's text) as a message
    quotes it: through ``plain``, no line break nor terminal escape of its own, and cut at
    80 characters (a version of 5,000 characters was printed whole)."""
    return clip(plain(value))


def _mismatch(shown: str, what: str, was: Any, now_: Any, earlier: dict[str, Any]) -> str:
    """The refusal, quoting the manifest (``_quoted``)."""
    if what == "set":
        was = f"version {_quoted(earlier.get('golden_version'))} ({plain(str(was)[:12])})"
        now_ = f"{str(now_)[:12]}"
    elif what == "corpus":
        was, now_ = plain(str(was)[:12]), str(now_)[:12]
    else:
        was = _quoted(was)
    return (
        f"{shown} was begun on another {what} ({was}; now {now_}): its lines would mix two "
        "runs; give a new --out (or delete the file and its manifest to start again)"
    )


def stale_warning(
    results: Path, golden_version: str | None, set_digest: str, root: Path
) -> str | None:
    """A warning when the manifest beside ``results`` says it was made on another version of
    the set than the one being scored (in the repository ``root``); None when it agrees or
    there is no manifest. A manifest that cannot be read is warned about, and scoring goes
    on as without one: it only ever adds this warning."""
    try:
        made = read_manifest(manifest_path(results), root)
    except GoldcaseError as exc:
        return f"{exc.message}; its provenance is not known"
    if made is None or made.get("set_digest") == set_digest:
        return None
    return (
        f"{results} was made on golden version {_quoted(made.get('golden_version'))} (set "
        f"{plain(str(made.get('set_digest'))[:12])}); the set is now version "
        f"{_quoted(golden_version)} "
        f"({set_digest[:12]}): cases added since are missing and changed cases are graded "
        "on their new expectations; run goldcase run again into a new file"
    )
