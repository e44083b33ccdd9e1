"""Prompt files: where few-shot examples live, and what they hold.

A prompt file is any file matched by the ``[leakage] fewshot`` globs (default ``prompts/**``).

- A file is decoded by its byte-order mark (UTF-8, UTF-16 or UTF-32, either byte order), as
  UTF-8 without one. Bytes that do not decode (NUL bytes without a byte-order mark included:
  UTF-16 saved without one, or a binary file) are a ``problem`` (GC306), never a reason to
  skip the file.
- YAML (``.yaml``, ``.yml``), JSON (``.json``) and JSON Lines (``.jsonl``, ``.ndjson``) files
  are data: every string value, under any key and at any depth, is a few-shot example, with
  its escapes decoded by the parser (``\u0048ow`` is ``How``). Each example keeps the line
  its value starts on. YAML is read through ``goldcase.loader`` (nodes, each alias once).
- Every file, data or not, is also read as text lines, in which golden questions are searched
  as normalised substrings; a data file's decoded values are searched the same way.
- A file or folder that is a link is followed while it stays inside the repository; one that
  leads outside is a ``problem``, never read.
- A data file that does not parse carries a ``problem`` (line, column, message) and is still
  searched as text.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import ahocorasick
import yaml
from msgspec import Struct

from goldcase.cache import Cache
from goldcase.leakage.textmatch import NormalisedLines, string_values
from goldcase.loader import YamlTooLarge, compose_data, walk_scalars
from goldcase.safeio import Outside, is_named, read_inside, shown_path
from goldcase.text import normalise_input

MAX_PROMPT_BYTES = 64 * 1024 * 1024  # as a corpus document
YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_NAMESPACE = "prompts"


class Example(NamedTuple):  # a tuple: tens of thousands of them pickle fast in the cache
    line: int
    text: str


class PromptFile(Struct, frozen=True):
    path: str  # relative to the repository root, POSIX style
    examples: tuple[Example, ...]
    lines: tuple[str, ...]
    problem: tuple[int, int, str] | None = None

    def numbered(self) -> list[tuple[int, str]]:
        """What golden questions are searched in: the text lines, then each decoded value."""
        lines = list(enumerate(self.lines, start=1))
        return lines + [(e.line, e.text) for e in self.examples]


MIN_LINE_WORDS, MAX_LINE_WORDS = 4, 64  # a text line this long may be an example


class ScannedPrompt(Struct, frozen=True):
    """A prompt file as the leakage check uses it, in plain tuples (it is cached, and tens of
    thousands of small objects would cost more to unpickle than to rebuild)."""

    path: str
    problem: tuple[int, int, str] | None
    example_lines: tuple[int, ...]
    normalised: tuple[str, ...]  # one per example
    text: NormalisedLines
    short_lines: tuple[tuple[str, int], ...]  # text files: (normalised, line) of 4-64 words
    digest: str = ""  # of the file's bytes

    @property
    def examples(self) -> Iterator[tuple[str, int]]:
        """(normalised example, line)."""
        return zip(self.normalised, self.example_lines, strict=True)

    def to_data(self) -> list[Any]:
        """Plain data for the cache."""
        text = self.text
        short = [list(item) for item in self.short_lines]
        problem = None if self.problem is None else list(self.problem)
        lines = list(self.example_lines)
        return [
            self.path,
            problem,
            lines,
            list(self.normalised),
            text.text,
            list(text.starts),
            list(text.numbers),
            short,
            self.digest,
        ]

    @classmethod
    def from_data(cls, value: Any) -> ScannedPrompt | None:
        """Back from ``to_data``; None for anything of another shape."""
        if type(value) is not list or len(value) != 9:
            return None
        path, problem, lines, normalised, text, starts, numbers, short, digest = value
        if not (type(path) is str and type(text) is str and type(digest) is str):
            return None
        if not (_ints(lines) and _ints(starts) and _ints(numbers) and _strs(normalised)):
            return None
        if len(lines) != len(normalised) or len(starts) != len(numbers):
            return None
        if problem is not None and not _problem(problem):
            return None
        if type(short) is not list or not all(_pair(item) for item in short):
            return None
        return cls(
            path,
            None if problem is None else (problem[0], problem[1], problem[2]),
            tuple(lines),
            tuple(normalised),
            NormalisedLines(text, starts, numbers),
            tuple((t, n) for t, n in short),
            digest,
        )


def _ints(value: Any) -> bool:
    return type(value) is list and all(type(v) is int for v in value)


def _strs(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def _problem(value: Any) -> bool:
    return type(value) is list and len(value) == 3 and _ints(value[:2]) and type(value[2]) is str


def _pair(value: Any) -> bool:
    return (
        type(value) is list and len(value) == 2 and type(value[0]) is str and type(value[1]) is int
    )


def load_prompts(
    root: Path, patterns: Iterable[str], cache: Cache, exclude: str | None = None
) -> list[ScannedPrompt]:
    """Every prompt file under ``root`` matched by ``patterns``, except those under the folder
    ``exclude`` (the cases: a broad glob must not make every case its own few-shot example);
    an unchanged file comes from the cache (keyed by its path, its bytes' hash and the code's
    version)."""
    out: list[ScannedPrompt] = []
    skip = exclude.strip("/") + "/" if exclude else None
    for rel in matching_files(root, patterns):
        if skip is not None and rel.startswith(skip):
            continue
        if not is_named(rel):  # no report or cache key can hold the name: said, not read
            problem = (1, 1, "the prompt file's name is not UTF-8, so no report can name it")
            out.append(ScannedPrompt(shown_path(rel), problem, (), (), NormalisedLines.of(()), ()))
            continue
        try:  # inside the repository, never blocking on a FIFO, never reading /dev/zero
            raw = read_inside(root, rel, MAX_PROMPT_BYTES)
        except Outside:
            problem = (
                1,
                1,
                "cannot read the prompt file: a link that leads outside the repository",
            )
            out.append(ScannedPrompt(rel, problem, (), (), NormalisedLines.of(()), ()))
            continue
        except OSError as exc:
            problem = (1, 1, f"cannot read the prompt file: {exc.strerror or exc}")
            out.append(ScannedPrompt(rel, problem, (), (), NormalisedLines.of(()), ()))
            continue
        key = f"{rel}:{_digest(raw)}"
        scanned = ScannedPrompt.from_data(cache.get(_NAMESPACE, key))
        if scanned is None:
            scanned = scan_prompt(rel, raw)
            cache.put(_NAMESPACE, key, scanned.to_data())
        out.append(scanned)
    return out


def scan_prompt(path: str, raw: bytes) -> ScannedPrompt:
    read = read_prompt_file(path, raw)
    normalised = tuple(normalise_input(e.text) for e in read.examples)
    text = NormalisedLines.of_numbered(read.numbered())
    short: tuple[tuple[str, int], ...] = ()
    if not read.examples:
        folded = ((normalise_input(line), n) for n, line in enumerate(read.lines, start=1))
        short = tuple(
            (t, n) for t, n in folded if MIN_LINE_WORDS <= t.count(" ") + 1 <= MAX_LINE_WORDS and t
        )
    lines = tuple(e.line for e in read.examples)
    return ScannedPrompt(path, read.problem, lines, normalised, text, short, _digest(raw))


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class Glob:
    """A ``/``-separated glob: ``**`` spans folders (any number; at the end, at least one
    name), ``*`` and ``?`` stay inside one name, ``[…]`` is a character class (``[!…]`` its
    complement). A path is matched one name at a time, the places the pattern may have reached
    kept as a set, and each name by ``fnmatch``'s translation, which never backtracks: the time
    is the pattern's length times the path's, whatever a branch's config holds. (One regular
    expression for the whole glob backtracked: ``**/**/…`` or ``*a*a*…`` hung every check.)"""

    def __init__(self, pattern: str) -> None:
        parts: list[re.Pattern[str] | None] = []  # None: **
        for part in pattern.strip("/").split("/"):
            if part != "**":
                parts.append(re.compile(fnmatch.translate(part)))
            elif not parts or parts[-1] is not None:  # **/** is **
                parts.append(None)
        self._parts = tuple(parts)

    def match(self, path: str) -> bool:
        parts, end = self._parts, len(self._parts)
        reached = self._skipping({0})
        for name in path.split("/"):
            after: set[int] = set()
            for at in reached:
                if at == end:
                    continue  # the pattern is used up and the path goes on
                part = parts[at]
                if part is None:  # ** takes this name, and may take more
                    after.add(at)
                    if at == end - 1:
                        after.add(end)
                elif part.match(name):
                    after.add(at + 1)
            reached = self._skipping(after)
            if not reached:
                return False
        return end in reached

    def _skipping(self, reached: set[int]) -> set[int]:
        """``reached`` and, past each ``**`` before the last part, the part after it (a ``**``
        may take no folder)."""
        last = len(self._parts) - 1
        return reached | {at + 1 for at in reached if at < last and self._parts[at] is None}


def matching_files(root: Path, patterns: Iterable[str]) -> list[str]:
    """Files under ``root`` matched by any glob, relative POSIX paths, sorted. Hidden files
    and folders (``.git``, ``.goldcase-cache``) are never prompt files."""
    found: set[str] = set()
    for pattern in patterns:
        glob = Glob(pattern)
        base = _literal_prefix(pattern)
        for rel in _walk(root, base):
            if glob.match(rel):
                found.add(rel)
    return sorted(found)


def _literal_prefix(pattern: str) -> str:
    parts = []
    for part in pattern.strip("/").split("/")[:-1]:
        if any(ch in part for ch in "*?["):
            break
        parts.append(part)
    return "/".join(parts)


def _walk(root: Path, base: str) -> Iterator[str]:
    """Files under ``root/base``, following linked folders while they stay inside the
    repository (each real folder once, so a link loop ends)."""
    top = root / base if base else root
    if top.is_file() or (top.is_symlink() and not top.is_dir()):
        yield base
        return
    real_root = os.path.realpath(root)
    real_top = os.path.realpath(top)
    seen: set[str] = set()
    for folder, dirs, files in os.walk(top, followlinks=True):
        real = os.path.realpath(folder)
        inside = real == real_root or real.startswith(real_root + os.sep)
        above = real != real_top and real_top.startswith(real + os.sep)  # a link up: a loop
        if real in seen or not inside or above:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_folder = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel_folder == "." else rel_folder + "/"
        for name in files:
            if not name.startswith("."):
                yield prefix + name


_BOMS = (  # longest first: a UTF-32 LE mark starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decode(raw: bytes) -> tuple[str, tuple[int, int, str] | None]:
    """The text of a prompt file, decoded by its byte-order mark (UTF-8 without one), and
    the problem with it: the text is what decoded before the first bad byte."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            body = raw[len(bom) :]
            try:
                return body.decode(codec), None
            except UnicodeDecodeError as exc:
                text = body[: exc.start].decode(codec, "replace")
                where = f"byte {exc.start + len(bom):,} is not {codec.upper()}"
                return text, (text.count("\n") + 1, 1, f"{where}; save the file as UTF-8")
    nul = raw.find(b"\x00")
    if nul >= 0:
        text = raw[:nul].decode("utf-8", "replace")
        message = (
            "NUL bytes: a binary file, or UTF-16/32 without a byte-order mark; save it as "
            "UTF-8, or keep it out of [leakage] fewshot"
        )
        return text, (text.count("\n") + 1, 1, message)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        text = raw[: exc.start].decode("utf-8")
        message = f"byte 0x{raw[exc.start]:02x} is not UTF-8; save the file as UTF-8"
        return text, (text.count("\n") + 1, 1, message)


def read_prompt_file(path: str, raw: bytes) -> PromptFile:
    """Examples and text lines of one prompt file."""
    text, problem = decode(raw)
    if problem is not None:
        return PromptFile(path, (), tuple(text.split("\n")), problem)
    examples, problem = _examples(path, text)
    return PromptFile(path, tuple(examples), tuple(text.split("\n")), problem)


def _examples(path: str, text: str) -> tuple[list[Example], tuple[int, int, str] | None]:
    lower = path.lower()
    if lower.endswith(YAML_SUFFIXES):
        return _yaml_examples(text)
    if lower.endswith(JSONL_SUFFIXES):
        return _jsonl_examples(text)
    if lower.endswith(JSON_SUFFIXES):
        return _json_examples(text)
    return [], None


def _yaml_examples(text: str) -> tuple[list[Example], tuple[int, int, str] | None]:
    examples: list[Example] = []
    try:
        for node, is_key in walk_scalars(compose_data(text)):
            if not is_key and node.tag == "tag:yaml.org,2002:str":
                examples.append(Example(node.start_mark.line + 1, str(node.value)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return examples, (line, col, f"YAML syntax: {problem}; the file was searched as text only")
    except (RecursionError, YamlTooLarge):
        return examples, (1, 1, "YAML nesting too deep; the file was searched as text only")
    return examples, None


def _jsonl_examples(text: str) -> tuple[list[Example], tuple[int, int, str] | None]:
    examples: list[Example] = []
    problem: tuple[int, int, str] | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:  # ValueError: a number too long to read
            if problem is None:
                col = getattr(exc, "colno", 1)
                problem = (number, col, f"not a JSON line: {_json_error(exc)}")
            continue
        examples.extend(Example(number, item) for item in string_values(value))
    return examples, problem


def _json_examples(text: str) -> tuple[list[Example], tuple[int, int, str] | None]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # ValueError: a number too long to read
        line, col = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
        return [], (line, col, f"JSON syntax: {_json_error(exc)}; searched as text only")
    items = list(string_values(value))
    locate = _Locator(text, items)
    return [Example(locate(item), item) for item in items], None


def _json_error(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    # Python converts an integer of at most 4,300 digits, and says so with a plain ValueError
    return "nesting too deep" if isinstance(exc, RecursionError) else "a number too long to read"


class _Locator:
    """Line of each JSON string value (the json module keeps no positions): the k-th lookup
    of one value finds its k-th occurrence in the text. Every value's encodings are found in
    one Aho-Corasick pass and the line breaks once: a search from the top and a count of the
    lines above for each value took the file's length times its values (an 870 kB list of
    80,000 strings, 30 s; a 64 MiB prompt file, days)."""

    def __init__(self, text: str, values: Iterable[str]) -> None:
        self._next: dict[str, int] = {}
        self._breaks = [m.start() for m in _BREAK.finditer(text)]
        encodings = {e for value in set(values) for e in _encodings(value)}
        self._at: dict[str, list[int]] = {}
        if encodings:
            automaton = ahocorasick.Automaton()
            for encoded in encodings:
                automaton.add_word(encoded, encoded)
            automaton.make_automaton()
            for last, encoded in automaton.iter(text):
                self._at.setdefault(encoded, []).append(last + 1 - len(encoded))

    def __call__(self, value: str) -> int:
        start = self._next.get(value, 0)
        for encoded in _encodings(value):
            starts = self._at.get(encoded, [])
            # the first occurrence from ``start`` on, as ``text.find(encoded, start)``
            i = bisect_left(starts, start)
            if i < len(starts):
                at = starts[i]
                self._next[value] = at + len(encoded)
                return bisect_left(self._breaks, at) + 1
        return 1


_BREAK = re.compile("\n")


def _encodings(value: str) -> tuple[str, str]:
    return json.dumps(value, ensure_ascii=False), json.dumps(value)
