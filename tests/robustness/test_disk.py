"""A read-only file, a read-only folder and a full disk give an error, never a truncated
file: the command exits 2 with ``error: …`` and the files it meant to rewrite keep their
bytes (the temporary file is removed)."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from goldcase.errors import GoldcaseError
from goldcase.writer import atomic_write_bytes
from robustness.kit import GOLDCASE, canonical, env, make_set, run


def unformatted(case_id: str) -> str:
    return canonical(case_id).replace("id: ", "notes: first\nid: ", 1)


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".goldcase-cache" not in p.parts
    }


def test_read_only_file_is_not_replaced(tmp_path: Path) -> None:
    make_set(tmp_path, 2, unformatted)
    target = tmp_path / "cases/golden/ret-001.yaml"
    target.chmod(0o444)
    before = files(tmp_path)
    done = run(["fmt"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"error: {target}: the file is read-only (mode 444); make it writable "
        "(chmod u+w) if goldcase should rewrite it\n"
    )
    assert files(tmp_path)["cases/golden/ret-001.yaml"] == before["cases/golden/ret-001.yaml"]
    assert target.stat().st_mode & 0o777 == 0o444


def test_writer_refuses_a_read_only_file(tmp_path: Path) -> None:
    target = tmp_path / "golden.version"
    target.write_text("1\n")
    target.chmod(0o400)
    with pytest.raises(GoldcaseError, match="read-only"):
        atomic_write_bytes(target, b"2\n")
    assert target.read_bytes() == b"1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["golden.version"]


def _no_dac_override() -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl")


def test_read_only_folder(tmp_path: Path) -> None:
    """Root writes into any folder; the command runs without that power (see test_hostile)."""
    make_set(tmp_path, 2, canonical)
    run(["lock"], tmp_path)
    (tmp_path / "cases/golden/ret-001.yaml").write_text(
        canonical("ret-001").replace("14 days\n", "fourteen days\n")
    )
    before = files(tmp_path)
    tmp_path.chmod(0o555)
    try:
        done = subprocess.run(
            [GOLDCASE, "lock"],
            cwd=tmp_path,
            env=env(),
            capture_output=True,
            timeout=120,
            preexec_fn=_no_dac_override if os.geteuid() == 0 else None,
        )
    finally:
        tmp_path.chmod(0o755)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("error: ")
    assert "Permission denied" in done.stderr.decode()
    assert files(tmp_path) == before


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> None:
    with (folder / "filler").open("wb", buffering=0) as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 4096)
            fh.flush()
            os.fsync(fh.fileno())


@pytest.mark.parametrize(
    ("args", "target"),
    [
        (["fmt"], "cases/golden/ret-001.yaml"),
        (["lock"], "golden.lock"),
        (["score", "run.jsonl", "--out", "report.json"], "report.json"),
    ],
)
def test_full_disk(tmp_path: Path, args: list[str], target: str) -> None:
    """A 256 KiB tmpfs, filled up: each command that writes says so and changes nothing."""
    with small_tmpfs(tmp_path / "disk", "256k") as disk:
        root = disk / "repo"
        make_set(root, 3, unformatted if args == ["fmt"] else canonical)
        (root / "run.jsonl").write_text('{"id": "ret-001", "outcome": "abstain"}\n')
        if args == ["lock"]:
            assert run(["lock"], root).returncode in (0, 1)
            (root / "cases/golden/ret-002.yaml").write_text(canonical("ret-002") + "tags: [x]\n")
        before = files(root)
        fill(disk)
        done = run(args, root)
        stderr = done.stderr.decode()
        assert done.returncode == 2, (done.stdout, stderr)
        assert stderr.startswith("error: ") and "No space left on device" in stderr, stderr
        assert "Traceback" not in stderr
        after = files(root)
        assert after.get(target) == before.get(target)
        assert sorted(after) == sorted(before)  # no temporary file left behind


def _file_size_limit() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write over the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))


def test_file_size_limit_stands_in_for_a_full_disk(tmp_path: Path) -> None:
    """Without root (no tmpfs), RLIMIT_FSIZE makes the same write fail: the case file that
    would grow past the limit keeps its old bytes."""
    make_set(tmp_path, 1, unformatted)
    target = tmp_path / "cases/golden/ret-001.yaml"
    target.write_text(unformatted("ret-001").replace("notes: first", "notes: " + "n" * 2000))
    before = target.read_bytes()
    done = subprocess.run(
        [GOLDCASE, "fmt"],
        cwd=tmp_path,
        env=env(),
        capture_output=True,
        timeout=120,
        preexec_fn=_file_size_limit,
    )
    assert done.returncode == 2, done.stderr.decode()
    assert done.stderr.decode().startswith(f"error: {target}: cannot write: File too large")
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["ret-001.yaml"]
