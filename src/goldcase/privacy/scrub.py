"""``goldcase scrub``: replace personal data in case files with ``[EMAIL]``, ``[PHONE]``, …

Each match (``goldcase.privacy.pii``) is replaced where it stands, by exact span in the file's
text, so comments, quoting, key order and blank lines stay as they were; comments are scrubbed
too. The result must load to exactly the original mapping with the same redactions applied to
its strings. When a span edit would change the meaning (``[PHONE]`` at the start of a plain value
reads as a YAML list) or a value is written over several lines, the values are redacted
through ruamel.yaml's round trip instead (``goldcase.writer``), which quotes as needed and
keeps comments. A file that does not parse is refused: fix it first (``goldcase check``).
Contact details that the repository's corpus publishes are kept, as GC505 lets them pass.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Collection, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from msgspec import Struct

from goldcase.config import CONFIG_NAME, Config, find_root, load_config
from goldcase.corpus import load_corpus
from goldcase.errors import GoldcaseError
from goldcase.loader import parse_case
from goldcase.output import plain
from goldcase.privacy import pii
from goldcase.repolock import serialised
from goldcase.safeio import is_inside, not_a_file, read_regular, shown_path
from goldcase.writer import dump_round_trip, load_round_trip, rewrite_text


class Proposal(Struct, frozen=True):
    path: Path
    shown: str  # the path as the user gave it
    old: str
    new: str

    def diff(self) -> str:
        lines = difflib.unified_diff(
            self.old.splitlines(keepends=True),
            self.new.splitlines(keepends=True),
            fromfile=f"a/{self.shown}",
            tofile=f"b/{self.shown}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def apply(self) -> bool:
        """Write the redactions when the file still holds the text they were made from; False,
        writing nothing, when it changed since (a save of the labelling page, an editor). The
        comparison and the write hold the lock of the repository holding the file
        (``serialised``), the one the page's saves and ``goldcase promote`` hold: the diff may
        have been read for minutes before the answer, and a save made meanwhile was then
        overwritten with the text the diff was made from."""
        with _repository_lock(self.path):
            try:
                raw = read_regular(self.path)
            except OSError:
                return False  # removed or replaced since: nothing to redact in its place
            if raw != self.old.encode("utf-8"):
                return False
            rewrite_text(self.path, self.new)
            return True


def _repository_lock(path: Path) -> AbstractContextManager[None]:
    """The lock of the golden-set repository holding ``path``; none outside one (no other
    goldcase writer works there). Only the root is needed: a ``goldcase.toml`` that does not
    read must not stop a redaction."""
    try:
        root = find_root(path.parent)
    except GoldcaseError:
        return contextlib.nullcontext()
    return serialised(Config(root=root))


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and every ``*.yaml`` / ``*.yml`` under a folder given."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                found = [
                    Path(dirpath) / n
                    for n in sorted(filenames)
                    if n.endswith((".yaml", ".yml")) and not n.startswith(".")
                ]
                out.extend(_inside(path, item) for item in found)
        elif path.is_file():
            out.append(_named(path))
        else:
            raise GoldcaseError(f"{path}: {not_a_file(path)}; give case files or folders")
    return out


def _inside(folder: Path, item: Path) -> Path:
    """``item``, found under ``folder``; a link that leads out of it is refused: scrub would
    show the file it leads to and write it back in the link's place."""
    if item.is_symlink() and not is_inside(folder, item.relative_to(folder)):
        where = plain(shown_path(folder.as_posix()))
        raise GoldcaseError(
            f"{plain(shown_path(item.as_posix()))}: a link that leads outside {where}; scrub reads "
            "only the files in the folders it is given: name the file it leads to if it is meant"
        )
    return item


def _named(path: Path) -> Path:
    """A file named on the command line. It must resolve inside the golden-set repository
    holding it (else inside its own folder), through a link or a linked folder on its way:
    scrub shows and rewrites the file it resolves to."""
    absolute = Path(os.path.abspath(path))  # its folders as written, no link followed
    base = next(
        (f for f in absolute.parents if (f / CONFIG_NAME).is_file() or (f / ".git").exists()),
        absolute.parent,
    )
    if not is_inside(base, os.path.relpath(os.path.realpath(path), os.path.realpath(base))):
        raise GoldcaseError(
            f"{plain(shown_path(path.as_posix()))}: a link that leads outside "
            f"{plain(shown_path(base.as_posix()))}; name the file it leads to if it is meant"
        )
    return path


def published_near(paths: Iterable[Path]) -> frozenset[str]:
    """Contact details published by the corpus of the golden-set repository the first path is
    in (none outside a repository): GC505 lets them pass, so scrub keeps them too."""
    first = next(iter(paths), None)
    if first is None:
        return frozenset()
    try:
        config = load_config(find_root(first if first.is_dir() else first.parent))
    except GoldcaseError:
        return frozenset()
    corpus = load_corpus(config.corpus_dir, config.root)
    return pii.published(d.raw.decode("utf-8", "replace") for d in corpus.documents.values())


def redact_data(data: Any, keep: Collection[str] = ()) -> Any:
    """A copy of a loaded mapping with every string value redacted."""
    if isinstance(data, str):
        return pii.redact(data, keep)
    if isinstance(data, dict):
        return {key: redact_data(value, keep) for key, value in data.items()}
    if isinstance(data, list):
        return [redact_data(value, keep) for value in data]
    return data


def by_spans(text: str, keep: Collection[str] = ()) -> str:
    out = text
    for located in sorted(pii.scan_lines(text, keep), key=lambda loc: -loc.offset):
        m = located.match
        out = out[: located.offset] + m.token + out[located.offset + m.end - m.start :]
    return out


def _redact_node(node: Any, keep: Collection[str]) -> Any:
    if isinstance(node, str):
        new = pii.redact(node, keep)
        if new == node:
            return node
        return new if type(node) is str else type(node)(new)
    if isinstance(node, dict):
        for key in list(node):
            node[key] = _redact_node(node[key], keep)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            node[i] = _redact_node(value, keep)
    return node


def by_round_trip(text: str, keep: Collection[str] = ()) -> str:
    """Redact the values through ruamel.yaml's round trip, then the comments by span."""
    return by_spans(dump_round_trip(_redact_node(load_round_trip(text), keep)), keep)


def _loads_to(shown: str, text: str, expected: Any) -> bool:
    data, findings = parse_case(shown, text.encode("utf-8"))
    return not findings and data == expected


def propose(path: Path, shown: str | None = None, keep: Collection[str] = ()) -> Proposal | None:
    """The redacted text of one file, or None when it holds no personal data. Values in
    ``keep`` (see ``published_near``) are left as they are."""
    shown = shown_path(shown or path.as_posix())  # a byte of the name not UTF-8: escaped
    try:
        raw = read_regular(path)
    except OSError as exc:
        raise GoldcaseError(f"{shown}: cannot read: {exc.strerror or exc}") from exc
    data, findings = parse_case(shown, raw)
    if findings or data is None:
        reason = findings[0].message if findings else "empty file"
        raise GoldcaseError(
            f"{shown}: cannot scrub a file that does not parse ({reason}); fix it first"
        )
    text = raw.decode("utf-8")
    expected = redact_data(data, keep)
    new = by_spans(text, keep)
    if new == text and expected == data:
        return None
    if not _loads_to(shown, new, expected):
        new = by_round_trip(text, keep)
        if not _loads_to(shown, new, expected):
            raise GoldcaseError(
                f"{shown}: cannot redact without changing what the file means; edit it by hand"
            )
    return Proposal(path, shown, text, new)
