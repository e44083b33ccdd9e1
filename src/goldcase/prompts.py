"""Prompt files: where few-shot examples live, and what they hold.

A prompt file is any file matched by the ``[leakage] fewshot`` globs (default ``prompts/**``).

- YAML (``.yaml``, ``.yml``), JSON (``.json``) and JSON Lines (``.jsonl``, ``.ndjson``) files
  are data: every string under a ``question``, ``input`` or ``user`` key, at any depth, is a
  few-shot example, and so is the ``content`` of a chat message whose ``role`` is ``user``
  (the OpenAI and Inspect chat shapes). Each example keeps the line its value starts on.
- Every file, data or not, is also read as text lines, in which golden questions are searched
  as normalised substrings.
- A file with a NUL byte in its first 8 KiB is binary and skipped. A file that is not UTF-8,
  or a data file that does not parse, carries a ``problem`` (line, column, message) and is
  still searched as text as far as it could be decoded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from goldcase.cache import Cache
from goldcase.safeio import read_regular
from goldcase.text import normalise_input
from goldcase.textmatch import NormalisedLines

FIELDS = frozenset({"question", "input", "user"})
YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_NAMESPACE = "prompts"


class Example(NamedTuple):  # a tuple: tens of thousands of them pickle fast in the cache
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class PromptFile:
    path: str  # relative to the repository root, POSIX style
    examples: tuple[Example, ...]
    lines: tuple[str, ...]
    problem: tuple[int, int, str] | None = None


MIN_LINE_WORDS, MAX_LINE_WORDS = 4, 64  # a text line this long may be an example


@dataclass(frozen=True, slots=True)
class ScannedPrompt:
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
        try:
            raw = read_regular(root / rel)  # never blocks on a FIFO, never reads /dev/zero
        except OSError as exc:
            problem = (1, 1, f"cannot read the prompt file: {exc.strerror or exc}")
            out.append(ScannedPrompt(rel, problem, (), (), NormalisedLines.of(()), ()))
            continue
        key = f"{rel}:{_digest(raw)}"
        stored = cache.get(_NAMESPACE, key)
        if stored is False:
            continue  # a binary file, as last time
        scanned = ScannedPrompt.from_data(stored) if stored is not None else None
        if scanned is None:
            scanned = scan_prompt(rel, raw)
            cache.put(_NAMESPACE, key, scanned.to_data() if scanned is not None else False)
        if scanned is not None:
            out.append(scanned)
    return out


def scan_prompt(path: str, raw: bytes) -> ScannedPrompt | None:
    read = read_prompt_file(path, raw)
    if read is None:
        return None
    normalised = tuple(normalise_input(e.text) for e in read.examples)
    text = NormalisedLines.of(read.lines)
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


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A ``/``-separated glob as a regex: ``**`` spans folders, ``*`` and ``?`` stay inside
    one name, ``[…]`` is a character class."""
    out: list[str] = []
    parts = pattern.strip("/").split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        out.append(_segment(part) + ("" if last else "/"))
    return re.compile("".join(out) + r"\Z")


def _segment(part: str) -> str:
    out, i = [], 0
    while i < len(part):
        ch = part[i]
        close = part.find("]", i + 2) if ch == "[" else -1
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif close > 0:
            body = part[i + 1 : close].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def matching_files(root: Path, patterns: Iterable[str]) -> list[str]:
    """Files under ``root`` matched by any glob, relative POSIX paths, sorted. Hidden files
    and folders (``.git``, ``.goldcase-cache``) are never prompt files."""
    found: set[str] = set()
    for pattern in patterns:
        regex = glob_regex(pattern)
        base = _literal_prefix(pattern)
        for rel in _walk(root, base):
            if regex.match(rel):
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
    top = root / base if base else root
    if top.is_file():
        yield base
        return
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_folder = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel_folder == "." else rel_folder + "/"
        for name in files:
            if not name.startswith("."):
                yield prefix + name


def read_prompt_file(path: str, raw: bytes) -> PromptFile | None:
    """Examples and text lines of one prompt file; None for a binary file."""
    if b"\x00" in raw[:8192]:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        text = raw[: exc.start].decode("utf-8")
        message = f"byte 0x{raw[exc.start]:02x} is not UTF-8; save the file as UTF-8"
        return PromptFile(path, (), tuple(text.split("\n")), (line, 1, message))
    text = text.removeprefix("\ufeff")
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
        for node in yaml.compose_all(text, Loader=yaml.CSafeLoader):
            if node is not None:
                examples.extend(_node_examples(node))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return examples, (line, col, f"YAML syntax: {problem}; the file was searched as text only")
    except RecursionError:
        return examples, (1, 1, "YAML nesting too deep; the file was searched as text only")
    return examples, None


def _node_examples(root: yaml.Node) -> Iterator[Example]:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            role = _scalar_of(node, "role")
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else None
                wanted = name in FIELDS or (name == "content" and role == "user")
                if wanted and isinstance(value, yaml.ScalarNode):
                    yield Example(value.start_mark.line + 1, str(value.value))
                else:
                    stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))


def _scalar_of(node: yaml.MappingNode, name: str) -> str | None:
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == name:
            return str(value.value) if isinstance(value, yaml.ScalarNode) else None
    return None


def _jsonl_examples(text: str) -> tuple[list[Example], tuple[int, int, str] | None]:
    examples: list[Example] = []
    problem: tuple[int, int, str] | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            if problem is None:
                col = getattr(exc, "colno", 1)
                problem = (number, col, f"not a JSON line: {_json_error(exc)}")
            continue
        examples.extend(Example(number, item) for item in _value_examples(value))
    return examples, problem


def _json_examples(text: str) -> tuple[list[Example], tuple[int, int, str] | None]:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        line, col = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
        return [], (line, col, f"JSON syntax: {_json_error(exc)}; searched as text only")
    locate = _Locator(text)
    return [Example(locate(item), item) for item in _value_examples(value)], None


def _json_error(exc: Exception) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else "nesting too deep"


def _value_examples(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            role = item.get("role")
            for key, child in item.items():
                wanted = key in FIELDS or (key == "content" and role == "user")
                if wanted and isinstance(child, str):
                    yield child
                else:
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(reversed(item))


class _Locator:
    """Line of each JSON string value (the json module keeps no positions): the k-th lookup
    of one value finds its k-th occurrence in the text."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._next: dict[str, int] = {}

    def __call__(self, value: str) -> int:
        start = self._next.get(value, 0)
        for encoded in (json.dumps(value, ensure_ascii=False), json.dumps(value)):
            at = self._text.find(encoded, start)
            if at >= 0:
                self._next[value] = at + len(encoded)
                return self._text.count("\n", 0, at) + 1
        return 1
