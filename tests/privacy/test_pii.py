"""goldcase.pii: each detector's positives and look-alikes, Luhn and IBAN arithmetic."""

from __future__ import annotations

import pytest

from goldcase.privacy import pii


def kinds(text: str) -> list[tuple[str, str]]:
    return [(m.kind, m.value) for m in pii.find(text)]


# 4111 1111 1111 1111: from the right, the digits at odd positions are doubled: seven 1s -> 14
# and the leading 4 -> 8, so 22; the other eight 1s add 8; 30 is a multiple of 10: valid.
# The same number ending in 2 sums to 31: invalid.
# 79927398713 (the textbook example): doubled 1,8,3,2,9 -> 2,7,6,4,9 = 28; the rest
# 3,7,9,7,9,7 = 42; 70: valid. Ending in 4 instead: 71, invalid.
@pytest.mark.parametrize(
    ("digits", "ok"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("79927398713", True),
        ("79927398714", False),
        ("0", True),
        ("12a4", False),
    ],
)
def test_luhn(digits: str, ok: bool) -> None:
    assert pii.luhn_ok(digits) is ok


# GB82 WEST 1234 5698 7654 32: move GB82 to the end and read letters as numbers (W=32, E=14,
# S=28, T=29, G=16, B=11): 3214282912345698765432161182, which is 1 mod 97: valid. Ending in
# 33 adds 10**6, and 10**6 = 27 mod 97 (10**2 = 3, so 3**3), giving 28: invalid.
@pytest.mark.parametrize(
    ("iban", "ok"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("GB82WEST12345698765432", True),
        ("DE89 3704 0044 0532 0130 00", True),
        ("GB82 WEST 1234 5698 7654 33", False),
        ("GB82 WEST 1234 5698 7654 3", False),  # 21 characters; a GB IBAN has 22
        ("RV07 17B0 1008 001", False),  # no such IBAN country
    ],
)
def test_iban(iban: str, ok: bool) -> None:
    assert pii.iban_ok(iban) is ok


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("write to jo.bloggs@example.co.uk today", [("email", "jo.bloggs@example.co.uk")]),
        ("ring 020 7946 0958 after six", [("phone", "020 7946 0958")]),
        ("mobile 07700 900123", [("phone", "07700 900123")]),
        ("from abroad +44 20 7946 0958", [("phone", "+44 20 7946 0958")]),
        ("or 0044 20 7946 0958", [("phone", "0044 20 7946 0958")]),
        ("Paris +33 1 42 68 53 00", [("phone", "+33 1 42 68 53 00")]),
        ("office (415) 555-2671", [("phone", "(415) 555-2671")]),
        ("cell 415-555-2671", [("phone", "415-555-2671")]),
        ("card 4111 1111 1111 1111 declined", [("card", "4111 1111 1111 1111")]),
        ("card 4111-1111-1111-1111", [("card", "4111-1111-1111-1111")]),
        ("pay GB82 WEST 1234 5698 7654 32 now", [("iban", "GB82 WEST 1234 5698 7654 32")]),
        ("NI number AB 12 34 56 C", [("national_id", "AB 12 34 56 C")]),
        ("NI AB123456C", [("national_id", "AB123456C")]),
        ("SSN 123-45-6789", [("national_id", "123-45-6789")]),
        ("lives at 12 Acacia Avenue, Leeds", [("address", "12 Acacia Avenue")]),
        ("at 221B Baker Street", [("address", "221B Baker Street")]),
        ("postcode SW1A 1AA", [("address", "SW1A 1AA")]),
    ],
)
def test_detects(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "refunds rose in 1995 and 2003",
        "12,000,000 units shipped",
        "delivered on 2024-03-01",
        "order 1234567890 was lost",
        "order 1234567890123 was lost",  # Luhn-valid? no network prefix either way
        "the rate was 0.0094-0.0147% in that group",
        "register number IRB00006010",
        "strain A/chicken/Vietnam/0008/2004",
        "card 4111 1111 1111 1112",  # fails Luhn
        "QQ 12 34 56 C is the HMRC example and never issued",
        "GB 12 34 56 A is a prefix never issued",
        "000-12-3456 and 666-12-3456 and 123-00-4567 are never issued",
        "user@localhost has no domain",
        "catalogue RV0717B01008001",
        "read chapter 12 Section 3",
        "version 2.0.1 of section 4.3.2",
    ],
)
def test_look_alikes_are_not_reported(text: str) -> None:
    assert kinds(text) == []


def test_a_card_number_is_not_also_a_phone_number() -> None:
    assert kinds("4111 1111 1111 1111") == [("card", "4111 1111 1111 1111")]


def test_redact_replaces_each_match_with_its_token() -> None:
    text = "call 020 7946 0958 or mail jo@example.com, card 4111 1111 1111 1111"
    assert pii.redact(text) == "call [PHONE] or mail [EMAIL], card [CARD]"


def test_scan_lines_gives_line_and_column() -> None:
    text = "id: a\nquestion: mail jo@example.com\n# ring 020 7946 0958\n"
    got = [(loc.line, loc.col, loc.match.kind) for loc in pii.scan_lines(text)]
    assert got == [(2, 16, "email"), (3, 8, "phone")]
    assert text[pii.scan_lines(text)[0].offset :].startswith("jo@example.com")


def test_stray_values_finds_a_number_folded_over_two_lines() -> None:
    text = "notes: >\n  ring +44 20\n  7946 0958 today\n"
    data = {"notes": "ring +44 20 7946 0958 today"}
    strays = pii.stray_values(text, data)
    assert [(path, m.kind, m.value) for path, m in strays] == [
        (("notes",), "phone", "+44 20 7946 0958")
    ]


def test_an_email_local_part_is_64_characters_at_most() -> None:
    assert kinds("x" * 64 + "@example.com") == [("email", "x" * 64 + "@example.com")]
    assert kinds("x" * 65 + "@example.com") == []


def test_a_long_run_of_percent_signs_before_an_at_is_read_once() -> None:
    # each letter after a "%" could start an email: unbounded, each scanned to the run's end
    # (a megabyte line of them took minutes); now each looks 64 characters ahead at most
    text = "a%" * 500_000 + "@example.com"
    assert kinds(text) == [("email", "a%" * 32 + "@example.com")]


def test_a_line_of_a_hundred_thousand_matches_is_sorted_out_in_one_sweep() -> None:
    # each match was compared with every match kept before it: 100,000 emails on one line
    # took minutes
    text = "jo@example.com " * 100_000
    found = pii.find(text)
    assert len(found) == 100_000
    assert pii.redact(text) == "[EMAIL] " * 100_000


class _Searched(str):
    """A text that counts the characters its ``in`` tests may read."""

    read = 0

    def __contains__(self, part: object) -> bool:
        _Searched.read += len(self)
        return str.__contains__(self, part)


def test_values_written_with_escapes_are_looked_for_in_the_file_in_one_pass() -> None:
    # each value was looked for in the whole file ("written on one line as it is?"): a file of
    # 80,000 escaped values took about 50 s; now all of them in one pass
    text = _Searched("notes:\n" + "".join(f'- "jo{i}\\x40example.com"\n' for i in range(2000)))
    data = {"notes": [f"jo{i}@example.com" for i in range(2000)]}
    _Searched.read = 0
    strays = pii.stray_values(text, data)
    assert [m.value for _, m in strays] == data["notes"]
    assert _Searched.read <= 2 * len(text)
