"""``json.dumps(value, indent=2, ensure_ascii=False)``, faster on a large report.

On Python before 3.13 an indented dump runs the pure-Python encoder, a generator per nesting
level; a report lists every case, so that is most of the time ``--format json`` adds. Here the
same text is built with one list of pieces, strings escaped by the C encoder's own function.
Only plain JSON types are taken (str, int, float, bool, None, list, tuple, dict with str keys);
anything else, or nesting too deep, goes to ``json.dumps`` itself, so the output (or the error)
is always what ``json.dumps`` gives. A property test holds the two together.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # the C function when the accelerator is there
from typing import Any

_INDENT = "  "
_INF = float("inf")


class _NotPlain(Exception):
    """A value ``json.dumps`` renders its own way (a subclass, a non-string key)."""


def dumps_indented(value: Any) -> str:
    parts: list[str] = []
    try:
        _put(value, parts, "\n")
    except (_NotPlain, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)


def _put(value: Any, out: list[str], newline: str) -> None:
    text = _scalar(value)
    if text is not None:
        out.append(text)
    elif type(value) is dict:
        _put_dict(value, out, newline)
    elif type(value) is list or type(value) is tuple:
        _put_list(value, out, newline)
    else:
        raise _NotPlain


def _scalar(value: Any) -> str | None:
    """The text of a plain scalar; None for anything else."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is float:
        if value != value:
            return "NaN"
        if value in (_INF, -_INF):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    return None


def _put_list(value: list[Any] | tuple[Any, ...], out: list[str], newline: str) -> None:
    if not value:
        out.append("[]")
        return
    inner = newline + _INDENT
    separator = "[" + inner
    for item in value:
        text = _scalar(item)
        if text is None:
            out.append(separator)
            _put(item, out, inner)
        else:
            out.append(separator + text)
        separator = "," + inner
    out.append(newline + "]")


def _put_dict(value: dict[Any, Any], out: list[str], newline: str) -> None:
    if not value:
        out.append("{}")
        return
    inner = newline + _INDENT
    separator = "{" + inner
    for key, item in value.items():
        if type(key) is not str:
            raise _NotPlain
        text = _scalar(item)
        if text is None:
            out.append(separator + encode_basestring(key) + ": ")
            _put(item, out, inner)
        else:
            out.append(separator + encode_basestring(key) + ": " + text)
        separator = "," + inner
    out.append(newline + "}")
