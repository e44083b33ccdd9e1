"""Case ids that two branches cannot both take.

A sequential id (``ret-015``) is the next number on one branch, and the same next number on
every other branch: two people who each add a returns case both write ``ret-015``, and the
merge is an add/add conflict. So ``goldcase new`` and ``goldcase promote`` give a new case its
slice's prefix and a suffix of nine characters nobody else will draw:

    ret-1h4kq9m2x
        ^^^^^       the minute it was made, counted from 2020-01-01 UTC (sorts by time)
             ^^^^   four random characters (1,048,576 values)

in Crockford's base 32, lower case (digits and letters, without i, l, o and u, which read as
other characters). Two ids collide only when they share a prefix, a minute and all four random
characters: about one chance in a million for two cases made in the same slice in the same
minute on two branches. Within one working tree the id is checked against every file under
``cases/`` and the file is created exclusively, so a collision there draws again. Five time
characters count minutes until 2083; the ids stay unique after that, only their order by time
ends.

A draft that ``goldcase triage`` writes is named the same way from its trace, with ``tr-`` as
the prefix, the minute the question was asked and four characters of a hash of the trace
(``tr-1h4kq3bz7``): the same trace gives the same draft id on every run and every branch.

Existing ids of any shape stay valid; nothing is renamed.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, datetime
from pathlib import Path

from goldcase.errors import GoldcaseError
from goldcase.model import Case
from goldcase.writer import create_exclusive

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
EPOCH = datetime(2020, 1, 1, tzinfo=UTC)
TIME_CHARS = 5
RANDOM_CHARS = 4
DRAFT_PREFIX = "tr-"
# Only where a run of digits begins: "^(.*?)(\d+)$" tried every split of an id, each to its
# end, so an id (of a case that fails the schema) of a megabyte of digits and a letter hung.
_TRAILING_NUMBER = re.compile(r"(?<!\d)\d+$")


def encode(number: int, width: int) -> str:
    """``number`` in base 32, ``width`` characters (the low ones when it is larger)."""
    out = []
    for _ in range(width):
        number, digit = divmod(number, 32)
        out.append(ALPHABET[digit])
    return "".join(reversed(out))


def suffix(when: datetime, entropy: bytes) -> str:
    """The nine characters after the prefix: the minute of ``when`` and four from
    ``entropy``."""
    minutes = max(0, int((when - EPOCH).total_seconds() // 60))
    return encode(minutes, TIME_CHARS) + encode(int.from_bytes(entropy, "big"), RANDOM_CHARS)


def new_id(
    prefix: str,
    taken: Collection[str],
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    entropy: Callable[[int], bytes] = os.urandom,
) -> str:
    """A fresh id of ``prefix`` that is not in ``taken``."""
    while True:
        candidate = prefix + suffix(now(), entropy(4))
        if candidate not in taken:
            return candidate


def write_new_case(
    folder: Path,
    prefix: str,
    taken: set[str],
    render: Callable[[str], str],
    make_id: Callable[[str, Collection[str]], str] = new_id,
    attempts: int = 20,
) -> tuple[str, Path]:
    """Create ``folder/<id>.yaml`` holding ``render(id)`` under a fresh id of ``prefix``,
    exclusively: an id some other process took meanwhile is drawn again."""
    for _ in range(attempts):
        case_id = make_id(prefix, taken)
        path = folder / f"{case_id}.yaml"
        if create_exclusive(path, render(case_id).encode("utf-8")):
            return case_id, path
        taken.add(case_id)
    raise GoldcaseError(f"no free id in {folder} after {attempts} tries; nothing was written")


def draft_id(key: str, asked: datetime | None, taken: Collection[str]) -> str:
    """The id of the draft made from the trace ``key`` (its own id, or its line's bytes):
    the same for the same trace everywhere; another hash round when that id is taken."""
    when = asked if asked is not None else EPOCH
    for attempt in range(1000):
        digest = hashlib.blake2b(f"{attempt}\x00{key}".encode(), digest_size=8).digest()
        candidate = DRAFT_PREFIX + suffix(when, digest)
        if candidate not in taken:
            return candidate
    raise RuntimeError("no free draft id in 1000 attempts")  # pragma: no cover - 2^-20000


def prefix_of(case_id: str) -> str | None:
    """The prefix an id was made with: up to its last ``-`` (``dev-ret-`` of ``dev-ret-003``,
    ``ret-`` of ``ret-1h4kq9m2x``), else the text before a trailing number (``r`` of ``r12``)."""
    if "-" in case_id.rstrip("-"):
        return case_id[: case_id.rstrip("-").rindex("-") + 1]
    match = _TRAILING_NUMBER.search(case_id)
    head = case_id[: match.start()] if match else ""
    return head if head and "\n" not in head else None


def slice_prefix(cases: Iterable[Case], slice_name: str | None, split: str) -> str:
    """The prefix a new case of ``slice_name`` in ``split`` gets: the most common prefix of
    the slice's cases in that split. A golden slice without one gets a prefix from the
    slice's name; a dev slice without one gets ``dev-`` and the golden prefix, so dev ids
    never continue the golden ones."""
    wanted = slice_name or "default"
    cases = list(cases)
    own = _most_common(c for c in cases if c.slice == wanted and c.split == split)
    if own is not None:
        return own
    if split == "dev":
        return "dev-" + slice_prefix(cases, slice_name, "golden")
    taken = {p for c in cases if c.slice != wanted and (p := prefix_of(c.id))}
    return name_prefix(slice_name or "case", taken)


def _most_common(cases: Iterable[Case]) -> str | None:
    counts = Counter(p for c in cases if (p := prefix_of(c.id)))
    if not counts:
        return None
    return min(counts, key=lambda p: (-counts[p], p))


def name_prefix(name: str, taken: Collection[str]) -> str:
    """``returns`` -> ``ret-``; longer when another slice uses that prefix already."""
    letters = re.sub(r"[^a-z0-9]", "", name.lower()) or "case"
    for size in range(3, len(letters) + 1):
        candidate = f"{letters[:size]}-"
        if candidate not in taken and f"dev-{candidate}" not in taken:
            return candidate
    return f"{letters}-"
