"""``goldcase contamination``: planted questions and answers are found by file, line and byte
offset; a clean file is clean; byte ranges give the same hits as the whole file."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldcase.leakage.contamination import GramIndex, Hit, merge, scan_file, scan_range
from goldcase.model import Case
from kit import run_cli
from leakage.kit import case_yaml as case

# 17 words: five 13-grams.
LONG_Q = "Can a customer who bought a damaged kettle last month still ask us for a credit note?"
SHORT_Q = "Do you take American Express?"
LONG_A = (
    "Yes, a customer has fourteen days from delivery to request a credit for a damaged "
    "delivery, by email"
)


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo(
        {
            "cases/golden/long.yaml": case("long", LONG_Q),
            "cases/golden/amex.yaml": case("amex", SHORT_Q, "Yes"),
            "cases/golden/window.yaml": case("window", "What is the credit window?", LONG_A),
            "cases/golden/tiny.yaml": case("tiny", "Refunds?"),
            "cases/dev/dev-1.yaml": case("dev-1", "Is there a dev question in this text?"),
        }
    )


def test_planted_question_in_plain_text(repo: Path, tmp_path: Path) -> None:
    lines = [
        "Unrelated first line about gardening.\n",
        "Refunds? Every text says refunds.\n",  # too short to search
        "Forum post: can a customer who bought a damaged kettle last month still ask us\n",
        "is there a dev question in this text\n",  # dev cases are not searched
        "Q: do you take american-express ? A: yes, always.\n",
    ]
    data = tmp_path / "train.txt"
    data.write_text("".join(lines), encoding="utf-8")
    result = run_cli("contamination", "--repo", repo, data)
    assert result.exit_code == 1
    line3 = len("".join(lines[:2]).encode())
    line5 = len("".join(lines[:4]).encode())
    assert result.stdout.splitlines() == [
        f"{data}:3: long question (1/5 13-grams, byte {line3})",
        f"{data}:5: amex answer (whole, byte {line5})",
        f"{data}:5: amex question (whole, byte {line5})",
        f"2 of 4 golden cases found in 1 file ({data.stat().st_size:,} bytes)",
    ]


def test_jsonl_records_are_read_as_their_strings(repo: Path, tmp_path: Path) -> None:
    records = [
        {
            "messages": [
                {"role": "user", "content": "Do you take American\u00a0Express?"},
                {"role": "assistant", "content": "No."},
            ]
        },
        {"prompt": "What is the credit window?", "completion": LONG_A.replace(",", " ,")},
        {"text": "nothing to see"},
    ]
    data = tmp_path / "ft.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = run_cli("contamination", "--repo", repo, "--format", "json", data)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    second = len((json.dumps(records[0]) + "\n").encode())
    assert report["contaminated"] == ["amex", "window"]
    assert report["ngram"] == 13 and report["cases"] == 4
    assert report["hits"] == [
        # the amex answer "yes" is not in the record: the question alone
        {
            "case": "amex",
            "part": "question",
            "path": str(data),
            "line": 1,
            "offset": 0,
            "matched": 1,
            "total": 1,
        },
        # 18-word answer: six 13-grams, all there; the 5-word question whole
        {
            "case": "window",
            "part": "answer",
            "path": str(data),
            "line": 2,
            "offset": second,
            "matched": 6,
            "total": 6,
        },
        {
            "case": "window",
            "part": "question",
            "path": str(data),
            "line": 2,
            "offset": second,
            "matched": 1,
            "total": 1,
        },
    ]


def test_a_clean_file(repo: Path, tmp_path: Path) -> None:
    data = tmp_path / "clean.txt"
    data.write_text("Nothing here mentions any golden question.\n" * 50, encoding="utf-8")
    result = run_cli("contamination", "--repo", repo, data)
    assert result.exit_code == 0
    assert result.stdout == (
        f"0 of 4 golden cases found in 1 file ({data.stat().st_size:,} bytes)\n"
    )


def test_ngram_option(repo: Path, tmp_path: Path) -> None:
    data = tmp_path / "t.txt"
    data.write_text("who bought a damaged kettle last month\n", encoding="utf-8")
    assert run_cli("contamination", "--repo", repo, data).exit_code == 0
    result = run_cli("contamination", "--repo", repo, "--ngram", "5", data)
    assert result.exit_code == 1
    # 17-word question, 5-grams: 13 of them; the line holds 7 of its words in order, so 3
    assert result.stdout.splitlines()[0] == f"{data}:1: long question (3/13 5-grams, byte 0)"


def test_missing_file_cannot_run(repo: Path, tmp_path: Path) -> None:
    result = run_cli("contamination", "--repo", repo, tmp_path / "nope.txt")
    assert result.exit_code == 2


def _index() -> GramIndex:
    cases = [
        Case("a.yaml", "golden", {"id": "a", "question": LONG_Q}),
        Case("b.yaml", "golden", {"id": "b", "question": SHORT_Q, "expected_answer": "yes"}),
    ]
    return GramIndex.build(cases, 13)


LINES = [
    "plain words here\n",
    f"{LONG_Q}\n",
    "\n",
    f"héllo {SHORT_Q} yes\n",
    '{"x": 1}\n',
    f"tail {LONG_Q} {SHORT_Q}",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_byte_ranges_give_the_same_hits(
    tmp_path_factory: pytest.TempPathFactory, cuts: list[int]
) -> None:
    path = tmp_path_factory.mktemp("ranges") / "c.txt"
    path.write_text("".join(LINES), encoding="utf-8")
    size = path.stat().st_size
    bounds = sorted({0, size, *(min(c, size) for c in cuts)})
    index = _index()
    whole = scan_file(index, path)
    parts = [scan_range(index, path, a, b) for a, b in itertools.pairwise(bounds)]
    assert merge(parts) == whole
    assert [(h.case, h.part, h.line) for h in whole] == [
        # line 6 holds question b but not its answer "yes"
        ("a", "question", 2),
        ("a", "question", 6),
        ("b", "answer", 4),
        ("b", "question", 4),
        ("b", "question", 6),
    ]
    assert all(isinstance(h, Hit) for h in whole)


def test_the_progress_bar_does_not_change_the_report(repo: Path, tmp_path: Path) -> None:
    from goldcase import progress
    from goldcase.cache import Cache
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.leakage.scan.run import ScanOptions, scan_golden

    data = tmp_path / "t.txt"
    data.write_text("intro\n" + SHORT_Q + " yes\n" * 3, encoding="utf-8")
    ctx = Context(load_config(repo), Cache(None))
    options = ScanOptions(workers=1)
    quiet = scan_golden(ctx, [data], None, options)
    progress.enable(True)
    try:
        shown = scan_golden(ctx, [data], None, options)
    finally:
        progress.enable(False)
    assert quiet == shown
    # line 2 holds the question and its answer "yes"; lines 3 and 4 only " yes"
    assert [(h.case, h.part, h.line) for h in quiet.hits] == [
        ("amex", "answer", 2),
        ("amex", "question", 2),
    ]
