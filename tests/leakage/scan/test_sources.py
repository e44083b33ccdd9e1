"""What a contamination scan reads: folders (recursive, with include globs) and fsspec URLs,
on both engines, with the same hits as the files scanned one by one.

URLs are tested on fsspec's in-process ``memory://`` file system (the local engine with one
process, which is where that file system lives) and on a real HTTP server on 127.0.0.1 that
answers range requests, as object stores do: the local engine's spawned workers and a Dask
LocalCluster's workers open the URLs themselves.
"""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from goldcase.errors import GoldcaseError
from goldcase.leakage.contamination import Report
from goldcase.leakage.scan.run import ScanOptions, scan
from goldcase.leakage.scan.sources import resolve
from kit import GOLDCASE, run, run_cli
from leakage.kit import CASE_FILES, index, write_corpus

fsspec = pytest.importorskip("fsspec")
pytest.importorskip("aiohttp")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory, corpus: dict[str, Path]) -> Path:
    """A folder of shards as corpora come: nested folders, a hidden file, a README."""
    root = tmp_path_factory.mktemp("shards") / "data"
    (root / "a").mkdir(parents=True)
    (root / "b" / "deep").mkdir(parents=True)
    shutil.copy(corpus["ft.jsonl"], root / "a" / "part-0.jsonl")
    shutil.copy(corpus["ft.jsonl.gz"], root / "b" / "part-1.jsonl.gz")
    shutil.copy(corpus["rows.parquet"], root / "b" / "deep" / "part-2.parquet")
    shutil.copy(corpus["train.txt"], root / "b" / "notes.txt")
    shutil.copy(corpus["ft.jsonl"], root / "a" / ".hidden.jsonl")
    (root / "README.md").write_text("shards of the fine-tuning data\n", encoding="utf-8")
    return root


def renamed(report: Report, names: dict[str, str]) -> Report:
    """The report with its files named as in another scan (the hits are what is compared)."""
    hits = tuple(replace(hit, path=names[hit.path]) for hit in report.hits)
    files = tuple(names[name] for name in report.files)
    return replace(report, files=files, hits=tuple(sorted(hits)))


def one_by_one(files: list[Path]) -> Report:
    return scan(index(), files, ScanOptions(workers=1))


def test_a_folder_is_every_file_under_it_in_name_order(shards: Path) -> None:
    sources = resolve([shards])
    assert [s.name for s in sources] == [
        f"{shards}/README.md",
        f"{shards}/a/part-0.jsonl",
        f"{shards}/b/deep/part-2.parquet",
        f"{shards}/b/notes.txt",
        f"{shards}/b/part-1.jsonl.gz",
    ]
    assert all(s.size == Path(s.where).stat().st_size for s in sources)


@pytest.mark.parametrize(
    ("include", "kept"),
    [
        (("*.jsonl", "*.jsonl.gz"), ["a/part-0.jsonl", "b/part-1.jsonl.gz"]),
        (("deep/*.parquet",), ["b/deep/part-2.parquet"]),
        (("part-*",), ["a/part-0.jsonl", "b/deep/part-2.parquet", "b/part-1.jsonl.gz"]),
    ],
)
def test_include_globs_match_the_end_of_the_path(
    shards: Path, include: tuple[str, ...], kept: list[str]
) -> None:
    assert [s.name for s in resolve([shards], include)] == [f"{shards}/{k}" for k in kept]


def test_a_folder_scans_as_its_files_do(shards: Path) -> None:
    options = ScanOptions(workers=2, partition_mb=0.01, include=("part-*",))
    report = scan(index(), [shards], options)
    files = [Path(s.where) for s in resolve([shards], ("part-*",))]
    assert report.hits and report == one_by_one(files)


def test_the_command_takes_folders_with_include(
    make_repo: Callable[..., Path], shards: Path
) -> None:
    repo = make_repo(CASE_FILES)
    result = run_cli(
        "contamination", "--repo", repo, "--include", "*.jsonl", "--format", "json", shards
    )
    assert result.exit_code == 1, result.stderr
    assert json.loads(result.stdout)["files"] == [f"{shards}/a/part-0.jsonl"]
    none = run_cli("contamination", "--repo", repo, "--include", "*.csv", shards)
    assert (none.exit_code, none.stderr) == (
        2,
        f"error: {shards}: no file under it matches --include *.csv\n",
    )


def test_what_is_not_a_file_is_said_to_be_what_it_is(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = make_repo(CASE_FILES)
    os.mkfifo(tmp_path / "pipe.jsonl")
    fifo = run_cli("contamination", "--repo", repo, tmp_path / "pipe.jsonl")
    assert fifo.stderr == (
        f"error: {tmp_path / 'pipe.jsonl'}: is a FIFO (named pipe), not a regular file; give "
        "files, folders or URLs to scan\n"
    )
    missing = run_cli("contamination", "--repo", repo, tmp_path / "nope.txt")
    assert missing.stderr == (
        f"error: {tmp_path / 'nope.txt'}: no such file; give files, folders or URLs to scan\n"
    )


@pytest.fixture
def memory(corpus: dict[str, Path]) -> Iterator[str]:
    """The corpus under memory://bucket/corpus/ (in this process only)."""
    fs = fsspec.filesystem("memory")
    for name, path in corpus.items():
        fs.pipe(f"/bucket/corpus/{name}", path.read_bytes())
    yield "memory://bucket/corpus"
    fs.rm("/bucket", recursive=True)


def test_memory_urls_scan_as_the_files_do(memory: str, corpus: dict[str, Path]) -> None:
    urls = [f"{memory}/{name}" for name in corpus]
    report = scan(index(), urls, ScanOptions(workers=1, partition_mb=0.01))
    expected = one_by_one(list(corpus.values()))
    assert report.hits
    assert report == renamed(expected, {str(p): f"{memory}/{n}" for n, p in corpus.items()})


def test_a_url_prefix_is_a_folder(memory: str, corpus: dict[str, Path]) -> None:
    sources = resolve([memory + "/"], ("*.jsonl*",))
    assert [s.name for s in sources] == [
        f"{memory}/ft.jsonl",
        f"{memory}/ft.jsonl.gz",
        f"{memory}/ft.jsonl.zst",
    ]
    assert [s.size for s in sources] == [corpus[n].stat().st_size for n in sorted(corpus)[:3]]


def test_url_errors_name_the_url(memory: str) -> None:
    with pytest.raises(GoldcaseError, match=r"^memory://bucket/nope\.txt: no such file or folder"):
        resolve(["memory://bucket/nope.txt"])
    with pytest.raises(GoldcaseError, match=r"^nosuch://x/y\.txt: "):
        resolve(["nosuch://x/y.txt"])


class RangeHandler(SimpleHTTPRequestHandler):
    """A static file server that answers ``Range: bytes=a-b`` as object stores do."""

    def send_head(self) -> Any:
        wanted = self.headers.get("Range")
        path = Path(self.translate_path(self.path))
        if not wanted or not path.is_file():
            return super().send_head()
        size = path.stat().st_size
        first, _, last = wanted.removeprefix("bytes=").partition("-")
        start, end = int(first), min(int(last) if last else size - 1, size - 1)
        with path.open("rb") as fh:
            fh.seek(start)
            body = fh.read(end - start + 1)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture(scope="module")
def served(corpus: dict[str, Path]) -> Iterator[str]:
    folder = next(iter(corpus.values())).parent
    handler = functools.partial(RangeHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def contamination(repo: Path, *args: str | Path) -> dict[str, Any]:
    """``goldcase contamination --format json`` in a process of its own: fsspec's HTTP client
    and Dask leave threads behind, and this test process must stay free of them (others fork)."""
    done = run([GOLDCASE, "contamination", "--repo", repo, "--format", "json", *args], repo, False)
    assert done.returncode == 1, done.stdout + done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def on_disk(repo: Path, corpus: dict[str, Path], names: list[str], served: str) -> dict[str, Any]:
    """The report of the same files read from disk, with their names as the URLs give them."""
    local = contamination(repo, "--workers", "1", *(corpus[name] for name in names))
    folder = str(corpus[names[0]].parent)
    renamed: dict[str, Any] = json.loads(json.dumps(local).replace(folder, served))
    return renamed


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_http_urls_on_both_engines(
    served: str, corpus: dict[str, Path], make_repo: Callable[..., Path], engine: str
) -> None:
    """Range requests to a server on 127.0.0.1: the local engine's spawned workers, and a Dask
    LocalCluster's worker processes, open the URLs themselves."""
    if engine == "dask":
        pytest.importorskip("distributed")
    repo = make_repo(CASE_FILES)
    names = ["ft.jsonl", "ft.jsonl.zst", "rows.parquet", "train.txt"]
    urls = [f"{served}/{name}" for name in names]
    options = ("--engine", engine, "--workers", "2", "--partition-size", "0.01")
    report = contamination(repo, *options, *urls)
    assert report["hits"] and report["files"] == urls
    assert report == on_disk(repo, corpus, names, served)


@pytest.mark.parametrize("url", ["zip://a.txt::file://{tmp}/missing.zip", "hdfs://namenode/x.txt"])
def test_a_url_whose_store_cannot_open_is_an_error_naming_it(tmp_path: Path, url: str) -> None:
    """A store fails in its own words when it is set up (a chained zip:: URL over a missing
    file, an HDFS client without its Java library): an error naming the URL, never an
    internal error."""
    repo = tmp_path / "repo"
    for name, text in CASE_FILES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    url = url.format(tmp=tmp_path)
    done = run_cli("contamination", "--repo", repo, "--workers", "1", url)
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {url}: "), done.stderr
    assert "internal error" not in done.stderr
    assert len(done.stderr.splitlines()) == 1
