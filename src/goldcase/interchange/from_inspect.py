"""Inspect AI logs (``.json``, and ``.eval`` zip archives) as goldcase results.

A log is read as data: a JSON log whole (at most 1 GiB), an ``.eval`` log member by member
(``samples/*.json``, each at most 256 MiB once decompressed, stored, deflated or
zstd-compressed as Inspect writes them), never unpickled or run. An ``.eval`` file is at most
2 GiB, and its zip index is bounded (``zipindex``) before ``zipfile`` reads it.

- The case is the sample's ``metadata.id``, else its ``id`` (``goldcase export --format
  inspect`` writes both); the trial is its ``epoch``.
- A sample with an ``error`` is an ``error`` line with Inspect's message.
- The answer is the sample's output text (``output.completion``, else the text of its first
  choice's message); a solver may instead leave goldcase's response fields (``outcome``,
  ``answer``, ``citations``, …) in the sample's store under ``goldcase``, and they are read as a
  response.
- Samples the log does not hold (an interrupted eval) are absent, and so ``missing``.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from goldcase.errors import GoldcaseError
from goldcase.interchange.converted import MAX_BYTES, Converted, latency, parse_json
from goldcase.interchange.zipindex import check_index
from goldcase.output import plain
from goldcase.safeio import named, open_regular, read_named

WHAT = "an Inspect log (.json or .eval)"
MAX_MEMBER = 256 * 1024**2
# the samples of one archive, inflated, in all: what a JSON log may hold (compression turns
# a few megabytes into gigabytes, and every answer is kept until it is scored)
MAX_SAMPLES_BYTES = MAX_BYTES
MAX_MEMBERS = 1_000_000
MAX_ENTRIES = MAX_MEMBERS + 65_536  # the samples, and the header, summaries and journal beside
MAX_INDEX_BYTES = 128 * 1024**2  # the zip index: a million entries of names up to 80 characters
# the file: its samples (at most MAX_SAMPLES_BYTES inflated, so no more stored) and the rest
MAX_ARCHIVE_BYTES = 2 * MAX_BYTES
STORE = "goldcase"  # the sample store key a solver may leave a structured response under
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, (version … sizes), name and extra lengths
_ZSTD = 93  # the zip method number Inspect writes


def read(path: Path, shown: str, patterns: Sequence[str]) -> Converted:
    converted = Converted()
    for index, sample in enumerate(_samples(path, shown), 1):
        _add(converted, index, sample, patterns)
    return converted


def _samples(path: Path, shown: str) -> Iterator[dict[str, Any]]:
    with named(shown, WHAT):
        fh = open_regular(path, MAX_ARCHIVE_BYTES)
    with fh:
        if fh.read(4) == b"PK\x03\x04":
            yield from _eval_samples(fh, shown)
            return
    log = parse_json(read_named(path, shown, WHAT, MAX_BYTES), shown, WHAT)
    if not isinstance(log, dict) or "eval" not in log:
        raise GoldcaseError(f"{shown}: not {WHAT}: no 'eval' header")
    samples = log.get("samples")
    if not isinstance(samples, list):
        raise GoldcaseError(f"{shown}: the log holds no samples (was it written without them?)")
    for sample in samples:
        yield _object(sample, shown)


def _eval_samples(fh: BinaryIO, shown: str) -> Iterator[dict[str, Any]]:
    try:
        check_index(
            fh, shown, WHAT, max_entries=MAX_ENTRIES, max_size=MAX_INDEX_BYTES,
            fix="score a log of fewer samples",
        )  # fmt: skip
        with zipfile.ZipFile(fh) as archive:
            members = [i for i in archive.infolist() if _is_sample(i.filename)]
            if len(members) > MAX_MEMBERS:
                raise GoldcaseError(f"{shown}: more than {MAX_MEMBERS:,} samples")
            budget = MAX_SAMPLES_BYTES
            for info in members:
                data = _member(fh, info, shown, min(MAX_MEMBER, budget))
                budget -= len(data)
                name = f"{shown}:{plain(info.filename)}"  # a member's name is anyone's text
                yield _object(parse_json(data, name, "a sample"), shown)
    except (zipfile.BadZipFile, OSError, EOFError, struct.error) as exc:
        raise GoldcaseError(f"{shown}: not {WHAT}: {exc}") from None


def _is_sample(name: str) -> bool:
    return name.startswith("samples/") and name.endswith(".json") and "/" not in name[8:]


def _member(raw: BinaryIO, info: zipfile.ZipInfo, shown: str, limit: int) -> bytes:
    """A member's bytes, decompressed, at most ``limit`` of them (``MAX_MEMBER``, or what
    is left of the archive's ``MAX_SAMPLES_BYTES``)."""
    raw.seek(info.header_offset)
    signature, name_length, extra_length = _LOCAL_HEADER.unpack(raw.read(_LOCAL_HEADER.size))
    if signature != b"PK\x03\x04":
        raise GoldcaseError(f"{shown}: {plain(info.filename)}: damaged archive (no local header)")
    raw.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
    packed = raw.read(min(info.compress_size, limit + 1))
    if info.compress_type == zipfile.ZIP_STORED:
        data = packed
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        data = zlib.decompressobj(-15).decompress(packed, limit + 1)
    elif info.compress_type == _ZSTD:
        data = _unzstd(packed, shown, limit)
    else:
        raise GoldcaseError(
            f"{shown}: {plain(info.filename)}: compression method {info.compress_type} is not one "
            "Inspect writes (stored, deflate, zstd)"
        )
    if len(data) > limit and limit < MAX_MEMBER:
        raise GoldcaseError(
            f"{shown}: its samples expand to more than {MAX_SAMPLES_BYTES:,} bytes, the most a "
            "log is read to (a few megabytes on disk can inflate to gigabytes); score a log "
            "of fewer samples"
        )
    if len(data) > limit:
        raise GoldcaseError(f"{shown}: {plain(info.filename)} is larger than {MAX_MEMBER:,} bytes")
    return data


def _unzstd(packed: bytes, shown: str, limit: int) -> bytes:
    try:
        # lazy: an optional dependency (installed with Inspect, and with goldcase[dask])
        import zstandard
    except ImportError:
        raise GoldcaseError(
            f"{shown}: this .eval log is zstd-compressed; install zstandard "
            "(pip install zstandard), or write the log with --log-format json"
        ) from None
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(packed), read_across_frames=True)
    out = bytearray()
    try:
        while len(out) <= limit and (chunk := reader.read(1 << 20)):
            out += chunk
    except zstandard.ZstdError as exc:
        raise GoldcaseError(f"{shown}: damaged zstd data: {exc}") from None
    return bytes(out)


def _object(value: Any, shown: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise GoldcaseError(f"{shown}: not {WHAT}: a sample is not an object")
    return value


def _add(converted: Converted, index: int, sample: dict[str, Any], patterns: Sequence[str]) -> None:
    meta = _mapping(sample.get("metadata"))
    case_id = meta.get("id", sample.get("id"))
    if isinstance(case_id, int) and not isinstance(case_id, bool):
        case_id = str(case_id)
    if not isinstance(case_id, str) or not case_id:
        converted.problems.append(f"sample {index}: no id")
        return
    if isinstance(meta.get("golden_version"), str):
        converted.versions.add(meta["golden_version"])
    epoch = sample.get("epoch")
    trial = epoch if isinstance(epoch, int) and not isinstance(epoch, bool) and epoch >= 1 else 1
    structured = _mapping(sample.get("store")).get(STORE)
    converted.add(
        case_id,
        trial,
        structured if isinstance(structured, dict) else output_text(sample.get("output")),
        latency(sample.get("total_time"), 1000.0),
        patterns,
        error=_error(sample.get("error")),
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def output_text(output: Any) -> str:
    """The text of a model output: its ``completion``, else its first choice's message."""
    if not isinstance(output, dict):
        return ""
    if isinstance(output.get("completion"), str):
        return str(output["completion"])
    choices = output.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _error(error: Any) -> str | None:
    if not error:
        return None
    message = error.get("message") if isinstance(error, dict) else error
    first = str(message).strip().splitlines()[0] if str(message).strip() else ""
    return f"inspect: {first}" if first else "inspect: the sample failed"
