"""Contamination: golden questions and answers inside arbitrary text (training or fine-tuning
data), by word n-gram overlap, as lm-evaluation-harness decontaminates (n = 13 by default).

The unit of text is a record: one line of a plain-text file, or one line of a JSON Lines file
(``.jsonl``, ``.ndjson``), whose string values are read and joined (escapes decoded; a line that
is not JSON is read as text). Records are normalised with ``normalise_input``.

- A golden question of ``n`` words or more is found in a record holding any of its word
  n-grams; the hit says how many of its n-grams the record holds. A shorter question is
  found when the record holds all of it, on word boundaries; questions under ``MIN_WORDS``
  words are not searched (they match everywhere).
- An expected answer of ``n`` words or more is searched the same way. A shorter answer (most
  are: a figure, a date, a name) means nothing alone, so it is reported only inside a record
  that also holds its question: the case leaked with its label.

The core is ``scan_range``: one file, or the records that start inside one byte range of it,
to a sorted list of hits. Ranges that cover a file without overlap give, merged and sorted,
the same hits as the whole file, bit for bit, so the scan can be spread over processes or
machines. Memory is bounded by the index and the longest record, not the file's size.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from msgspec import Struct
from msgspec.structs import asdict

from goldcase.leakage.leadgrams import LeadGrams
from goldcase.leakage.textmatch import PhraseIndex, string_values
from goldcase.model import Case
from goldcase.safeio import bounded_lines
from goldcase.text import normalise_input

MIN_WORDS = 4
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_CHUNK = 1 << 20
Progress = Callable[[int], None]


class Hit(Struct, frozen=True, order=True):
    case: str  # golden case id
    part: str  # "question" or "answer"
    path: str  # the file as named to the scan
    line: int  # 1-based line of the record
    offset: int  # byte offset of the record's first byte
    matched: int  # n-grams of the part found in the record (1 of 1 for a whole match)
    total: int  # n-grams of the part (1 for a whole match)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Part(Struct, frozen=True):
    case: str
    part: str
    total: int


class GramIndex(Struct, frozen=True):
    """What a scan looks for: built once, then shared by every range; it pickles (the
    Aho-Corasick automaton included), so it can be broadcast to workers."""

    n: int
    parts: tuple[_Part, ...]
    phrases: PhraseIndex[tuple[int, int]]  # phrase -> (part index, n-gram index)
    leads: LeadGrams  # the same phrases, to pick the lines of a block that may hold one
    short_answers: dict[str, str]  # case id -> normalised answer shorter than n words
    case_ids: tuple[str, ...]

    @classmethod
    def build(cls, cases: Iterable[Case], n: int = 13) -> GramIndex:
        parts: list[_Part] = []
        phrases: list[tuple[str, tuple[int, int]]] = []
        short: dict[str, str] = {}
        ids: list[str] = []
        for case in cases:
            ids.append(case.id)
            for part, text in (("question", case.question), ("answer", case.expected_answer)):
                words = normalise_input(text or "").split()
                if part == "answer" and 0 < len(words) < n:
                    short[case.id] = " ".join(words)
                    continue
                grams = _phrases(words, n)
                if grams:
                    phrases.extend((g, (len(parts), k)) for k, g in enumerate(grams))
                    parts.append(_Part(case.id, part, len(grams)))
        index = PhraseIndex(phrases)
        leads = LeadGrams(phrase for phrase, _ in phrases)
        return cls(n, tuple(parts), index, leads, short, tuple(ids))


def _phrases(words: list[str], n: int) -> list[str]:
    if len(words) >= n:
        return [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    return [" ".join(words)] if len(words) >= MIN_WORDS else []


def record_text(raw: bytes, jsonl: bool) -> str:
    """The text of one record: a JSON line's string values, or the line itself."""
    line = raw.decode("utf-8", "replace")
    if jsonl and line.lstrip().startswith(("{", "[", '"')):
        try:
            return "\n".join(string_values(json.loads(line)))
        except (ValueError, RecursionError):
            pass
    return line


def scan_record(index: GramIndex, text: str) -> dict[int, set[int]]:
    """Part index -> the n-gram indices of that part found in one record's text."""
    found: dict[int, set[int]] = {}
    for _start, _end, values in index.phrases.find(normalise_input(text)):
        for part, gram in values:
            found.setdefault(part, set()).add(gram)
    return found


def _hits(
    index: GramIndex, found: dict[int, set[int]], text: str, where: tuple[str, int, int]
) -> Iterator[Hit]:
    path, line, offset = where
    questions = set()
    for part_index, grams in found.items():
        part = index.parts[part_index]
        if part.part == "question":
            questions.add(part.case)
        yield Hit(part.case, part.part, path, line, offset, len(grams), part.total)
    for case in sorted(questions):
        answer = index.short_answers.get(case)
        if answer is not None and f" {answer} " in f" {normalise_input(text)} ":
            yield Hit(case, "answer", path, line, offset, 1, 1)


def scan_range(
    index: GramIndex,
    path: Path,
    start: int = 0,
    end: int | None = None,
    *,
    name: str | None = None,
    progress: Progress | None = None,
) -> list[Hit]:
    """Hits in the records of ``path`` that start at a byte in ``[start, end)``, sorted.
    ``name`` is how hits name the file (default: ``path`` as given)."""
    shown = name if name is not None else str(path)
    jsonl = path.name.lower().endswith(JSONL_SUFFIXES)
    out: list[Hit] = []
    with path.open("rb") as fh:
        offset, line = _seek_record(fh, start)
        reported = offset
        for raw in bounded_lines(fh, shown, first=line, offset=offset):
            if end is not None and offset >= end:
                break
            text = record_text(raw, jsonl)
            found = scan_record(index, text)
            if found:
                out.extend(_hits(index, found, text, (shown, line, offset)))
            offset += len(raw)
            line += 1
            if progress is not None and offset - reported >= _CHUNK:
                progress(offset - reported)
                reported = offset
        if progress is not None and offset > reported:
            progress(offset - reported)
    return sorted(out)


def _seek_record(fh: BinaryIO, start: int) -> tuple[int, int]:
    """Move to the first record starting at or after ``start``: (its offset, its line)."""
    if start <= 0:
        return 0, 1
    fh.seek(start - 1)
    while True:  # the rest of the record that byte start - 1 belongs to, a piece at a time
        rest = fh.readline(_CHUNK)
        if not rest or rest.endswith(b"\n"):
            break
    first = fh.tell()
    fh.seek(0)
    lines, done = 1, 0
    while done < first:
        chunk = fh.read(min(_CHUNK, first - done))
        if not chunk:
            break
        lines += chunk.count(b"\n")
        done += len(chunk)
    fh.seek(first)
    return first, lines


def scan_file(
    index: GramIndex, path: Path, *, name: str | None = None, progress: Progress | None = None
) -> list[Hit]:
    return scan_range(index, path, 0, None, name=name, progress=progress)


def merge(parts: Iterable[Sequence[Hit]]) -> list[Hit]:
    """One sorted list from the hits of several ranges or files."""
    return sorted(hit for hits in parts for hit in hits)


class Report(Struct, frozen=True):
    n: int
    cases: int  # golden cases searched for
    files: tuple[str, ...]
    bytes: int
    hits: tuple[Hit, ...]

    @property
    def contaminated(self) -> list[str]:
        return sorted({hit.case for hit in self.hits})

    def as_dict(self) -> dict[str, Any]:
        return {
            "ngram": self.n,
            "cases": self.cases,
            "files": list(self.files),
            "bytes": self.bytes,
            "contaminated": self.contaminated,
            "hits": [hit.as_dict() for hit in self.hits],
        }


def scan_paths(index: GramIndex, paths: Sequence[Path], progress: Progress | None = None) -> Report:
    """Scan every file in turn (names as given) into one report."""
    hits: list[list[Hit]] = []
    total = 0
    for path in paths:
        hits.append(scan_file(index, path, progress=progress))
        total += path.stat().st_size
    return Report(
        index.n, len(index.case_ids), tuple(str(p) for p in paths), total, tuple(merge(hits))
    )


def throughput(index: GramIndex, path: Path) -> float:
    """MB/s of one single-process scan of ``path`` (for scripts/bench.py)."""
    began = time.perf_counter()
    scan_file(index, path)
    return path.stat().st_size / 1e6 / (time.perf_counter() - began)
