"""The corpus: documents support quotes come from, by basename, and its digest."""

from __future__ import annotations

import hashlib
import os
import unicodedata
from bisect import bisect_right
from functools import cached_property
from pathlib import Path

from msgspec import Struct, field

from goldcase.cache import Cache
from goldcase.safeio import (
    NOT_REGULAR,
    TooLarge,
    is_named,
    read_regular,
    shown_path,
    stat_signature,
    within,
)
from goldcase.sentences import Spaced
from goldcase.text import fold_quote, fold_space

MAX_DOC_BYTES = 64 * 1024 * 1024


class Document(Struct, dict=True):
    name: str  # basename, as support entries name it
    rel: str  # path relative to the repository root
    path: Path
    raw: bytes
    problem: str | None = None  # why the document cannot be searched, if it cannot
    known_sha256: str = ""  # the bytes' sha256 (hex) when the cache knows it

    @property
    def sha256(self) -> str:
        """The bytes' sha256, hex: what the lock records and the corpus digest is made of."""
        if not self.known_sha256:
            self.known_sha256 = hashlib.sha256(self.raw).hexdigest()
        return self.known_sha256

    @cached_property
    def text(self) -> str:
        return self.raw.decode("utf-8")

    @cached_property
    def folded(self) -> str:
        return fold_quote(self.text)

    @cached_property
    def spaced(self) -> Spaced:
        """The NFC text, its white space runs folded once, for placing many quotes in it."""
        return Spaced(unicodedata.normalize("NFC", self.text))

    @cached_property
    def _line_starts(self) -> list[int]:
        """Folded offset at which each original line starts. Folding line by line gives the
        same string as folding the whole text, because NFC never crosses a line break."""
        starts: list[int] = []
        offset = 0
        for line in unicodedata.normalize("NFC", self.text).splitlines():
            starts.append(offset)
            folded = fold_space(line)
            if folded:
                offset += len(folded) + 1
        return starts

    def line_of(self, folded_offset: int) -> int:
        """The 1-based line of the original document that holds a folded offset."""
        return max(1, bisect_right(self._line_starts, folded_offset))


class Corpus(Struct, dict=True):
    root: Path  # the corpus folder
    repo_root: Path
    documents: dict[str, Document] = field(default_factory=dict)
    duplicates: dict[str, list[str]] = field(default_factory=dict)  # basename -> rel paths
    escaping: dict[str, str] = field(default_factory=dict)  # basename -> where the link points
    unnamed: list[str] = field(default_factory=list)  # files whose name is not UTF-8, shown

    @cached_property
    def digest(self) -> str:
        """sha256 over every document's path and bytes, in path order."""
        h = hashlib.sha256()
        for doc in sorted(self.documents.values(), key=lambda d: d.rel):
            h.update(doc.rel.encode("utf-8") + b"\0")
            h.update(bytes.fromhex(doc.sha256))
        return h.hexdigest()

    def doc_digests(self) -> dict[str, str]:
        return {d.rel: d.sha256 for d in self.documents.values()}


def load_corpus(root: Path, repo_root: Path, cache: Cache | None = None) -> Corpus:
    """The documents under ``root``; with ``cache``, each document's sha256 is taken from it
    when the file's stat signature is the one recorded with it (``known_digest``)."""
    corpus = Corpus(root=root, repo_root=repo_root)
    if not root.is_dir():
        return corpus
    real_root = root.resolve()
    for path in sorted(_walk(root)):
        name = path.name
        rel = path.relative_to(repo_root).as_posix()
        if not is_named(rel):  # no case, lock or report can name it: left out, and said
            corpus.unnamed.append(shown_path(rel))
            continue
        if not _inside(path, real_root):
            corpus.escaping[name] = os.path.realpath(path)
            continue
        if name in corpus.documents:
            corpus.duplicates.setdefault(name, [corpus.documents[name].rel]).append(rel)
            continue
        signature = stat_signature(path) if cache is not None else None  # before the bytes
        document = corpus.documents[name] = _read_document(name, rel, path)
        # and after them: a file that changed while it was read is hashed from what was read
        if cache is not None and document.problem is None and stat_signature(path) == signature:
            known_digest(cache, document, signature)
    return corpus


_DIGESTS = "corpus-digests"


def known_digest(cache: Cache, document: Document, signature: list[int] | None) -> None:
    """The document's sha256 from the cache when the file is as it was when it was hashed
    (``Cache.known``); else hashed and recorded. A check of one case file then does not hash
    the whole corpus for its digest."""
    known = cache.known(_DIGESTS, document.rel, signature)
    if type(known) is str and len(known) == 64:
        document.known_sha256 = known
    else:
        cache.record(_DIGESTS, document.rel, signature, document.sha256)


def _walk(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        out.extend(Path(dirpath) / f for f in filenames if not f.startswith("."))
    return out


def _inside(path: Path, real_root: Path) -> bool:
    return within(os.path.realpath(path), str(real_root))


def _read_document(name: str, rel: str, path: Path) -> Document:
    try:
        raw = read_regular(path, MAX_DOC_BYTES)
    except TooLarge as exc:
        return Document(
            name, rel, path, b"", f"{exc.size:,} bytes, over the {MAX_DOC_BYTES:,} limit"
        )
    except OSError as exc:
        if isinstance(exc, (IsADirectoryError, FileNotFoundError)) or exc.strerror == NOT_REGULAR:
            return Document(name, rel, path, b"", "not a regular file")
        return Document(name, rel, path, b"", f"cannot be read ({exc.strerror})")
    if b"\x00" in raw:
        return Document(name, rel, path, raw, "a binary file, not text")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Document(
            name, rel, path, raw, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at {exc.start})"
        )
    return Document(name, rel, path, raw)
