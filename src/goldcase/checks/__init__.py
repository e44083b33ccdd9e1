"""The check families. A family is one module with:

- ``NAME``: the family's name (``goldcase check --select NAME``);
- ``CODES``: each code it can report, with its default severity and a one-line summary;
- ``check(case_set, ctx) -> Iterator[Finding]``: a generator; all I/O goes through ``ctx``.

Its docstring is its user documentation. Registering a family is one line in ``FAMILIES``.

A family whose work is mostly per case file may also have ``prepare(ctx)``, returning a function
that takes a set of files (a ``CaseSet``) and returns, by path, what ``check`` would compute for
each of them on its own (the same function's result, not a copy of its rule). A cold check of
many files runs it in the parse workers, over each chunk of files they parsed; ``check`` then
takes each result with ``ctx.ahead(NAME, path)`` instead of computing it (and caches it as
usual). Nothing may depend on it having run: a file it was not run on, ``check`` computes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

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


Preparer = Callable[["CaseSet"], Mapping[str, Any]]  # a set of files -> by path, a result each


def preparers(names: Sequence[str], ctx: Context) -> list[tuple[str, Preparer]]:
    """Each family of ``names`` that has per-file work to do ahead (``prepare``), with it."""
    found = []
    for name in names:
        prepare = getattr(family(name), "prepare", None)
        if prepare is not None:
            found.append((name, prepare(ctx)))
    return found


def all_codes() -> dict[str, tuple[str, str, str]]:
    """code -> (family, default severity, summary), for docs and the meta-tests."""
    out: dict[str, tuple[str, str, str]] = {}
    for name in FAMILIES:
        for code, (severity, summary) in family(name).CODES.items():
            out[code] = (name, severity, summary)
    return out
