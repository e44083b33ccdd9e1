"""The suite's pytest hooks and fixtures (plain helpers are in tests/kit.py)."""

from __future__ import annotations

import faulthandler
import os
import shutil
import signal
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from kit import DATA

# No property test depends on how fast the machine is: a busy 2-core runner took 0.4 s for an
# example Hypothesis's default deadline allows 0.2 s, and failed a correct test.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``dask`` run after all the others: distributed keeps threads running for
    the rest of the process (its offload pool; the event loop of a client that could not
    connect), and a cold parse of many case files forks its workers, which a process with
    threads should not do."""
    items.sort(key=lambda item: item.get_closest_marker("dask") is not None)


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
