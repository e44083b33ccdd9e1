"""A failing case can be read: the answer (cut), the expected answer, and for each failed check
what it wanted and what it saw, in the text, Markdown, JSON and HTML reports. The words come
from the checks' own definitions (``goldcase.scoring.expect.explain``), and user text is
escaped in Markdown and HTML."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldcase.scoring.expect import explain, failed_checks
from kit import run_cli
from scoring.kit import case_yaml, write_repo, write_results

WINDOW = {"contains": [["30 days", "thirty days"]], "not_contains": ["14 days"]}


@pytest.mark.parametrize(
    ("expect", "result", "wanted"),
    [
        (
            WINDOW,
            {"answer": "You have 14 days to send it back."},
            [
                "contains: none of [30 days, thirty days]",
                'not_contains: found "14 days"',
            ],
        ),
        ({"lead": "no"}, {"answer": "Yes, you can."}, ['lead: "yes", wanted "no"']),
        (
            {"cites_id": "MD-P-16"},
            {"answer": "x", "citations": [{"id": "MD-P-12"}, {"id": "RC-4"}]},
            ["cites_id: no citation starting with MD-P-16 (cited: MD-P-12, RC-4)"],
        ),
        ({"cites_id": "MD-P-16"}, {"answer": "x"}, ["cites_id: no citation starting with MD-P-16"]),
        (
            {"contains": ["120", ["points", "pts"]]},
            {"answer": "You earn 12 points."},
            ['contains: "120" not found'],
        ),
        (
            {"fact": "return_window_30_days"},
            {"fact": "return_window_14_days"},
            ['fact: "return_window_14_days", wanted "return_window_30_days"'],
        ),
        ({"scope": "returns"}, {"answer": "x"}, ['scope: no scope, wanted "returns"']),
        (
            {"cites": "section 4.2"},
            {"answer": "x", "citations": [{"text": "section 4.1"}]},
            ['cites: no citation text containing "section 4.2" (cited: section 4.1)'],
        ),
    ],
)
def test_each_failed_check_says_what_it_wanted_and_saw(
    expect: dict[str, Any], result: dict[str, Any], wanted: list[str]
) -> None:
    failed = failed_checks(expect, "30 days", result)
    assert [explain(name, expect, "30 days", result) for name in failed] == wanted


def test_no_check_declared_names_the_expected_answer() -> None:
    result = {"answer": "a month"}
    assert failed_checks({}, "30 days", result) == ["expected_answer"]
    assert explain("expected_answer", {}, "30 days", result) == (
        'expected_answer: "30 days" is not in the answer'
    )


HOSTILE = "Send it | <script>alert(1)</script> **now** [x](http://e.example) within 14 days, please"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    root = write_repo(
        tmp_path / "set",
        {
            "ret-001": case_yaml("ret-001", "returns", expect=WINDOW),
            "ret-002": case_yaml("ret-002", "returns", expect={"lead": "no"}),
            "una-001": case_yaml("una-001", "returns", answerable=False),
            "ret-003": case_yaml("ret-003", "returns"),
        },
    )
    write_results(
        root / "run.jsonl",
        [
            {"id": "ret-001", "outcome": "answer", "answer": HOSTILE},
            {"id": "ret-002", "outcome": "answer", "answer": "Yes, you can."},
            {"id": "una-001", "outcome": "answer", "answer": "Ask the desk."},
            {"id": "ret-003", "outcome": "error", "error": "timeout after 30 s"},
        ],
    )
    return root


def test_text_shows_answer_expected_and_why(run: Path) -> None:
    result = run_cli("score", run / "run.jsonl", "--repo", run)
    assert result.exit_code == 0, result.stderr
    block = result.stdout.split("failing cases (4)\n", 1)[1].splitlines()
    assert block[:5] == [
        "  ret-001  returns  answer  contains, not_contains",
        f'    answer:   "{HOSTILE[:79]}…"',
        '    expected: "30 days"',
        "    contains: none of [30 days, thirty days]",
        '    not_contains: found "14 days"',
    ]
    assert block[5:13] == [
        "  ret-002  returns  answer  lead",
        '    answer:   "Yes, you can."',
        '    expected: "30 days"',
        '    lead: "yes", wanted "no"',
        "  ret-003  returns  error  error",
        "    answer:   (an error)",
        '    expected: "30 days"',
        '    error: "timeout after 30 s"',
    ]
    assert block[13:17] == [
        "  una-001  returns  answer  answered",
        '    answer:   "Ask the desk."',
        "    expected: an abstention",
        "    answered: wanted an abstention (the documents do not answer this question)",
    ]


def test_json_carries_the_answer_expected_answer_and_why(run: Path) -> None:
    result = run_cli("score", run / "run.jsonl", "--repo", run, "--format", "json")
    cases = {case["id"]: case for case in json.loads(result.stdout)["cases"]}
    assert cases["ret-001"]["answer"] == HOSTILE
    assert cases["ret-001"]["expected_answer"] == "30 days"
    assert cases["ret-001"]["why"] == [
        "contains: none of [30 days, thirty days]",
        'not_contains: found "14 days"',
    ]
    assert cases["una-001"]["expected_answer"] is None


def test_markdown_escapes_what_the_system_said(run: Path) -> None:
    result = run_cli("score", run / "run.jsonl", "--repo", run, "--format", "markdown")
    row = next(line for line in result.stdout.splitlines() if line.startswith("| `ret-001`"))
    # the core's Markdown escaping (output.md_text): nothing the system wrote can open a tag,
    # format, link or close the table's cell
    assert "\\<script\\>" in row and "\\*\\*now\\*\\*" in row and "\\[x\\]" in row
    assert "http:\u200b//" in row  # no bare link
    cells = row.replace("\\|", "").split("|")[1:-1]
    assert len(cells) == 6  # the answer's bar did not open a seventh cell
    assert cells[5].strip() == (
        'contains: none of \\[30 days, thirty days\\]<br>not\\_contains: found "14 days"'
    )


def test_the_page_shows_answer_expected_why_escaped(run: Path) -> None:
    report = run / "run.json"
    assert run_cli("score", run / "run.jsonl", "--repo", run, "--out", report).exit_code == 0
    page = run / "page.html"
    assert run_cli("report", report, "--html", page).exit_code == 0
    html = page.read_text(encoding="utf-8")
    failing = html.split('<table id="failing">', 1)[1]
    assert "<script>alert" not in failing and "&lt;script&gt;alert(1)&lt;/script&gt;" in failing
    assert "<li>contains: none of [30 days, thirty days]</li>" in failing
    assert "<li>not_contains: found &quot;14 days&quot;</li>" in failing
    assert "<li>lead: &quot;yes&quot;, wanted &quot;no&quot;</li>" in failing
    assert '<td class="text">an abstention</td>' in failing
