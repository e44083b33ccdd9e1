"""An ``.eval`` archive's zip index is bounded before zipfile reads it (docs/score.md,
"Results from promptfoo and Inspect"): its entry count and size from the end record (the
ZIP64 one when present), the entries the index really holds, and the file's size."""

from __future__ import annotations

import json
import resource
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from goldcase.interchange.from_inspect import MAX_ARCHIVE_BYTES, MAX_ENTRIES, MAX_INDEX_BYTES
from kit import run_cli
from run.kit import make_set

ENTRY = struct.Struct("<4s6H3L5H2L")
END = struct.Struct("<4s4H2LH")
END64 = struct.Struct("<4sQ2H2L4Q")
LOCATOR = struct.Struct("<4sLQL")
LOCAL = struct.Struct("<4s5H3L2H")
NAME = b"samples/1.json"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_set(tmp_path / "repo")


def _entry() -> bytes:
    return ENTRY.pack(b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(NAME), 0, 0, 0, 0, 0, 0)


def _index_of(path: Path, entries: int) -> Path:
    """An archive that is only a zip index of ``entries`` entries (written as Inspect's zip
    writer would, ZIP64 records included), each a sample ``samples/1.json``."""
    one = _entry() + NAME
    local = LOCAL.pack(b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(NAME), 0) + NAME
    with path.open("wb") as fh:
        fh.write(local)
        for start in range(0, entries, 100_000):
            fh.write(one * min(100_000, entries - start))
        size = len(one) * entries
        fh.write(END64.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, size, len(local)))
        fh.write(LOCATOR.pack(b"PK\x06\x07", 0, len(local) + size, 1))
        fh.write(END.pack(b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
    return path


# VmHWM, not ru_maxrss: Linux carries the latter over from the forking parent (pytest)
CHILD = """\
import sys
from goldcase.cli import main
try:
    code = main(sys.argv[1:])
finally:
    sys.stdout.flush()
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    print(int(peak) // 1024, file=sys.stdout)
raise SystemExit(code)
"""


def _score_capped(repo: Path, log: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """``goldcase score --from inspect`` in a process that may map at most 1 GiB; its peak
    resident memory in MiB."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1024**3, 1024**3))

    done = subprocess.run(
        [sys.executable, "-c", CHILD, "score", str(log), "--repo", str(repo), "--from", "inspect"],
        capture_output=True, text=True, timeout=120, preexec_fn=limit,
    )  # fmt: skip
    *_, peak = done.stdout.split()
    return done, int(peak)


def test_an_index_listing_two_million_entries_is_refused_before_it_is_read(
    repo: Path, tmp_path: Path
) -> None:
    """A 120 MB file whose index lists 2,000,000 entries: zipfile built all of them (763 MB
    for 94 MB) before goldcase counted the samples."""
    log = _index_of(tmp_path / "many.eval", 2_000_000)
    done, peak = _score_capped(repo, log)
    assert (done.returncode, done.stderr) == (
        2,
        f"error: {log}: its zip index lists 2,000,000 entries, more than the "
        f"{MAX_ENTRIES:,} goldcase reads; score a log of fewer samples\n",
    )
    assert peak < 150, f"{peak} MiB resident"


def test_an_index_larger_than_the_bound_is_refused_before_it_is_read(
    repo: Path, tmp_path: Path
) -> None:
    """A plain end record can list at most 65,535 entries, but an index of 4 GiB: the size
    is bounded too (the file is sparse: no disk taken)."""
    log = tmp_path / "large.eval"
    size = MAX_INDEX_BYTES + 1
    with log.open("wb") as fh:
        fh.write(b"PK\x03\x04")
        fh.truncate(size + 4)
        fh.seek(size + 4)
        fh.write(END.pack(b"PK\x05\x06", 0, 0, 1, 1, size, 4, 0))
    done, peak = _score_capped(repo, log)
    assert (done.returncode, done.stderr) == (
        2,
        f"error: {log}: its zip index is {size:,} bytes, more than the {MAX_INDEX_BYTES:,} "
        "goldcase reads; score a log of fewer samples\n",
    )
    assert peak < 150, f"{peak} MiB resident"


def test_an_index_holding_more_entries_than_it_lists_is_refused(repo: Path, tmp_path: Path) -> None:
    """zipfile reads the index by its size, not by the count the end record gives: an end
    record listing one entry before an index of three is refused as damaged."""
    log = tmp_path / "liar.eval"
    with zipfile.ZipFile(log, "w") as archive:
        for n in range(3):
            archive.writestr(f"samples/{n}.json", json.dumps({"id": f"ret-00{n}"}))
    raw = bytearray(log.read_bytes())
    end = raw.rfind(b"PK\x05\x06")
    raw[end + 8 : end + 12] = struct.pack("<2H", 1, 1)
    log.write_bytes(bytes(raw))
    done = run_cli("score", log, "--repo", repo, "--from", "inspect")
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: {log}: not an Inspect log (.json or .eval): a damaged zip archive: its index "
        "holds more entries than the 1 it lists; write the log again\n",
    )


def test_an_archive_over_the_file_bound_is_refused_by_its_size(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "huge.eval"
    with log.open("wb") as fh:
        fh.write(b"PK\x03\x04")
        fh.truncate(MAX_ARCHIVE_BYTES + 1)  # sparse
    done = run_cli("score", log, "--repo", repo, "--from", "inspect")
    assert (done.exit_code, done.stderr) == (
        2,
        f"error: {log}: cannot read it: {MAX_ARCHIVE_BYTES + 1:,} bytes, more than "
        f"{MAX_ARCHIVE_BYTES:,}\n",
    )


def test_an_archive_with_a_comment_is_read(repo: Path, tmp_path: Path) -> None:
    """The end record is found behind a comment, as zipfile finds it."""
    log = tmp_path / "commented.eval"
    sample = {"id": "ret-001", "epoch": 1, "output": {"completion": "30 days"}}
    with zipfile.ZipFile(log, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/ret-001_epoch_1.json", json.dumps(sample))
        archive.comment = b"written by hand " * 100
    done = run_cli("score", log, "--repo", repo, "--from", "inspect", "--format", "json")
    assert done.exit_code in (0, 1), done.stderr
    assert "ret-001" in done.stdout
