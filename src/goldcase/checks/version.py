"""GC4xx: golden.version and golden.lock follow every change of the golden set and the corpus.

``golden.lock`` records the version, a digest of the golden set (over each case's canonical
content, so re-formatting a file changes nothing), a digest of the corpus and one hash per case
and per document. These checks compare it with the files on disk; ``goldcase lock`` fixes them
all by recomputing the lock and bumping the version. Dev cases are not locked.

Passes: a golden case edited, then ``goldcase lock`` run and both files committed.

Fails (``cases/golden/ret-014.yaml:1:1: GC401 golden case ret-014 changed since golden.lock
(version 3); run goldcase lock to bump golden.version``): the same edit committed alone.

| code | severity | what |
|---|---|---|
| GC401 | error | a golden case was added, changed or removed since the lock |
| GC402 | error | golden.lock is missing |
| GC403 | error | a corpus document was added, changed or removed since the lock |
| GC404 | error | golden.lock is not valid JSON, has the wrong shape, or was edited by hand |
| GC405 | error | golden.version differs from the lock's version, is missing or unreadable |

A repository with neither golden.version nor golden.lock has not started versioning: ``goldcase
check`` stays silent about it, while ``goldcase lock --check`` (the CI gate) reports GC402 and
the goldcase-version hook writes both files on the first commit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from goldcase.model import Finding, Severity
from goldcase.versioning.locking import verify

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "version"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC401": ("error", "golden set differs from golden.lock"),
    "GC402": ("error", "golden.lock missing"),
    "GC403": ("error", "corpus differs from golden.lock"),
    "GC404": ("error", "golden.lock corrupt or unreadable"),
    "GC405": ("error", "golden.version differs from golden.lock"),
}


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    config = ctx.config
    if not config.version_file.exists() and not config.lock_file.exists():
        return  # versioning not started: lock (or init) starts it; lock --check says GC402
    yield from verify(ctx, case_set)
