"""Formatters for findings: text, json, github. The only place findings are printed.

Also the one escaping of text goldcase did not write itself (a path, an id, a question, a
message quoting either), used by every renderer:

- ``plain``: for any text output. Control characters, line and paragraph separators and
  bidirectional controls become visible escapes (``\\n``, ``\\x1b``, ``\\u202e``), so a file name
  holding a newline cannot start a line of its own (a ``::error`` or ``::stop-commands::``
  line that GitHub Actions would obey) nor move the terminal's cursor.
- ``md_text``: Markdown text. ``plain``, then every character Markdown or HTML gives a meaning
  to is escaped, ``@`` is kept from mentioning anyone and ``://`` / ``www.`` from linking.
- ``md_code``: a Markdown code span, fenced with one backtick more than the longest run inside
  (nothing renders inside a code span: no HTML, no link, no mention).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TextIO

from goldcase.model import Finding, count_severities

FORMATS = ("text", "json", "github")


def summary(findings: Sequence[Finding], files: int) -> dict[str, int]:
    errors, warnings = count_severities(findings)
    return {"errors": errors, "warnings": warnings, "files": files}


def summary_line(findings: Sequence[Finding], files: int, noun: str = "case file") -> str:
    errors, warnings = count_severities(findings)
    what = f"{files} {noun}{'' if files == 1 else 's'}"
    if not errors and not warnings:
        return f"all checks passed: {what}"
    parts = []
    if errors:
        parts.append(f"{errors} error{'' if errors == 1 else 's'}")
    if warnings:
        parts.append(f"{warnings} warning{'' if warnings == 1 else 's'}")
    return f"{', '.join(parts)} in {what}"


def _escape(code: int) -> str:
    named = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
    if code in named:
        return named[code]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_UNSAFE = [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F)]
_UNSAFE += [*range(0x2066, 0x206A), 0x061C, 0x200E, 0x200F]
_PLAIN = {code: _escape(code) for code in _UNSAFE}


def plain(text: object) -> str:
    """``text`` on one line, every control character shown as an escape."""
    return str(text).translate(_PLAIN)


_MD = {ord(c): f"\\{c}" for c in "\\`*_[]<>|#~&!"}
_MD[ord("@")] = "@\u200b"  # a zero-width space after @: no mention
_LINKISH = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE)


def md_text(text: object) -> str:
    """``text`` as Markdown that renders as the text itself, on one line."""
    return _LINKISH.sub("\u200b", plain(text).translate(_MD))


def md_code(text: object, *, table: bool = False) -> str:
    """``text`` as a code span; ``table``: inside a table cell, where GitHub splits cells at
    a pipe even in code, so pipes are escaped."""
    flat = plain(text)
    if table:
        flat = flat.replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) or longest else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_block(lines: Sequence[str]) -> list[str]:
    """Lines as a fenced code block, the fence longer than any backtick run inside."""
    flat = [plain(line) for line in lines]
    longest = max((len(run) for line in flat for run in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *flat, fence]


def text_line(f: Finding) -> str:
    return f"{plain(f.path)}:{f.line}:{f.col}: {f.code} {plain(f.message)}"


def _escape_data(value: str) -> str:
    return plain(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github_line(f: Finding) -> str:
    level = "error" if f.severity == "error" else "warning"
    props = (
        f"file={_escape_property(f.path)},line={f.line},col={f.col},"
        f"title={_escape_property(f.code)}"
    )
    return f"::{level} {props}::{_escape_data(f.message)}"


def write_findings(out: TextIO, findings: Sequence[Finding], files: int, fmt: str = "text") -> None:
    if fmt == "json":
        payload = {
            "findings": [f.as_dict() for f in findings],
            "summary": summary(findings, files),
        }
        out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return
    line = github_line if fmt == "github" else text_line
    for f in findings:
        out.write(line(f) + "\n")
    out.write(summary_line(findings, files) + "\n")
