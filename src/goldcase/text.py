"""The text foldings goldcase uses, in one place.

- ``fold_quote``: how a support quote is matched against its document. Unicode NFC, and any run
  of white space matches any other run (documents wrap lines). Nothing else: case, curly versus
  straight quotes and dashes must match.
- ``normalise_input``: how questions are compared for leakage and duplicates. Unicode NFKC,
  case-folded, apostrophes and invisible format characters (soft hyphen, zero-width space and
  joiners, byte-order mark, variation selectors) dropped, every other punctuation, symbol or
  control character read as a space, white space folded.
- ``normalise_answer``: how answers are compared for exact match and token F1, as SQuAD does:
  lower case, punctuation and the articles a / an / the removed, white space folded.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
_APOSTROPHES = dict.fromkeys(map(ord, "'\u2019\u02bc\u2018`´"), None)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def fold_space(text: str) -> str:
    """Collapse every run of white space to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def fold_quote(text: str) -> str:
    return fold_space(unicodedata.normalize("NFC", text))


@lru_cache(maxsize=8192)
def _is_punct_or_symbol(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


_ASCII_PUNCT = dict.fromkeys(b for b in range(128) if _is_punct_or_symbol(chr(b)))


class _InputTable(dict[int, "int | str | None"]):
    """``str.translate`` table for ``normalise_input``, filled on first sight of a character:
    the loop over characters stays in C, and each distinct character is classified once."""

    def __missing__(self, code: int) -> int | str | None:
        value = _classify(chr(code))
        self[code] = value
        return value


def _classify(ch: str) -> int | str | None:
    category = unicodedata.category(ch)
    if category == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF:
        return None  # invisible: a soft hyphen or zero-width space must not split a word
    if category[0] in "PS" or (category == "Cc" and not ch.isspace()):
        return " "
    return ord(ch)


_INPUT_TABLE = _InputTable({**_APOSTROPHES})
# The same table for ASCII text, as bytes: most inputs are ASCII, and bytes.translate is
# an order of magnitude faster than str.translate with a mapping.
_ASCII_TABLE = bytes(
    b if (t := _INPUT_TABLE[b]) == b else ord(" ") if t == " " else b for b in range(128)
) + bytes(range(128, 256))
_ASCII_DELETE = bytes(b for b in range(128) if _INPUT_TABLE[b] is None)


def normalise_input(text: str) -> str:
    """Fold a question or prompt input for hashing and comparison."""
    if text.isascii():
        raw = text.lower().encode("ascii").translate(_ASCII_TABLE, _ASCII_DELETE)
        return " ".join(raw.decode("ascii").split())
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_INPUT_TABLE)
    # Dropping an invisible character can leave a base letter next to its accent: compose.
    return " ".join(unicodedata.normalize("NFC", folded).split())


def normalise_answer(text: str) -> str:
    """SQuAD-style answer normalisation."""
    lowered = unicodedata.normalize("NFKC", text).lower().translate(_APOSTROPHES)
    if lowered.isascii():  # one C pass instead of a Python call per character
        no_punct = lowered.translate(_ASCII_PUNCT)
    else:
        no_punct = "".join(ch for ch in lowered if not _is_punct_or_symbol(ch))
    return fold_space(_ARTICLES.sub(" ", no_punct))


def clip(text: str, limit: int = 80) -> str:
    """Cut user text for a message: one line, at most ``limit`` characters."""
    flat = fold_space(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_MARKDOWN = str.maketrans(
    {
        **{ch: "\\" + ch for ch in "\\`*_[]{}|~#!"},
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
    }
)


def escape_markdown(text: str) -> str:
    """User text (an answer, a citation, a case's field) as inert Markdown: one line, nothing
    it holds can format, link, close a table cell or open an HTML tag."""
    return fold_space(text).translate(_MARKDOWN)
