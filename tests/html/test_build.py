"""goldcase report on the command line: files in, one page out, clear errors."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kit import DATA, REPO_ROOT, run_cli

SIX = DATA / "reports" / "six-case.json"
BASE = DATA / "reports" / "six-case-base.json"


def test_renders_away_from_any_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out" / "six.html"
    result = run_cli("report", SIX, "--compare", BASE, "--html", out)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"wrote {out}\n"
    page = out.read_text()
    assert "Flipped cases (2)" in page
    assert "<a href=" not in page.split('id="failing"')[1]  # no repository, no links


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a report (invalid JSON"),
        ("[1, 2]", "not a report (expected a JSON object)"),
        ('{"total": 3}', "not a goldcase report"),
    ],
)
def test_bad_report_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = run_cli("report", bad, "--html", tmp_path / "x.html", "--repo", tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {bad}: {message}")
    assert not (tmp_path / "x.html").exists()


def test_missing_report(tmp_path: Path) -> None:
    result = run_cli("report", tmp_path / "nope.json", "--html", tmp_path / "x.html")
    assert result.exit_code == 2
    assert "cannot read the report" in result.stderr


def test_sample_runs_with_stats_and_links(tmp_path: Path) -> None:
    repo = tmp_path / "sample"
    for name in ("cases", "corpus", "prompts", "runs"):
        shutil.copytree(REPO_ROOT / name, repo / name)
    for name in ("goldcase.toml", "golden.version"):
        shutil.copyfile(REPO_ROOT / name, repo / name)
    reports = {}
    for run in ("baseline-k1", "baseline-k3"):
        reports[run] = repo / f"{run}.json"
        scored = run_cli(
            "score",
            repo / "runs" / f"{run}.jsonl",
            "--repo",
            repo,
            "--format",
            "json",
            "--out",
            reports[run],
        )
        assert scored.exit_code == 0, scored.stderr
    out = repo / "site" / "report.html"
    result = run_cli(
        "report",
        reports["baseline-k3"],
        "--compare",
        reports["baseline-k1"],
        "--stats",
        "--html",
        out,
        "--repo",
        repo,
    )
    assert result.exit_code == 0, result.stderr
    page = out.read_text()
    head = json.loads(reports["baseline-k3"].read_text())
    assert f"{head['success']} of {head['total']} cases" in page
    assert "<h2>Composition</h2>" in page and "general" in page
    links = re.findall(r'<a href="([^"]+)">', page)
    assert len(links) == sum(not c["passed"] for c in head["cases"])
    assert all((out.parent / link).resolve().is_file() for link in links)


def test_stats_needs_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("report", SIX, "--stats", "--html", tmp_path / "x.html")
    assert result.exit_code == 2
    assert "no golden-set repository" in result.stderr


def test_reports_compare_would_refuse_are_refused(tmp_path: Path) -> None:
    other = json.loads(BASE.read_text())
    other["corpus_digest"] = "d" * 64
    base = tmp_path / "other.json"
    base.write_text(json.dumps(other))
    out = tmp_path / "x.html"
    result = run_cli("report", SIX, "--compare", base, "--html", out, "--repo", tmp_path)
    assert result.exit_code == 2
    assert "the reports are not comparable: corpus_digest differs" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("field", ["results_file", "golden_version"])
def test_half_a_surrogate_pair_in_a_report_is_a_clear_error(tmp_path: Path, field: str) -> None:
    """JSON can escape half a surrogate pair, which no UTF-8 page can hold: refused as a
    bad report, not met as an internal error when the page is written."""
    report = json.loads(SIX.read_text())
    report[field] = report[field] + "\ud800"
    bad = tmp_path / "half.json"
    bad.write_text(json.dumps(report, ensure_ascii=True), encoding="utf-8")
    out = tmp_path / "x.html"
    result = run_cli("report", bad, "--html", out)
    assert result.exit_code == 2
    assert "internal error" not in result.stderr
    assert f"error: {bad}: an escape of half a surrogate pair" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_report_holding_a_number_json_has_not_is_refused(tmp_path: Path, constant: str) -> None:
    """NaN and the infinities are not JSON numbers: the page refuses them as compare does,
    instead of printing a confidence of "nan"."""
    from kit import goldcase

    bad = tmp_path / "nan.json"
    text = SIX.read_text()
    bad.write_text(text.replace('"confidence": 0.8', f'"confidence": {constant}', 1))
    assert bad.read_text() != text
    out = tmp_path / "x.html"
    result = goldcase(tmp_path, "report", bad, "--html", out)
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith(f"error: {bad}: not a report (invalid JSON: {constant}")
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_a_case_file_named_like_a_url_is_linked_as_a_path(tmp_path: Path) -> None:
    """A branch can name a case file ``javascript:alert(1).yaml``; a page written beside it
    links to it as a relative path (``./…``), never as a URL the browser would run."""
    from kit import case_text, goldcase, golden_set

    repo = golden_set(tmp_path / "repo", ids=())
    (repo / "cases" / "golden").mkdir()
    (repo / "cases" / "golden" / "javascript:alert(1).yaml").write_text(
        case_text("E2"), encoding="utf-8"
    )  # E2 fails in the report, so its row links to its file
    out = repo / "cases" / "golden" / "page.html"
    result = goldcase(repo, "report", SIX, "--html", out)
    assert result.returncode == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert 'href="javascript:' not in page
    assert '<a href="./javascript:alert(1).yaml">E2</a>' in page
