"""The check families. A family is one module with:

- ``NAME``: the family's name (``goldcase check --select NAME``);
- ``CODES``: each code it can report, with its default severity and a one-line summary;
- ``check(case_set, ctx) -> Iterator[Finding]``: a generator; all I/O goes through ``ctx``.

Its docstring is its user documentation. Registering a family is one line in ``FAMILIES``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet, Finding, Severity

# Report order. Each value is the module that implements the family.
FAMILIES: dict[str, str] = {
    "schema": "goldcase.checks.schema",
    "support": "goldcase.checks.support",
    "leakage": "goldcase.checks.leakage",
    "version": "goldcase.checks.version",
    "composition": "goldcase.checks.composition",
    "labelling": "goldcase.checks.labelling",
    "privacy": "goldcase.checks.privacy",
    "probes": "goldcase.checks.probes",
}


class Family(Protocol):
    NAME: str
    CODES: Mapping[str, tuple[Severity, str]]

    def check(self, case_set: CaseSet, ctx: Context) -> Iterator[Finding]: ...


def family(name: str) -> ModuleType:
    return importlib.import_module(FAMILIES[name])


def all_codes() -> dict[str, tuple[str, str, str]]:
    """code -> (family, default severity, summary), for docs and the meta-tests."""
    out: dict[str, tuple[str, str, str]] = {}
    for name in FAMILIES:
        for code, (severity, summary) in family(name).CODES.items():
            out[code] = (name, severity, summary)
    return out
