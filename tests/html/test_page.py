"""The report page: structure and numbers, from the six-case fixture of the method (hand-made
report files under tests/data/reports/; the Wilson intervals were computed by hand)."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from goldcase.html.page import Composition, PageInput, build_page, coverage_points, flipped
from kit import DATA

REPORT = json.loads((DATA / "reports" / "six-case.json").read_text())
BASE = json.loads((DATA / "reports" / "six-case-base.json").read_text())


class Outline(HTMLParser):
    """Tags, attributes and the text under each id'd element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def outline(html: str) -> Outline:
    parser = Outline()
    parser.feed(html)
    return parser


@pytest.fixture(scope="module")
def page() -> str:
    return build_page(
        PageInput(
            REPORT,
            BASE,
            [Composition("standard", 2, 1 / 3, 0.5), Composition("exception", 2, 1 / 3, 0.5)],
            {"E2": "../cases/golden/E2.yaml"},
        )
    )


def test_headline_rates_name_their_denominators(page: str) -> None:
    text = " ".join(outline(page).text)
    assert "2 of 6 cases (cases passed / cases)" in text
    assert "3 of 6 cases (cases answered / cases)" in text
    assert "1 of 3 answers (answers correct / answers)" in text
    assert "95% interval 9.7% to 70.0%" in text  # Wilson, 2 of 6
    assert "95% interval 6.2% to 79.2%" in text  # Wilson, 1 of 3


def test_a_rate_with_no_denominator_says_so() -> None:
    empty = dict(REPORT, answered=0, correct_answers=0, answered_accuracy=None)
    text = " ".join(outline(build_page(PageInput(empty))).text)
    assert "no answers: the rate is undefined" in text
    assert "n/a" in text


def test_slices_are_drawn_and_tabled_with_the_floor_marked(page: str) -> None:
    assert page.count('class="dot hollow"') >= 3  # every slice of 2 is under its floor of 20
    text = " ".join(outline(page).text)
    assert "exception (below floor)" in text
    assert "Slice floor: 20 cases" in text


def test_every_chart_has_a_text_alternative(page: str) -> None:
    svgs = [attrs for tag, attrs in outline(page).tags if tag == "svg"]
    assert len(svgs) == 4  # slices, coverage, deltas, composition
    for attrs in svgs:
        assert attrs["role"] == "img"
        title, desc = (attrs["aria-labelledby"] or "").split()
        assert f'id="{title}"' in page and f'id="{desc}"' in page
    assert "exception: 0.0% (0 of 2), 95% interval 0.0% to 65.8%, below its floor" in page


def test_nothing_is_fetched(page: str) -> None:
    for tag, attrs in outline(page).tags:
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            assert not re.match(r"^(https?:)?//", value), (tag, attrs)
    assert "<link" not in page and "@import" not in page


def test_comparison_lists_flips_and_deltas(page: str) -> None:
    assert flipped(REPORT, BASE) == [("lost", "E2"), ("gained", "E1")]
    text = " ".join(outline(page).text)
    assert "▼ -50.0 pts" in text and "▲ +50.0 pts" in text
    assert "Flipped cases (2)" in text


def test_failing_cases_table_links_to_case_files(page: str) -> None:
    rows = re.findall(r"<tr><td>(.*?)</td>", page.split('id="failing"')[1])
    assert rows == ['<a href="../cases/golden/E2.yaml">E2</a>', "E4", "E5", "E6"]


def test_coverage_curve_walks_answers_by_confidence() -> None:
    assert coverage_points(REPORT) == [(1 / 6, 1.0), (2 / 6, 0.5), (3 / 6, 1 / 3)]


def test_footer_carries_version_and_digests(page: str) -> None:
    assert "<dt>golden.version</dt><dd><code>3</code></dd>" in page
    assert f"<code>{'a' * 64}</code>" in page and f"<code>{'b' * 64}</code>" in page


def test_print_and_narrow_screen_rules(page: str) -> None:
    assert "@media print" in page and "@media (max-width: 600px)" in page
    assert 'name="viewport"' in page


def test_written_page_is_one_file(tmp_path: Path, page: str) -> None:
    out = tmp_path / "r.html"
    out.write_text(page)
    assert out.stat().st_size < 100_000


def test_the_gate_verdict_and_its_reasons_follow_the_comparison(page: str) -> None:
    from goldcase.scoring.compare import compare

    verdict = compare(BASE, REPORT)
    words = "passes" if verdict.passed else "fails"
    assert f'<h3 id="gate">The gate {words}</h3>' in page
    assert verdict.failures  # the fixture's exception slice drops
    for reason in verdict.failures:
        assert f"<li>{html.escape(reason)}</li>" in page


def test_stage_attribution_section_and_column() -> None:
    traced = json.loads(json.dumps(REPORT))
    traced["retrieval"] = {
        "recall_at": {"1": 0.5, "3": 0.75},
        "mrr": 0.6,
        "all_support_in_context": 0.5,
        "cases_with_trace": 4,
        "support_quotes": 4,
        "stages": {
            "retrieval": [{"id": "E2", "slice": "exception", "missing_docs": ["a.md"]}],
            "context": [],
            "answer": [{"id": "E6", "slice": "exception", "missing_docs": []}],
            "unknown": [],
        },
        "stages_by_slice": {},
        "unanswerable": {},
    }
    page = build_page(PageInput(traced, None, [], {}))
    section = page.split("<h2>Where failing cases lost their support</h2>", 1)[1]
    assert "retrieval: the support was never retrieved</th><td>1</td><td>E2</td>" in section
    assert "answer: the support reached the model" in section
    failing = page.split('<table id="failing">', 1)[1]
    assert "<th>lost at</th>" in failing
    row = failing.split(">E2<", 1)[1].split("</tr>", 1)[0]
    assert "<td>retrieval</td>" in row
