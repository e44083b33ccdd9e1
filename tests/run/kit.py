"""Helpers for the run tests (and score --from's): a small golden set of three answerable cases
and one unanswerable, questions of four words or more (so the leakage guard searches for
them), the fake system, and ``goldcase run``."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from kit import Result, run_cli

QUOTE = "Returns are accepted within 30 days"
EXPECTED = "within 30 days of delivery"  # an expected answer no request may carry

CASES = {
    "ret-001": (
        "id: ret-001\nquestion: how long do i have to return a jacket\n"
        f"expected_answer: {EXPECTED}\nsupport:\n  - doc: returns-policy.md\n"
        f"    quote: {QUOTE}\nexpect:\n  contains: ['30 days']\n  not_contains: ['14 days']\n"
        "slice: returns\n"
    ),
    "ret-002": (
        "id: ret-002\nquestion: how long is the window for returning shoes bought online\n"
        f"expected_answer: 30 days\nsupport:\n  - doc: returns-policy.md\n    quote: {QUOTE}\n"
        "slice: returns\n"
    ),
    "ret-003": (
        "id: ret-003\nquestion: can i send back a sale item within a month\n"
        f"expected_answer: 30 days\nsupport:\n  - doc: returns-policy.md\n    quote: {QUOTE}\n"
        "slice: returns\n"
    ),
    "oos-001": (
        "id: oos-001\nquestion: what is the name of the chief executive officer\n"
        "answerable: false\nslice: out-of-scope\n"
    ),
}
IDS = sorted(CASES)


def make_set(root: Path, extra: dict[str, str] | None = None, config: str = "") -> Path:
    """A golden-set repository with the four cases above (and ``extra`` files by path)."""
    (root / "cases" / "golden").mkdir(parents=True, exist_ok=True)
    (root / "cases" / "dev").mkdir(parents=True, exist_ok=True)
    (root / "corpus").mkdir(exist_ok=True)
    (root / "corpus" / "returns-policy.md").write_text(QUOTE + " of delivery.\n", encoding="utf-8")
    (root / "goldcase.toml").write_text(config, encoding="utf-8")
    (root / "golden.version").write_text("3\n", encoding="utf-8")
    for case_id, text in CASES.items():
        (root / "cases" / "golden" / f"{case_id}.yaml").write_text(text, encoding="utf-8")
    for rel, text in (extra or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


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
