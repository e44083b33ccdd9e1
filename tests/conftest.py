"""Shared test helpers: temporary golden-set repositories and running the CLI."""

from __future__ import annotations

import faulthandler
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
    # goldcase keeps its cache in the user's cache folder: the suite's own, never the user's
    # (subprocesses inherit it).
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="goldcase-test-cache-")
    os.environ.pop("GOLDCASE_CACHE_DIR", None)


def cache_folder(root: Path) -> Path:
    """Where goldcase keeps the cache of the repository at ``root`` (this goldcase's folder)."""
    from goldcase.cache import code_salt, location

    base = location(root)
    assert base is not None
    return base / code_salt()


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


__all__ = ["DATA", "REALDATA", "REPO_ROOT", "Result", "cli", "run_cli"]
