"""Shared test helpers: temporary golden-set repositories and running the CLI."""

from __future__ import annotations

import faulthandler
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from goldcase.cli import cli

DATA = Path(__file__).parent / "data"
REPO_ROOT = Path(__file__).parent.parent
REALDATA = REPO_ROOT.parent / "shared" / "realdata"


def pytest_configure(config: pytest.Config) -> None:
    """A run stopped from outside (SIGTERM, SIGHUP) prints where every thread was before it
    ends, so a stopped CI run says what it was doing. Output capture is paused here, so file
    descriptor 2 is the run's own standard error."""
    stream = os.dup(2)
    for stop in (signal.SIGTERM, signal.SIGHUP):
        faulthandler.register(stop, file=stream, all_threads=True, chain=True)


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(*args: str | Path) -> Result:
    """Run ``goldcase`` in-process and return its exit status and both streams."""
    from goldcase.cli import main

    runner = CliRunner()
    captured: dict[str, int] = {}

    def invoke() -> None:
        captured["code"] = main([str(a) for a in args])

    with runner.isolation() as (out, err, _):
        invoke()
        sys.stdout.flush()
        sys.stderr.flush()
        stdout = out.getvalue().decode()
        stderr = err.getvalue().decode() if err is not None else ""
    return Result(captured["code"], stdout, stderr)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """A golden-set repository in tmp_path with the test corpus and the given case files
    (``{"cases/golden/x.yaml": "…"}``, text or bytes)."""

    def build(files: dict[str, str | bytes] | None = None, corpus: bool = True) -> Path:
        root = tmp_path / "repo"
        (root / "cases" / "golden").mkdir(parents=True, exist_ok=True)
        (root / "cases" / "dev").mkdir(parents=True, exist_ok=True)
        if corpus and not (root / "corpus").exists():
            shutil.copytree(DATA / "corpus", root / "corpus")
        (root / "goldcase.toml").touch()
        for rel, content in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return root

    return build


def run_node(program: str, data: Any) -> Any:
    """Run ``program`` in Node with ``data`` as JSON on its standard input, where it reads it
    as ``INPUT``; what it printed, read as JSON. Skips, saying why, when there is no Node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (promptfoo needs Node 20)")
    prelude = "const INPUT = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
    done = subprocess.run(
        [node, "-e", prelude + program],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


__all__ = ["DATA", "REALDATA", "REPO_ROOT", "Result", "cli", "run_cli", "run_node"]
