"""Personal data in text: what GC505 reports and ``goldcase scrub`` redacts.

Every detector is a documented pattern followed by a check that rejects look-alikes, so that a
hit means "this has the shape *and* the arithmetic of the real thing":

- email ``[EMAIL]``: ``local@domain.tld``, the top-level domain letters only, the local part
  64 characters at most (RFC 5321's limit).
- phone ``[PHONE]``: seven or more digits with spaces, dots, dashes or brackets, that
  ``phonenumbers`` (offline metadata) finds possible, in one of three shapes: a UK national
  number (``020 7946 0958``, a leading 0 and 10 or 11 digits), a US number
  (``(415) 555-2671``), or an international one (``+`` or ``00``, any country). Digits glued to
  letters, slashes, ``%`` or decimals (accession numbers, dates, ranges) are refused.
- card ``[CARD]``: 13 to 19 digits, optionally grouped by spaces or dashes, with a card
  network's prefix and a valid Luhn check digit.
- iban ``[IBAN]``: two letters, two digits, 11 to 30 letters or digits (optionally in groups of
  four), from a country of the IBAN registry, of that country's length, with mod 97 equal to 1.
- national id ``[NATIONAL_ID]``: a UK National Insurance number (``QQ 12 34 56 C``, without the
  prefixes never issued) or a US social security number (``123-45-6789``, without the area
  numbers 000, 666 and 900-999, group 00 or serial 0000).
- address ``[ADDRESS]``: a house number and one to four capitalised words ending in a street
  word (``12 Acacia Avenue``), or a full UK postcode (``SW1A 1AA``). Addresses are detectable
  only in these common shapes.

Detection is offline and fast: the phone library is imported only when a text holds a run of
seven digits, and each pattern is one compiled regular expression.
"""

from __future__ import annotations

import bisect
import heapq
import re
from collections.abc import Collection, Iterable, Iterator
from functools import lru_cache
from typing import Any

import ahocorasick
from msgspec import Struct

from goldcase.dialect import lazy

TOKENS = {
    "email": "[EMAIL]",
    "phone": "[PHONE]",
    "card": "[CARD]",
    "iban": "[IBAN]",
    "national_id": "[NATIONAL_ID]",
    "address": "[ADDRESS]",
}
NAMES = {
    "email": "an email address",
    "phone": "a phone number",
    "card": "a payment card number",
    "iban": "an IBAN",
    "national_id": "a national id number",
    "address": "a street address",
}


class Match(Struct, frozen=True):
    kind: str
    start: int
    end: int
    value: str

    @property
    def token(self) -> str:
        return TOKENS[self.kind]


# The local part is bounded (RFC 5321's 64 characters): unbounded, each letter after a "%" of a
# long run of them started a scan to the run's end, so a line of "a%a%a%…" took its length squared.
_EMAIL = lazy(
    r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b"
)
_CARD = lazy(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
_IBAN = lazy(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_NINO = lazy(
    r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)
_SSN = lazy(r"(?<![\w-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\w-])")
_STREET_WORDS = (
    "Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Close|Way|Court|Ct|Place|Pl|Boulevard"
    "|Blvd|Crescent|Terrace|Gardens|Square|Sq|Mews|Grove|Row|Parade|Highway|Hwy"
)
_STREET = lazy(r"\b\d{1,5}[A-Za-z]?,? (?:[A-Z][a-z'’]+ ){1,4}(?:" + _STREET_WORDS + r")\b\.?")
_POSTCODE = lazy(r"\b(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?) \d[ABD-HJLNP-UW-Z]{2}\b")
_PHONE_HINT = lazy(r"\d(?:[\s().-]{0,2}\d){6}")
_GLUED_BEFORE = lazy(r"[\w./#-]")
_GLUED_AFTER = lazy(r"[\w/%]|[.,-]\d")
_NOT_PHONE = lazy(r"[/%]|(?<!\d)\d\.\d")
_NANP = lazy(r"^(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}$")

# IBAN lengths by country (ISO 13616 registry). A country not listed is not an IBAN country
# here: catalogue and accession numbers such as "RV0717B01008001" pass mod 97 one time in 97.
IBAN_LENGTHS = {
    "AD": 24,
    "AE": 23,
    "AT": 20,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "CH": 21,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "EE": 20,
    "ES": 24,
    "FI": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IS": 26,
    "IT": 27,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "ME": 22,
    "MK": 19,
    "MT": 31,
    "MU": 30,
    "NL": 18,
    "NO": 15,
    "PL": 28,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "SA": 24,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "TN": 24,
    "TR": 26,
    "UA": 29,
    "AL": 28,
    "AZ": 28,
    "BR": 29,
    "BY": 28,
    "CR": 22,
    "DO": 28,
    "EG": 29,
    "GE": 22,
    "GT": 28,
    "IQ": 23,
    "JO": 30,
    "LC": 32,
    "LY": 25,
    "MD": 24,
    "PK": 24,
    "PS": 29,
    "SC": 31,
    "ST": 25,
    "SV": 28,
    "TL": 23,
    "VA": 22,
    "VG": 24,
    "XK": 20,
}
# Issuer prefixes of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners,
# Maestro, UnionPay): a Luhn-valid number that starts otherwise is an order or parcel number.
_CARD_PREFIX = lazy(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[068]|35|6011|64[4-9]|65|62|50|5[6-8]|6[37])")


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) check on a string of digits."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_ok(text: str) -> bool:
    """The ISO 13616 checks: a registry country, its length, and mod 97 equal to 1."""
    iban = text.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", iban):
        return False
    if len(iban) != IBAN_LENGTHS.get(iban[:2]):
        return False
    moved = iban[4:] + iban[:4]
    number = "".join(str(int(ch, 36)) for ch in moved)
    return int(number) % 97 == 1


def _cards(text: str) -> Iterator[Match]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and luhn_ok(digits):
            yield Match("card", m.start(), m.end(), m.group())


def _ibans(text: str) -> Iterator[Match]:
    for m in _IBAN.finditer(text):
        value = m.group()
        # "GB29 NWBK 6016 …" is written in groups of four; a looser run is refused
        if " " in value and not re.fullmatch(r"[A-Z0-9]{4}(?: [A-Z0-9]{4})* ?[A-Z0-9]{0,4}", value):
            continue
        if iban_ok(value):
            yield Match("iban", m.start(), m.end(), value)


def _regex(kind: str, pattern: re.Pattern[str], text: str) -> Iterator[Match]:
    for m in pattern.finditer(text):
        yield Match(kind, m.start(), m.end(), m.group())


@lru_cache(maxsize=1)
def _phonenumbers() -> Any:
    import phonenumbers  # only a text with seven digits in a row pays for the import

    return phonenumbers


def _phone_shape_ok(text: str, start: int, end: int) -> bool:
    raw = text[start:end]
    before, after = text[start - 1 : start], text[end : end + 2]
    # inside an identifier, an accession number, a decimal or a date: not a phone number
    if _GLUED_BEFORE.match(before) or _GLUED_AFTER.match(after) or _NOT_PHONE.search(raw):
        return False
    digits = re.sub(r"\D", "", raw)
    if raw.lstrip("(").startswith("+") or re.match(r"00[1-9]", raw):
        return len(digits) >= 8
    if raw.lstrip("(").startswith("0"):
        return 10 <= len(digits) <= 11
    return bool(_NANP.match(raw))


def _phones(text: str) -> Iterator[Match]:
    if not _PHONE_HINT.search(text):
        return
    lib = _phonenumbers()
    seen: set[tuple[int, int]] = set()
    for region in ("GB", "US"):
        for m in lib.PhoneNumberMatcher(text, region, leniency=lib.Leniency.POSSIBLE):
            if (m.start, m.end) in seen or not _phone_shape_ok(text, m.start, m.end):
                continue
            seen.add((m.start, m.end))
            yield Match("phone", m.start, m.end, m.raw_string)


def _addresses(text: str) -> Iterator[Match]:
    yield from _regex("address", _STREET, text)
    yield from _regex("address", _POSTCODE, text)


# What every match needs: an "@", six digits with separators between them (phone, card, IBAN,
# national id), or a digit, a space and a capital (a street address or postcode). Separators
# may include line breaks so that a value folded over two lines still counts.
_AT = lazy("@")
_NEWLINE = lazy("\n")
_DIGIT_RUN = lazy(r"\d(?:[\s().-]*\d){5}")
_ADDRESS_HINT = lazy(r"\d[A-Za-z]?,? [A-Z]|\d[A-Z]{2}\b")
_CAPITAL = lazy("[A-Z]")


def may_contain(text: str) -> bool:
    """False when ``text`` certainly holds no match: a fast test for a whole file."""
    return "@" in text or bool(_DIGIT_RUN.search(text) or _ADDRESS_HINT.search(text))


# Earlier kinds win where two matches overlap: a card number also looks like a phone number.
_ORDER = ("card", "iban", "national_id", "email", "phone", "address")


def find(text: str, keep: Collection[str] = ()) -> list[Match]:
    """Every personal-data match in ``text``, sorted, without overlaps; values in ``keep``
    (contact details the corpus publishes) are left out."""
    if not may_contain(text):
        return []
    capitals = _CAPITAL.search(text) is not None  # IBANs, UK ids, streets, postcodes hold one
    found = [
        *_cards(text),
        *(_ibans(text) if capitals else ()),
        *(_regex("national_id", _NINO, text) if capitals else ()),
        *_regex("national_id", _SSN, text),
        *(_regex("email", _EMAIL, text) if "@" in text else ()),
        *_phones(text),
        *(_addresses(text) if capitals else ()),
    ]
    return [m for m in _without_overlaps(found) if m.value not in keep]


def _without_overlaps(found: list[Match]) -> list[Match]:
    """The matches, sorted by start, less each that overlaps one of an earlier kind (or an
    earlier one of its kind): kind by kind, each merged into the kept ones in one sweep, as a
    line can hold a hundred thousand matches."""
    kept: list[Match] = []
    for kind in _ORDER:
        accepted: list[Match] = []
        i = 0
        for m in sorted((m for m in found if m.kind == kind), key=lambda m: m.start):
            while i < len(kept) and kept[i].end <= m.start:  # kept ends grow with starts
                i += 1
            if (i < len(kept) and kept[i].start < m.end) or (
                accepted and accepted[-1].end > m.start
            ):
                continue
            accepted.append(m)
        kept = list(heapq.merge(kept, accepted, key=lambda m: m.start))
    return kept


def redact(text: str, keep: Collection[str] = ()) -> str:
    """``text`` with each match (but those in ``keep``) replaced by its token."""
    parts: list[str] = []
    at = 0
    for m in find(text, keep):
        parts += (text[at : m.start], m.token)
        at = m.end
    return "".join([*parts, text[at:]])


class Located(Struct, frozen=True):
    """A match in a file: 1-based line and column, and its offset in the whole text."""

    line: int
    col: int
    offset: int
    match: Match


def scan_lines(text: str, keep: Collection[str] = ()) -> list[Located]:
    """Matches line by line (comments included), so each has an exact line and column. Only
    the lines a quick whole-text search marks as candidates are scanned in full (none when
    ``may_contain`` is False)."""
    starts = [0, *(hit.end() for hit in _NEWLINE.finditer(text))]
    out: list[Located] = []
    for index in sorted(_candidate_lines(text, starts)):
        begin = starts[index]
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        for m in find(text[begin:end], keep):
            out.append(Located(index + 1, m.start + 1, begin + m.start, m))
    return out


def _candidate_lines(text: str, starts: list[int]) -> set[int]:
    lines: set[int] = set()
    for pattern in (_AT, _DIGIT_RUN, _ADDRESS_HINT):
        for hit in pattern.finditer(text):
            first = bisect.bisect_right(starts, hit.start()) - 1
            last = bisect.bisect_right(starts, max(hit.start(), hit.end() - 1)) - 1
            lines.update(range(first, last + 1))
    return lines


def strings(
    data: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every string value in a loaded YAML mapping, with its key path."""
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from strings(value, (*path, str(key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from strings(value, (*path, i))


# A value can differ from every line of its file only when it is a block scalar, continues on
# a further line, or holds an escape: files with none of these need no walk over their values.
_BLOCK = lazy(r"[|>][-+0-9]*[ \t]*(?:#.*)?$", re.MULTILINE)
_CONTINUATION = lazy(r"^[ \t]+(?![-#\s])(?![^\n]*:(?:[ \t]|$))", re.MULTILINE)


def _may_fold(text: str) -> bool:
    return "\\" in text or bool(_BLOCK.search(text) or _CONTINUATION.search(text))


def stray_values(
    text: str, data: Any, on_lines: list[Located] | None = None
) -> list[tuple[tuple[str | int, ...], Match]]:
    """Matches in loaded values that no single line shows: a value folded over two lines, or
    written with escapes. They are reported at the value, and scrubbed by a round trip.
    ``on_lines``: ``scan_lines(text)``, when the caller has it already."""
    if not _may_fold(text):
        return []
    seen = {loc.match.value for loc in (scan_lines(text) if on_lines is None else on_lines)}
    found: dict[str, list[Match]] = {}
    unseen: list[tuple[tuple[str | int, ...], str, list[Match]]] = []
    for key_path, value in strings(data):
        if value not in found:
            found[value] = [m for m in find(value) if m.value not in seen]
        if found[value]:
            unseen.append((key_path, value, found[value]))
    # a value written on one line as it is: the line scan saw it. All looked for in one pass:
    # "value in text" for each was the file's length times its values (minutes for a file of
    # escaped values)
    written = _written(text, {value for _, value, _ in unseen if "\n" not in value})
    return [(key_path, m) for key_path, value, ms in unseen if value not in written for m in ms]


def _written(text: str, values: Collection[str]) -> set[str]:
    """Those of ``values`` that ``text`` holds, found in one Aho-Corasick pass."""
    if not values:
        return set()
    automaton = ahocorasick.Automaton()
    for value in values:
        automaton.add_word(value, value)
    automaton.make_automaton()
    return {value for _, value in automaton.iter(text)}


def published(texts: Iterable[str]) -> frozenset[str]:
    """Every match in ``texts`` (the corpus documents): contact details the documents publish,
    such as a support address or a helpline, which quoting in a case does not make personal."""
    return frozenset(loc.match.value for text in texts for loc in scan_lines(text))
