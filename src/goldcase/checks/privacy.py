"""GC505: personal data in a case file.

Every case file under ``cases/`` (golden and dev, comments included) is searched for email
addresses, phone numbers, payment card numbers that pass the Luhn check, IBANs that pass the
mod-97 check, UK National Insurance numbers and US social security numbers, and street
addresses in their common shapes (see ``goldcase.pii`` and docs/personal-data.md). The finding
points at the value's line and column and never repeats the value itself: a CI log is one more
place personal data must not reach.

A transcript is real traffic, so personal data in a ``source: transcript`` case is an error;
in a hand-written or synthetic case it is a warning (usually an invented address that still
looks real). ``goldcase scrub PATH`` proposes the redactions.

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

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from goldcase import pii
from goldcase.engine import code_salt
from goldcase.loader import Locator
from goldcase.model import CaseFile, Finding, Severity

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "privacy"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC505": ("error", "personal data in a case (a warning unless source: transcript)"),
}
_CACHE = "privacy"


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    salt = code_salt()
    for case_file in case_set.files:
        if case_file.data is None:
            continue
        key = f"{salt}:{case_file.path}:{case_file.digest}"
        cached = ctx.cache.get(_CACHE, key)
        if not isinstance(cached, list):
            cached = list(_scan(case_file, ctx))
            ctx.cache.put(_CACHE, key, cached)
        yield from cached


def _scan(case_file: CaseFile, ctx: Context) -> Iterator[Finding]:
    try:
        raw = ctx.read_bytes(case_file.path)
    except OSError:
        return  # GC113 already says the file cannot be read
    text = raw.decode("utf-8", "replace")
    severity: Severity = "error" if _source(case_file.data) == "transcript" else "warning"
    where = "a transcript case" if severity == "error" else "a case"
    fix = f"redact it: goldcase scrub {case_file.path}"
    for located in pii.scan_lines(text):
        message = f"{pii.NAMES[located.match.kind]} in {where}; {fix}"
        yield Finding(case_file.path, located.line, located.col, "GC505", severity, message)
    strays = pii.stray_values(text, case_file.data)
    if strays:
        locator = Locator(raw)
        for key_path, match in strays:
            line, col = locator.value(list(key_path))
            message = f"{pii.NAMES[match.kind]} in {where} (in a value written over several lines)"
            yield Finding(case_file.path, line, col, "GC505", severity, f"{message}; {fix}")


def _source(data: Any) -> str | None:
    value = data.get("source") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None
