"""The comparison gate: McNemar and Newcombe by hand, refusals of every kind of mismatch, and
the gate on reports written by goldcase score: a slice fails only on a drop both larger than
--max-drop and credible (one-sided exact test, Holm-corrected over the gated slices and
overall); overall counts only the gated slices' cases."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldcase.scoring.metrics import wilson
from goldcase.scoring.paired import newcombe_paired
from goldcase.scoring.significance import mcnemar_exact
from kit import run_cli

ANSWERABLE = """\
id: {id}
question: how long for a credit on a damaged parcel {id}
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
slice: returns
"""
UNANSWERABLE = "id: {id}\nquestion: who runs billing {id}\nanswerable: false\nslice: billing\n"
RETURNS = [f"ret-{i:02d}" for i in range(10)]
BILLING = [f"bil-{i:02d}" for i in range(10)]


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (1, 9, 22 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2^10
        (9, 1, 22 / 1024),
        (2, 8, 112 / 1024),  # 2 * (1 + 10 + 45) / 1024
        (6, 0, 2 / 64),
        (5, 0, 2 / 32),
        (5, 5, 1.0),  # twice a tail over one half: capped at 1
        (0, 0, 1.0),
    ],
)
def test_exact_mcnemar_on_known_tables(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_exact_mcnemar_agrees_with_the_chi_square_approximation_on_a_large_table() -> None:
    # (|500 - 560| - 1)^2 / 1060 = 3.284 on one degree of freedom: p = 0.0700
    assert mcnemar_exact(500, 560) == pytest.approx(0.0700, abs=0.002)


def test_wilson_by_hand() -> None:
    # 10/20: 0.5 +- 1.96 * sqrt(0.0125 + 1.96^2 / 1600) / (1 + 1.96^2 / 20) = 0.5 +- 0.2007
    low, high = wilson(10, 20)
    assert (low, high) == (pytest.approx(0.2993, abs=1e-4), pytest.approx(0.7007, abs=1e-4))
    # 20/20: lower end n / (n + z^2) = 20 / 23.8415
    assert wilson(20, 20) == (pytest.approx(0.838875, abs=1e-6), 1.0)


def test_newcombe_paired_by_hand() -> None:
    # a = b = c = d = 5: phi is 0 and both rates are 10/20, so the half width is
    # sqrt(2) * 0.200702 = 0.28383
    diff, low, high = newcombe_paired(5, 5, 5, 5)
    assert diff == 0.0
    assert (low, high) == (pytest.approx(-0.28383, abs=1e-4), pytest.approx(0.28383, abs=1e-4))
    # every case passes in both: the margins vanish, phi is 0, half width = 1 - 0.838875
    diff, low, high = newcombe_paired(20, 0, 0, 0)
    assert (diff, low) == (0.0, pytest.approx(-0.161125, abs=1e-6))
    assert high == pytest.approx(0.161125, abs=1e-6)


def test_newcombe_interval_holds_the_estimate_and_stays_in_range() -> None:
    for cells in [(3, 0, 7, 10), (0, 12, 0, 8), (8, 1, 1, 10), (0, 0, 20, 0)]:
        diff, low, high = newcombe_paired(*cells)
        assert -1.0 <= low <= diff <= high <= 1.0


# --- end to end on reports written by goldcase score ---------------------------------------


def _results(path: Path, wrong: list[str], answered_billing: tuple[str, ...] = ()) -> Path:
    lines = []
    for case_id in RETURNS:
        answer = "You have 30 days." if case_id in wrong else "You have 14 days."
        lines.append({"id": case_id, "outcome": "answer", "answer": answer, "confidence": 0.8})
    for case_id in BILLING:
        if case_id in answered_billing:
            lines.append({"id": case_id, "outcome": "answer", "answer": "Sam", "confidence": 0.5})
        else:
            lines.append({"id": case_id, "outcome": "abstain"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    files = {f"cases/golden/{i}.yaml": ANSWERABLE.format(id=i) for i in RETURNS}
    files |= {f"cases/golden/{i}.yaml": UNANSWERABLE.format(id=i) for i in BILLING}
    files["golden.version"] = "1.0.0\n"
    files["goldcase.toml"] = FLOORS + "[split]\nseed = 5\n"
    return make_repo(files)


# slices of 10 cases gate only when their floor is 10 (the default floor is 20)
FLOORS = "[slices.returns]\nfloor = 10\n[slices.billing]\nfloor = 10\n"


def score(repo: Path, results: Path, name: str, *extra: str) -> Path:
    out = repo / f"{name}.json"
    result = run_cli("score", results, "--repo", repo, "--out", out, "--format", "json", *extra)
    assert result.exit_code == 0, result.stderr
    return out


def test_identical_runs_pass_with_no_flips(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    head = score(repo, _results(repo / "b.jsonl", []), "head")
    result = run_cli("compare", base, head)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        f"goldcase compare: {base} ({repo / 'a.jsonl'}) -> {head} ({repo / 'b.jsonl'})",
        "golden 1.0.0, split golden, threshold none",
    ]
    assert "0 passed->failed, 0 failed->passed; exact McNemar p = 1" in result.stdout
    assert "task success 20/20 (100.0%) -> 20/20 (100.0%): +0.0 points" in result.stdout
    assert "gate: pass" in result.stdout


def test_a_slice_drop_must_be_large_and_credible_to_fail(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    two = score(repo, _results(repo / "b.jsonl", ["ret-03", "ret-07"]), "two")
    # 10/10 -> 8/10 is 20 points, but 2 regressions one way have one-sided p = 1/4: noise;
    # with 2 changed cases no p below 1/4 is possible, so the slice leaves Tarone's family
    result = run_cli("compare", base, two)
    assert result.exit_code == 0, result.stdout
    assert "passed->failed: ret-03, ret-07" in result.stdout
    assert "exact McNemar p = 0.5 (two-sided, every case)" in result.stdout
    returns = next(line for line in result.stdout.splitlines() if line.startswith("returns"))
    assert returns.split()[-6:] == ["0.25", "1", "ok:", "too", "few", "changes"]

    six = score(repo, _results(repo / "c.jsonl", RETURNS[:6]), "six")
    # 6 regressions one way: p = 1/64 for returns and for overall. Billing did not change and
    # can reach no p below 1, so Tarone's K is 2 (two tests can reach 0.05 / 2) and the
    # family is returns and overall: Holm doubles 1/64, 2/64 = 0.0312 <= 0.05
    result = run_cli("compare", base, six)
    assert result.exit_code == 1
    assert (
        "slice returns dropped 60.0 points (10/10 -> 4/10; more than 5; one-sided McNemar "
        "p = 0.0156, adjusted 0.0312 <= 0.05)" in result.stdout
    )
    assert (
        "task success over the gated slices dropped 30.0 points (6 passed->failed, "
        "0 failed->passed; one-sided McNemar p = 0.0156, adjusted 0.0312 <= 0.05)" in result.stdout
    )
    # a drop no larger than --max-drop lets the slice through; overall still fails
    loose = run_cli("compare", base, six, "--max-drop", "60")
    assert loose.exit_code == 1
    assert "ok: drop within 60" in loose.stdout
    assert "slice returns dropped" not in loose.stdout


def test_an_improvement_never_fails_the_gate(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", ["ret-01", "ret-02"], ("bil-01",)), "base")
    head = score(repo, _results(repo / "b.jsonl", []), "head")
    result = run_cli("compare", base, head, "--format", "json")
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert payload["gate"] == "pass"
    assert payload["failed_to_passed"] == ["bil-01", "ret-01", "ret-02"]
    assert payload["overall"]["delta_points"] == 15.0  # 17/20 -> 20/20
    assert payload["slices"]["returns"]["delta_points"] == 20.0
    assert payload["slices"]["billing"]["delta_points"] == 10.0
    assert payload["mcnemar_p"] == 0.25  # 0 regressions, 3 improvements: 2 / 8
    # one-sided for "worse": every pattern of 3 signs sums to at most +3
    assert payload["overall"]["p_value"] == 1.0
    assert payload["slices"]["returns"]["reason"] == "ok: no drop"


def test_a_credible_overall_drop_fails_the_gate(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    six = score(repo, _results(repo / "b.jsonl", RETURNS[:6]), "six")
    five = score(repo, _results(repo / "c.jsonl", RETURNS[:5]), "five")
    result = run_cli("compare", base, six, "--max-drop", "100")
    assert result.exit_code == 1
    assert "task success over the gated slices dropped 30.0 points" in result.stdout
    # 5 regressions: p = 1/32 at best, more than 0.05 / 2 (two tests, returns and overall,
    # could reach 0.05), so neither can be significant; at alpha 0.1 both are, adjusted 2/32
    assert run_cli("compare", base, five, "--max-drop", "100").exit_code == 0
    assert run_cli("compare", base, five, "--max-drop", "100", "--alpha", "0.1").exit_code == 1


def test_an_ambiguous_slice_is_reported_but_not_gated(repo: Path) -> None:
    config = repo / "goldcase.toml"
    config.write_text('ambiguous_slices = ["returns"]\n' + FLOORS + "[split]\nseed = 5\n")
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    head = score(repo, _results(repo / "b.jsonl", RETURNS[:6]), "head")
    # six regressions in the ambiguous slice: it is not gated, and overall counts only the
    # gated slice (billing, unchanged), so nothing fails
    result = run_cli("compare", base, head, "--format", "json")
    assert result.exit_code == 0, result.stdout
    payload = json.loads(result.stdout)
    assert payload["slices"]["returns"]["status"] == "not gated"
    assert payload["slices"]["returns"]["reason"] == "ambiguous: not gated"
    assert payload["slices"]["returns"]["p_value"] == 1 / 64  # reported all the same
    assert payload["slices"]["returns"]["p_adjusted"] is None
    assert (payload["overall"]["total"], payload["overall"]["regressions"]) == (10, 0)
    assert (payload["candidates"], payload["family"]) == (2, 0)  # billing, overall: no change
    assert payload["all_cases"]["regressions"] == 6
    assert "ambiguous: not gated" in run_cli("compare", base, head).stdout


def test_a_slice_under_its_floor_is_reported_but_not_gated(repo: Path) -> None:
    (repo / "goldcase.toml").write_text("[split]\nseed = 5\n", encoding="utf-8")
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    head = score(repo, _results(repo / "b.jsonl", RETURNS[:6]), "head")
    result = run_cli("compare", base, head)
    assert result.exit_code == 0, result.stdout
    assert result.stdout.count("under floor 20: not gated") == 2
    overall = next(line for line in result.stdout.splitlines() if line.startswith("overall"))
    assert overall.endswith("no gated slice")


def test_markdown_fits_a_pull_request_comment(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    head = score(repo, _results(repo / "b.jsonl", RETURNS[:6], ("bil-04",)), "head")
    result = run_cli("compare", base, head, "--format", "markdown")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "### goldcase compare: gate failed"
    header = "| slice | cases | base | head | change | 95% interval | p | adj. p | gate |"
    assert header in lines
    assert any(
        line.startswith("| billing | 10 | 10/10 (100.0%) | 9/10 (90.0%) | -10.0 |")
        and line.endswith("| 0.5 | 1 | ok: too few changes |")
        for line in lines
    )
    assert "**Why the gate failed**" in lines
    assert any(line.startswith("- slice returns dropped 60.0 points") for line in lines)
    worse = ", ".join(f"`{i}`" for i in ["bil-04", *RETURNS[:6]])
    assert f"- passed -> failed: {worse}" in lines
    assert "- failed -> passed: none" in lines


def test_json_output_follows_its_schema(repo: Path) -> None:
    from goldcase.schemas import validator

    base = score(repo, _results(repo / "a.jsonl", []), "base")
    head = score(repo, _results(repo / "b.jsonl", RETURNS[:6], ("bil-04",)), "head")
    payload = json.loads(run_cli("compare", base, head, "--format", "json").stdout)
    assert list(validator("compare.schema.json").iter_errors(payload)) == []
    assert payload["format"] == 2 and payload["measure"] == "task_success"
    returns = payload["slices"]["returns"]
    assert (returns["status"], returns["reason"], returns["gated"]) == ("fail", "FAIL", True)
    assert returns["p_value"] == 1 / 64 and returns["p_exact"] is True


# --- refusals --------------------------------------------------------------------------------


def test_different_golden_versions_are_refused(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    (repo / "golden.version").write_text("1.1.0\n", encoding="utf-8")
    head = score(repo, _results(repo / "b.jsonl", []), "head")
    result = run_cli("compare", base, head)
    assert result.exit_code == 2
    assert "golden_version differs (base '1.0.0', head '1.1.0')" in result.stderr


def test_different_sets_are_refused(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    before = json.loads(base.read_text())["set_digest"]
    (repo / "cases/golden/bil-99.yaml").write_text(UNANSWERABLE.format(id="bil-99"))
    head = score(repo, _results(repo / "b.jsonl", []), "head")
    after = json.loads(head.read_text())["set_digest"]
    result = run_cli("compare", base, head)
    assert result.exit_code == 2
    assert f"set_digest differs (base '{before}', head '{after}')" in result.stderr


def test_different_corpora_are_refused(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    with (repo / "corpus/delivery.md").open("a", encoding="utf-8") as fh:
        fh.write("\nA new paragraph.\n")
    head = score(repo, _results(repo / "b.jsonl", []), "head")
    result = run_cli("compare", base, head)
    assert result.exit_code == 2
    assert "corpus_digest differs (base '" in result.stderr


def test_different_splits_and_seeds_are_refused(repo: Path) -> None:
    golden = score(repo, _results(repo / "a.jsonl", []), "golden")
    evaluation = score(repo, _results(repo / "a.jsonl", []), "eval", "--split", "eval")
    result = run_cli("compare", golden, evaluation)
    assert result.exit_code == 2
    assert "split differs (base 'golden', head 'eval')" in result.stderr

    (repo / "goldcase.toml").write_text("[split]\nseed = 6\n", encoding="utf-8")
    reseeded = score(repo, _results(repo / "a.jsonl", []), "reseeded", "--split", "eval")
    result = run_cli("compare", evaluation, reseeded)
    assert result.exit_code == 2
    assert "split_seed differs (base 5, head 6)" in result.stderr


def test_a_hand_edited_report_is_refused(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    head = score(repo, _results(repo / "b.jsonl", ["ret-01"]), "head")
    report = json.loads(head.read_text())
    report["cases"][0]["passed"] = not report["cases"][0]["passed"]
    head.write_text(json.dumps(report))
    result = run_cli("compare", base, head)
    assert result.exit_code == 2
    assert f"{head}: cases_digest does not match the report's own case list" in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object (a goldcase report), found list"),
        ("{}", "not a valid goldcase report: at (top level): 'goldcase_version' is a required"),
    ],
)
def test_a_file_that_is_not_a_report_is_refused(repo: Path, content: str, message: str) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    bad = repo / "bad.json"
    bad.write_text(content, encoding="utf-8")
    result = run_cli("compare", base, bad)
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_missing_report_and_bad_options(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    assert "no such file" in run_cli("compare", base, repo / "nope.json").stderr
    assert run_cli("compare", base, base, "--max-drop", "nan").exit_code == 2
    result = run_cli("compare", base, base, "--alpha", "1.5")
    assert result.exit_code == 2
    assert "--alpha should be between 0 and 1" in result.stderr


def test_dev_runs_with_different_case_lists_are_refused(repo: Path) -> None:
    # the set digest pins the golden cases only; a dev case added between two dev scores
    # leaves it unchanged, and the case lists are what tells the reports apart
    for case_id in ("dev-01", "dev-02"):
        (repo / f"cases/dev/{case_id}.yaml").write_text(UNANSWERABLE.format(id=case_id))
    runs = repo / "dev.jsonl"
    runs.write_text('{"id": "dev-01", "outcome": "abstain"}\n', encoding="utf-8")
    base = score(repo, runs, "base", "--split", "dev")
    (repo / "cases/dev/dev-03.yaml").write_text(UNANSWERABLE.format(id="dev-03"))
    head = score(repo, runs, "head", "--split", "dev")
    result = run_cli("compare", base, head)
    assert result.exit_code == 2
    assert (
        "their case lists differ (2 cases in base, 3 in head; 'dev-03' is only in head)"
        in result.stderr
    )


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda c: c.update(outcome="maybe"), "cases/0/outcome"),
        (lambda c: c.update(confidence=1.5), "cases/0/confidence"),
        (lambda c: c.update(passed="yes"), "cases/0/passed"),
        (lambda c: c.update(id=""), "cases/0/id"),
        (lambda c: c.update(failed_checks=["lead", "lead"]), "cases/0/failed_checks"),
        (lambda c: c.update(failed_checks=["vibes"]), "cases/0/failed_checks/0"),
        (lambda c: c.update(extra=1), "cases/0"),
        (lambda c: c.pop("slice"), "cases/0"),
    ],
)
def test_a_report_with_a_bad_case_is_refused_at_that_case(
    repo: Path, edit: Callable[[dict[str, object]], object], where: str
) -> None:
    from goldcase.scoring.report import cases_digest

    base = score(repo, _results(repo / "a.jsonl", []), "base")
    report = json.loads(base.read_text())
    edit(report["cases"][0])
    report["cases_digest"] = cases_digest(report["cases"])
    bad = repo / "bad.json"
    bad.write_text(json.dumps(report), encoding="utf-8")
    result = run_cli("compare", base, bad)
    assert result.exit_code == 2
    assert f"{bad}: not a valid goldcase report: at {where}: " in result.stderr


def test_non_finite_numbers_are_refused(repo: Path) -> None:
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    bad = repo / "nan.json"
    bad.write_text(base.read_text().replace('"confidence": 0.8', '"confidence": NaN', 1))
    result = run_cli("compare", base, bad)
    assert result.exit_code == 2
    assert "NaN is not a JSON number; a report holds finite numbers only" in result.stderr


@pytest.mark.parametrize("field", ["slice", "results_file"])
def test_half_a_surrogate_pair_in_a_report_is_refused_naming_the_file(
    repo: Path, field: str
) -> None:
    """JSON can escape half a surrogate pair, which no UTF-8 text holds (and no report
    goldcase writes): refused as a bad input, not met later as an internal error (the
    digest of the case list encodes it as UTF-8)."""
    base = score(repo, _results(repo / "a.jsonl", []), "base")
    report = json.loads(base.read_text())
    holder = report["cases"][0] if field == "slice" else report
    holder[field] = "returns\ud800"
    bad = repo / "half.json"
    bad.write_text(json.dumps(report, ensure_ascii=True), encoding="utf-8")
    result = run_cli("compare", base, bad)
    assert result.exit_code == 2
    assert "internal error" not in result.stderr
    assert f"error: {bad}: an escape of half a surrogate pair" in result.stderr


def test_a_whole_surrogate_pair_in_a_report_is_read_as_its_character(repo: Path) -> None:
    from goldcase.scoring.report import cases_digest

    base = score(repo, _results(repo / "a.jsonl", []), "base")
    report = json.loads(base.read_text())
    report["results_file"] = "runs/\U0001f600.jsonl"  # an escaped pair (\ud83d\ude00) once written
    report["cases_digest"] = cases_digest(report["cases"])
    paired = repo / "paired.json"
    paired.write_text(json.dumps(report, ensure_ascii=True), encoding="utf-8")
    assert "\\ud83d\\ude00" in paired.read_text()
    result = run_cli("compare", base, paired)
    assert result.exit_code == 0, result.stderr


def test_the_case_list_of_the_shipped_schema_takes_the_fast_path() -> None:
    from goldcase.schemas import load_schema
    from goldcase.scoring.reportfile import _known

    assert _known(load_schema("report.schema.json")["$defs"]["case"])


def _renamed_slice(source: Path, out: Path, old: str, new: str) -> Path:
    """A copy of a report with one slice renamed in its cases and slice table, its digest
    recomputed: a report as another team's scorer could write it."""
    from goldcase.scoring.report import cases_digest

    data = json.loads(source.read_text(encoding="utf-8"))
    for case in data["cases"]:
        if case["slice"] == old:
            case["slice"] = new
    data["slices"] = {(new if k == old else k): v for k, v in data["slices"].items()}
    data["cases_digest"] = cases_digest(data["cases"])
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_control_characters_in_a_slice_name_are_shown_as_escapes(tmp_path: Path) -> None:
    """A slice name from a stranger's report must not drive the terminal (clear the screen,
    forge a link) from the gate's table."""
    from kit import DATA, goldcase

    name = "standard\x1b]8;;https://example.com\x1b\\x\x1b]8;;\x1b\\\x1b[2J"
    reports = DATA / "reports"
    base = _renamed_slice(reports / "six-case-base.json", tmp_path / "base.json", "standard", name)
    head = _renamed_slice(reports / "six-case.json", tmp_path / "head.json", "standard", name)
    result = goldcase(tmp_path, "compare", base, head)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "standard\\x1b]8;;https://example.com\\x1b\\x" in result.stdout


HUGE_TEXT = "x" * 100_000
HUGE_NUMBER = int("9" * 4_000)


def _huge_key(report: dict[str, Any]) -> None:
    report["slices"][HUGE_TEXT] = 1


def _huge_slice(report: dict[str, Any]) -> None:
    for case in report["cases"]:
        case["slice"] = HUGE_TEXT if case["slice"] == "returns" else case["slice"]
    report["slices"][HUGE_TEXT] = dict(report["slices"].pop("returns"), total=HUGE_NUMBER)


def _huge_id(report: dict[str, Any]) -> None:
    report["cases"][0].update(id=HUGE_TEXT, passed=not report["cases"][0]["passed"])


HUGE_EDITS: dict[str, tuple[Callable[[dict[str, Any]], object], str]] = {
    "schema-text": (lambda r: r.update(golden_version=[HUGE_TEXT]), "at golden_version: "),
    "schema-number": (lambda r: r.update(total=str(HUGE_NUMBER)), "at total: "),
    "schema-case": (lambda r: r["cases"][0].update(outcome=HUGE_TEXT), "at cases/0/outcome: "),
    "schema-key": (_huge_key, "at slices/xxx"),
    "count": (lambda r: r.update(total=HUGE_NUMBER), ": total says 999"),
    "slice": (_huge_slice, ": slices.xxx"),
    "case-id": (_huge_id, ".passed is "),
    "comparable": (lambda r: r.update(golden_version=HUGE_TEXT), "golden_version differs"),
}


@pytest.mark.parametrize("edit", sorted(HUGE_EDITS))
def test_a_huge_value_in_a_report_is_quoted_cut(repo: Path, edit: str) -> None:
    """docs/report.md: a value the refusal quotes from the report (a 100 kB string or key, a
    4,000-digit number) is cut, so the message stays one short line that still names the
    field and says what to do. Each was quoted whole (escaped) before."""
    from goldcase.scoring.report import cases_digest

    base = score(repo, _results(repo / "a.jsonl", []), "base")
    report = json.loads(base.read_text())
    change, field = HUGE_EDITS[edit]
    change(report)
    report["cases_digest"] = cases_digest(report["cases"])
    bad = repo / "huge.json"
    bad.write_text(json.dumps(report), encoding="utf-8")
    result = run_cli("compare", base, bad)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert len(line) < 400, line[:400]
    assert field in line
    assert line.endswith(
        (
            "; give a report goldcase score --out wrote",
            "the report was edited: score the run again",
            "compare runs scored on the same golden set, corpus and split",
        )
    )
