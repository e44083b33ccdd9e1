"""The report page: structure and numbers, from the six-case fixture of the method (hand-made
report files under tests/data/reports/; the Wilson intervals were computed by hand)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from goldcase.html.page import Composition, PageInput, build_page, coverage_points, flipped
from goldcase.scoring.paired import newcombe_paired
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


def test_the_gate_says_why_each_slice_passed(page: str) -> None:
    gate = page.split('id="gate"')[1].split("</table>")[0]
    assert "The gate passes" in page
    # every slice of 2 cases is under its floor of 20: reported, never gated, and overall
    # (over the gated slices only) has no case
    assert gate.count("under floor 20: not gated") == 3
    assert "no gated slice" in gate
    assert "over the 0 of 0 tests with enough changed cases" in page


def test_the_gate_table_carries_p_and_adjusted_p_for_gated_slices() -> None:
    def floors(report: dict[str, Any], floor: int) -> dict[str, Any]:
        slices = {k: dict(v, floor=floor) for k, v in report["slices"].items()}
        return dict(report, slices=slices)

    html = build_page(PageInput(floors(REPORT, 2), floors(BASE, 2)))
    rows = re.findall(
        r"<tr[^>]*><th scope=\"row\">(.*?)</th>(.*?)</tr>", html.split('id="gate"')[1]
    )
    cells = {name: re.findall(r"<td>(.*?)</td>", rest) for name, rest in rows}
    # exception lost E2 (1/2 -> 0/2): one-sided p 1/2, and with one changed case no p under
    # 1/2 is possible; standard gained E1: p 1; overall (E2 lost, E1 gained) p 3/4: no test
    # can reach 0.05, so every adjusted p is 1
    _, low, high = newcombe_paired(0, 0, 1, 1)  # passed in both, head only, base only, neither
    interval = f"{100 * low:+.1f} to {100 * high:+.1f}"
    assert cells["exception"][-5:] == ["-50.0", interval, "0.5", "1", "ok: too few changes"]
    assert cells["standard"][-2:] == ["1", "ok: no drop"]
    assert cells["overall (gated slices)"][-3:] == ["0.75", "1", "ok: no drop"]


def test_the_traffic_weighted_rate_is_the_headline_when_shares_are_configured() -> None:
    weighted = dict(
        REPORT,
        weighted_task_success=0.4,
        weighted={
            "value": 0.4,
            "interval": [0.1, 0.75],
            "effective_cases": 5.2,
            "method": "stratified Wilson on the effective number of cases",
            "slices": ["standard", "exception"],
            "shares_sum": 1.0,
        },
    )
    cards = outline(build_page(PageInput(weighted))).text
    text = " ".join(cards)
    assert cards.index("Traffic-weighted task success") < cards.index("Task success")
    assert "40.0%" in text and "95% interval 10.0% to 75.0%" in text
    assert "over this set's cases (stratified; not a traffic estimate)" in text
    # a report with no shares keeps task success as its first card
    plain = outline(build_page(PageInput(REPORT))).text
    assert "Traffic-weighted task success" not in plain


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
