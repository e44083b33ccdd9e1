"""Helpers for the run tests: a small golden set, the fake system, and ``goldcase run``."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from conftest import Result, run_cli
from smallset import CASES, EXPECTED, IDS, QUOTE, make_set

__all__ = ["CASES", "EXPECTED", "IDS", "QUOTE", "make_set"]

FAKE = Path(__file__).with_name("fake_system.py")


def worker_command() -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))}"


def script(tmp_path: Path, actions: dict[str, str]) -> dict[str, str]:
    """The environment that makes the fake system follow ``actions`` and log what it gets."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(actions), encoding="utf-8")
    return {"FAKE_SCRIPT": str(path), "FAKE_LOG": str(tmp_path / "requests.log")}


def requests(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "requests.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def by_id(path: Path) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in lines(path)}


def run_goldcase(
    repo: Path, out: Path, env: dict[str, str], *args: str, cmd: str | None = None
) -> Result:
    """``goldcase run --cmd <the fake worker>`` in-process, with ``env`` set meanwhile."""
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        system = ["--cmd", cmd or worker_command()] if not _names_system(args) else []
        return run_cli("run", "--repo", repo, "--out", out, *system, *args)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _names_system(args: tuple[str, ...]) -> bool:
    return any(a in ("--cmd", "--http", "--python") for a in args)
