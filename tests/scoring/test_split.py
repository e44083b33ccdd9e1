"""The calibration / eval split: exact stratum sizes, keyed-hash ranking, stability, CLI."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.errors import GoldcaseError
from goldcase.model import Case
from goldcase.scoring.split import assign_split, calibration_size, select, summarise_split
from kit import run_cli


def case(case_id: str, slice_: str = "returns", answerable: bool = True) -> Case:
    return Case(
        f"cases/golden/{case_id}.yaml",
        "golden",
        {
            "id": case_id,
            "question": "q",
            "slice": slice_,
            "answerable": answerable,
        },
    )


@pytest.mark.parametrize(
    ("size", "fraction", "expected"),
    [
        (5, 0.5, 3),  # 2.5 rounds half up, not to the even 2
        (5, 0.4, 2),
        (3, 0.5, 2),
        (1, 0.5, 1),
        (1, 0.4, 0),
        (10, 0.4, 4),
        (7, 0.4, 3),  # 2.8
        (2, 0.25, 1),  # 0.5
        (90, 0.35, 32),  # exactly 31.5; the binary float 0.35 * 90 + 0.5 would floor to 31
        (45, 0.7, 32),  # exactly 31.5 as well
        (0, 0.4, 0),
        (10, 0.0, 0),
        (10, 1.0, 10),
    ],
)
def test_calibration_size_rounds_half_up_on_the_exact_fraction(
    size: int, fraction: float, expected: int
) -> None:
    assert calibration_size(size, fraction) == expected


def test_each_stratum_gets_its_exact_share() -> None:
    cases = (
        [case(f"r{i}", "returns") for i in range(5)]
        + [case(f"u{i}", "returns", answerable=False) for i in range(3)]
        + [case(f"b{i}", "billing") for i in range(7)]
        + [case(f"x{i}", "billing", answerable=False) for i in range(1)]
    )
    split = assign_split(cases, seed=7, fraction=0.4)
    calibration = Counter(cid[0] for cid, where in split.items() if where == "calibration")
    # 5 * 0.4 = 2; 3 * 0.4 = 1.2 -> 1; 7 * 0.4 = 2.8 -> 3; 1 * 0.4 = 0.4 -> 0
    assert calibration == {"r": 2, "u": 1, "b": 3}
    assert set(split) == {c.id for c in cases}
    assert set(split.values()) == {"calibration", "eval"}


def test_calibration_cases_are_the_lowest_keyed_hashes() -> None:
    ids = [f"ret-{i:03d}" for i in range(10)]
    split = assign_split([case(i) for i in ids], seed=42, fraction=0.4)

    def digest(case_id: str) -> bytes:
        return hashlib.blake2b(case_id.encode(), key=b"42", digest_size=16).digest()

    expected = sorted(ids, key=digest)[:4]
    assert sorted(i for i, w in split.items() if w == "calibration") == sorted(expected)


def test_the_seed_changes_the_split_and_the_input_order_does_not() -> None:
    cases = [case(f"c{i}") for i in range(40)]
    first = assign_split(cases, seed=1, fraction=0.5)
    assert assign_split(list(reversed(cases)), seed=1, fraction=0.5) == first
    assert assign_split(cases, seed=2, fraction=0.5) != first


def test_duplicate_ids_and_bad_fractions_are_refused() -> None:
    with pytest.raises(GoldcaseError, match="two cases share the id 'a'"):
        assign_split([case("a"), case("a"), case("b")], seed=0, fraction=0.4)
    with pytest.raises(GoldcaseError, match="between 0 and 1"):
        assign_split([case("a")], seed=0, fraction=1.5)


def test_select_returns_one_half_and_all_keeps_everything() -> None:
    cases = [case(f"c{i}") for i in range(10)]
    calibration = select(cases, "calibration", seed=3, fraction=0.4)
    evaluation = select(cases, "eval", seed=3, fraction=0.4)
    assert len(calibration) == 4
    assert len(evaluation) == 6
    assert {c.id for c in calibration} | {c.id for c in evaluation} == {c.id for c in cases}
    assert select(cases, "all", seed=3, fraction=0.4) == cases
    with pytest.raises(GoldcaseError, match="unknown split 'golden'"):
        select(cases, "golden", seed=3, fraction=0.4)


ID = st.from_regex(r"[a-z]{1,3}-[0-9]{1,3}", fullmatch=True)
SLICE = st.sampled_from(["returns", "billing", "delivery"])
CASES = st.dictionaries(ID, st.tuples(SLICE, st.booleans()), min_size=1, max_size=60)


def moved(before: dict[str, str], after: dict[str, str]) -> int:
    return sum(1 for cid in before.keys() & after.keys() if before[cid] != after[cid])


@settings(max_examples=150, deadline=None)
@given(
    CASES, ID, SLICE, st.booleans(), st.integers(0, 2**32), st.sampled_from([0.2, 0.4, 0.5, 0.7])
)
def test_adding_one_case_moves_at_most_one_other(
    existing: dict[str, tuple[str, bool]],
    new_id: str,
    new_slice: str,
    new_answerable: bool,
    seed: int,
    fraction: float,
) -> None:
    existing.pop(new_id, None)
    before_cases = [case(cid, s, a) for cid, (s, a) in existing.items()]
    after_cases = [*before_cases, case(new_id, new_slice, new_answerable)]
    before = assign_split(before_cases, seed, fraction)
    after = assign_split(after_cases, seed, fraction)
    assert moved(before, after) <= 1


@settings(max_examples=150, deadline=None)
@given(CASES, st.data(), st.integers(0, 2**32), st.sampled_from([0.2, 0.4, 0.5, 0.7]))
def test_removing_one_case_moves_at_most_one_other(
    existing: dict[str, tuple[str, bool]], data: st.DataObject, seed: int, fraction: float
) -> None:
    gone = data.draw(st.sampled_from(sorted(existing)))
    before_cases = [case(cid, s, a) for cid, (s, a) in existing.items()]
    after_cases = [c for c in before_cases if c.id != gone]
    assert (
        moved(assign_split(before_cases, seed, fraction), assign_split(after_cases, seed, fraction))
        <= 1
    )


SCRIPT = """
import json, sys
from goldcase.model import Case
from goldcase.scoring.split import assign_split
ids = json.loads(sys.argv[1])
cases = [Case("x", "golden", {"id": i, "question": "q", "slice": i[0]}) for i in ids]
print(json.dumps(assign_split(cases, 2024, 0.4)))
"""


@pytest.mark.parametrize("hashseed", ["0", "12345"])
def test_a_fresh_process_makes_the_same_split(hashseed: str) -> None:
    ids = [f"{s}-{i}" for s in "abc" for i in range(17)]
    expected = assign_split([case(i, i[0]) for i in ids], 2024, 0.4)
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(list(reversed(ids)))],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert json.loads(out.stdout) == expected


def test_summary_counts_each_stratum() -> None:
    cases = [case(f"r{i}") for i in range(5)] + [case(f"u{i}", answerable=False) for i in range(4)]
    summary = summarise_split(cases, seed=0, fraction=0.5)
    rows = [(s.slice, s.answerable, s.size, s.calibration, s.eval) for s in summary.strata]
    assert rows == [("returns", True, 5, 3, 2), ("returns", False, 4, 2, 2)]


CASE_YAML = "id: {id}\nquestion: q {id}\nslice: {slice}\nanswerable: false\n"


def test_split_command_text_and_json(make_repo: Callable[..., Path]) -> None:
    files = {
        f"cases/golden/g{i}.yaml": CASE_YAML.format(id=f"g{i}", slice="billing") for i in range(5)
    }
    files["cases/dev/d0.yaml"] = CASE_YAML.format(id="d0", slice="billing")
    files["goldcase.toml"] = "[split]\nseed = 9\nfraction = 0.5\n"
    root = make_repo(files)

    text = run_cli("split", "--repo", root)
    assert text.exit_code == 0, text.stderr
    assert text.stdout.splitlines()[0] == (
        "split of 5 golden cases: seed 9, fraction 0.5 -> 3 calibration, 2 eval"
    )
    assert "billing" in text.stdout.splitlines()[2]

    out = run_cli("split", "--repo", root, "--seed", "3", "--fraction", "0.2", "--format", "json")
    assert out.exit_code == 0, out.stderr
    payload = json.loads(out.stdout)
    assert (payload["seed"], payload["fraction"], payload["calibration"]) == (3, 0.2, 1)
    assert sorted(payload["cases"]) == [f"g{i}" for i in range(5)]  # the dev case is not split
    assert payload["strata"] == [
        {"answerable": False, "slice": "billing", "size": 5, "calibration": 1, "eval": 4}
    ]


def test_split_command_warns_about_invalid_golden_files(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/g0.yaml": CASE_YAML.format(id="g0", slice="billing"),
            "cases/golden/bad.yaml": "id: bad\n",  # no question: fails the schema
        }
    )
    result = run_cli("split", "--repo", root, "--list")
    assert result.exit_code == 0
    assert "warning: 1 golden case file(s) failed the schema" in result.stderr
    # one case in its stratum: 1 * 0.4 = 0.4 rounds down to no calibration case
    assert result.stdout.splitlines()[-2:] == ["calibration: (none)", "eval: g0"]


def test_split_command_rejects_a_bad_fraction(make_repo: Callable[..., Path]) -> None:
    result = run_cli("split", "--repo", make_repo(), "--fraction", "2")
    assert result.exit_code == 2
