"""The loader: the Locator (1-based line and column of a key or value, as findings show them),
and the case hash with the schema's defaults filled in."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from goldcase.loader import Locator, _StrictLoader, case_hash, load_case_file, parse_case
from kit import case_text, goldcase, golden_set, write

CASE = b"""\
# a comment first
id: "ret-001"   # quoted
question: >-
  folded
  text
support:
- doc: a.md
  quote: 'single'
-   doc: b.md
    quote: two
tags: [a, "b", c]
expect: {contains: ["x", [y, z]], lead: yes}
on: a key YAML 1.1 reads as true
1: a key that is a number
probes:
  fail:
    - one
    -   two
"""


@pytest.mark.parametrize(
    ("key_path", "key", "where"),
    [
        (["id"], True, (2, 1)),
        (["id"], False, (2, 5)),
        (["question"], False, (3, 11)),
        (["support", 0], True, (7, 3)),
        (["support", 1, "doc"], True, (9, 5)),
        (["support", 1, "quote"], False, (10, 12)),
        (["support", 0, "quote"], False, (8, 10)),
        (["tags", 1], False, (11, 11)),
        (["expect", "contains", 1, 0], False, (12, 27)),
        (["expect", "lead"], False, (12, 41)),
        ([True], True, (13, 1)),
        ([1], False, (14, 4)),
        (["probes", "fail", 1], False, (18, 9)),
    ],
)
def test_positions_of_keys_and_values(key_path: list[str | int], key: bool, where: tuple) -> None:
    locator = Locator(CASE)
    assert (locator.key(key_path) if key else locator.value(key_path)) == where


@pytest.mark.parametrize(
    ("key_path", "where"),
    [
        ([], (1, 1)),  # the whole file
        (["missing"], (1, 1)),
        (["support", 9], (6, 1)),  # as far as the path leads: the list's key
        (["tags", "a"], (11, 1)),  # a name where a list has positions
        (["on"], (1, 1)),  # the key was read as true, not as the text "on"
    ],
)
def test_a_path_that_leads_nowhere_stops_where_it_can(
    key_path: list[str | int], where: tuple
) -> None:
    assert Locator(CASE).key(key_path) == where


@pytest.mark.parametrize(
    "raw", [b"a: [unclosed\n", b"\xff\xfe", b"a: 1\n---\nb: 2\n", b"", b"- a\n"]
)
def test_a_file_it_cannot_read_gives_the_start(raw: bytes) -> None:
    assert Locator(raw).value(["a"]) == (1, 1)


def test_columns_count_characters_not_bytes() -> None:
    raw = "id: x\nq: {a: \U0001f600, b: c}\n".encode()
    assert Locator(raw).value(["q", "b"]) == (2, 14)


@pytest.mark.parametrize(
    "text",
    [
        "id: a\nquestion: how long\nanswerable: true\ntags: [x, y]\n",
        "a: 1\nb: 1.5\nc: true\nd: ~\ne: 2026-03-01\nf: 2026-03-01 10:00:00\ng: 'q'\n",
        "1: a\n01: b\ntrue: c\nyes: d\n",  # keys that build equal values: the later wins
        "<<: {a: 1, b: 2}\nb: 3\n",  # a merge key
        "a: !!set {x, y}\nb: !!binary aGVsbG8=\nc: !!omap [x: 1]\n",  # tags of their own
        "a: {b: [{c: [1, [2, {d: e}]]}]}\n",
        "- 1\n- [2, 3]\n",
        "a:\n" + "- " * 900 + "x\n",  # deep enough to leave the direct construction
        "",
    ],
)
def test_a_case_file_is_read_as_the_strict_yaml_loader_reads_it(text: str) -> None:
    data, findings = parse_case("x.yaml", text.encode())
    reference = yaml.load(text, Loader=_StrictLoader) if text else None
    assert (data, findings == []) == (reference, reference is not None)


def test_a_date_that_names_no_real_day_is_a_finding() -> None:
    _, findings = parse_case("x.yaml", b"id: a\nasked_at: 2026-02-30\n")
    assert [(f.line, f.col, f.code) for f in findings] == [(2, 11, "GC107")]


@pytest.mark.parametrize(
    "text",
    [
        "id: a\nquestion: !!int c\n",
        "id: a\nquestion: !!float c\n",
        "id: a\nquestion: !!bool maybe\n",
        "id: a\nasked_at: !!timestamp soon\n",
        "id: a\nquestion: !!map [x]\n",
        "id: a\ntags: !!set [x]\n",
        "!!int a: 1\n",
    ],
)
def test_a_value_its_own_tag_cannot_build_is_a_finding(text: str) -> None:
    data, findings = parse_case("x.yaml", text.encode())
    assert data is None
    assert [(f.line, f.col, f.code) for f in findings] == [(1, 1, "GC104")]


PLAIN_CASE = """\
id: ret-001
question: How many days does a customer have to request a credit?
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
"""


def test_a_case_is_hashed_with_the_defaults_filled_in() -> None:
    """docs/version.md: the hash is of the case's mapping "defaults such as `answerable: true`
    filled in", so writing the default out, or leaving it out, is one case with one hash."""
    left_out = load_case_file("cases/golden/ret-001.yaml", "golden", PLAIN_CASE.encode())
    written = PLAIN_CASE.replace("\nexpected", "\nanswerable: true\nexpected")
    written_out = load_case_file("cases/golden/ret-001.yaml", "golden", written.encode())
    assert left_out.findings == [] and written_out.findings == []
    assert left_out.data is not None and left_out.data["answerable"] is True
    expected = case_hash({**yaml.safe_load(PLAIN_CASE), "answerable": True})
    assert left_out.hash == written_out.hash == expected
    assert expected != case_hash(yaml.safe_load(PLAIN_CASE))


def test_an_unquoted_date_in_the_tags_is_a_finding() -> None:
    """The tags must be unique strings; a YAML date among them is a GC107 that says to quote
    it (the uniqueness test once compared items as JSON and crashed on a date)."""
    raw = PLAIN_CASE.replace("expected_answer", "tags: [returns, 2024-01-01]\nexpected_answer")
    loaded = load_case_file("cases/golden/ret-001.yaml", "golden", raw.encode())
    assert [(f.code, f.line, f.col) for f in loaded.findings] == [("GC107", 3, 17)]
    assert loaded.findings[0].message.endswith("put the value in quotes")


BIG = "1" + "0" * 399  # a number of 400 digits


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (f"{BIG}: 1\n", f"GC107 unknown key '{BIG[:78]}…; known keys"),
        (f"answerable: true\nanswerable: {BIG}\n", "GC102 duplicate key 'answerable'; keep one"),
        (f"tags: [{BIG}]\n", f"tags[0] should be a string, got int {BIG[:39]}…"),
    ],
)
def test_a_number_of_400_digits_in_a_case_file_is_quoted_cut(
    tmp_path: Path, extra: str, message: str
) -> None:
    """A case file is anyone's text: what ``goldcase check`` quotes of it is cut."""
    root = golden_set(tmp_path / "set", ("ret-001",))
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001") + extra)
    done = goldcase(root, "check")
    assert done.returncode == 1, done.stderr
    assert message in done.stdout
    assert BIG not in done.stdout + done.stderr


HUGE_NUMBER = "9" * 4_000
HUGE_TEXT = "x" * 100_000


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (f"source: {HUGE_TEXT}\n", f"GC107 source is '{HUGE_TEXT[:78]}…; expected one of"),
        (f"answerable: {HUGE_NUMBER}\n", "GC107 answerable should be true or false, got int"),
        (f"slice: '!{HUGE_TEXT}'\n", "GC107 slice '!xxx"),
        (f"asked_at: '{HUGE_TEXT}'\n", "is not an ISO 8601 date; write a date"),
        (f"expect: {{contains: {HUGE_NUMBER}}}\n", "GC107 expect.contains should be a list"),
        (f"resolution: {HUGE_NUMBER}\n", "GC107 resolution should be {rule: ..., decided_by:"),
        (f"resolution: {{rule: {HUGE_NUMBER}}}\n", "GC107 resolution.rule should be a string"),
        (f"{HUGE_TEXT[:1000]}: 1\n", "GC107 unknown key 'xxx"),  # YAML's longest plain key
    ],
)
def test_a_huge_value_in_a_case_file_is_quoted_cut(
    tmp_path: Path, extra: str, message: str
) -> None:
    """docs/check.md: a 4,000-digit number or a 100 kB string a schema message quotes is cut,
    so each finding stays one short line that names the field."""
    root = golden_set(tmp_path / "set", ("ret-001",))
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001") + extra)
    done = goldcase(root, "check", "--select", "schema")
    assert done.returncode == 1, done.stderr
    findings = [line for line in done.stdout.splitlines() if " GC107 " in line]
    shown = [finding[:300] for finding in findings]
    assert any(message in finding for finding in findings), shown
    assert all(len(finding) < 300 for finding in findings), shown
