"""The loader's Locator: 1-based line and column of a key or value, as findings show them."""

from __future__ import annotations

import pytest

from goldcase.loader import Locator

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
