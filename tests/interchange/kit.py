"""The real evaluation clients the interchange tests run: promptfoo (installed by ``make
clients`` under .clients/, or named by $GOLDCASE_PROMPTFOO) and Inspect AI (the ``inspect``
command of this environment), and the reference results those tests compare against."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from kit import REPO_ROOT, run_cli

BIN = Path(sys.executable).parent
PROMPTFOO_VERSION = "0.121.20"
SAMPLE_RUN = REPO_ROOT / "runs" / "baseline-k3.jsonl"


def promptfoo() -> Path:
    """The promptfoo binary, or a skip saying why there is none (not installed, or a Node it
    does not run on)."""
    named = os.environ.get("GOLDCASE_PROMPTFOO")
    path = Path(named) if named else REPO_ROOT / ".clients" / "node_modules" / ".bin" / "promptfoo"
    if not path.exists():
        pytest.skip(
            f"promptfoo {PROMPTFOO_VERSION} is not installed at {path}: `make clients` installs "
            "it with npm (needs Node 20 and the npm registry)"
        )
    version = _version(path)
    if version != PROMPTFOO_VERSION:
        pytest.skip(f"{path} does not run as promptfoo {PROMPTFOO_VERSION} here: {version}")
    return path


@functools.cache
def _version(path: Path) -> str:
    done = subprocess.run(
        [str(path), "--version"],
        env=promptfoo_env(Path(tempfile.gettempdir()) / "goldcase-promptfoo-version"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = (done.stdout.strip() or done.stderr.strip() or f"exit {done.returncode}").splitlines()
    return lines[-1][:200]


def promptfoo_env(home: Path) -> dict[str, str]:
    """No telemetry, no update check, no sharing, and its state under ``home``: the network is
    closed and the user's ~/.promptfoo is not touched."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTFOO_")}
    env.update(
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_DISABLE_SHARING="1",
        PROMPTFOO_DISABLE_REMOTE_GENERATION="true",
        PROMPTFOO_CONFIG_DIR=str(home),
        PROMPTFOO_CACHE_ENABLED="false",
        NO_COLOR="1",
    )
    return env


def run_promptfoo(config: Path, out: Path, *args: str) -> dict[str, Any]:
    """``promptfoo eval -c CONFIG -o OUT ARGS``: the output it wrote (a JSON one; {} for the
    JSONL output)."""
    done = subprocess.run(
        [str(promptfoo()), "eval", "-c", str(config), "-o", str(out), "--no-cache", "--no-write",
         "--no-progress-bar", "--no-table", *args],
        cwd=config.parent,
        env=promptfoo_env(config.parent / ".promptfoo"),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )  # fmt: skip
    # promptfoo exits 100 when some test failed: that is the point of the comparison
    assert done.returncode in (0, 100), done.stdout[-3000:] + done.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    return dict(json.loads(text)) if out.suffix == ".json" else {}


def inspect_cli() -> Path:
    path = BIN / "inspect"
    if not os.access(path, os.X_OK):
        pytest.skip("inspect-ai is not installed in this environment (pip install -e '.[test]')")
    return path


def graded(report: dict[str, Any]) -> dict[str, tuple[str, bool, list[str]]]:
    """Each case's outcome, verdict and failed checks in a report."""
    return {c["id"]: (c["outcome"], c["passed"], c["failed_checks"]) for c in report["cases"]}


def score(path: Path, *args: str) -> dict[str, Any]:
    done = run_cli("score", path, "--repo", REPO_ROOT, "--format", "json", *args)
    assert done.exit_code == 0, done.stderr
    return dict(json.loads(done.stdout))


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def sample_lines() -> list[dict[str, Any]]:
    return [json.loads(x) for x in SAMPLE_RUN.read_text(encoding="utf-8").splitlines()]


def as_text(line: dict[str, Any]) -> dict[str, Any]:
    """What a system that returns only text said: its answer, or that it abstained."""
    if line["outcome"] == "answer":
        return {"id": line["id"], "outcome": "answer", "answer": line["answer"]}
    return {"id": line["id"], "outcome": line["outcome"]}
