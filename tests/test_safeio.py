"""The guarded reader's named-file forms (docs/architecture.md, ``safeio``): a file the user
named is read whole or opened as a stream, never blocking on a FIFO, and every refusal is one
error that names the file and says what to give."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goldcase.errors import GoldcaseError
from goldcase.safeio import (
    NOT_REGULAR,
    Outside,
    TooLarge,
    is_inside,
    longest_line,
    open_regular,
    read_inside,
    read_named,
    read_regular,
)

WHAT = "the results file (JSONL)"


def test_a_regular_file_is_read_whole_and_opened_as_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"id": "a"}\n')
    assert read_named(path, "run.jsonl", WHAT) == b'{"id": "a"}\n'
    with open_regular(path) as fh:
        assert fh.read() == b'{"id": "a"}\n'


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "run.jsonl: no such file"),
        (lambda p: p.mkdir(), f"run.jsonl: is a folder; give {WHAT}"),
        (lambda p: os.mkfifo(p), f"run.jsonl: cannot read it: {NOT_REGULAR}"),
        (lambda p: p.write_bytes(b"x" * 11), "run.jsonl: cannot read it: 11 bytes, more than 10"),
    ],
    ids=["missing", "folder", "fifo", "too large"],
)
def test_each_refusal_names_the_file_and_what_to_give(
    tmp_path: Path, make: object, message: str
) -> None:
    path = tmp_path / "run.jsonl"
    make(path)  # type: ignore[operator]
    with pytest.raises(GoldcaseError) as caught:
        read_named(path, "run.jsonl", WHAT, limit=10)
    assert str(caught.value) == message


def test_a_stream_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "log.eval"
    os.mkfifo(fifo)  # no writer ever comes: a blocking open would wait for ever
    with pytest.raises(OSError) as caught:
        open_regular(fifo)
    assert caught.value.strerror == NOT_REGULAR
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path)


def test_the_limit_is_a_size_error_carrying_the_size(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 100)
    with pytest.raises(TooLarge) as caught:
        read_regular(path, 99)
    assert (caught.value.size, caught.value.limit) == (100, 99)


@pytest.mark.parametrize(
    "name",
    [".git/config", ".GIT/config", "vendor/lib/.git/config", "docs/config", "docs-git/config"],
)
def test_a_git_folder_is_outside_the_repository(tmp_path: Path, name: str) -> None:
    """git never tracks a path through a ``.git`` folder (in any case): what is there is the
    clone's own (its config, credentials included), never the repository's content, and a
    committed link is the only way a name reaches it."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[credential]\n")
    (tmp_path / "vendor" / "lib" / ".git").mkdir(parents=True)
    (tmp_path / "vendor" / "lib" / ".git" / "config").write_text("[credential]\n")
    (tmp_path / "docs").symlink_to(".git")
    (tmp_path / "docs-git").symlink_to("vendor/lib/.git")
    with pytest.raises(Outside):
        read_inside(tmp_path, name)
    assert not is_inside(tmp_path, name)


def test_a_name_holding_git_is_still_inside(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "x.git").write_text("ok\n")
    assert read_inside(tmp_path, ".github/x.git") == b"ok\n"


def _first_long_line_by_lines(raw: bytes, limit: int) -> tuple[int, int] | None:
    """The first line longer than ``limit``, found by reading each line in turn."""
    start = 0
    for number, line in enumerate(raw.split(b"\n"), 1):
        if len(line) > limit:
            return number, start
        start += len(line) + 1
    return None


@given(
    raw=st.lists(st.sampled_from([b"\n", b"a", b"bb", b"cccc", b"\n\n"]), max_size=60).map(
        b"".join
    ),
    limit=st.integers(min_value=0, max_value=9),
)
def test_longest_line_finds_the_first_line_over_the_limit_as_reading_each_line_does(
    raw: bytes, limit: int
) -> None:
    """``longest_line`` steps from window to window, not line to line; it must name the same
    line and byte as reading the lines one by one."""
    assert longest_line(raw, limit) == _first_long_line_by_lines(raw, limit)
