"""The text foldings goldcase uses, in one place.

- ``fold_quote``: how a support quote is matched against its document. Unicode NFC, and any run
  of white space matches any other run (documents wrap lines). Nothing else: case, curly versus
  straight quotes and dashes must match.
- ``normalise_input``: how questions are compared for leakage and duplicates. Unicode NFKC,
  case-folded, apostrophes dropped, every other punctuation or symbol character read as a
  space, white space folded.
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


def _strip_punctuation(text: str) -> str:
    if text.isalnum():
        return text
    return "".join(" " if not ch.isalnum() and _is_punct_or_symbol(ch) else ch for ch in text)


def normalise_input(text: str) -> str:
    """Fold a question or prompt input for hashing and comparison."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    return fold_space(_strip_punctuation(folded))


def normalise_answer(text: str) -> str:
    """SQuAD-style answer normalisation."""
    lowered = unicodedata.normalize("NFKC", text).lower().translate(_APOSTROPHES)
    no_punct = "".join(ch for ch in lowered if not _is_punct_or_symbol(ch))
    return fold_space(_ARTICLES.sub(" ", no_punct))


def clip(text: str, limit: int = 80) -> str:
    """Cut user text for a message: one line, at most ``limit`` characters."""
    flat = fold_space(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
