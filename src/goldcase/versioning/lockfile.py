"""``golden.lock``: what the set and the corpus were when ``golden.version`` last moved.

The lock is JSON with sorted keys, written one entry a line so that a pull request's diff shows
exactly which cases and documents changed::

    {
      "cases": {
        "ret-014": "<sha256 of the case's canonical content>"
      },
      "corpus": {
        "corpus/returns-policy.md": "<sha256 of the document's bytes>"
      },
      "corpus_digest": "<Corpus.digest>",
      "format": 1,
      "set_digest": "<goldcase.loader.set_digest over the golden cases>",
      "version": "3"
    }

Only golden cases are locked: the version names the exam, and dev cases are read, mined for
examples and edited freely without changing what a report is a statement about.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct, field

from goldcase.corpus import Corpus
from goldcase.errors import GoldcaseError
from goldcase.jsonmemory import refuse_costly_text
from goldcase.loader import case_hashes, hashes_digest, set_digest
from goldcase.model import CaseSet
from goldcase.versioning.version import parse_version_text

LOCK_FORMAT = 1
_HEX = re.compile(r"^[0-9a-f]{64}\Z")
_KEYS = ("cases", "corpus", "corpus_digest", "format", "set_digest", "version")


class LockError(Exception):
    """golden.lock cannot be used: not JSON, the wrong shape, or edited by hand."""

    def __init__(self, message: str, line: int = 1, col: int = 1) -> None:
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


class Lock(Struct, frozen=True):
    version: str
    set_digest: str
    corpus_digest: str
    cases: Mapping[str, str] = field(default_factory=dict)  # golden case id -> case hash
    corpus: Mapping[str, str] = field(default_factory=dict)  # document path -> sha256

    def same_content(self, other: Lock) -> bool:
        return (self.set_digest, self.corpus_digest) == (other.set_digest, other.corpus_digest)


def corpus_digest_of(docs: Mapping[str, str]) -> str:
    """``Corpus.digest`` computed from the lock's own path -> sha256 table."""
    h = hashlib.sha256()
    for rel, digest in sorted(docs.items()):
        h.update(rel.encode("utf-8") + b"\0")
        h.update(bytes.fromhex(digest))
    return h.hexdigest()


def from_tables(version: str, cases: Mapping[str, str], corpus: Mapping[str, str]) -> Lock:
    return Lock(version, hashes_digest(cases), corpus_digest_of(corpus), dict(cases), dict(corpus))


def current_lock(
    version: str, case_set: CaseSet, corpus: Corpus, hashes: Mapping[str, str] | None = None
) -> Lock:
    """The lock the files on disk call for: golden cases (those that pass the schema) only.
    ``hashes`` (id -> case hash) may come from a cache; the set digest is then computed from
    them, which gives exactly ``loader.set_digest`` over the golden cases."""
    if hashes is None:
        golden = case_set.golden
        return Lock(
            version, set_digest(golden), corpus.digest, case_hashes(golden), corpus.doc_digests()
        )
    return Lock(version, hashes_digest(hashes), corpus.digest, dict(hashes), corpus.doc_digests())


def render(lock: Lock) -> str:
    """The lock's text: valid JSON, keys sorted, one case or document a line."""
    lines = ["{"]
    lines += _table("cases", lock.cases)
    lines += _table("corpus", lock.corpus)
    lines.append(f'  "corpus_digest": {_s(lock.corpus_digest)},')
    lines.append(f'  "format": {LOCK_FORMAT},')
    lines.append(f'  "set_digest": {_s(lock.set_digest)},')
    lines.append(f'  "version": {_s(lock.version)}')
    lines.append("}")
    return "\n".join(lines) + "\n"


# A JSON string, as json.dumps(value, ensure_ascii=False) writes it, without the encoder's
# set-up for each call: a lock of 10,000 cases writes 20,000 of them on every commit.
_s = json.encoder.encode_basestring


def _table(name: str, table: Mapping[str, str]) -> list[str]:
    if not table:
        return [f"  {_s(name)}: {{}},"]
    items = sorted(table.items())
    body = [f"    {_s(k)}: {_s(v)}," for k, v in items]
    body[-1] = body[-1][:-1]
    return [f"  {_s(name)}: {{", *body, "  },"]


# A lock's bytes, read from the work tree or by the merge driver: a real lock (one case a line)
# decodes to about 10 bytes of objects a byte, so the memory budget lets none over about 400 MB
# through; a larger file is not read at all.
MAX_LOCK_BYTES = 512 * 1024**2


def parse(text: str) -> Lock:
    """Read a lock's text, or raise ``LockError`` saying what is wrong and where. A lock
    whose decoding could take more memory than goldcase allows (``jsonmemory``: a branch's
    lock of 60 million empty objects took 4.5 GB) is refused before it is decoded."""
    try:
        refuse_costly_text(text, "golden.lock", "")  # what to do: the caller's (GC404)
    except GoldcaseError as exc:
        raise LockError(exc.message) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LockError(f"golden.lock is not JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except ValueError:  # an integer of more digits than Python converts
        raise LockError("golden.lock is not JSON: a number too long to read") from None
    except RecursionError:
        raise LockError("golden.lock is not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise LockError(f"golden.lock should hold a JSON object, found {type(data).__name__}")
    missing = [k for k in _KEYS if k not in data]
    unknown = sorted(set(data) - set(_KEYS))
    if missing or unknown:
        what = f"missing {', '.join(missing)}" if missing else f"unknown key {unknown[0]!r}"
        raise LockError(f"golden.lock: {what}; expected the keys {', '.join(_KEYS)}")
    if data["format"] != LOCK_FORMAT:
        raise LockError(
            f"golden.lock has format {data['format']!r}; this goldcase reads format "
            f"{LOCK_FORMAT} (upgrade goldcase, or run goldcase lock to rewrite it)"
        )
    lock = _typed(data)
    if hashes_digest(lock.cases) != lock.set_digest:
        raise LockError(
            "golden.lock: set_digest does not match the cases it lists (edited by hand?)",
            *_line_of(text, "set_digest"),
        )
    if corpus_digest_of(lock.corpus) != lock.corpus_digest:
        raise LockError(
            "golden.lock: corpus_digest does not match the documents it lists (edited by hand?)",
            *_line_of(text, "corpus_digest"),
        )
    return lock


def _all_hex(values: Iterable[Any]) -> bool:
    """Whether every value is a digest as ``_HEX`` matches one: checked all at once (a lock
    of 10,000 cases is read by every check), each step a pass in C."""
    values = list(values)
    if not all(type(v) is str for v in values) or set(map(len, values)) - {64}:
        return False
    joined = "".join(values)
    return joined.isascii() and not joined.encode("ascii").translate(None, _HEX_DIGITS)


_HEX_DIGITS = b"0123456789abcdef"


def _typed(data: dict[str, Any]) -> Lock:
    version = data["version"]
    if not isinstance(version, str) or not version.strip():
        raise LockError("golden.lock: version should be a non-empty string")
    if parse_version_text(version) != version:  # "1\r" would never equal golden.version
        raise LockError(
            f"golden.lock: version {version!r} is not one golden.version could hold "
            "(one line, no surrounding spaces)"
        )
    for key in ("set_digest", "corpus_digest"):
        if not isinstance(data[key], str) or not _HEX.match(data[key]):
            raise LockError(f"golden.lock: {key} should be 64 lower-case hex digits")
    tables = []
    for key in ("cases", "corpus"):
        table = data[key]
        if not isinstance(table, dict) or not _all_hex(table.values()):
            raise LockError(f"golden.lock: {key} should map names to sha256 hex digests")
        tables.append(table)
    return Lock(version, data["set_digest"], data["corpus_digest"], tables[0], tables[1])


def _line_of(text: str, key: str) -> tuple[int, int]:
    """Line and column of a top-level key as ``render`` writes it (1, 1 when not found)."""
    needle = f"  {_s(key)}:"
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(needle):
            return number, 3
    return 1, 1


def entry_position(text: str, table: str, key: str) -> tuple[int, int]:
    """Line and column of ``key``'s entry inside the ``table`` object of a rendered lock."""
    lines = text.splitlines()
    start, _ = _line_of(text, table)
    needle = f"{_s(key)}:"
    for number in range(start, len(lines)):
        line = lines[number]
        if line.strip().startswith("}"):
            break
        if line.strip().startswith(needle):
            return number + 1, len(line) - len(line.lstrip()) + 1
    return start, 1


class Changes(Struct, frozen=True):
    added: list[str]
    changed: list[str]
    removed: list[str]

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def describe(self) -> str:
        parts = [
            f"{len(names)} {word} ({_names(names)})"
            for word, names in (
                ("added", self.added),
                ("changed", self.changed),
                ("removed", self.removed),
            )
            if names
        ]
        return ", ".join(parts) if parts else "unchanged"


def _names(names: list[str], most: int = 10) -> str:
    shown = ", ".join(names[:most])
    return shown + (f", … {len(names) - most} more" if len(names) > most else "")


def compare(old: Mapping[str, str], new: Mapping[str, str]) -> Changes:
    return Changes(
        added=sorted(k for k in new if k not in old),
        changed=sorted(k for k, v in new.items() if k in old and old[k] != v),
        removed=sorted(k for k in old if k not in new),
    )
