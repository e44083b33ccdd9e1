"""What decoding a stranger's JSON would cost in memory, estimated from its bytes before it is
decoded, and refused past a fixed budget.

A byte cap alone does not bound memory: JSON decoding expands. Three bytes ``{},`` become a
64-byte dict and a list slot, and ``[[[[…]]]]`` costs an 88-byte list for every two bytes. The
worst shapes measured (CPython 3.11's C decoder, peak RSS of a whole file decoded, the bytes
themselves included) take about 50 times the file's size; ordinary results files about 7
times. goldcase decodes JSON only with the standard library's decoder (msgspec decodes only
the cache, which goldcase writes itself).

- A file of at most ``BUDGET / WORST_EXPANSION`` bytes (64 MiB) cannot reach the budget
  whatever it holds, and is not looked at: no pass over the bytes of an ordinary file.
- A larger file is counted (one ``bytes.count`` per structural byte, no copy) and its
  decoded size estimated by ``estimate``: every ``{`` a dict, every ``[`` a list, every ``,``
  a value, every ``:`` an object entry with a key of its own, every newline a line's own
  objects (its text when split, a result or a problem kept for it). Bytes inside strings are
  counted too, so the estimate errs high (tests/test_jsonmemory.py holds it above what
  ``tracemalloc`` sees for the shapes that expand most).
- Past ``BUDGET`` (4 GiB: a quarter of a 16 GiB laptop; the estimate of the benchmark's
  result lines, 24 times their size, lets through 1.1 million of them) the file is refused
  before it is decoded, naming it, the estimate, and what to do.
"""

from __future__ import annotations

from goldcase.errors import GoldcaseError

BUDGET = 4 * 1024**3  # bytes of decoded objects a file may be estimated to take
WORST_EXPANSION = 64  # measured worst 50x (nested lists), with room to spare

# bytes of memory each structural byte may stand for (measured: see docs/score.md)
PER_DICT = 200  # "{": a dict holding a key (184 bytes) and its slot in its container
PER_LIST = 104  # "[": a list of one item (88 bytes, room for four) and its slot
PER_ITEM = 72  # ",": a string of two characters (51 bytes, 56 allocated) and its slot
PER_ENTRY = 232  # ":": a key of its own (a string), its entry, and the decoder's pair for it
PER_LINE = 128  # "\n": the line's own text when split, and a result or problem kept for it
_FOUR_BYTE_LEADS = tuple(bytes([lead]) for lead in range(0xF0, 0xF5))


def estimate(raw: bytes) -> int:
    """Bytes of memory decoding ``raw`` (JSON, or JSON lines) may take at most, the bytes
    themselves included."""
    return (
        _per_byte(raw) * len(raw)
        + PER_DICT * raw.count(b"{")
        + PER_LIST * raw.count(b"[")
        + PER_ITEM * raw.count(b",")
        + PER_ENTRY * raw.count(b":")
        + PER_LINE * raw.count(b"\n")
    )


def _per_byte(raw: bytes) -> int:
    """The bytes once, and three times their text (the whole, each line split from it, the
    strings decoded): a str takes one byte a character when all are ASCII, two when all are
    in the Basic Multilingual Plane, four when one is not (an emoji makes every ASCII letter
    beside it four bytes)."""
    if raw.isascii():
        width = 1
    elif any(raw.find(lead) >= 0 for lead in _FOUR_BYTE_LEADS):  # memchr: fast, no copy
        width = 4
    else:
        width = 2
    return 1 + 3 * width


def refuse_costly(raw: bytes, shown: str, fix: str) -> None:
    """A ``GoldcaseError`` naming ``shown`` when decoding ``raw`` may take more than
    ``BUDGET``; ``fix`` says what to do instead ("split the file …"; empty when the caller
    says it). A file too small to reach the budget is not scanned."""
    budget = BUDGET
    if len(raw) * WORST_EXPANSION <= budget:
        return
    need = estimate(raw)
    if need > budget:
        raise GoldcaseError(
            f"{shown}: decoding its {len(raw):,} bytes of JSON could take about {_mib(need)} of "
            f"memory (its braces, brackets, commas and colons each become an object), more "
            f"than the {_mib(budget)} goldcase allows" + (f"; {fix}" if fix else "")
        )


def refuse_costly_text(text: str, shown: str, fix: str) -> None:
    """``refuse_costly`` for JSON already decoded to text (``golden.lock``, read from the work
    tree or from git): encoded again only when it is long enough to reach the budget. UTF-8
    takes one byte a character for ASCII text (``isascii`` reads a flag the string carries),
    at most four for any other."""
    most = len(text) if text.isascii() else 4 * len(text)
    if most * WORST_EXPANSION > BUDGET:
        refuse_costly(text.encode("utf-8", "surrogatepass"), shown, fix)


def _mib(size: int) -> str:
    return f"{-(-size // 1024**2):,} MiB"
