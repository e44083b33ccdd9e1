"""Formatters for findings: text, json, github. The only place findings are printed."""

from __future__ import annotations

import json
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


def text_line(f: Finding) -> str:
    return f"{f.path}:{f.line}:{f.col}: {f.code} {f.message}"


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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
