"""A zip archive's index (its central directory), bounded before ``zipfile`` reads it.

``zipfile.ZipFile`` reads the whole central directory, one object an entry, as it opens an
archive: a 94 MB file whose index lists two million entries took 763 MB before anyone could
count them. ``check_index`` reads what the archive's end record says (the ZIP64 one when
present, found where ``zipfile`` finds it): the number of entries and the index's size, and
refuses either over its bound. It then walks the index, holding one entry header at a time,
and refuses an index holding more entries than its end record said, so that the count
``zipfile`` will build is the one checked.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import BinaryIO

from goldcase.errors import GoldcaseError

# signature, disk, index's disk, entries on this disk, entries, index size, index offset, comment
_END = struct.Struct("<4s4H2LH")
_END_SIGNATURE = b"PK\x05\x06"
_LOCATOR = struct.Struct("<4sLQL")  # signature, disk, the ZIP64 end record's offset, disks
_LOCATOR_SIGNATURE = b"PK\x06\x07"
# signature, record size, versions, disk, index's disk, entries on this disk, entries, size, offset
_END64 = struct.Struct("<4sQ2H2L4Q")
_END64_SIGNATURE = b"PK\x06\x06"
_ENTRY = struct.Struct("<4s24xHHH12x")  # signature, (…), name, extra and comment lengths
_ENTRY_SIGNATURE = b"PK\x01\x02"
_MAX_COMMENT = 0xFFFF


@dataclass(frozen=True)
class Index:
    entries: int  # as the end record says
    size: int  # bytes of the central directory
    start: int  # where it starts, as zipfile computes it


def check_index(
    fh: BinaryIO, shown: str, what: str, *, max_entries: int, max_size: int, fix: str
) -> None:
    """Refuse the archive open in ``fh`` when its index lists more than ``max_entries``
    entries or is larger than ``max_size`` bytes (``fix``: what to do instead), or, as not
    ``what``, when its end record is missing or wrong; reads at most 64 KiB and one entry
    header at a time."""
    index = _end_record(fh, f"{shown}: not {what}")
    if index.entries > max_entries:
        raise GoldcaseError(
            f"{shown}: its zip index lists {index.entries:,} entries, more than the "
            f"{max_entries:,} goldcase reads; {fix}"
        )
    if index.size > max_size:
        raise GoldcaseError(
            f"{shown}: its zip index is {index.size:,} bytes, more than the {max_size:,} "
            f"goldcase reads; {fix}"
        )
    _walk(fh, index, f"{shown}: not {what}")


def _damaged(shown: str, why: str) -> GoldcaseError:
    return GoldcaseError(f"{shown}: a damaged zip archive: {why}; write the log again")


def _end_record(fh: BinaryIO, shown: str) -> Index:
    """The end record as ``zipfile`` finds it: the last 22 bytes when they are one without a
    comment, else the last signature in the last 64 KiB."""
    size = fh.seek(0, 2)
    tail_start = max(size - _END.size - _MAX_COMMENT - 1, 0)
    fh.seek(tail_start)
    tail = fh.read()
    last = tail[-_END.size :]
    at = len(tail) - _END.size
    if not (last[:4] == _END_SIGNATURE and last[-2:] == b"\0\0"):
        at = tail.rfind(_END_SIGNATURE)
    if at < 0 or len(tail) - at < _END.size:
        raise _damaged(shown, "no end of central directory record")
    record = _END.unpack_from(tail, at)
    location = tail_start + at
    zip64 = _end_record64(fh, location, shown)
    if zip64 is not None:
        return zip64
    return Index(record[4], record[5], location - record[5])


def _end_record64(fh: BinaryIO, location: int, shown: str) -> Index | None:
    """The ZIP64 end record just before the locator just before the end record, where
    ``zipfile`` reads it; None when there is none."""
    start = location - _LOCATOR.size - _END64.size
    if start < 0:
        return None
    fh.seek(start)
    data = fh.read(_END64.size + _LOCATOR.size)
    locator = _LOCATOR.unpack_from(data, _END64.size)
    if locator[0] != _LOCATOR_SIGNATURE:
        return None
    if locator[1] != 0 or locator[3] > 1:
        raise _damaged(shown, "it spans several disks")
    record = _END64.unpack_from(data)
    if record[0] != _END64_SIGNATURE:
        return None
    return Index(record[7], record[8], start - record[8])


def _walk(fh: BinaryIO, index: Index, shown: str) -> None:
    """Count the index's entries as ``zipfile`` will read them, one header at a time."""
    if index.start < 0:
        raise _damaged(shown, "its index would start before the file does")
    fh.seek(index.start)
    seen = total = 0
    while total < index.size:
        head = fh.read(_ENTRY.size)
        if len(head) != _ENTRY.size or head[:4] != _ENTRY_SIGNATURE:
            raise _damaged(shown, f"entry {seen + 1:,} of its index is cut or not an entry")
        seen += 1
        if seen > index.entries:
            listed = f"{index.entries:,}"
            raise _damaged(shown, f"its index holds more entries than the {listed} it lists")
        _, name, extra, comment = _ENTRY.unpack(head)
        fh.seek(name + extra + comment, 1)
        total += _ENTRY.size + name + extra + comment
