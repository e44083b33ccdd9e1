"""The Dask engine on a LocalCluster of two single-threaded worker processes on loopback:
the same JSON report as the local engine, byte for byte, even when a worker is killed in
the middle of the scan."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from goldcase.leakage.contamination import Report
from goldcase.leakage.scan.run import ScanOptions, scan
from kit import run_cli
from leakage.kit import CASE_FILES, LONG_Q, filler, index, write_corpus

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.dask


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as running:
        yield running
        running.close(timeout=60)  # bounded: a cluster that will not stop fails the run


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo(CASE_FILES)


def _json(repo: Path, *args: str | Path) -> str:
    result = run_cli("contamination", "--repo", repo, "--format", "json", *args)
    assert result.exit_code == 1, result.stderr
    return result.stdout


def test_dask_report_equals_the_local_one(
    cluster: Any, repo: Path, corpus: dict[str, Path]
) -> None:
    paths = list(corpus.values())
    local = _json(repo, "--engine", "local", "--workers", "1", *paths)
    dask = _json(
        repo,
        "--engine",
        "dask",
        "--scheduler",
        cluster.scheduler_address,
        "--partition-size",
        "0.01",
        *paths,
    )
    assert dask == local


def test_unreachable_scheduler_cannot_run(repo: Path, corpus: dict[str, Path]) -> None:
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = run_cli(
            "contamination",
            "--repo",
            repo,
            "--engine",
            "dask",
            "--scheduler",
            "tcp://127.0.0.1:9",
            corpus["ft.jsonl"],
        )
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def _slow_corpus(folder: Path) -> Path:
    """About 8 MB of text: four 2 MB partitions that each take a while to scan."""
    import random

    rng = random.Random(11)
    path = folder / "slow.txt"
    with path.open("w", encoding="utf-8") as fh:
        for k in range(120_000):
            fh.write(f"{LONG_Q}\n" if k % 10_000 == 5 else filler(rng) + " " + filler(rng) + "\n")
    return path


def test_a_worker_killed_mid_scan(cluster: Any, tmp_path: Path) -> None:
    path = _slow_corpus(tmp_path)
    options = ScanOptions("dask", cluster.scheduler_address, partition_mb=2.0, workers=2)
    out: dict[str, Report | BaseException] = {}

    def run() -> None:
        try:
            out["report"] = scan(index(), [path], options)
        except BaseException as exc:  # re-raised in the test's thread
            out["report"] = exc

    with distributed.Client(cluster.scheduler_address) as client:
        pids: dict[str, int] = client.run(os.getpid)
        scanning = threading.Thread(target=run)
        scanning.start()
        victim = _first_busy_worker(client)
        os.kill(pids[victim], signal.SIGKILL)
        scanning.join(timeout=120)
        assert not scanning.is_alive()
        after = set(client.run(os.getpid).values())
    assert pids[victim] not in after  # it really died (its nanny started a new process)
    report = out["report"]
    assert isinstance(report, Report), report
    assert report == scan(index(), [path], ScanOptions(workers=1))
    assert [(h.case, h.line) for h in report.hits] == [("long", 6 + 10_000 * k) for k in range(12)]


def _first_busy_worker(client: Any) -> str:
    """The address of a worker while it runs one of the scan's tasks."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for worker, keys in client.processing().items():
            if any(str(key).startswith("goldcase-scan-") for key in keys):
                return str(worker)
        time.sleep(0.01)
    raise AssertionError("no scan task started within 30 s")


def test_without_a_scheduler_a_local_cluster_runs_the_scan(
    repo: Path, corpus: dict[str, Path]
) -> None:
    paths = [corpus["ft.jsonl.gz"], corpus["rows.parquet"], corpus["train.txt"]]
    local = _json(repo, "--workers", "1", *paths)
    assert (
        _json(repo, "--engine", "dask", "--workers", "2", "--partition-size", "0.05", *paths)
        == local
    )


def test_an_error_on_a_worker_is_reported_as_it_would_be_locally(
    cluster: Any, repo: Path, tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00not gzip at all")
    result = run_cli(
        "contamination",
        "--repo",
        repo,
        "--engine",
        "dask",
        "--scheduler",
        cluster.scheduler_address,
        path,
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: cannot decompress")


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("nonsense", "missing port number in address 'nonsense'"),
        ("http://127.0.0.1:9", "unknown address scheme 'http'"),
        ("tcp://127.0.0.1:port", "invalid literal for int() with base 10: 'port'"),
    ],
)
def test_a_malformed_scheduler_address_cannot_run(
    repo: Path, corpus: dict[str, Path], address: str, message: str
) -> None:
    result = run_cli(
        "contamination",
        "--repo",
        repo,
        "--engine",
        "dask",
        "--scheduler",
        address,
        corpus["ft.jsonl"],
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --scheduler {address}: {message}")
    assert result.stderr.rstrip().endswith("expected an address like tcp://10.0.0.5:8786")


# Another user's client, in a process of its own: a failed Client leaves distributed's loop
# thread behind, and a second one made in the same process may wait on it for ever.
_FOREIGN_CLIENT = """
import sys
import distributed
from distributed.security import Security

security = Security.temporary() if sys.argv[2] == "own-certificates" else None
try:
    client = distributed.Client(sys.argv[1], security=security, timeout=5)
except Exception as exc:
    print("refused", type(exc).__name__)
else:
    print("connected", client.submit(int, "42").result(timeout=30))
"""


def test_the_local_cluster_lets_in_no_other_client() -> None:
    """docs/contamination.md: the cluster started without --scheduler speaks TLS with
    certificates made for it alone. A scheduler runs any task its clients submit, and
    127.0.0.1 is every local user's: a client with no certificate, or with certificates of
    its own, or speaking plain TCP, is refused."""
    from goldcase.leakage.scan.dask_engine import _client

    with _client(distributed, None, 1) as client:
        address = client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        assert client.submit(int, "41").result(timeout=60) == 41  # its own client gets in
        attempts = [
            (address, "no-certificate"),
            (address, "own-certificates"),
            (address.replace("tls://", "tcp://"), "no-certificate"),
        ]
        for target, kind in attempts:
            done = subprocess.run(
                [sys.executable, "-c", _FOREIGN_CLIENT, target, kind],
                capture_output=True,
                text=True,
                timeout=240,
            )
            assert done.stdout.startswith("refused"), (kind, done.stdout, done.stderr[-2000:])
