"""Reading a production trace log: JSON Lines, one trace a line, read as hostile input.

A trace is a JSON object with at least a question; the fields goldcase reads, and their
default names (``[triage.fields]`` in the config maps them to a log's own names, a dotted path
reaching into nested objects):

| field | meaning |
|---|---|
| ``question`` | what the user asked (required, text) |
| ``answer`` | what production answered (text or null) |
| ``time`` | when: ISO 8601 text, or Unix seconds |
| ``failed_check`` | the answer failed an automatic check (true / false) |
| ``cap_hit`` | the task ended on a cap: tokens, tool calls, time (true / false) |
| ``thumbs_down`` | the user marked the answer as bad (true / false) |
| ``id`` | the trace's own id (text or a number) |

Every other field is ignored. The file is read as a stream through the guarded opener (never
blocking on a FIFO, at most ``MAX_FILE`` bytes, one line in memory at a time). A line longer
than ``MAX_LINE`` bytes, not UTF-8, not a JSON object, without a question or with a field of
the wrong type is a bad line: reported with its number and the reason, never a traceback, and
the rest of the file is read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from msgspec import Struct, field

from goldcase.moments import Moment, trace_moment
from goldcase.safeio import TooLarge, named, open_regular
from goldcase.text import HALF_SURROGATE, HALF_SURROGATE_ESCAPE, clip, half_surrogate

MAX_FILE = 1 << 30  # 1 GiB: a week of traces filtered to what triage needs is far less
MAX_LINE = 1 << 20  # 1 MiB: a question and an answer, with room for what else a trace holds
MAX_QUESTION = 10_000  # characters: longer is a document pasted in, not a question to label
FLAGS = ("failed_check", "cap_hit", "thumbs_down")  # three of config.TRACE_FIELDS
_DECODER = json.JSONDecoder()


class Trace(Struct, frozen=True):
    line: int
    key: str  # the trace's own id, else a hash of its line: names its draft
    own_id: str | None
    question: str
    answer: str | None
    asked: Moment | None
    flags: tuple[str, ...]  # the FLAGS that are set, in that order

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


class BadLine(Struct, frozen=True):
    line: int
    reason: str


MAX_BAD_KEPT = 1_000  # bad lines kept with their reasons; the rest are counted


class TraceLog(Struct):
    """What one pass over the log found: counts, and the first ``MAX_BAD_KEPT`` bad lines
    (a log of two million broken lines must not be held as two million reasons)."""

    shown: str  # the file as named on the command line
    lines: int = 0  # non-blank lines
    traces: int = 0  # good ones
    flagged: int = 0
    bad: list[BadLine] = field(default_factory=list)
    bad_lines: int = 0  # all of them, kept or not


class LogFile:
    """A trace log read as a stream, never whole: each pass (``scan``) reads it line by line
    through the guarded opener, and a trace is read again by its offset (``at``). Memory is
    one line at a time, whatever the log's size."""

    def __init__(self, path: Path, shown: str, names: Mapping[str, str]) -> None:
        self.path, self.shown, self.names = path, shown, dict(names)
        self._reader: BinaryIO | None = None  # for ``at``: opened once, not once a trace

    def __enter__(self) -> LogFile:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def survey(self) -> TraceLog:
        """One pass: the counts and the first bad lines."""
        log = TraceLog(self.shown)
        for _, _, item in self._items():
            log.lines += 1
            if isinstance(item, BadLine):
                log.bad_lines += 1
                if len(log.bad) < MAX_BAD_KEPT:
                    log.bad.append(item)
            else:
                log.traces += 1
                log.flagged += item.flagged
        return log

    def scan(self) -> Iterator[tuple[int, Trace]]:
        """(offset of its line, trace) of every good line, in file order."""
        for offset, _, item in self._items():
            if isinstance(item, Trace):
                yield offset, item

    def at(self, offset: int, number: int) -> Trace | None:
        """The trace on the line at ``offset`` (line ``number``); None when it is no longer one
        (the file changed between passes)."""
        with named(self.shown, WHAT):
            if self._reader is None:
                self._reader = open_regular(self.path)
            self._reader.seek(offset)
            line, _ = _read_line(self._reader)
        try:
            return _trace(number, line, self.names)
        except _Bad:
            return None

    def _items(self) -> Iterator[tuple[int, int, Trace | BadLine]]:
        for offset, number, line in _stream_lines(self.path, self.shown):
            try:
                yield offset, number, _trace(number, line, self.names)
            except _Bad as bad:
                yield offset, number, BadLine(number, bad.reason)


WHAT = "the trace log (JSON Lines)"


def read_traces(path: Path, shown: str, names: Mapping[str, str]) -> tuple[TraceLog, list[Trace]]:
    """The whole log as a list: for a log known to be small (a test's, a fixture's)."""
    source = LogFile(path, shown, names)
    return source.survey(), [trace for _, trace in source.scan()]


def _stream_lines(path: Path, shown: str) -> Iterator[tuple[int, int, bytes | None]]:
    """(offset, line number, bytes) of each non-blank line, None for one over ``MAX_LINE``;
    at most ``MAX_FILE`` bytes are read, one line at a time."""
    with named(shown, WHAT):
        stream = open_regular(path)
        with stream:
            size = os.fstat(stream.fileno()).st_size
            if size > MAX_FILE:
                raise TooLarge(size, MAX_FILE, str(path))
            yield from _numbered(stream)


def _numbered(stream: BinaryIO) -> Iterator[tuple[int, int, bytes | None]]:
    offset, number = 0, 0
    if stream.read(3) == b"\xef\xbb\xbf":
        offset = 3
    stream.seek(offset)
    while offset < MAX_FILE:
        line, used = _read_line(stream)
        if not used:
            return
        number += 1
        if line is None or line.strip():
            yield offset, number, line
        offset += used


def _read_line(stream: BinaryIO) -> tuple[bytes | None, int]:
    """The next line without its newline (None when over ``MAX_LINE``: the rest of it is read
    past in pieces, never held) and the bytes it took."""
    data = stream.readline(MAX_LINE + 1)
    used = len(data)
    if data.endswith(b"\n"):
        return data[:-1], used
    if len(data) <= MAX_LINE:
        return data, used  # the last line, without a newline
    while data and not data.endswith(b"\n"):
        data = stream.readline(1 << 16)
        used += len(data)
    return None, used


class _Bad(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _trace(number: int, line: bytes | None, names: Mapping[str, str]) -> Trace:
    data = _object(line)
    question = _question(data, names["question"])
    own_id = _own_id(data, names["id"])
    return Trace(
        line=number,
        key=own_id if own_id is not None else hashlib.sha256(line or b"").hexdigest(),
        own_id=own_id,
        question=question,
        answer=_answer(data, names["answer"]),
        asked=_time(data, names["time"]),
        flags=tuple(flag for flag in FLAGS if _flag(data, names[flag], flag)),
    )


def _object(line: bytes | None) -> dict[str, Any]:
    if line is None:
        raise _Bad(f"longer than {MAX_LINE:,} bytes; a trace line this long is not read")
    try:
        text = line.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError as exc:
        raise _Bad(f"not UTF-8 (byte {exc.start + 1})") from None
    try:
        data = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise _Bad(f"not JSON: {exc.msg} (column {exc.colno})") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise _Bad(f"not JSON: {clip(str(exc), 80)}") from None
    except RecursionError:
        raise _Bad("not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise _Bad(f"a trace is a JSON object, got {_kind(data)}")
    if HALF_SURROGATE_ESCAPE.search(line) and half_surrogate(data):
        raise _Bad(HALF_SURROGATE)
    return data


def value_at(data: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path (``inputs.question``); None when any step is missing."""
    value: Any = data
    for step in dotted.split("."):
        if not isinstance(value, dict) or step not in value:
            return None
        value = value[step]
    return value


def _question(data: dict[str, Any], name: str) -> str:
    value = value_at(data, name)
    if value is None:
        raise _Bad(f"no question (field {name!r}); map the log's own name in [triage.fields]")
    if not isinstance(value, str):
        raise _Bad(f"question (field {name!r}) should be text, got {_kind(value)}")
    if not value.strip():
        raise _Bad(f"question (field {name!r}) is blank")
    if len(value) > MAX_QUESTION:
        raise _Bad(f"question is {len(value):,} characters; at most {MAX_QUESTION:,} are read")
    return value.strip()


def _answer(data: dict[str, Any], name: str) -> str | None:
    value = value_at(data, name)
    if value is None or isinstance(value, str):
        return value
    raise _Bad(f"answer (field {name!r}) should be text or null, got {_kind(value)}")


def _time(data: dict[str, Any], name: str) -> Moment | None:
    value = value_at(data, name)
    if value is None:
        return None
    moment = trace_moment(value)
    if moment is None:
        raise _Bad(
            f"time (field {name!r}) {clip(repr(value), 40)} is not an ISO 8601 time or Unix seconds"
        )
    return moment


def _flag(data: dict[str, Any], name: str, flag: str) -> bool:
    value = value_at(data, name)
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise _Bad(f"{flag} (field {name!r}) should be true or false, got {clip(repr(value), 40)}")


def _own_id(data: dict[str, Any], name: str) -> str | None:
    value = value_at(data, name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Bad(f"id (field {name!r}) should be text or a number, got {_kind(value)}")
    text = str(value)
    if not text.strip() or len(text) > 200:
        raise _Bad(f"id (field {name!r}) should be 1 to 200 characters")
    return text


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true or false"}.get(
        type(value), "a number" if isinstance(value, int | float) else "null"
    )
