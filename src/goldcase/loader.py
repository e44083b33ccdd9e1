"""The one place YAML is read, and what a case file says on its own.

Case files are parsed with libyaml (PyYAML's C parser) on the fast path. Constructs that are
legal YAML but dangerous in a reviewed data file (duplicate keys, anchors and aliases, custom
tags, several documents) are refused. Line and column for a finding come from libyaml's node
marks (``Locator``), composed only for a file that has a finding.

``load_case_file`` parses one file and validates it against ``schema/case.schema.json``: the
``CaseFile`` the engine caches, with every GC1xx finding the file earns alone (the ``schema``
check family reports them). The digests that pin what a report or a lock was built on live
here too:

- ``case_hash``: sha256 of a case's canonical content (its mapping as JSON with sorted keys),
  so re-formatting a file, reordering keys or editing a comment leaves it unchanged.
- ``set_digest``: sha256 over the golden cases' ids and hashes, in id order.
- The corpus digest is ``Corpus.digest`` (every document's path and bytes).
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import re
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

import yaml

from goldcase.model import INBOX, Case, CaseFile, Finding, Folder
from goldcase.moments import parse_moment
from goldcase.schemacheck import checker
from goldcase.schemas import (
    CASE_SCHEMA,
    DRAFT_SCHEMA,
    defaults,
    load_schema,
    path_name,
    validator,
)
from goldcase.text import clip

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
                message = f"duplicate key {clip(repr(key))}; keep one"
                raise _Refused("GC102", message, mark.line + 1, mark.column + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        """A plain value shaped like a date that names no real day (``2026-02-30``) is a
        finding, not a crash."""
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError:
            mark = node.start_mark
            message = f"{clip(node.value, 40)} reads as a date but names no real day; "
            where = (mark.line + 1, mark.column + 1)
            raise _Refused("GC107", message + ASKED_AT_HINT, *where) from None


# The constructors are looked up in a table filled when the class is made: point it here.
_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _StrictLoader.construct_yaml_timestamp)


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
        data = _load(text)
    except _Refused as exc:
        return None, [Finding(path, exc.line, exc.col, exc.code, "error", exc.message)]
    except yaml.YAMLError as exc:
        return None, [_syntax_finding(path, exc)]
    except RecursionError:
        return None, [Finding(path, 1, 1, "GC101", "error", "nesting too deep to be a case")]
    except (ValueError, TypeError, KeyError, AttributeError):
        # a standard tag on a value it cannot build (``!!int c``): PyYAML's constructors
        # raise these, not a YAMLError, and the file must end in a finding, not a crash
        return None, [Finding(path, 1, 1, "GC104", "error", _UNBUILT)]
    if data is None:
        return None, [
            Finding(
                path, 1, 1, "GC110", "error", "empty case file; write a case or delete the file"
            )
        ]
    return data, []


_UNBUILT = "a value its tag cannot build (such as `!!int abc`); drop the tag, plain values only"


def _load(text: str) -> Any:
    """``yaml.load(text, Loader=_StrictLoader)``: libyaml composes the nodes, and a case's
    plain mappings, lists and scalars are built from them directly; anything else (a merge
    key, a duplicate or non-scalar key, another tag, nesting too deep) goes to the strict
    loader's own construction, which builds it or refuses it as it always has. PyYAML's
    general construction (a table of built objects, a generator per collection) was the
    larger half of the cold parse's time."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            return _case_value(node, loader)
        except (_NotPlain, RecursionError):
            return loader.construct_document(node)
    finally:
        loader.dispose()


class _NotPlain(Exception):
    """A node the direct construction leaves to the strict loader."""


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
# Scalars the safe loader builds from the node's text alone (no state, no generator).
_SCALARS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "timestamp")
)


def _case_value(node: yaml.Node, loader: _StrictLoader) -> Any:
    kind, tag = type(node), node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
        if tag in _SCALARS:
            return loader.yaml_constructors[tag](loader, node)
    elif kind is yaml.SequenceNode and tag == _SEQ:
        return [_case_value(item, loader) for item in node.value]
    elif kind is yaml.MappingNode and tag == _MAP:
        keys = [key for key, _ in node.value]
        if any(type(key) is not yaml.ScalarNode or key.tag not in _KEY_TAGS for key in keys):
            raise _NotPlain  # a collection as a key, a merge key: the strict loader decides
        if len({key.value for key in keys}) != len(keys):
            raise _NotPlain  # a duplicate key: the strict loader refuses it
        return {_case_value(key, loader): _case_value(value, loader) for key, value in node.value}
    raise _NotPlain


_KEY_TAGS = _SCALARS | {_STR}


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
    """Line and column of keys and values in a file with a finding: libyaml composes the file
    once (in C, about 35 µs for a case) and its nodes carry their start marks. Keys are
    matched as the fast parse read them (``on`` is ``True``, ``1`` is an integer)."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw
        self._root: yaml.Node | None = None
        self._loaded = False

    def _load(self) -> yaml.Node | None:
        if not self._loaded:
            self._loaded = True
            try:
                self._root = yaml.compose(self._raw.decode("utf-8"), Loader=yaml.CSafeLoader)
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
            found = _child(node, step)
            if found is None:
                break
            key_node, node = found
            at = node if key_node is None or (value and i == last) else key_node
            line, col = at.start_mark.line, at.start_mark.column
        return line + 1, col + 1


_SAFE = yaml.constructor.SafeConstructor()


def _key(node: yaml.ScalarNode) -> Any:
    """A mapping key as the safe loader reads it (without its table of built objects, which
    would keep every node it saw)."""
    if node.tag == "tag:yaml.org,2002:str":
        return node.value
    make = _SAFE.yaml_constructors.get(node.tag)
    return None if make is None else make(_SAFE, node)


def _child(node: yaml.Node | None, step: str | int) -> tuple[yaml.Node | None, yaml.Node] | None:
    """(key node, value node) of ``step`` in a mapping, (None, item) in a sequence."""
    if isinstance(node, yaml.SequenceNode):
        if type(step) is int and 0 <= step < len(node.value):
            return None, node.value[step]
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        try:
            key = _key(key_node)
        except Exception:  # a key the safe loader refuses: not one a finding names
            continue
        if type(key) is type(step) and key == step:
            return key_node, value_node
    return None


def file_digest(raw: bytes) -> str:
    """The key of a file's bytes in the cache."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def load_case_file(path: str, split: Folder | None, raw: bytes) -> CaseFile:
    """Parse and validate one case file: everything GC1xx knows about it on its own. A draft
    (``split`` ``inbox``) is validated against the draft schema, its blank fields left out."""
    data, findings = parse_case(path, raw)
    if data is not None:
        if split == INBOX:
            findings.extend(_schema_findings(path, raw, filled(data), DRAFT_SCHEMA))
        else:
            findings.extend(_schema_findings(path, raw, data))
        if isinstance(data, dict):
            findings.extend(_id_findings(path, raw, data))
            findings.extend(_asked_at_findings(path, raw, data))
    if split is None:
        findings.append(
            Finding(
                path,
                1,
                1,
                "GC114",
                "error",
                "case files live in cases/golden/ or cases/dev/, drafts in cases/inbox/; "
                "move this file",
            )
        )
    value = data if isinstance(data, dict) else None
    case_file = CaseFile(path, split, file_digest(raw), value, sorted(findings))
    if value is not None and case_file.valid:
        case_file.hash = _content_hash(value)
    return case_file


def _content_hash(data: dict[str, Any]) -> str:
    """The case hash, kept with the parsed file (and its cache entry) so a set digest or a lock
    never re-serialises an unchanged case; "" when the content is not JSON (hashed later)."""
    try:
        return case_hash(data)
    except (TypeError, ValueError):
        return ""


def _id_findings(path: str, raw: bytes, data: dict[str, Any]) -> Iterator[Finding]:
    case_id = data.get("id")
    stem = PurePosixPath(path).stem
    if isinstance(case_id, str) and case_id != stem:
        line, col = Locator(raw).value(["id"])
        yield Finding(
            path,
            line,
            col,
            "GC108",
            "error",
            f"id {clip(repr(case_id))} differs from the file name {clip(repr(stem))}; "
            f"{_id_fix(case_id, stem)}",
        )


_VALID_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # the schema's id pattern
_ID_CHARS = "(ids hold letters, digits, '.', '_', '-')"


def _is_id(text: str) -> bool:
    """Whether ``text`` is an id the schema takes: its pattern, and no longer than its
    ``maxLength`` (a file is never renamed to a 100 kB id the message would then quote)."""
    longest = load_schema(CASE_SCHEMA)["properties"]["id"]["maxLength"]
    return len(text) <= longest and bool(_VALID_ID.fullmatch(text))


def _id_fix(case_id: str, stem: str) -> str:
    """What to do about an id that is not its file's name, suggesting only valid ids."""
    id_ok, stem_ok = _is_id(case_id), _is_id(stem)
    if id_ok and stem_ok:
        return f"rename the file to {case_id}.yaml or set id: {stem}"
    if id_ok:
        return f"rename the file to {case_id}.yaml {_ID_CHARS}"
    if stem_ok:
        return f"set id: {stem}"
    fixed = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-._")
    fixed = fixed[:64].rstrip("-._") or "case-001"  # quoted twice: kept short
    return f"rename the file to {fixed}.yaml and set id: {fixed} {_ID_CHARS}"


def filled(data: Any) -> Any:
    """A draft's mapping without its blank fields (``answerable:`` with nothing after it is a
    field not filled in yet, not a null answer)."""
    if not isinstance(data, dict):
        return data
    return {key: value for key, value in data.items() if value is not None}


def _asked_at_findings(path: str, raw: bytes, data: dict[str, Any]) -> Iterator[Finding]:
    """GC107 for an ``asked_at`` of the schema's shape that names no real day (2026-02-30):
    the pattern cannot know the length of a month."""
    value = data.get("asked_at")
    if isinstance(value, str) and _asked_at_shape().fullmatch(value) and not parse_moment(value):
        line, col = Locator(raw).value(["asked_at"])
        message = f"asked_at {clip(repr(value), 40)} is not a real date; {ASKED_AT_HINT}"
        yield Finding(path, line, col, "GC107", "error", message)


ASKED_AT_HINT = 'write a date or a time such as "2026-03-02" or "2026-03-02T09:14:00Z", in quotes'


@lru_cache(maxsize=1)
def _asked_at_shape() -> re.Pattern[str]:
    return re.compile(load_schema(CASE_SCHEMA)["properties"]["asked_at"]["pattern"])


def _schema_findings(path: str, raw: bytes, data: Any, schema: str = CASE_SCHEMA) -> list[Finding]:
    if isinstance(data, dict):
        for key, value in defaults(schema).items():
            data.setdefault(key, copy.deepcopy(value))  # a case's own, should one be a list
    if checker(schema)(data):  # only a file the schema refuses pays for jsonschema's words
        return []
    errors = list(validator(schema).iter_errors(data))
    if not errors:
        return []
    locator = Locator(raw)
    out: list[Finding] = []
    for error in errors:
        for key_path, message, at_value in _explain(error):
            line, col = locator.value(key_path) if at_value else locator.key(key_path)
            out.append(Finding(path, line, col, "GC107", "error", message))
    return out


_TYPE_NAMES = {
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
    "integer": "a whole number",
    "number": "a number",
}


def _explain(error: Any) -> Iterator[tuple[list[str | int], str, bool]]:
    """(where, message, point at the value rather than the key) for one schema error."""
    where: list[str | int] = list(error.absolute_path)
    name = path_name(where, "the case")
    kind = error.validator
    if kind == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in known:
                yield [*where, key], _unknown_key(str(key), known), False
    elif kind == "required":
        for key in error.validator_value:
            if key not in error.instance:
                yield where, _missing(key, where, error), False
    elif kind == "type":
        yield where, _wrong_type(name, error), True
    elif kind == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        yield where, f"{name} is {clip(repr(error.instance))}; expected one of {allowed}", True
    elif kind in ("pattern", "minLength"):
        yield where, _bad_text(name, error), True
    elif kind == "minItems":
        yield where, f"{name} is empty; {_MIN_ITEMS.get(name, 'give at least one entry')}", True
    elif kind == "maxItems" and name == "support":
        yield where, "support must be empty when answerable is false", True
    elif kind == "not":
        yield from _forbidden(where, name, error)
    elif kind == "uniqueItems":
        yield where, f"{name} lists the same entry twice", True
    elif kind == "anyOf" and (where == ["expect", "lead"] or where[:2] == ["expect", "contains"]):
        message = f"{name} should be a string or a list of strings (any one of them)"
        if not isinstance(error.instance, (list, dict)):
            got = f"{type(error.instance).__name__} {clip(repr(error.instance), 40)}"
            message += f", got {got}{_quote_hint(error.instance)}"
        yield where, message, True
    elif kind == "anyOf" and where == ["resolution"] and isinstance(error.instance, dict):
        for sub in error.context or ():  # the {rule, decided_by} branch says what is wrong
            if sub.schema_path and sub.schema_path[0] == 1:
                yield from _explain(sub)
    elif kind == "anyOf" and where == ["resolution"]:
        got = f"{type(error.instance).__name__} {clip(repr(error.instance), 40)}"
        yield where, f"resolution should be {{rule: ..., decided_by: ...}}, got {got}", True
    else:
        yield where, f"{name}: {clip(error.message, 120)}", True


_MIN_ITEMS = {
    "support": "an answerable case needs at least one quote",
}


def _unknown_key(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(known)}"
    return f"unknown key {clip(repr(key))}{hint}"


def _missing(key: str, where: list[str | int], error: Any) -> str:
    if not where and key in ("expected_answer", "support"):
        return (
            f"missing {key!r}: an answerable case needs expected_answer and support "
            "(set answerable: false if the corpus cannot answer it)"
        )
    return f"missing required key {key!r} in {path_name(where, 'the case')}"


def _wrong_type(name: str, error: Any) -> str:
    expected = error.validator_value
    wanted = (
        _TYPE_NAMES.get(expected, str(expected)) if isinstance(expected, str) else str(expected)
    )
    got = type(error.instance).__name__
    hint = ""
    if expected == "string" and not isinstance(error.instance, (list, dict)):
        hint = _quote_hint(error.instance)
    return f"{name} should be {wanted}, got {got} {clip(repr(error.instance), 40)}{hint}"


def _quote_hint(value: Any) -> str:
    """For a scalar YAML did not read as text: quoting it makes it text."""
    hint = "; put the value in quotes"
    if isinstance(value, bool):
        hint += " (YAML reads yes, no, on, off, true and false as booleans)"
    return hint


def _bad_text(name: str, error: Any) -> str:
    if error.validator == "minLength" or error.validator_value == "\\S":
        return f"{name} is blank"
    if name == "asked_at":
        return f"asked_at {clip(repr(error.instance), 40)} is not an ISO 8601 date; {ASKED_AT_HINT}"
    if name in ("id", "slice", "derived_from") or name.startswith("tags["):
        return (
            f"{name} {clip(repr(error.instance), 40)} may hold only letters, digits, '.', '_' "
            "and '-', and must start with a letter or digit"
        )
    return f"{name} does not match {error.validator_value}"


_NOT_ALLOWED = {
    "expected_answer": "expected_answer is not allowed when answerable is false "
    "(abstaining is the right answer)",
    "derived_from": "derived_from is only for source: synthetic",
}


def _forbidden(
    where: list[str | int], name: str, error: Any
) -> Iterator[tuple[list[str | int], str, bool]]:
    required = (
        error.validator_value.get("required", []) if isinstance(error.validator_value, dict) else []
    )
    for key in required:
        yield [*where, key], _NOT_ALLOWED.get(key, f"{key} is not allowed here"), False
    if not required:
        yield where, f"{name}: {clip(error.message, 120)}", True


def canonical(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def case_hash(data: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(data)).hexdigest()


def case_hashes(cases: Iterable[Case]) -> dict[str, str]:
    """id -> case hash; the hash computed when the file was parsed is used when there is one."""
    return {case.id: case.hash or case_hash(case.data) for case in cases}


def set_digest(cases: Iterable[Case]) -> str:
    """The golden set's digest: changes exactly when a case is added, removed or its content
    changes."""
    return hashes_digest(case_hashes(cases))


def hashes_digest(hashes: Mapping[str, str]) -> str:
    """``set_digest`` from an id -> case hash table: sha256 over one ``id<TAB>hash<LF>`` line
    a case, in id order."""
    lines = "".join(f"{case_id}\t{digest}\n" for case_id, digest in sorted(hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


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
