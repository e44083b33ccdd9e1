"""The corpus's documents and digests, read with and without the cache."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from goldcase import corpus as corpus_module
from goldcase.cache import Cache
from goldcase.corpus import Document, load_corpus
from goldcase.safeio import stat_signature

LONG_AGO_NS = 1_000_000_000  # a modification time older than any cache file


def _document(root: Path, text: str) -> Path:
    path = root / "corpus" / "policy.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(LONG_AGO_NS, LONG_AGO_NS))  # older than the cache: trusted by stat
    return path


def _digests(root: Path, cache: Cache | None) -> dict[str, str]:
    corpus = load_corpus(root / "corpus", root, cache)
    if cache is not None:
        cache.save()
    return corpus.doc_digests()


def test_a_cached_digest_is_used_while_the_file_is_unchanged_and_dropped_after(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    path = _document(root, "Refunds take 14 days.\n")
    real = hashlib.sha256(path.read_bytes()).hexdigest()
    folder = tmp_path / "cache"
    assert _digests(root, Cache(folder)) == {"corpus/policy.md": real}
    # The entry stands for the file's bytes while its stat signature is the one recorded:
    # one planted by hand is believed, which shows the file was not hashed again.
    planted = Cache(folder)
    planted.record("corpus-digests", "corpus/policy.md", stat_signature(path), "0" * 64)
    planted.save()
    assert _digests(root, Cache(folder)) == {"corpus/policy.md": "0" * 64}
    path = _document(root, "Refunds take 30 days, not 14.\n")  # another size: another signature
    changed = hashlib.sha256(path.read_bytes()).hexdigest()
    assert _digests(root, Cache(folder)) == {"corpus/policy.md": changed}
    assert _digests(root, None) == {"corpus/policy.md": changed}


def test_the_corpus_digest_is_the_same_with_and_without_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _document(root, "Refunds take 14 days.\n")
    (root / "corpus" / "delivery.md").write_text("Parcels ship on weekdays.\n", encoding="utf-8")
    folder = tmp_path / "cache"
    plain = load_corpus(root / "corpus", root).digest
    for _ in range(2):  # recorded, then read back
        cache = Cache(folder)
        assert load_corpus(root / "corpus", root, cache).digest == plain
        cache.save()


def test_a_document_changed_while_it_is_read_is_hashed_from_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stat that vouches for a cached digest is taken before the bytes are read; a file
    replaced in between holds other bytes than the digest says, so its digest is the read
    bytes' own (the quotes are checked against those bytes)."""
    root = tmp_path / "repo"
    path = _document(root, "Refunds take 14 days.\n")
    folder = tmp_path / "cache"
    _digests(root, Cache(folder))  # the digest of the first bytes, recorded by stat
    reader = corpus_module._read_document

    def replaced_while_read(name: str, rel: str, where: Path) -> Document:
        _document(root, "Refunds take 30 days, not 14.\n")  # another size: another signature
        return reader(name, rel, where)

    monkeypatch.setattr(corpus_module, "_read_document", replaced_while_read)
    corpus = load_corpus(root / "corpus", root, Cache(folder))
    document = corpus.documents["policy.md"]
    assert document.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_document_linked_into_git_s_folder_is_not_read(tmp_path: Path) -> None:
    """With the corpus at the repository's top, a document that links to ``.git/config``
    stays inside the corpus folder, but is git's, never the repository's."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic x\n")
    (tmp_path / "notes.md").symlink_to(".git/config")
    (tmp_path / "policy.md").write_text("Returns within 30 days.\n")
    corpus = load_corpus(tmp_path, tmp_path)
    assert sorted(corpus.documents) == ["policy.md"]
    assert list(corpus.escaping) == ["notes.md"]
