"""GC505: personal data in a case file.

Every case file under ``cases/`` (golden and dev, comments included) is searched for email
addresses, phone numbers, payment card numbers that pass the Luhn check, IBANs that pass the
mod-97 check, UK National Insurance numbers and US social security numbers, and street
addresses in their common shapes (see ``goldcase.privacy.pii`` and docs/personal-data.md). The
finding points at the value's line and column and never repeats the value itself: a CI log is
one more place personal data must not reach.

A transcript is real traffic, so personal data in a ``source: transcript`` case is an error;
in a hand-written or synthetic case it is a warning (usually an invented address that still
looks real). Contact details the corpus itself publishes (a support address, a helpline number)
are not personal data and are not reported. ``goldcase scrub PATH`` proposes the redactions.

Passes::

    question: my parcel to [ADDRESS] never arrived, can i get a credit

Fails (``GC505 a phone number in a transcript case; redact it: goldcase scrub …``)::

    source: transcript
    question: call me back on 020 7946 0958 about the damaged kettle

| code | what |
|---|---|
| GC505 | personal data in a case (error for ``source: transcript``, warning otherwise) |
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from goldcase.errors import GoldcaseError
from goldcase.loader import Locator
from goldcase.model import CaseFile, Finding, Severity
from goldcase.privacy import pii

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "privacy"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC505": ("error", "personal data in a case (a warning unless source: transcript)"),
}
_CACHE = "privacy"


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    published: frozenset[str] | None = None
    for case_file in _scanned(case_set, ctx):
        key = (_CACHE, case_file.path, case_file.digest)
        hits = ctx.per_case(_CACHE, key, partial(_hits, case_file, ctx), _CODEC)
        if hits and published is None:
            published = _published(ctx)
        for hit in hits:
            if hit.value not in (published or ()):
                yield _finding(case_file, hit)


def prepare(ctx: Context) -> Callable[[CaseSet], dict[str, list[_Hit]]]:
    """Each file's hits, for a cold check's parse workers (``checks``)."""
    return lambda case_set: {f.path: _scan(f, ctx) for f in _scanned(case_set, ctx)}


def _scanned(case_set: CaseSet, ctx: Context) -> Iterator[CaseFile]:
    """The files searched: those that parsed, and whose findings are wanted."""
    return (f for f in case_set.files if f.data is not None and ctx.wanted(f.path))


def _hits(case_file: CaseFile, ctx: Context) -> list[_Hit]:
    ready: list[_Hit] | None = ctx.ahead(NAME, case_file.path)
    return _scan(case_file, ctx) if ready is None else ready


class _Hit(Struct, frozen=True):
    line: int
    col: int
    kind: str
    value: str
    folded: bool  # in a value written over several lines


def _hit_data(hit: _Hit) -> list[Any]:
    return [hit.line, hit.col, hit.kind, hit.value, hit.folded]


def _hit_from(value: Any) -> _Hit | None:
    if type(value) is not list or len(value) != 5:
        return None
    line, col, kind, text, folded = value
    if type(line) is int and type(col) is int and kind in pii.NAMES and type(text) is str:
        return _Hit(line, col, kind, text, folded is True)
    return None


_CODEC = (_hit_data, _hit_from)


def _scan(case_file: CaseFile, ctx: Context) -> list[_Hit]:
    raw = case_file.raw
    if raw is None:
        try:
            raw = ctx.read_bytes(case_file.path)
        except OSError:
            return []  # GC113 already says the file cannot be read
    text = raw.decode("utf-8", "replace")
    if not pii.may_contain(text):
        return []
    on_lines = pii.scan_lines(text)
    hits = [_Hit(loc.line, loc.col, loc.match.kind, loc.match.value, False) for loc in on_lines]
    strays = pii.stray_values(text, case_file.data, on_lines)
    if strays:
        locator = Locator(raw)
        for key_path, match in strays:
            line, col = locator.value(list(key_path))
            hits.append(_Hit(line, col, match.kind, match.value, True))
    return hits


def _published(ctx: Context) -> frozenset[str]:
    """Contact details the corpus itself publishes (a support address, a helpline): quoting
    them is not personal data."""
    try:
        documents = ctx.corpus.documents.values()
    except GoldcaseError:
        return frozenset()
    return pii.published(doc.raw.decode("utf-8", "replace") for doc in documents)


def _finding(case_file: CaseFile, hit: _Hit) -> Finding:
    transcript = _source(case_file.data) == "transcript"
    severity: Severity = "error" if transcript else "warning"
    where = "a transcript case" if transcript else "a case"
    folded = " (in a value written over several lines)" if hit.folded else ""
    message = (
        f"{pii.NAMES[hit.kind]} in {where}{folded}; redact it: goldcase scrub {case_file.path}"
    )
    return Finding(case_file.path, hit.line, hit.col, "GC505", severity, message)


def _source(data: Any) -> str | None:
    value = data.get("source") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None
