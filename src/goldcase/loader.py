"""The one place YAML is read.

Case files are parsed with libyaml (PyYAML's C parser) on the fast path. Constructs that are
legal YAML but dangerous in a reviewed data file (duplicate keys, anchors and aliases, custom
tags, several documents) are refused. Line and column for a finding come from a second,
round-trip read with ruamel.yaml, done only for a file that has a finding.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import yaml

from goldcase.model import Finding

MAX_CASE_BYTES = 1024 * 1024  # a case is a few hundred bytes; anything this large is a mistake

_BOMS = {
    b"\xef\xbb\xbf": "a UTF-8 byte-order mark",
    b"\xff\xfe": "a UTF-16 byte-order mark",
    b"\xfe\xff": "a UTF-16 byte-order mark",
}
_CONFLICT = re.compile(rb"^(<{7}|={7}|>{7}|\|{7})(?: |$)", re.MULTILINE)
# Bytes without which an anchor, alias, tag or second document cannot be written.
_RISKY = (b"&", b"*", b"!", b"---", b"...")


class _Refused(Exception):
    def __init__(self, code: str, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.code, self.message, self.line, self.col = code, message, line, col


class _StrictLoader(yaml.CSafeLoader):
    """libyaml's safe loader that refuses duplicate keys and aliases as it constructs."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects:
            mark = node.start_mark
            raise _Refused(
                "GC103",
                "alias to an anchored node; write the value out in full",
                mark.line + 1,
                mark.column + 1,
            )
        return super().construct_object(node, deep=deep)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Hashable] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):  # "? {a: 1}": legal, never a case
                mark = key_node.start_mark
                raise _Refused(
                    "GC107",
                    "a key that is itself a mapping or a list; keys are plain names",
                    mark.line + 1,
                    mark.column + 1,
                )
            key = key_node.value
            if key in seen:
                mark = key_node.start_mark
                raise _Refused(
                    "GC102", f"duplicate key {key!r}; keep one", mark.line + 1, mark.column + 1
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def parse_case(path: str, raw: bytes) -> tuple[dict[str, Any] | None, list[Finding]]:
    """Parse one case file's bytes: the mapping (or None) and the file-level findings."""
    problem = _byte_problem(raw)
    if problem is not None:
        code, message, line, col = problem
        return None, [Finding(path, line, col, code, "error", message)]
    text = raw.decode("utf-8")
    try:
        if any(token in raw for token in _RISKY):
            _scan_events(text)
        data = yaml.load(text, Loader=_StrictLoader)
    except _Refused as exc:
        return None, [Finding(path, exc.line, exc.col, exc.code, "error", exc.message)]
    except yaml.YAMLError as exc:
        return None, [_syntax_finding(path, exc)]
    except RecursionError:
        return None, [Finding(path, 1, 1, "GC101", "error", "nesting too deep to be a case")]
    if data is None:
        return None, [
            Finding(
                path, 1, 1, "GC110", "error", "empty case file; write a case or delete the file"
            )
        ]
    return data, []


def _byte_problem(raw: bytes) -> tuple[str, str, int, int] | None:
    if len(raw) > MAX_CASE_BYTES:
        return (
            "GC112",
            f"file is {len(raw):,} bytes; a case file may be at most {MAX_CASE_BYTES:,}",
            1,
            1,
        )
    for bom, name in _BOMS.items():
        if raw.startswith(bom):
            return "GC106", f"file starts with {name}; save it as UTF-8 without a BOM", 1, 1
    nul = raw.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(raw, nul)
        return "GC106", "NUL byte: this is a binary file, not a YAML case", line, col
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(raw, exc.start)
        return (
            "GC106",
            f"byte 0x{raw[exc.start]:02x} is not UTF-8; save the file as UTF-8",
            line,
            col,
        )
    conflict = _CONFLICT.search(raw)
    if conflict is not None:
        line, col = _line_col(raw, conflict.start())
        return (
            "GC111",
            "merge-conflict marker; resolve the conflict and keep one version",
            line,
            col,
        )
    if not raw.strip():
        return "GC110", "empty case file; write a case or delete the file", 1, 1
    return None


def _line_col(raw: bytes, offset: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    start = raw.rfind(b"\n", 0, offset) + 1
    return line, len(raw[start:offset].decode("utf-8", "replace")) + 1


def _scan_events(text: str) -> None:
    """Walk libyaml's events for anchors, aliases, custom tags and extra documents."""
    documents = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        mark = event.start_mark
        where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise _Refused(
                    "GC105", "more than one YAML document; a case file holds one", *where
                )
        elif isinstance(event, yaml.AliasEvent):
            raise _Refused("GC103", f"alias *{event.anchor}; write the value out in full", *where)
        elif isinstance(event, yaml.NodeEvent) and event.anchor is not None:
            raise _Refused(
                "GC103",
                f"anchor &{event.anchor}; anchors and aliases are not allowed in a case file",
                *where,
            )
        if isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
            tag = event.tag
            if tag is not None and tag != "!" and not tag.startswith("tag:yaml.org,2002:"):
                raise _Refused("GC104", f"custom tag {tag}; plain values only", *where)


def _syntax_finding(path: str, exc: yaml.YAMLError) -> Finding:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    text = f"{context}, {problem}" if context else str(problem)
    if "expected a single document" in text:
        return Finding(
            path, line, col, "GC105", "error", "more than one YAML document; a case file holds one"
        )
    if "could not determine a constructor" in text:
        return Finding(path, line, col, "GC104", "error", "custom tag; plain values only")
    return Finding(path, line, col, "GC101", "error", f"YAML syntax: {text}")


class Locator:
    """Line and column of keys and values, from one round-trip read of a file with a finding."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw
        self._root: Any = None
        self._loaded = False

    def _load(self) -> Any:
        if not self._loaded:
            self._loaded = True
            from ruamel.yaml import YAML  # only a file with a finding pays for this parser

            try:
                self._root = YAML(typ="rt", pure=True).load(self._raw.decode("utf-8"))
            except Exception:  # the file parsed once already; a second opinion must not crash
                self._root = None
        return self._root

    def key(self, key_path: Sequence[str | int]) -> tuple[int, int]:
        """Where the key (or sequence item) at ``key_path`` starts; 1:1 for the whole file."""
        return self._find(key_path, value=False)

    def value(self, key_path: Sequence[str | int]) -> tuple[int, int]:
        """Where the value at ``key_path`` starts."""
        return self._find(key_path, value=True)

    def _find(self, key_path: Sequence[str | int], *, value: bool) -> tuple[int, int]:
        node = self._load()
        line, col = 0, 0
        last = len(key_path) - 1
        for i, step in enumerate(key_path):
            lc = getattr(node, "lc", None)
            try:
                child = node[step]
            except (KeyError, IndexError, TypeError):
                break
            if lc is not None:
                try:
                    if isinstance(step, int):
                        line, col = lc.item(step)
                    elif value and i == last:
                        line, col = lc.value(step)
                    else:
                        line, col = lc.key(step)
                except (KeyError, IndexError, TypeError):
                    break
            node = child
        return line + 1, col + 1


# Data YAML other than case files (prompt files, imported configs): aliases are legal there,
# so a file is read as a node graph and walked with a budget instead of being refused.
MAX_VALUES = 1_000_000  # values one file may expand to; a string counts 1 per 100 characters
MAX_DEPTH = 500  # nesting a file may have


class YamlTooLarge(Exception):
    """A YAML file that expands past ``MAX_VALUES`` or nests past ``MAX_DEPTH``."""


def compose_data(text: str) -> list[yaml.Node]:
    """Every document of ``text`` as PyYAML nodes (libyaml's safe composer: no object is
    built, and an alias is the node it names, not a copy). ``yaml.YAMLError`` and
    ``RecursionError`` as PyYAML raises them."""
    return [node for node in yaml.compose_all(text, Loader=yaml.CSafeLoader) if node is not None]


def walk_scalars(nodes: Sequence[yaml.Node]) -> Iterator[tuple[yaml.ScalarNode, bool]]:
    """Every scalar once, with whether it is a mapping key: an alias names a node already
    seen, so a "billion laughs" costs its size, not its expansion."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False) for node in reversed(nodes)]
    while stack:
        node, is_key = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            yield node, is_key
        elif isinstance(node, yaml.MappingNode):
            for key, value in reversed(node.value):
                stack.append((value, False))
                stack.append((key, True))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, False) for item in reversed(node.value))


def load_data(text: str) -> list[Any]:
    """Every document of ``text`` as plain values (dicts with string keys, lists, strings,
    numbers, booleans, None), aliases expanded within ``MAX_VALUES`` and ``MAX_DEPTH``
    (``YamlTooLarge``). Plain scalars resolve by YAML 1.2's core schema, as the tools that
    write these files read them (``No`` is a string, not false); a custom tag is a
    ``yaml.YAMLError``."""
    budget = [MAX_VALUES]
    return [_plain(node, budget, 0) for node in compose_data(text)]


_CORE = (
    (re.compile(r"null|Null|NULL|~|"), lambda v: None),
    (re.compile(r"true|True|TRUE"), lambda v: True),
    (re.compile(r"false|False|FALSE"), lambda v: False),
    (re.compile(r"[-+]?[0-9]+"), int),
    (re.compile(r"0o[0-7]+"), lambda v: int(v[2:], 8)),
    (re.compile(r"0x[0-9a-fA-F]+"), lambda v: int(v[2:], 16)),
    (re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"), float),
    (re.compile(r"[-+]?\.(inf|Inf|INF)"), lambda v: float(v.replace(".", "", 1))),
    (re.compile(r"\.(nan|NaN|NAN)"), lambda v: float("nan")),
)


def _scalar(node: yaml.ScalarNode) -> Any:
    tag = node.tag or ""
    if tag != "!" and not tag.startswith("tag:yaml.org,2002:"):
        raise yaml.constructor.ConstructorError(None, None, f"custom tag {tag}", node.start_mark)
    if node.style:  # quoted, literal or folded: text (libyaml gives "" for a plain one)
        return str(node.value)
    for pattern, convert in _CORE:
        if pattern.fullmatch(node.value):
            return convert(node.value)
    return str(node.value)


def _plain(node: yaml.Node, budget: list[int], depth: int) -> Any:
    value = node.value
    budget[0] -= 1 + (len(value) // 100 if isinstance(node, yaml.ScalarNode) else 0)
    if budget[0] < 0:
        raise YamlTooLarge(
            f"expands to more than {MAX_VALUES:,} values (aliases repeating aliases?)"
        )
    if depth > MAX_DEPTH:
        raise YamlTooLarge(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key, item in value:
            out[str(_plain(key, budget, depth + 1))] = _plain(item, budget, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_plain(item, budget, depth + 1) for item in value]
    assert isinstance(node, yaml.ScalarNode)
    return _scalar(node)
