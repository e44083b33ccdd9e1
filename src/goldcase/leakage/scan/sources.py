"""What a contamination scan reads: files, folders and URLs, resolved to a list of sources.

- A **file** is read where it is.
- A **folder** stands for every file under it, at any depth (names starting with ``.`` and
  linked folders left out), in name order; ``--include GLOB`` keeps only the files whose path
  below the folder matches one of the globs (``*.jsonl.zst``, ``shard-*/*.parquet``: matched
  from the end of the path, as ``pathlib.PurePath.match`` does).
- A **URL** (``s3://bucket/corpus/``, ``gs://…``, ``https://host/shard-00.jsonl.gz``,
  ``memory://…``) is read through fsspec, by the process that scans it: on a Dask cluster each
  worker opens the URL itself, with its own credentials, so data kept in an object store is
  read where it is, without a shared mount. A URL that names a folder (a prefix) is expanded
  as a folder is. fsspec comes with the ``remote`` extra, and each store needs its own
  fsspec implementation (s3fs, gcsfs; aiohttp for http and https).

Each source keeps the name it is shown by (a path as given, or the given folder joined with
the file's path below it, a byte that is not UTF-8 escaped by ``safeio.shown_path``; or the
URL), where a worker opens it (an absolute path, or the URL), and its size, which planning
and the progress bar use; nothing else is read to plan a scan.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from msgspec import Struct

from goldcase.errors import GoldcaseError
from goldcase.output import plain
from goldcase.project import extra_hint
from goldcase.safeio import not_a_file, shown_path

BUFFER = 1 << 20  # bytes read at once
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


class Source(Struct, frozen=True):
    name: str  # how hits and the report name it
    where: str  # what a worker opens: an absolute path, or a URL
    size: int | None  # bytes, when known (a server may not say)


def is_url(text: str) -> bool:
    return bool(_URL.match(text))


def file_name(where: str) -> str:
    """The last part of a path or URL (no query string): what the format is chosen by."""
    return PurePosixPath(urlsplit(where).path if is_url(where) else where).name


def resolve(inputs: Sequence[Path | str | Source], include: Sequence[str] = ()) -> list[Source]:
    """Every file to scan, in the order given (a folder's files in name order)."""
    out: list[Source] = []
    for item in inputs:
        if isinstance(item, Source):
            out.append(item)
            continue
        text = str(item)
        found = _remote(text, include) if is_url(text) else _local(Path(item), include)
        if not found:
            raise GoldcaseError(f"{text}: no file under it matches --include {' '.join(include)}")
        out.extend(found)
    return out


def _matches(rel: str, include: Sequence[str]) -> bool:
    return not include or any(PurePosixPath(rel).match(glob) for glob in include)


def _local(path: Path, include: Sequence[str]) -> list[Source]:
    if path.is_dir():
        return [
            Source(shown_path(os.path.join(str(path), rel)), str((path / rel).resolve()), size)
            for rel, size in sorted(_walk(path))
            if _matches(rel, include)
        ]
    problem = not_a_file(path)
    if problem is not None:
        raise GoldcaseError(f"{path}: {problem}; give files, folders or URLs to scan")
    return [Source(shown_path(str(path)), str(path.resolve()), path.stat().st_size)]


def _walk(folder: Path) -> Iterator[tuple[str, int]]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if name.startswith(".") or not_a_file(full) is not None:
                continue
            yield full.relative_to(folder).as_posix(), full.stat().st_size


def _remote(url: str, include: Sequence[str]) -> list[Source]:
    fs, path = _filesystem(url)
    try:
        info = fs.info(path)
        if info.get("type") != "directory":
            return [Source(url, url, info.get("size"))]
        found = fs.find(path, detail=True)
    except FileNotFoundError:
        raise GoldcaseError(f"{url}: no such file or folder") from None
    except Exception as exc:  # each store fails in its own words: say which URL and why
        raise GoldcaseError(f"{url}: cannot list it: {plain(exc)}") from None
    base = path.rstrip("/")
    out: list[Source] = []
    for key in sorted(found):
        rel = key[len(base) :].lstrip("/") if key.startswith(base) else PurePosixPath(key).name
        if found[key].get("type") == "directory" or _hidden(rel) or not _matches(rel, include):
            continue
        name = f"{url.rstrip('/')}/{rel}"
        out.append(Source(name, fs.unstrip_protocol(key), found[key].get("size")))
    return out


def _hidden(rel: str) -> bool:
    return any(part.startswith(".") for part in rel.split("/"))


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        # imported here: fsspec is optional (the remote extra) and only URLs need it
        from fsspec.core import url_to_fs
    except ImportError:
        raise GoldcaseError(f"{url}: reading URLs needs fsspec: {extra_hint('remote')}") from None
    try:
        return url_to_fs(url)
    except (ImportError, ValueError) as exc:  # no implementation for this protocol
        raise GoldcaseError(f"{url}: {plain(exc)}") from None
    except Exception as exc:  # each store fails in its own words when it is set up
        raise GoldcaseError(f"{url}: cannot open it: {plain(exc)}") from None


@contextmanager
def open_binary(where: str) -> Iterator[BinaryIO]:
    """The file at ``where`` (a path, or a URL through fsspec), buffered, for reading."""
    if not is_url(where):
        with open(where, "rb", buffering=BUFFER) as fh:
            yield fh
        return
    fs, path = _filesystem(where)
    try:
        handle = fs.open(path, "rb", block_size=BUFFER)
    except FileNotFoundError as exc:
        raise OSError(2, "No such file or directory", where) from exc
    with handle, io.BufferedReader(handle, BUFFER) as fh:  # readline(size), as files have
        yield fh
