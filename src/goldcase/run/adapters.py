"""The system the command line names: exactly one of ``--cmd``, ``--http``, ``--python``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from goldcase.errors import GoldcaseError
from goldcase.run.pycall import PythonSystem
from goldcase.run.systems import System
from goldcase.run.web import HttpSystem, headers_from_env
from goldcase.run.workers import CommandSystem


def build_system(
    cmd: str | None,
    http: str | None,
    python: str | None,
    headers: Sequence[str],
    environ: Mapping[str, str],
) -> System:
    given = [
        name for name, value in (("--cmd", cmd), ("--http", http), ("--python", python)) if value
    ]
    if len(given) != 1:
        raise GoldcaseError(
            "give exactly one of --cmd, --http, --python (the system to run)"
            + (f"; got {', '.join(given)}" if given else "")
        )
    if headers and not http:
        raise GoldcaseError("--header goes with --http")
    if cmd:
        return CommandSystem(cmd)
    if http:
        return HttpSystem(http, headers_from_env(headers, environ))
    assert python is not None
    return PythonSystem(python)
