"""The canonical layout of a case file, and ``goldcase fmt`` which applies it.

Canonical means: keys in the order of docs/fmt.md (unknown keys kept, after the known ones, in the
order they were written), and quoting as people write it: the author's quotes kept (they show
where each alternative of ``contains: [["30 days", "thirty days"]]`` starts and ends), and
quotes added only on strings that a YAML reader would otherwise read as something else
(``"14"``, ``"yes"``, ``"2026-01-01"``, ``": "`` inside a value, a comma inside a ``[...]``
list); those get double quotes, or single ones when the text holds a double quote or a
backslash. Comments, blank lines and flow or block style survive: the file goes through
ruamel.yaml's round-trip mode (``goldcase.writer``) and is written back atomically. Long
strings are never folded over several lines, so a quote copied from a document stays one
searchable line.

A file that does not parse (GC101-GC106, GC110-GC113) is never rewritten: its findings are
reported instead.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from msgspec import Struct, field
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.compat import ordereddict
from ruamel.yaml.emitter import Emitter
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)
from yaml.nodes import ScalarNode

from goldcase.config import Config
from goldcase.errors import GoldcaseError
from goldcase.loader import parse_case
from goldcase.model import Finding
from goldcase.repolock import serialised
from goldcase.safeio import Outside, read_inside, shown_path
from goldcase.writer import rewrite_text, round_trip_yaml

CASE_KEYS = (
    "id",
    "question",
    "answerable",
    "expected_answer",
    "support",
    "expect",
    "probes",
    "slice",
    "tags",
    "source",
    "asked_at",
    "derived_from",
    "labelled_by",
    "resolution",
    "notes",
    "trace",  # a draft's (cases/inbox/): what production answered
)
SUPPORT_KEYS = ("doc", "quote")
PROBE_KEYS = ("pass", "fail")
RESOLUTION_KEYS = ("rule", "decided_by")
EXPECT_KEYS = ("contains", "not_contains", "lead", "cites", "cites_id", "scope", "fact")
# Findings that mean the file did not parse to a mapping: fmt leaves such a file alone.
PARSE_CODES = frozenset(
    {"GC101", "GC102", "GC103", "GC104", "GC105", "GC106", "GC110", "GC111", "GC112", "GC113"}
)
NO_WRAP = 1 << 16

_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()


def yaml_dumper() -> Any:
    """The round-trip instance goldcase writes case files with: no line folding."""
    dumper = round_trip_yaml()
    dumper.width = NO_WRAP
    return dumper


def misread(value: str) -> bool:
    """Would a YAML 1.1 reader (libyaml, which goldcase and most tools use) read this string,
    written without quotes, as something else (a number, a boolean, a date, null)?"""
    return _RESOLVER.resolve(ScalarNode, value, (True, False)) != _STR_TAG


def canonical_string(value: str, *, flow: bool = False) -> Any:
    """A string value in canonical style: as quoted as its author wrote it, when they quoted
    it; plain when YAML reads it back as the same string; otherwise double-quoted
    (single-quoted when it holds a double quote or a backslash, which double quotes would have
    to escape). ``flow``: the value sits in a ``[...]`` list, where a comma or a bracket also
    needs quotes."""
    if isinstance(value, (LiteralScalarString, FoldedScalarString)):
        return value  # a block scalar was chosen on purpose for a multi-line text
    if isinstance(value, (DoubleQuotedScalarString, SingleQuotedScalarString)):
        return value  # the author's quotes: they mark where an entry starts and ends
    if "\n" in value:
        return LiteralScalarString(value) if _literal_safe(value) else str(value)
    if not misread(value) and _plain_ok(value, flow):
        return str(value)
    return quoted(value)


def quoted(value: str) -> Any:
    """``value`` in double quotes, or in single ones when it holds a double quote or a
    backslash (which double quotes would have to escape)."""
    if ('"' in value or "\\" in value) and value.isprintable():
        return SingleQuotedScalarString(value)
    return DoubleQuotedScalarString(value)


def _plain_ok(value: str, flow: bool) -> bool:
    analysis = _emitter().analyze_scalar(value)
    return bool(analysis.allow_flow_plain if flow else analysis.allow_block_plain) and value != ""


@cache
def _emitter() -> Any:
    """ruamel's own judgement of whether a string can be written plain (YAML 1.1 rules, the
    stricter ones, since libyaml reads goldcase's files)."""
    emitter = Emitter(None, allow_unicode=True)
    emitter.use_version = (1, 1)  # type: ignore[attr-defined]  # read via emitter.serializer
    return emitter


def _literal_safe(value: str) -> bool:
    """A literal block holds the text as it is: no edge spaces, and no character it cannot
    show (YAML refuses control characters there and reads U+0085, U+2028 and U+2029 as line
    breaks); such text is written double-quoted, with escapes."""
    return value == value.strip() and value.replace("\n", "").isprintable()


def canonicalise(node: Any, order: Sequence[str] = CASE_KEYS) -> Any:
    """Reorder keys and restyle strings in place (ruamel round-trip nodes); returns the node."""
    # The base classes' __setitem__: ruamel's own would keep the old quoting style.
    if isinstance(node, CommentedMap):
        _reorder(node, order)
        flow = bool(node.fa.flow_style())
        for key in list(node):
            ordereddict.__setitem__(node, key, _child(key, node[key], order, flow))
    elif isinstance(node, CommentedSeq):
        flow = bool(node.fa.flow_style())
        for index, item in enumerate(node):
            list.__setitem__(node, index, _child(None, item, order, flow))
    return node


def _child(key: Any, value: Any, parent_order: Sequence[str], flow: bool) -> Any:
    if isinstance(value, str):
        return canonical_string(value, flow=flow)
    if key is None:
        order = parent_order  # an item of a sequence: the entries of support keep its order
    elif parent_order is CASE_KEYS:
        order = {
            "support": SUPPORT_KEYS,
            "expect": EXPECT_KEYS,
            "probes": PROBE_KEYS,
            "resolution": RESOLUTION_KEYS,
        }.get(key, ())
    else:
        order = ()
    return canonicalise(value, order)


def _reorder(node: Any, order: Sequence[str]) -> None:
    if not order:
        return
    rank = {key: i for i, key in enumerate(order)}
    keys = list(node)
    wanted = sorted(keys, key=lambda k: (rank.get(k, len(order)), keys.index(k)))
    if wanted != keys:
        for key in wanted:
            node.move_to_end(key)  # moves the key with its comments; nothing is re-created


_YAML_1_1 = "%YAML 1.1\n"
_START = "---\n"


def format_text(text: str) -> str:
    """The canonical form of one case file's text (which must parse). The text is read as YAML
    1.1, as libyaml (and so ``goldcase check``) reads it: ``answerable: yes`` stays a boolean
    (written ``true``), where a YAML 1.2 reader would have turned it into a string. An explicit
    ``---`` (or a ``%YAML`` line) at the top is not kept: a case file holds one document."""
    return rewrite(text, lambda root: None)


def rewrite(text: str, edit: Callable[[Any], None]) -> str:
    """The canonical form of ``text`` after ``edit`` changed its round-trip mapping in place
    (keys taken out or set; comments on the keys kept stay where they were)."""
    dumper = yaml_dumper()
    root = dumper.load(_as_yaml_1_1(text))
    edit(root)
    canonicalise(root)
    buffer = io.StringIO()
    dumper.dump(root, buffer)
    return buffer.getvalue().removeprefix(_YAML_1_1).removeprefix(_START)


def _as_yaml_1_1(text: str) -> str:
    """The text with a ``%YAML 1.1`` directive; a ``%`` directive or ``---`` of its own at the
    top is taken out first (a comment after ``---`` stays, on its own line)."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("%"):
            lines[index] = ""
            continue
        if stripped == "---" or stripped.startswith("--- #"):
            lines[index] = stripped[3:].strip() + "\n" if stripped != "---" else ""
        break
    return _YAML_1_1 + _START + "".join(lines)


def dump_canonical(data: Mapping[str, Any], order: Sequence[str] = CASE_KEYS) -> str:
    """Plain data (dicts, lists, strings) as canonical YAML text."""
    root = CommentedMap()
    for key, value in data.items():
        root[key] = to_round_trip(value)
    canonicalise(root, order)
    buffer = io.StringIO()
    yaml_dumper().dump(root, buffer)
    return buffer.getvalue()


def to_round_trip(value: Any, *, in_list: bool = False) -> Any:
    """Plain data as ruamel round-trip nodes (short lists of strings in flow style), to set
    into a loaded mapping. ``in_list``: the value is an item of a list; a list there is an
    any-of entry (``contains: [["30 days", "thirty days"]]``), whose strings are quoted so that
    where each alternative starts and ends reads at a glance."""
    if isinstance(value, Mapping):
        out = CommentedMap()
        for key, item in value.items():
            out[key] = to_round_trip(item)
        return out
    if isinstance(value, (list, tuple)):
        seq = CommentedSeq(
            quoted(item)
            if in_list and isinstance(item, str) and "\n" not in item
            else to_round_trip(item, in_list=True)
            for item in value
        )
        if all(isinstance(item, (str, list, tuple)) for item in value) and _short(value):
            seq.fa.set_flow_style()
        return seq
    return value


def _short(value: Iterable[Any]) -> bool:
    return len(repr(value)) <= 60


class FmtResult(Struct):
    changed: list[str] = field(default_factory=list)  # files rewritten (or that would be)
    findings: list[Finding] = field(default_factory=list)  # files that could not be read
    files: int = 0


def format_files(config: Config, rels: Sequence[str], *, check: bool) -> FmtResult:
    """Bring each file (relative to the repository's root) to the canonical form; with
    ``check``, only say which files would change. Each file is read, formatted and written
    under the repository's lock (``serialised``), the one a save of the labelling page and
    ``goldcase promote`` hold: without it, a save landing between the read and the write was
    answered and then overwritten with the file as it was before. The lock is taken a file at
    a time, so a save waits for one file, not for the whole run (it waits a bounded time);
    ``check`` writes nothing and takes no lock."""

    result = FmtResult(files=len(rels))
    for rel in rels:
        with contextlib.nullcontext() if check else serialised(config):
            new, findings = _formatted(config.root, rel)
            if new is not None and not check:
                rewrite_text(config.root / rel, new)
        result.findings.extend(findings)
        if new is not None:
            result.changed.append(shown_path(rel))
    return result


def _formatted(root: Path, path: str) -> tuple[str | None, list[Finding]]:
    """The file's canonical text when it differs from what is on disk, or its parse findings
    (naming it as every finding does: a byte of its name that is not UTF-8 escaped)."""
    rel = shown_path(path)
    try:  # as check reads it: never blocking on a FIFO, a link only when it stays inside
        raw = read_inside(root, path)
    except Outside:
        message = "a link that leads outside the repository; case files live inside it"
        return None, [Finding(rel, 1, 1, "GC113", "error", message)]
    except OSError as exc:
        return None, [
            Finding(rel, 1, 1, "GC113", "error", f"cannot read the file: {exc.strerror or exc}")
        ]
    data, findings = parse_case(rel, raw)
    if findings:
        return None, [f for f in findings if f.code in PARSE_CODES] or findings
    text = raw.decode("utf-8")
    try:
        new = format_text(text)
    except Exception as exc:  # ruamel refuses a few texts libyaml takes; report, do not crash
        problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, [
            Finding(
                rel,
                1,
                1,
                "GC101",
                "error",
                f"the round-trip parser cannot read this file: {problem}",
            )
        ]
    if new == text:
        return None, []
    after, _ = parse_case(rel, new.encode("utf-8"))
    if after != data:  # a safety net: formatting must never change what the file says
        raise GoldcaseError(f"{rel}: formatting would change its values; file left as it was")
    return new, []


def expand(root: Path, paths: Iterable[Path], default: Sequence[str]) -> list[str]:
    """Command-line PATHS (files or folders) as sorted paths relative to ``root``."""
    rels: set[str] = set()
    given = False
    for path in paths:
        given = True
        absolute = (path if path.is_absolute() else Path.cwd() / path).resolve()
        if not absolute.exists():
            raise GoldcaseError(f"{path}: no such file or folder")
        rels.update(_yaml_files(root, absolute, path))
    return sorted(rels) if given else list(default)


def _yaml_files(root: Path, absolute: Path, shown: Path) -> Iterator[str]:
    found = sorted(absolute.rglob("*.y*ml")) if absolute.is_dir() else [absolute]
    for item in found:
        if item.is_dir() or item.suffix not in (".yaml", ".yml"):
            continue
        try:
            yield item.relative_to(root).as_posix()
        except ValueError:
            raise GoldcaseError(f"{shown} is outside the repository {root}") from None
