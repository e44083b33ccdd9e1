"""The text foldings goldcase uses, in one place.

- ``fold_quote``: how a support quote is matched against its document. Unicode NFC, and any run
  of white space matches any other run (documents wrap lines). Nothing else: case, curly versus
  straight quotes and dashes must match.
- ``normalise_input``: how questions are compared for leakage and duplicates, the one folding
  that must defeat encodings, not just case and spacing: Unicode NFKC (as NFKD, so a
  look-alike letter with an accent is mapped too), case-folded, apostrophes and every
  Default_Ignorable_Code_Point dropped (soft hyphen, zero-width space and joiners, combining
  grapheme joiner, byte-order mark, variation selectors, bidi controls, tags), the blank
  Hangul fillers read as spaces, every non-ASCII character mapped to its prototype in
  Unicode's confusables (UTS #39: Cyrillic ``а`` and Greek ``ο`` become ``a`` and ``o``),
  every other punctuation, symbol or control character read as a space, white space folded.
- ``normalise_answer``: how answers are compared for exact match and token F1, as SQuAD does:
  lower case, punctuation and the articles a / an / the removed, white space folded.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from goldcase.dialect import compiled

APOSTROPHES = "'\u2019\u02bc\u2018`´"  # dropped by normalise_input and normalise_answer
_APOSTROPHES = dict.fromkeys(map(ord, APOSTROPHES), None)
# The articles SQuAD removes, as whole words: a template of goldcase.dialect, which the
# promptfoo export's grader spells in JavaScript.
ARTICLES = "(?<!{w})(a|an|the)(?!{w})"
_ARTICLES = compiled(ARTICLES)


def fold_space(text: str) -> str:
    """Collapse every run of white space to one space and strip the ends. (str.split splits
    at exactly the characters the regular expression ``\\s`` matches: a test holds them
    together, and splitting is several times faster than a substitution.)"""
    return " ".join(text.split())


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


# Default_Ignorable_Code_Point, from DerivedCoreProperties-15.0.0.txt (Python's unicodedata
# does not expose it). Invisible by definition: dropped, so that one inside a word does not
# split it and one between words does not add a word.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# ... except the Hangul fillers, which are ignorable in a syllable but render as a blank as
# wide as a letter: written between words they are a space.
_BLANK_FILLERS = frozenset((0x115F, 0x1160, 0x3164, 0xFFA0))


def is_ignorable(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


@cache
def confusables() -> dict[str, str]:
    """Unicode's confusables (UTS #39), non-ASCII source -> prototype, from the copy goldcase
    ships (``confusables.txt``, its version in the file's header)."""
    table: dict[str, str] = {}
    path = Path(__file__).with_name("confusables.txt")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split(";")
            table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return table


def _classify(ch: str, depth: int = 0) -> int | str | None:
    code = ord(ch)
    if code in _APOSTROPHES:  # a look-alike's prototype too: "ʹ" is an apostrophe, dropped
        return None
    if code in _BLANK_FILLERS:
        return " "
    if is_ignorable(code):
        return None
    category = unicodedata.category(ch)
    if category == "Cf":
        return None  # other invisible format characters: as the ignorable ones
    prototype = confusables().get(ch) if code > 0x7F and depth < 4 else None
    if prototype is not None and category[0] in "PS" and not _letters(prototype):
        prototype = None  # a dash stays punctuation, though it looks like a katakana mark
    if prototype is not None:
        prototype = _ascii_twin(ch, category, prototype)
    if prototype is not None and prototype != ch:
        folded = unicodedata.normalize("NFKD", prototype)
        return "".join(_as_text(_classify(c, depth + 1), c) for c in folded)
    if category[0] in "PS" or (category == "Cc" and not ch.isspace()):
        return " "
    return code


def _ascii_twin(ch: str, category: str, prototype: str) -> str:
    """The prototype, or the ASCII character the prototype stands for here. goldcase leaves
    ASCII as it is (case folding must keep "I" an "i", and "m" is not "rn"), so a look-alike
    of a character UTS #39 maps within ASCII is mapped to that character: a capital Greek
    iota to "I" (not "l"), a look-alike digit one or zero to "1" or "0", a look-alike "m" to
    "m"."""
    if prototype == "l":
        return "I" if ch != ch.lower() else "1" if category == "Nd" else "l"
    if prototype == "O" and category == "Nd":
        return "0"
    return "m" if prototype == "rn" else prototype


def _letters(text: str) -> bool:
    return text.isascii() and text.isalnum()


def _as_text(value: int | str | None, ch: str) -> str:
    if value is None:
        return ""
    return chr(value) if isinstance(value, int) else value


_INPUT_TABLE = _InputTable({**_APOSTROPHES})
# The same table for ASCII text, as bytes: most inputs are ASCII, and bytes.translate is
# an order of magnitude faster than str.translate with a mapping.
_ASCII_TABLE = bytes(
    b if (t := _INPUT_TABLE[b]) == b else ord(" ") if t == " " else b for b in range(128)
) + bytes(range(128, 256))
_ASCII_DELETE = bytes(b for b in range(128) if _INPUT_TABLE[b] is None)
# As _ASCII_TABLE, lower case, and the white space str.split splits at (but the newline) made
# a space: one translate pass folds a block of ASCII lines.
_ASCII_LINES_TABLE = bytes(
    b if b > 127 else ord(" ") if chr(b).isspace() and b != 10 else ord(chr(t).lower())
    for b, t in enumerate(_ASCII_TABLE)
)


def normalise_input(text: str) -> str:
    """Fold a question or prompt input for hashing and comparison."""
    return " ".join(_fold_input(text).split())


def fold_ascii_lines(text: bytes) -> bytes:
    """``normalise_input`` of each line of ASCII ``text`` (lines end at "\\n"), in one pass
    over all of it, the lines still apart: each line's words (its runs of bytes above the
    space) are the words ``normalise_input`` gives it; only spaces and newlines lie between
    them. For a bulk search (a contamination scan's blocks of records). Bytes above 127 are
    left as they are: a line holding one must be folded by ``normalise_input``."""
    return text.translate(_ASCII_LINES_TABLE, _ASCII_DELETE)


def _fold_input(text: str) -> str:
    """``normalise_input`` but for the white space: what a character folds to."""
    if text.isascii():
        return text.lower().encode("ascii").translate(_ASCII_TABLE, _ASCII_DELETE).decode("ascii")
    # NFKD: compatibility forms folded and accents apart from their letters, so a look-alike
    # letter with an accent maps like the plain one. Prototypes are mapped before case-folding
    # (Cyrillic "Н" looks like "H", its small form like a small capital), then the folded text
    # is mapped again until nothing changes; NFC at the end puts accents back on.
    folded = text
    for _ in range(4):
        again = _translate(unicodedata.normalize("NFKD", folded)).casefold()
        if again == folded:
            break
        folded = again
    return unicodedata.normalize("NFC", folded)


_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def _translate(text: str) -> str:
    """``text.translate(_INPUT_TABLE)``, its ASCII characters in one bytes pass and only its
    runs of other characters looked up one by one: ``str.translate`` with a mapping costs a
    lookup a character, and most text that is not ASCII is mostly ASCII. UTF-8 leaves
    ASCII bytes to ASCII characters, and the table leaves bytes above 127 as they are."""
    raw = text.encode("utf-8", "surrogatepass").translate(_ASCII_TABLE, _ASCII_DELETE)
    return _NOT_ASCII.sub(_translate_run, raw.decode("utf-8", "surrogatepass"))


def _translate_run(run: re.Match[str]) -> str:
    return run.group().translate(_INPUT_TABLE)


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


# JSON may escape half a surrogate pair ("\ud800") with no other half: the decoder gives a
# string no file can hold, and writing it out (a report, a draft, a message) fails. A reader
# of JSON lines looks for the escape in a line's bytes, and only then at what it decoded.
HALF_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
HALF_SURROGATE = (
    "an escape of half a surrogate pair (\\ud800 to \\udfff) with no other half: not text any "
    "file can hold; write the character itself, or both halves of its pair"
)


def half_surrogate(data: Any) -> bool:
    """Whether decoded JSON holds half a surrogate pair, in a key or a value. A value nested
    too deeply to write out is not looked into (False): what writes it refuses it."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except RecursionError:
        return False
    return False
