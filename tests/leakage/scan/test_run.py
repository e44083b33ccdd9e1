"""The partitioned contamination scan on the local engine: every input format, partitions
that do not change the report, several processes giving the same JSON byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import Hit, scan_paths
from goldcase.leakage.scan import core, readers
from goldcase.leakage.scan.partitions import Partition, kind_of, plan
from goldcase.leakage.scan.run import ScanOptions, scan
from kit import run_cli
from leakage.kit import (
    CASE_FILES,
    TEXT_PLANTED,
    index,
    jsonl_lines,
    offset_of,
    text_lines,
    write_corpus,
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo(CASE_FILES)


def expected(corpus: dict[str, Path]) -> list[Hit]:
    """Every hit in the corpus, from where scan_corpus planted the golden text."""
    text = text_lines(3000, TEXT_PLANTED)
    records = jsonl_lines(400)
    hits = [
        Hit("long", "question", str(corpus["train.txt"]), 100, offset_of(text, 100), 5, 5),
        Hit("amex", "question", str(corpus["train.txt"]), 2500, offset_of(text, 2500), 1, 1),
        Hit("amex", "answer", str(corpus["train.txt"]), 2500, offset_of(text, 2500), 1, 1),
        # rows 120 and 7 (0-based): offsets count rows, lines are 1-based rows
        Hit("amex", "question", str(corpus["rows.parquet"]), 121, 120, 1, 1),
        Hit("amex", "answer", str(corpus["rows.parquet"]), 121, 120, 1, 1),
        Hit("window", "answer", str(corpus["rows.parquet"]), 8, 7, 6, 6),
    ]
    for name in ("ft.jsonl", "ft.jsonl.gz", "ft.jsonl.zst"):
        path = str(corpus[name])
        hits += [
            # "No" is not amex's answer: its question alone
            Hit("amex", "question", path, 7, offset_of(records, 7), 1, 1),
            Hit("window", "question", path, 300, offset_of(records, 300), 1, 1),
            Hit("window", "answer", path, 300, offset_of(records, 300), 6, 6),
        ]
    return sorted(hits)


@pytest.mark.parametrize(
    ("name", "kind", "jsonl"),
    [
        ("a.txt", "lines", False),
        ("A.JSONL", "lines", True),
        ("a.ndjson", "lines", True),
        ("a.jsonl.gz", "gzip", True),
        ("a.txt.gz", "gzip", False),
        ("a.jsonl.zst", "zstd", True),
        ("a.zstd", "zstd", False),
        ("a.parquet", "parquet", False),
        ("a.pq", "parquet", False),
    ],
)
def test_kind_from_name(name: str, kind: str, jsonl: bool) -> None:
    assert kind_of(name) == (kind, jsonl)


def test_plan(corpus: dict[str, Path]) -> None:
    paths = [corpus["train.txt"], corpus["ft.jsonl.gz"], corpus["rows.parquet"]]
    parts = plan(paths, 10_000)
    size = corpus["train.txt"].stat().st_size
    lines = [p for p in parts if p.file == 0]
    assert [(p.start, p.end) for p in lines] == [
        (a, min(a + 10_000, size)) for a in range(0, size, 10_000)
    ]
    assert len(lines) == -(-size // 10_000)
    gz = [p for p in parts if p.file == 1]
    assert [(p.kind, p.jsonl, p.start, p.end) for p in gz] == [("gzip", True, 0, None)]
    groups = [p for p in parts if p.file == 2]
    assert [(p.kind, p.start, p.columns) for p in groups] == [
        ("parquet", g, ("prompt", "completion")) for g in range(4)
    ]
    assert all(p.name == str(paths[p.file]) and Path(p.path).is_absolute() for p in parts)


def test_every_format(corpus: dict[str, Path]) -> None:
    report = scan(index(), list(corpus.values()), ScanOptions(workers=1))
    assert list(report.hits) == expected(corpus)
    assert report.files == tuple(str(p) for p in corpus.values())
    assert report.bytes == sum(p.stat().st_size for p in corpus.values())
    assert report.contaminated == ["amex", "long", "window"]


@pytest.mark.parametrize("size", [1e-6 * 53, 0.004, 64.0])
def test_partition_size_does_not_change_the_report(corpus: dict[str, Path], size: float) -> None:
    paths = [corpus["train.txt"], corpus["ft.jsonl"]]
    partitioned = scan(index(), paths, ScanOptions(partition_mb=size, workers=1))
    # the single-process, whole-file scan of goldcase.contamination is the reference
    assert partitioned == scan_paths(index(), paths)


def test_progress_counts_every_byte(corpus: dict[str, Path]) -> None:
    seen: list[Partition] = []
    paths = [corpus["train.txt"], corpus["ft.jsonl.zst"]]
    scan(index(), paths, ScanOptions(partition_mb=0.01, workers=1), seen.append)
    assert sum(p.weight for p in seen) == sum(p.stat().st_size for p in paths)
    assert len(seen) == len(plan(paths, 10_000))


def _json(repo: Path, *args: str | Path) -> str:
    result = run_cli("contamination", "--repo", repo, "--format", "json", *args)
    assert result.exit_code == 1, result.stderr
    return result.stdout


def test_processes_give_the_same_json_byte_for_byte(repo: Path, corpus: dict[str, Path]) -> None:
    paths = list(corpus.values())
    one = _json(repo, "--workers", "1", *paths)
    two = _json(repo, "--workers", "2", "--partition-size", "0.004", *paths)
    assert two == one
    report = json.loads(one)
    assert report["hits"] == [h.as_dict() for h in expected(corpus)]
    assert report["contaminated"] == ["amex", "long", "window"]


def test_parquet_text_output_names_rows(repo: Path, corpus: dict[str, Path]) -> None:
    path = corpus["rows.parquet"]
    result = run_cli("contamination", "--repo", repo, "--column", "prompt", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}:121: amex question (whole, row 120)",
        f"1 of 3 golden cases found in 1 file ({path.stat().st_size:,} bytes)",
    ]


@pytest.mark.parametrize(
    ("column", "message"),
    [
        ("id", "column 'id' holds int64, not text"),
        ("title", "no column 'title'; its columns are id, prompt, completion"),
    ],
)
def test_parquet_bad_column(repo: Path, corpus: dict[str, Path], column: str, message: str) -> None:
    path = corpus["rows.parquet"]
    result = run_cli("contamination", "--repo", repo, "--column", column, path)
    assert result.exit_code == 2
    assert f"error: {path}: {message}" in result.stderr


def test_parquet_without_text_columns(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "n.parquet"
    pq.write_table(pa.table({"n": [1, 2]}), path)
    with pytest.raises(GoldcaseError, match="no text column to scan; name one with --column"):
        plan([path])


def test_corrupt_gzip_cannot_run(repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00not gzip at all")
    result = run_cli("contamination", "--repo", repo, path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: cannot decompress")


def test_corrupt_zstd_cannot_run(repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.txt.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd garbage")
    result = run_cli("contamination", "--repo", repo, path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: cannot decompress")


def test_scheduler_needs_the_dask_engine(repo: Path, corpus: dict[str, Path]) -> None:
    result = run_cli(
        "contamination", "--repo", repo, "--scheduler", "tcp://127.0.0.1:1", corpus["ft.jsonl"]
    )
    assert result.exit_code == 2
    assert result.stderr == "error: --scheduler needs --engine dask\n"


_WITHOUT = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None  # import fails as if the package were not installed
from goldcase.cli import main
raise SystemExit(main({argv!r}))
"""


@pytest.mark.parametrize(
    ("blocked", "file", "extra", "message"),
    [
        (["pyarrow", "pyarrow.parquet"], "rows.parquet", [], "reading Parquet needs pyarrow"),
        (["zstandard"], "ft.jsonl.zst", [], "reading zstd needs zstandard"),
        (
            ["dask", "distributed"],
            "ft.jsonl",
            ["--engine", "dask"],
            "the dask engine needs dask and distributed",
        ),
    ],
)
def test_a_missing_extra_says_how_to_install_it(
    repo: Path,
    corpus: dict[str, Path],
    blocked: list[str],
    file: str,
    extra: list[str],
    message: str,
) -> None:
    argv = ["contamination", "--repo", str(repo), *extra, str(corpus[file])]
    code = _WITHOUT.format(blocked=blocked, argv=argv)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "pip install 'goldcase[dask]'" in proc.stderr
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


LINES = [
    "plain words here\n",
    "forum: Can a customer who bought a damaged kettle last month still ask us for a credit"
    " note?\n",
    "\n",
    "héllo do you take american express? yes ünïcode\n",
    '{"x": 1}\n',
    "tail Can a customer who bought a damaged kettle last month still ask us do you take"
    " American Express?",  # no line break at the end
]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(LINES), min_size=1, max_size=12),
    st.integers(min_value=1, max_value=300),
)
def test_any_partition_size_gives_the_whole_file_report(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], size: int
) -> None:
    path = tmp_path_factory.mktemp("sizes") / "c.txt"
    path.write_text("".join(lines), encoding="utf-8")
    partitioned = scan(index(), [path], ScanOptions(partition_mb=size / 1e6, workers=1))
    assert partitioned == scan_paths(index(), [path])
    planted = any("kettle" in line or "express" in line.lower() for line in lines)
    assert bool(partitioned.hits) == planted


def test_a_lost_partition_is_an_error_not_a_smaller_report(corpus: dict[str, Path]) -> None:
    from goldcase.leakage.scan.core import reduce, scan_partition

    paths = [corpus["train.txt"]]
    parts = plan(paths, 50_000)
    results = [scan_partition(index(), part) for part in parts]
    assert reduce(index(), paths, parts, results) == scan_paths(index(), paths)
    with pytest.raises(GoldcaseError, match="the scan lost or repeated a partition"):
        reduce(index(), paths, parts, results[1:])
    with pytest.raises(GoldcaseError, match="the scan lost or repeated a partition"):
        reduce(index(), paths, parts, [*results, results[0]])


def test_the_extras_are_imported_only_when_used(repo: Path, corpus: dict[str, Path]) -> None:
    code = (
        "import sys\n"
        "from goldcase.cli import main\n"
        f"code = main(['contamination', '--repo', {str(repo)!r}, {str(corpus['ft.jsonl.gz'])!r}])\n"
        "heavy = {'dask', 'distributed', 'pyarrow', 'zstandard'}.intersection(sys.modules)\n"
        "print(code, sorted(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "1 []", proc.stderr


def test_a_file_a_worker_cannot_read_is_an_error(corpus: dict[str, Path], tmp_path: Path) -> None:
    from goldcase.leakage.scan.core import scan_partition

    copy = tmp_path / "gone.txt"
    copy.write_bytes(corpus["train.txt"].read_bytes())
    [part, *_] = plan([copy], 10_000)
    copy.unlink()  # as if the worker's machine did not mount the same path
    with pytest.raises(GoldcaseError, match=f"^{copy}: cannot read: No such file or directory$"):
        scan_partition(index(), part)


# Records a plain-text scan folds in blocks as it folds them one at a time: look-alikes, wide
# forms, bytes that are not UTF-8, odd white space, CRLF, a line that is only a newline.
BYTE_LINES = [
    *(line.encode() for line in LINES),
    b"bad \xff byte: do you take American Express?\n",
    "Ｄｏ ｙｏｕ ｔａｋｅ Ａｍｅｒｉｃａｎ Ｅｘｐｒｅｓｓ?\r\n".encode(),
    "do you take \u0410merican Express\u200b?\n".encode(),  # a Cyrillic A, a zero-width space
    b"Do\tyou  take\x0bAmerican\x1cExpress?\n",
    b"\xe2\x80\xa8do you take american express\xc2\x85\n",
    b"\n",
    b"DO-YOU-TAKE american_express!! and a customer who bought a damaged kettle\n",
    b"do you take\n",  # a phrase over two lines is in neither
    b"American Express?\n",
    b"do you take americans express\n",
    b"Yes, a customer has fourteen days from delivery to request a credit for a\r\n",
]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from(BYTE_LINES), min_size=1, max_size=12),
    st.integers(min_value=1, max_value=200),
    st.integers(min_value=1, max_value=300),
    st.integers(min_value=1, max_value=400),
)
def test_a_scan_in_blocks_finds_what_a_scan_of_each_record_finds(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], block: int, size: int, bulk: int
) -> None:
    """Any block size, partition size and bound on a block searched in bulk (past it, every
    line is scanned as a record)."""
    path = tmp_path_factory.mktemp("blocks") / "c.txt"
    path.write_bytes(b"".join(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(readers, "BLOCK", block)
        patch.setattr(core, "BULK_LIMIT", bulk)
        partitioned = scan(index(), [path], ScanOptions(partition_mb=size / 1e6, workers=1))
    assert partitioned == scan_paths(index(), [path])


def test_a_line_past_the_bound_is_an_error_in_blocks_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"short\n" + b"x" * 40 + b"\nshort\n")
    monkeypatch.setattr(readers, "BLOCK", 8)
    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 30)
    with pytest.raises(GoldcaseError, match=rf"^{path}:2 \(byte 6\): a line longer than 30 bytes"):
        scan(index(), [path], ScanOptions(workers=1))
