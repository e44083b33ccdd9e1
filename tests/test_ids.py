"""Case ids two branches cannot both take (docs/new.md, "The id"), and the exclusive create
behind them; the merge of two branches that each ran ``goldcase new`` on real git."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from goldcase.errors import GoldcaseError
from goldcase.ids import (
    ALPHABET,
    EPOCH,
    draft_id,
    encode,
    new_id,
    prefix_of,
    suffix,
    write_new_case,
)
from goldcase.writer import create_exclusive
from kit import commit, git, git_set, goldcase, read_lock, write

SUFFIX = re.compile(r"[0-9a-hjkmnp-tv-z]{9}")


def test_the_alphabet_is_crockford_base_32_in_lower_case() -> None:
    assert len(ALPHABET) == len(set(ALPHABET)) == 32
    assert not set("ilou") & set(ALPHABET)
    assert list(ALPHABET) == sorted(ALPHABET)  # so ids of one prefix sort by time


@pytest.mark.parametrize(
    ("minutes", "entropy", "expected"),
    [
        (0, b"\x00\x00\x00\x00", "000000000"),
        (1, b"\x00\x00\x00\x1f", "00001000z"),
        (32**5 - 1, b"\xff\xff\xff\xff", "zzzzzzzzz"),
        (32**5, b"\x00\x00\x00\x00", "000000000"),  # past 2083 the time characters wrap
    ],
)
def test_suffix(minutes: int, entropy: bytes, expected: str) -> None:
    assert suffix(EPOCH + timedelta(minutes=minutes), entropy) == expected


def test_a_time_before_2020_counts_as_2020() -> None:
    assert suffix(datetime(2019, 5, 1, tzinfo=UTC), b"\x00" * 4).startswith("00000")


def test_encode_keeps_the_low_characters() -> None:
    assert encode(33, 2) == "11"
    assert encode(32**3 + 5, 2) == "05"


def test_ids_made_later_sort_later() -> None:
    early = suffix(datetime(2026, 3, 2, 9, 14, tzinfo=UTC), b"\xff" * 4)
    late = suffix(datetime(2026, 3, 2, 9, 15, tzinfo=UTC), b"\x00" * 4)
    assert early < late


def test_new_id_draws_again_when_the_id_is_taken() -> None:
    draws = itertools.cycle([b"\x00\x00\x00\x01", b"\x00\x00\x00\x02"])
    clock = lambda: EPOCH  # noqa: E731
    first = new_id("ret-", set(), clock, lambda n: next(draws))
    assert first == "ret-000000001"
    assert new_id("ret-", {first}, clock, lambda n: next(draws)) == "ret-000000002"


def test_draft_ids_are_a_function_of_the_trace() -> None:
    asked = datetime(2026, 3, 2, 9, 14, tzinfo=UTC)
    one = draft_id("trace-1", asked, set())
    assert one == draft_id("trace-1", asked, set())
    assert one != draft_id("trace-2", asked, set())
    assert one.startswith("tr-") and SUFFIX.fullmatch(one[3:])
    assert one[3:8] == suffix(asked, b"\x00" * 4)[:5]  # the minute the question was asked
    other = draft_id("trace-1", asked, {one})  # taken: another round of the hash
    assert other != one and other[3:8] == one[3:8]
    assert draft_id("trace-1", None, set()).startswith("tr-00000")


@pytest.mark.parametrize(
    ("case_id", "prefix"),
    [
        ("ret-014", "ret-"),
        ("dev-ret-003", "dev-ret-"),
        ("ret-1h4kq9m2x", "ret-"),
        ("r12", "r"),
        ("case", None),
        ("12", None),
        ("trailing-", None),
    ],
)
def test_prefix_of(case_id: str, prefix: str | None) -> None:
    assert prefix_of(case_id) == prefix


@pytest.mark.parametrize(
    ("case_id", "prefix"),
    [("1" * 1_000_000 + "x", None), ("x" + "1" * 1_000_000 + "x2", "x" + "1" * 1_000_000 + "x")],
)
def test_a_megabyte_id_is_read_once(case_id: str, prefix: str | None) -> None:
    """An id that fails the schema still counts towards the prefix ``goldcase new`` gives: one
    of a megabyte of digits and a letter was tried at every split, each to its end (hours)."""
    assert prefix_of(case_id) == prefix


def test_create_exclusive_never_replaces_a_file(tmp_path: Path) -> None:
    target = tmp_path / "cases" / "a.yaml"
    assert create_exclusive(target, b"first\n")
    assert not create_exclusive(target, b"second\n")
    assert target.read_text(encoding="utf-8") == "first\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.yaml"]  # no temporary left


def test_create_exclusive_refuses_a_dangling_link(tmp_path: Path) -> None:
    target = tmp_path / "a.yaml"
    target.symlink_to(tmp_path / "elsewhere.yaml")
    assert not create_exclusive(target, b"x\n")
    assert not (tmp_path / "elsewhere.yaml").exists()


def test_write_new_case_draws_again_when_another_process_took_the_file(tmp_path: Path) -> None:
    (tmp_path / "ret-a.yaml").write_text("someone else's\n", encoding="utf-8")
    ids = iter(["ret-a", "ret-b"])
    case_id, path = write_new_case(
        tmp_path, "ret-", set(), lambda i: f"id: {i}\n", lambda p, t: next(ids)
    )
    assert (case_id, path.name) == ("ret-b", "ret-b.yaml")
    assert (tmp_path / "ret-a.yaml").read_text(encoding="utf-8") == "someone else's\n"
    assert path.read_text(encoding="utf-8") == "id: ret-b\n"


def test_write_new_case_gives_up_after_its_attempts(tmp_path: Path) -> None:
    (tmp_path / "ret-a.yaml").write_text("x\n", encoding="utf-8")
    with pytest.raises(GoldcaseError, match="no free id"):
        write_new_case(tmp_path, "ret-", set(), str, lambda p, t: "ret-a", attempts=3)


NEW = ("new", "--no-prompt", "--expected-answer", "14 days")  # the slice of ret-001 and ret-002
QUOTE = ("--doc", "returns-policy.md", "--quote", "A customer has 14 days from delivery")


def test_two_branches_add_cases_with_new_and_merge_without_a_conflict(tmp_path: Path) -> None:
    """The issue's story: two branches each run goldcase new in one slice; with sequential ids
    both took the same next number and the merge was an add/add conflict."""
    root = git_set(tmp_path / "set")
    write(root, ".gitattributes", "golden.version merge=goldcase\ngolden.lock merge=goldcase\n")
    commit(root, "attributes")
    assert goldcase(root, "merge-driver", "--install").returncode == 0
    added: dict[str, list[str]] = {}
    for branch in ("one", "two"):
        git(root, "checkout", "-q", "-b", branch, "main")
        before = set(Path(root, "cases/golden").iterdir())
        for n in range(3):
            made = goldcase(root, *NEW, "--question", f"{branch} question {n}?", *QUOTE)
            assert made.returncode == 0, made.stderr
        added[branch] = sorted(p.stem for p in set(Path(root, "cases/golden").iterdir()) - before)
        assert goldcase(root, "lock").returncode == 1
        commit(root, f"cases on {branch}")
    merged = git(root, "merge", "--no-edit", "--no-gpg-sign", "one", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    ids = sorted(p.stem for p in Path(root, "cases/golden").iterdir())
    assert len(ids) == len(set(ids)) == 2 + 6
    assert set(added["one"]) | set(added["two"]) <= set(ids)
    assert all(re.fullmatch(r"ret-" + SUFFIX.pattern, i) for i in added["one"] + added["two"])
    assert goldcase(root, "lock").returncode == 1  # the merged version, as docs/version.md says
    assert sorted(read_lock(root)["cases"]) == ids
    check = goldcase(root, "check")
    assert check.returncode == 0, check.stdout
