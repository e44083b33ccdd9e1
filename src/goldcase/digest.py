"""Digests that pin what a report or a lock was built on.

- ``case_hash``: sha256 of a case's canonical content (its mapping as JSON with sorted keys),
  so re-formatting a file, reordering keys or editing a comment leaves it unchanged.
- ``set_digest``: sha256 over the golden cases' ids and hashes, in id order.
- The corpus digest is ``Corpus.digest`` (every document's path and bytes).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from goldcase.model import Case


def canonical(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def case_hash(data: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(data)).hexdigest()


def case_hashes(cases: Iterable[Case]) -> dict[str, str]:
    """id -> case hash; the hash computed when the file was parsed is used when there is one."""
    return {case.id: case.hash or case_hash(case.data) for case in cases}


def set_digest(cases: Iterable[Case]) -> str:
    """The golden set's digest: changes exactly when a case is added, removed or its content
    changes."""
    h = hashlib.sha256()
    for case_id, digest in sorted(case_hashes(cases).items()):
        h.update(f"{case_id}\t{digest}\n".encode())
    return h.hexdigest()
