"""The method's fixtures, scored end to end through the library: the six-case harness (and a
seventh case with no result), the free-text partial checks, weights, answer metrics, the
threshold, trials and the seeded splits. Expected values come from the method and from hand
computation, not from the code's output."""

from __future__ import annotations

import hashlib
import io
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from goldcase.commands.common import open_context
from goldcase.schemas import validator
from goldcase.scoring import results as results_module
from goldcase.scoring.report import SHOWN_FAILURES, cases_digest, render_markdown, render_text
from goldcase.scoring.results import InvalidInput
from goldcase.scoring.scorer import score
from kit import needs_cores, recorded_forks
from scoring.kit import case_yaml, score_lines, six_cases, six_results, write_repo

Z = 1.959963984540054


def same(value: float | None, fraction: Fraction) -> bool:
    return value is not None and math.isclose(value, float(fraction), rel_tol=0, abs_tol=1e-12)


@pytest.fixture
def six(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "six", six_cases())


def test_six_case_counts_and_rates(six: Path) -> None:
    report = score_lines(six, six_results())
    counts = {
        k: report[k]
        for k in ("total", "success", "answered", "correct_answers", "errors", "missing")
    }
    assert counts == {
        "total": 6,
        "success": 2,
        "answered": 3,
        "correct_answers": 1,
        "errors": 1,
        "missing": 0,
    }
    assert same(report["task_success"], Fraction(1, 3))
    assert same(report["answer_coverage"], Fraction(1, 2))
    assert same(report["answered_accuracy"], Fraction(1, 3))
    slices = {name: (s["success"], s["total"]) for name, s in report["slices"].items()}
    assert slices == {"standard": (1, 2), "exception": (0, 2), "missing": (1, 2)}
    assert same(report["slices"]["exception"]["rate"], Fraction(0))


def test_six_case_outcomes_and_failed_checks(six: Path) -> None:
    report = score_lines(six, six_results())
    rows = [(c["id"], c["outcome"], c["passed"], c["failed_checks"]) for c in report["cases"]]
    assert rows == [
        ("E1", "answer", True, []),
        ("E2", "answer", False, ["fact"]),
        ("E3", "abstain", True, []),
        ("E4", "answer", False, ["answered"]),
        ("E5", "error", False, ["error"]),
        ("E6", "abstain", False, ["abstained"]),
    ]


def test_a_seventh_case_without_a_result_is_missing(six: Path) -> None:
    (six / "cases" / "golden" / "E7.yaml").write_text(
        case_yaml("E7", "standard", expect={"fact": "return_window_30_days"}), encoding="utf-8"
    )
    report = score_lines(six, six_results())
    assert (report["total"], report["success"], report["missing"]) == (7, 2, 1)
    assert same(report["task_success"], Fraction(2, 7))
    assert same(report["answer_coverage"], Fraction(3, 7))
    assert same(report["answered_accuracy"], Fraction(1, 3))
    assert report["slices"]["standard"]["total"] == 3
    assert report["cases"][-1] == {
        "id": "E7",
        "slice": "standard",
        "answerable": True,
        "outcome": "missing",
        "passed": False,
        "failed_checks": ["missing"],
        "confidence": None,
        "answer": None,
        "expected_answer": "30 days",
        "why": ["missing: no result line for this case"],
    }


def test_rates_are_null_when_their_denominator_is_zero(six: Path) -> None:
    report = score_lines(six, [{"id": "E3", "outcome": "abstain"}])
    assert report["answered"] == 0
    assert report["answered_accuracy"] is None
    assert report["intervals"]["answered_accuracy"] is None
    assert report["exact_match"] is None and report["token_f1"] is None


def test_wilson_intervals_match_their_closed_forms(six: Path) -> None:
    report = score_lines(six, six_results())
    # 0 of 2: the upper end is z^2 / (n + z^2)
    low, high = report["slices"]["exception"]["interval"]
    assert low == 0.0
    assert math.isclose(high, Z * Z / (2 + Z * Z), rel_tol=1e-12)
    # 1 of 2: centred on 1/2, half-width z * sqrt(1/8 + z^2/16) / (1 + z^2/2)
    low, high = report["slices"]["standard"]["interval"]
    half = Z * math.sqrt(1 / 8 + Z * Z / 16) / (1 + Z * Z / 2)
    assert math.isclose(low, 0.5 - half, rel_tol=1e-12)
    assert math.isclose(high, 0.5 + half, rel_tol=1e-12)
    # task success: 2 of 6
    p, n = 2 / 6, 6
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    spread = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    assert report["intervals"]["task_success"] == pytest.approx([centre - spread, centre + spread])


def test_report_follows_its_schema_and_pins_its_inputs(six: Path) -> None:
    report = score_lines(six, six_results())
    assert list(validator("report.schema.json").iter_errors(report)) == []
    raw = (six / "results.jsonl").read_bytes()
    assert report["results_digest"] == hashlib.sha256(raw).hexdigest()
    canonical = json.dumps(
        report["cases"], sort_keys=True, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    assert report["cases_digest"] == hashlib.sha256(canonical).hexdigest()
    assert cases_digest(report["cases"]) == report["cases_digest"]
    assert report["golden_version"] == "1.4.0"
    assert (report["split"], report["split_seed"], report["threshold"]) == ("golden", None, None)


def test_editing_a_case_in_the_report_changes_the_cases_digest(six: Path) -> None:
    report = score_lines(six, six_results())
    edited = json.loads(json.dumps(report["cases"]))
    edited[1]["passed"] = True
    assert cases_digest(edited) != report["cases_digest"]


# --- free text -----------------------------------------------------------------------------------

ROAD = "road-law"
FREE_TEXT = {
    "park-001": {"scope": ROAD, "contains": ["15"], "cites": "§ 21-1003(m)"},
    "beam-001": {"scope": ROAD, "contains": ["300"], "not_contains": ["500"]},
    "phones-001": {"scope": ROAD, "lead": "no", "cites": "§ 21-1120(c)"},
    "lights-001": {"scope": ROAD, "contains": [["1,000", "1000"]]},
    "license-001": {"scope": ROAD, "contains": ["50"], "cites_id": "MD-P-16"},
}


@pytest.fixture
def free_text(tmp_path: Path) -> Path:
    cases = {cid: case_yaml(cid, "road", expect=expect) for cid, expect in FREE_TEXT.items()}
    cases["oos-001"] = case_yaml("oos-001", "other", answerable=False, expect={"scope": "other"})
    return write_repo(tmp_path / "free", cases)


def answer(text: str, *, cite: str = "", cite_id: str = "X-1", scope: str = ROAD) -> dict[str, Any]:
    line: dict[str, Any] = {"outcome": "answer", "answer": text, "scope": scope}
    if cite:
        line["citations"] = [{"id": cite_id, "text": cite}]
    return line


FREE_TEXT_RUNS = [
    ("park-001", answer("Park at least 15 feet from a hydrant.", cite="§ 21-1003(m)"), []),
    ("park-001", answer("Stay 15 ft away.", cite="Md. Code § 21-1003(m)(1)"), []),
    ("park-001", answer("Park at least 150 feet away.", cite="§ 21-1003(m)"), ["contains"]),
    ("park-001", answer("About 1.5 car lengths.", cite="§ 21-1003(m)"), ["contains"]),
    ("park-001", answer("15,000 feet away.", cite="§ 21-1003(m)"), ["contains"]),
    ("park-001", answer("Park at least 15 feet away."), ["cites"]),
    ("park-001", answer("15 feet.", cite="§ 21-1003(t)"), ["cites"]),
    ("park-001", answer("15 feet.", cite="§ 21-1003(m)", scope="other"), ["scope"]),
    ("beam-001", answer("Dip to low beams within 300 feet of a car ahead."), []),
    ("beam-001", answer("Within 500 feet of an oncoming car."), ["contains", "not_contains"]),
    ("beam-001", answer("300 feet behind, 500 feet oncoming."), ["not_contains"]),
    ("beam-001", answer("300 feet; a fine of up to 5000 dollars."), []),
    ("phones-001", answer("No, not in both ears.", cite="§ 21-1120(c)"), []),
    ("phones-001", answer("**No** — it is illegal.", cite="§ 21-1120(c)"), []),
    ("phones-001", answer("NO.", cite="§ 21-1120(c)"), []),
    ("phones-001", answer("Not in both ears.", cite="§ 21-1120(c)"), ["lead"]),
    ("phones-001", answer("Yes, in one ear.", cite="§ 21-1120(c)"), ["lead"]),
    ("phones-001", answer("Nope.", cite="§ 21-1120(c)"), ["lead"]),
    ("lights-001", answer("Within 1,000 feet of another car."), []),
    ("lights-001", answer("Within 1000 feet."), []),
    ("lights-001", answer("Within 1 000 feet."), ["contains"]),
    ("lights-001", answer("Within 10,000 feet."), ["contains"]),
    ("license-001", answer("A $50 fine.", cite="x", cite_id="MD-P-16-112"), []),
    ("license-001", answer("A $50 fine.", cite="x", cite_id="md-p-16-112"), []),
    ("license-001", answer("A $50 fine.", cite="x", cite_id="MD-P-1"), ["cites_id"]),
    ("license-001", answer("A $500 fine.", cite="x", cite_id="MD-P-16-112"), ["contains"]),
    ("oos-001", {"outcome": "abstain", "scope": "other"}, []),
    ("oos-001", answer("Paris.", scope="other"), ["answered"]),
    ("oos-001", {"outcome": "error", "error": "rate limited"}, ["error"]),
]


@pytest.mark.parametrize(("case_id", "result", "failed"), FREE_TEXT_RUNS)
def test_free_text_partial_checks(
    free_text: Path, case_id: str, result: dict[str, Any], failed: list[str]
) -> None:
    report = score_lines(free_text, [{"id": case_id, **result}])
    graded = next(c for c in report["cases"] if c["id"] == case_id)
    assert graded["failed_checks"] == failed
    assert graded["passed"] is (not failed)


def test_a_list_of_one_alternative_does_not_accept_the_other(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"c1": case_yaml("c1", expect={"contains": ["1,000"]})})
    report = score_lines(root, [{"id": "c1", **answer("1000 feet")}])
    assert report["cases"][0]["failed_checks"] == ["contains"]


def test_a_fact_only_answer_fails_text_checks(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"c1": case_yaml("c1", expect={"contains": ["30"]})})
    report = score_lines(root, [{"id": "c1", "outcome": "answer", "fact": "thirty"}])
    assert report["cases"][0]["failed_checks"] == ["contains"]


@pytest.mark.parametrize(
    ("text", "passed"),
    [
        ("You have 30 days.", True),
        ("THIRTY? no: 30   Days, from delivery", True),
        ("You have 130 days.", False),
        ("You have 30 business days.", False),
        ("3.0 days", False),
    ],
)
def test_without_checks_the_expected_answer_must_appear(
    tmp_path: Path, text: str, passed: bool
) -> None:
    root = write_repo(tmp_path / "r", {"c1": case_yaml("c1", expected="30 days")})
    report = score_lines(root, [{"id": "c1", **answer(text)}])
    assert report["cases"][0]["passed"] is passed
    assert report["cases"][0]["failed_checks"] == ([] if passed else ["expected_answer"])


# --- answer metrics, weights, threshold, trials, splits ------------------------------------------


def test_exact_match_and_token_f1_over_free_text_answers(tmp_path: Path) -> None:
    cases = {
        "a1": case_yaml("a1", expected="14 days"),
        "a2": case_yaml("a2", expected="14 days"),
        "a3": case_yaml("a3", expected="14 days", expect={"fact": "k"}),
        "u1": case_yaml("u1", answerable=False),
    }
    lines: list[dict[str, Any] | str] = [
        {"id": "a1", "outcome": "answer", "answer": "14 Days."},
        {"id": "a2", "outcome": "answer", "answer": "You have 14 days"},
        {"id": "a3", "outcome": "answer", "fact": "k"},  # no free text: not in the mean
        {"id": "u1", "outcome": "answer", "answer": "nothing"},  # unanswerable: not in the mean
    ]
    report = score_lines(write_repo(tmp_path / "r", cases), lines)
    assert report["free_text_answers"] == 2
    assert same(report["exact_match"], Fraction(1, 2))
    # a2: precision 2/4, recall 2/2, F1 2/3; mean of 1 and 2/3
    assert same(report["token_f1"], Fraction(5, 6))


CONFIG = """
ambiguous_slices = ["c"]
[slices.a]
traffic = 0.75
[slices.b]
traffic = 0.25
floor = 2
[slices.c]
traffic = 0.5
"""


def test_weighted_task_success_leaves_ambiguous_slices_out(tmp_path: Path) -> None:
    cases = {cid: case_yaml(cid, cid[0]) for cid in ("a1", "a2", "b1", "c1", "d1")}
    ok = {"outcome": "answer", "answer": "30 days"}
    lines: list[dict[str, Any] | str] = [
        {"id": "a1", **ok},
        {"id": "a2", "outcome": "abstain"},
        {"id": "b1", **ok},
        {"id": "c1", "outcome": "abstain"},
        {"id": "d1", **ok},
    ]
    report = score_lines(write_repo(tmp_path / "r", cases, CONFIG), lines)
    # (0.75 * 1/2 + 0.25 * 1) / (0.75 + 0.25); c is ambiguous, d has no share
    assert same(report["weighted_task_success"], Fraction(5, 8))
    assert report["slices"]["c"]["ambiguous"] is True
    assert report["slices"]["c"]["traffic"] == 0.5
    assert report["slices"]["b"]["floor"] == 2
    assert report["slices"]["d"]["traffic"] is None
    assert report["slices"]["d"]["floor"] == 20


def test_weighted_task_success_is_null_without_traffic_shares(six: Path) -> None:
    report = score_lines(six, six_results())
    assert report["weighted_task_success"] is None
    assert report["weighted"] is None


def test_the_weighted_rate_has_a_stratified_wilson_interval(tmp_path: Path) -> None:
    cases = {cid: case_yaml(cid, cid[0]) for cid in ("a1", "a2", "b1", "c1", "d1")}
    ok = {"outcome": "answer", "answer": "30 days"}
    lines: list[dict[str, Any] | str] = [
        {"id": "a1", **ok},
        {"id": "a2", "outcome": "abstain"},
        {"id": "b1", **ok},
        {"id": "c1", "outcome": "abstain"},
        {"id": "d1", **ok},
    ]
    block = score_lines(write_repo(tmp_path / "r", cases, CONFIG), lines)["weighted"]
    # a: 1 of 2 at weight 0.75, b: 1 of 1 at weight 0.25 (c ambiguous, d without a share).
    # Agresti-Coull-adjusted rates (x + z^2/2) / (n + z^2); n_eff = p~(1 - p~) / the
    # stratified variance of the adjusted rates, capped at the 3 cases taking part
    h = Z * Z / 2
    a, b = (1 + h) / (2 + Z * Z), (1 + h) / (1 + Z * Z)
    centre = 0.75 * a + 0.25 * b
    variance = 0.75**2 * a * (1 - a) / 2 + 0.25**2 * b * (1 - b) / 1
    n_eff = min(3.0, centre * (1 - centre) / variance)
    assert block["slices"] == ["a", "b"] and block["shares_sum"] == 1.0
    assert block["effective_cases"] == pytest.approx(n_eff, abs=1e-6)
    p = 5 / 8
    middle = (p + Z * Z / (2 * n_eff)) / (1 + Z * Z / n_eff)
    half = Z * math.sqrt(p * (1 - p) / n_eff + Z * Z / (4 * n_eff**2)) / (1 + Z * Z / n_eff)
    assert block["interval"] == pytest.approx([middle - half, middle + half])
    assert same(block["value"], Fraction(5, 8))


def test_threshold_turns_unconfident_answers_into_abstentions(tmp_path: Path) -> None:
    cases = {
        "a1": case_yaml("a1"),
        "a2": case_yaml("a2"),
        "a3": case_yaml("a3"),
        "u1": case_yaml("u1", answerable=False),
    }
    good = {"outcome": "answer", "answer": "30 days"}
    lines: list[dict[str, Any] | str] = [
        {"id": "a1", **good, "confidence": 0.9},
        {"id": "a2", **good, "confidence": 0.5},
        {"id": "a3", **good},
        {"id": "u1", "outcome": "answer", "answer": "30 days", "confidence": 0.2},
    ]
    root = write_repo(tmp_path / "r", cases)
    plain = score_lines(root, lines)
    assert (plain["answered"], plain["success"]) == (4, 3)
    cut = score_lines(root, lines, threshold=0.5)  # 0.5 is not under 0.5: a2 stays answered
    assert [c["outcome"] for c in cut["cases"]] == ["answer", "answer", "abstain", "abstain"]
    assert (cut["answered"], cut["success"], cut["threshold"]) == (2, 3, 0.5)
    assert [c["failed_checks"] for c in cut["cases"]] == [[], [], ["abstained"], []]
    assert cut["cases"][1]["confidence"] == 0.5


def test_trials_pass_only_when_every_trial_passes(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"a1": case_yaml("a1"), "a2": case_yaml("a2")})
    lines: list[dict[str, Any] | str] = [
        {"id": "a1", "trial": 2, "outcome": "abstain"},
        {"id": "a1", "trial": 1, "outcome": "answer", "answer": "30 days"},
        {"id": "a2", "trial": 1, "outcome": "answer", "answer": "30 days"},
        {"id": "a2", "trial": 2, "outcome": "answer", "answer": "30 days"},
    ]
    report = score_lines(root, lines)
    assert [(c["id"], c["passed"], c["outcome"]) for c in report["cases"]] == [
        ("a1", False, "abstain"),
        ("a2", True, "answer"),
    ]
    assert (report["total"], report["result_lines"]) == (2, 4)


def test_split_all_scores_golden_and_dev_and_golden_ignores_dev(tmp_path: Path) -> None:
    cases = six_cases()
    cases["cases/dev/dev-1.yaml"] = case_yaml("dev-1", "standard")
    root = write_repo(tmp_path / "r", cases)
    lines = [*six_results(), {"id": "dev-1", "outcome": "answer", "answer": "30 days"}]
    golden = score_lines(root, lines)
    assert (golden["total"], golden["outside_split"]) == (6, 1)
    both = score_lines(root, lines, split="all")
    assert (both["total"], both["success"], both["outside_split"]) == (7, 3, 0)
    dev = score_lines(root, lines, split="dev")
    assert (dev["total"], dev["success"], dev["outside_split"]) == (1, 1, 6)
    assert golden["set_digest"] == both["set_digest"] == dev["set_digest"]


def test_calibration_and_eval_halves_partition_the_golden_set(tmp_path: Path) -> None:
    # one stratum of 5 answerable cases: at the default fraction 0.4, 2 go to calibration
    cases = {f"c{i}": case_yaml(f"c{i}", "s") for i in range(5)}
    root = write_repo(tmp_path / "r", cases, "[split]\nseed = 7\n")
    lines: list[dict[str, Any] | str] = [{"id": f"c{i}", "outcome": "abstain"} for i in range(5)]
    calibration = score_lines(root, lines, split="calibration")
    evaluation = score_lines(root, lines, split="eval")
    assert (calibration["total"], evaluation["total"]) == (2, 3)
    ids = {c["id"] for c in calibration["cases"]} | {c["id"] for c in evaluation["cases"]}
    assert ids == set(cases)
    assert (calibration["split_seed"], calibration["split_fraction"]) == (7, 0.4)
    assert calibration["outside_split"] == 3
    whole = score_lines(root, lines)
    assert calibration["set_digest"] == whole["set_digest"]


def test_a_report_for_text_holds_the_failing_cases_it_lists(tmp_path: Path) -> None:
    """docs/score.md: the text and Markdown reports list the first 50 failing cases and count
    the rest. Scored for them (no JSON report asked), the report holds those 50, each as the
    complete report has it (a repeated case explained from the trial it is shown with), and
    everything else as the complete report has it but the digest; both render the same."""
    cases = {f"c-{i:03d}": case_yaml(f"c-{i:03d}", expect={"contains": ["30"]}) for i in range(70)}
    root = write_repo(tmp_path / "many", cases)
    lines: list[dict[str, Any] | str] = []
    for i in range(70):
        case_id = f"c-{i:03d}"
        if i % 7 == 3:  # repeated: the first trial passes, the second fails
            lines += [
                {"id": case_id, "trial": 1, "outcome": "answer", "answer": "30 days"},
                {"id": case_id, "trial": 2, "outcome": "answer", "answer": f"{i} days"},
            ]
        elif i % 7 == 5:
            lines.append({"id": case_id, "outcome": "error", "error": f"timeout {i}"})
        else:
            lines.append({"id": case_id, "outcome": "answer", "answer": f"{i} days"})
    complete = score_lines(root, lines)
    listed = score_lines(root, lines, digest=False)
    failing = [c for c in complete["cases"] if not c["passed"]]
    assert len(failing) == 69  # c-030 alone passes
    assert all(c["why"] for c in failing)
    assert listed["cases"] == failing[:SHOWN_FAILURES]  # each entry whole, why included
    assert listed["cases"][3]["id"] == "c-003"
    assert listed["cases"][3]["why"] == ['contains: "30" not found']  # trial 2's answer
    assert listed["cases_digest"] is None
    assert {k: v for k, v in listed.items() if k not in ("cases", "cases_digest")} == {
        k: v for k, v in complete.items() if k not in ("cases", "cases_digest")
    }
    for render in (render_markdown, _text):
        assert render(listed) == render({**complete, "cases_digest": None})


def _text(report: dict[str, Any]) -> str:
    out = io.StringIO()
    render_text(report, out)
    return out.getvalue()


@needs_cores
def test_a_large_results_file_checked_by_a_child_scores_as_one_checked_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A results file of 256 kB or more has its lines checked against the schema by a forked
    child: the report is the one a process checking them itself makes, and a bad line among
    3,000 stops the score with the same message."""
    root = write_repo(tmp_path, six_cases())
    lines: list[dict[str, Any]] = [
        {**line, "trial": trial, "meta": {"note": "n" * 100}}
        for trial in range(1, 501)
        for line in six_results()
    ]
    path = root / "results.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert path.stat().st_size >= results_module.CHECK_ASIDE_FROM
    forks = recorded_forks(monkeypatch)
    beside = score(open_context(root, cache=False), path)
    [_] = forks.children  # the lines' checker (a set this small is listed here)
    forks.left_nothing()
    with monkeypatch.context() as alone:
        alone.setattr(results_module, "CHECK_ASIDE_FROM", 10**12)
        assert score(open_context(root, cache=False), path) == beside
    assert beside["total"] == 6 and beside["result_lines"] == 3000 and beside["trials"]

    lines[1500] = {**six_results()[0], "trial": 251, "confidence": "0.5"}
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InvalidInput) as with_child:
        score(open_context(root, cache=False), path)
    with monkeypatch.context() as alone:
        alone.setattr(results_module, "CHECK_ASIDE_FROM", 10**12)
        with pytest.raises(InvalidInput) as without:
            score(open_context(root, cache=False), path)
    assert str(with_child.value) == str(without.value)
    assert "results.jsonl:1501: confidence should be a number or null" in str(without.value)
