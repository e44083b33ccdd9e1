"""The Dask engine: the partitions scanned as ``dask.delayed`` tasks on a ``distributed``
cluster. Dask is imported here only, when this engine is chosen.

The index is scattered to every worker once (``broadcast=True``) and each task takes it as
its shared input, so it crosses the network once per worker, not once per partition. A
worker that dies mid-task loses nothing: the scheduler runs the task again on another worker
(the index is already there), and the reduce sorts whatever order results come back in.
Without ``scheduler`` a ``LocalCluster`` of ``workers`` single-threaded processes is started
for the scan and closed after it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import GramIndex
from goldcase.leakage.scan.core import PartResult, scan_partition
from goldcase.leakage.scan.partitions import Partition
from goldcase.project import extra_hint

Done = Callable[[Partition], None]
CLOSE_SECONDS = 30


def _distributed() -> Any:
    try:
        import dask  # noqa: F401  # optional (goldcase[dask]), and 1 s to import
        import distributed
    except ImportError:
        raise GoldcaseError(
            f"the dask engine needs dask and distributed: {extra_hint('dask')}"
        ) from None
    return distributed


def _certificates() -> None:
    """The local cluster's certificates need cryptography (goldcase[dask])."""
    try:
        import cryptography  # noqa: F401  # optional (goldcase[dask])
    except ImportError:
        raise GoldcaseError(
            f"the dask engine's local cluster needs cryptography: {extra_hint('dask')}"
        ) from None


def run_dask(
    index: GramIndex,
    parts: Sequence[Partition],
    scheduler: str | None,
    workers: int,
    done: Done | None = None,
) -> list[PartResult]:
    """Every partition's result, computed on the cluster at ``scheduler`` (or a local one)."""
    distributed = _distributed()
    with _client(distributed, scheduler, workers) as client:
        return _compute(distributed, client, index, parts, done)


@contextmanager
def _client(distributed: Any, scheduler: str | None, workers: int) -> Iterator[Any]:
    if scheduler is None:
        _certificates()
        # A scheduler takes any task from anyone who reaches its port, and 127.0.0.1 is every
        # local user's: TLS with certificates made for this cluster alone (security=True)
        # lets in only this process and its workers. No dashboard: goldcase shows none.
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            host="127.0.0.1",
            security=True,
        )
        try:
            with distributed.Client(cluster) as client:
                yield client
        finally:
            _close(cluster)
        return
    try:
        _check_address(scheduler)
        client = distributed.Client(scheduler)  # timeout: distributed.comm.timeouts.connect
    except ValueError as exc:  # the address itself
        raise GoldcaseError(
            f"--scheduler {scheduler}: {exc}; expected an address like tcp://10.0.0.5:8786"
        ) from None
    except (OSError, TimeoutError) as exc:
        raise GoldcaseError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    with client:
        yield client


def _check_address(address: str) -> None:
    """Raise ValueError for an address distributed cannot use, before any client (and its
    event-loop thread) exists; the messages are the ones ``Client`` itself would give."""
    # optional (goldcase[dask]): only a scan on a Dask scheduler imports it
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address)
    backend = get_backend(scheme)
    if scheme in ("tcp", "tls", "ws", "wss"):
        backend.get_address_host_port(location)


def _close(cluster: Any) -> None:
    """Stop the local cluster, waiting at most CLOSE_SECONDS: the scan's result is already in
    hand, and a worker that will not stop is ended with this process (its workers are daemonic
    children)."""
    with suppress(TimeoutError):
        cluster.close(timeout=CLOSE_SECONDS)


def _compute(
    distributed: Any,
    client: Any,
    index: GramIndex,
    parts: Sequence[Partition],
    done: Done | None,
) -> list[PartResult]:
    from dask import delayed  # optional (goldcase[dask])

    run = uuid.uuid4().hex  # keys of one scan never meet another's on a shared cluster
    shared = client.scatter(index, broadcast=True, hash=False)
    scan = delayed(scan_partition, pure=True)
    tasks = [
        scan(shared, part, dask_key_name=f"goldcase-scan-{run}-{part.file}-{part.part}")
        for part in parts
    ]
    futures = client.compute(tasks)
    by_key = {f.key: p for f, p in zip(futures, parts, strict=True)}
    results: list[PartResult] = []
    for future in distributed.as_completed(futures):
        try:
            results.append(future.result())
        except distributed.KilledWorker as exc:
            raise GoldcaseError(
                f"{by_key[future.key].name}: the workers scanning it died too often ({exc}); "
                "see distributed.scheduler.allowed-failures"
            ) from None
        if done is not None:
            done(by_key[future.key])
    return results
