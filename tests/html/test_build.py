"""goldcase report on the command line: files in, one page out, clear errors."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit
from urllib.request import url2pathname

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
        ("{not json", ":1:2: not valid JSON"),
        ("[1, 2]", ": expected a JSON object (a goldcase report), found list"),
        ('{"total": 3}', ": not a valid goldcase report: at (top level)"),
    ],
)
def test_bad_report_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    """Read as goldcase compare reads a report (docs/compare.md): one reader, one wording."""
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = run_cli("report", bad, "--html", tmp_path / "x.html", "--repo", tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {bad}{message}")
    compared = run_cli("compare", bad, bad)
    assert compared.exit_code == 2
    assert compared.stderr.startswith(f"error: {bad}{message}")
    assert not (tmp_path / "x.html").exists()


def test_missing_report(tmp_path: Path) -> None:
    result = run_cli("report", tmp_path / "nope.json", "--html", tmp_path / "x.html")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'nope.json'}: no such file")


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
    assert result.stderr.startswith(f"error: {bad}: {constant} is not a JSON number")
    assert "Traceback" not in result.stderr
    assert not out.exists()


def scored_set(root: Path, paths: dict[str, str], split: str = "golden") -> Path:
    """A set whose case ``id`` lives at ``cases/<split>/<paths[id]>``, and the report
    (``goldcase score --split SPLIT --out``) of a run in which every case failed."""
    from kit import case_text, golden_set, write

    golden_set(root, ids=())
    for case_id, rel in paths.items():
        write(root, f"cases/{split}/{rel}", case_text(case_id))
    lines = "".join(
        json.dumps({"id": case_id, "outcome": "error", "error": "timeout"}) + "\n"
        for case_id in paths
    )
    results = write(root, "runs/failed.jsonl", lines)
    report = root / "failed.json"
    scored = run_cli(
        "score", results, "--split", split, "--repo", root, "--format", "json", "--out", report
    )
    assert scored.exit_code == 0, scored.stderr
    return report


class Links(HTMLParser):
    """The links of the failing-case table: (href, the text shown)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.href = dict(attrs).get("href") or ""

    def handle_data(self, data: str) -> None:
        if self.href is not None:
            self.links.append((self.href, data))
            self.href = None


def page_links(out: Path) -> list[tuple[str, str]]:
    parser = Links()
    parser.feed(out.read_text(encoding="utf-8").split('id="failing"')[1])
    return parser.links


def opened(out: Path, href: str) -> Path:
    """The file a browser opens for ``href`` on the page at ``out`` (a file:// URL)."""
    url = urlsplit(urljoin(out.as_uri(), href))
    assert (url.scheme, url.query, url.fragment) == ("file", "", ""), url
    return Path(url2pathname(url.path))


def test_a_case_file_named_like_a_url_is_linked_as_a_path(tmp_path: Path) -> None:
    """A branch can name a case file ``javascript:alert(1).yaml``; a page written beside it
    links to it as a relative path (``./…``), never as a URL the browser would run."""
    from kit import goldcase

    repo = tmp_path / "repo"
    report = scored_set(repo, {"E2": "E2.yaml"}, split="dev")
    # a dev case renamed after scoring: the golden set, and so the report's, is unchanged
    dev = repo / "cases" / "dev"
    (dev / "E2.yaml").rename(dev / "javascript:alert(1).yaml")
    out = dev / "page.html"
    result = goldcase(repo, "report", report, "--html", out)
    assert result.returncode == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert 'href="javascript:' not in page
    [(href, text)] = page_links(out)
    assert href.startswith("./")
    assert text == "E2"
    assert opened(out, href) == dev / "javascript:alert(1).yaml"


ODD = ("a#b", "what?", "100%", "with space", "café", "javascript:alert(1)")


@pytest.mark.parametrize("where", ["inside", "beside", "outside"])
def test_links_name_the_exact_case_file_whatever_its_path_holds(tmp_path: Path, where: str) -> None:
    """Each failing case links to its own file, relative to the page: a ``#``, ``?``, ``%``,
    space or letter outside ASCII in the path is part of the path, not a fragment, a query or
    an escape (docs/report.md, "Failing cases")."""
    repo = tmp_path / "set #1 ?é %" if where == "outside" else tmp_path / "repo"
    paths = {f"odd-{n}": f"{folder}/odd-{n}.yaml" for n, folder in enumerate(ODD)}
    report = scored_set(repo, paths)
    out = {
        "inside": repo / "site" / "report.html",
        "beside": repo / "cases" / "golden" / "a#b" / "report.html",
        "outside": tmp_path / "out" / "report.html",
    }[where]
    result = run_cli("report", report, "--html", out, "--repo", repo)
    assert result.exit_code == 0, result.stderr
    links = page_links(out)
    assert sorted(text for _, text in links) == sorted(paths)
    for href, case_id in links:
        assert opened(out, href) == repo / "cases" / "golden" / paths[case_id], href
        assert href.startswith(("./", "../")), href


@pytest.mark.parametrize("side", ["report", "base"])
def test_a_report_whose_cases_do_not_match_its_digest_is_refused(tmp_path: Path, side: str) -> None:
    """A report whose case list was edited after scoring is refused, as goldcase compare
    refuses it (docs/compare.md, "What is refused"), with both digests, and no page."""
    edited = json.loads((SIX if side == "report" else BASE).read_text())
    edited["cases"][0]["confidence"] = 0.5  # agrees with every count, not with cases_digest
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(edited))
    compared = run_cli("compare", bad, bad)
    assert compared.exit_code == 2 and "cases_digest" in compared.stderr  # what compare does
    args = [bad, "--compare", BASE] if side == "report" else [SIX, "--compare", bad]
    out = tmp_path / "x.html"
    result = run_cli("report", *args, "--html", out, "--repo", tmp_path)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith(f"error: {bad}: cases_digest does not match")
    assert edited["cases_digest"] in result.stderr
    assert not out.exists()


def edited_after_scoring(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """A set, a report scored on it, and then one of its golden cases edited: the repository's
    golden set is no longer the one the report was scored on."""
    from kit import case_text, write

    repo = tmp_path / "repo"
    report = scored_set(repo, {"ret-001": "ret-001.yaml", "ret-002": "ret-002.yaml"})
    write(
        repo, "cases/golden/ret-002.yaml", case_text("ret-002", answer="the card it was paid with")
    )
    return repo, report, json.loads(report.read_text())


def test_a_set_changed_since_scoring_gets_no_links(tmp_path: Path) -> None:
    """Links to the work tree's case files would show cases other than the ones scored: the
    page is written without them, says why, and a warning names the report and both set
    digests (docs/report.md)."""
    repo, report, scored = edited_after_scoring(tmp_path)
    now = run_cli("score", repo / "runs" / "failed.jsonl", "--repo", repo, "--format", "json")
    current = json.loads(now.stdout)["set_digest"]
    assert current != scored["set_digest"]
    out = repo / "site" / "report.html"
    result = run_cli("report", report, "--html", out, "--repo", repo)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"wrote {out}\n"
    assert result.stderr.startswith(f"warning: {report}: scored on another golden set")
    assert scored["set_digest"] in result.stderr and current in result.stderr
    assert page_links(out) == []
    page = out.read_text(encoding="utf-8")
    assert "not linked" in page and scored["set_digest"][:12] in page


def test_stats_on_a_set_changed_since_scoring_is_refused(tmp_path: Path) -> None:
    """--stats would draw the composition of another set beside the report's numbers:
    refused (exit 2) naming the report and both set digests, and no page."""
    repo, report, scored = edited_after_scoring(tmp_path)
    out = repo / "site" / "report.html"
    result = run_cli("report", report, "--stats", "--html", out, "--repo", repo)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith(f"error: {report}: scored on another golden set")
    assert scored["set_digest"] in result.stderr
    assert "--stats" in result.stderr
    assert not out.exists()


def test_stats_and_links_on_the_set_scored(tmp_path: Path) -> None:
    """The same set as scored: links and composition, and no warning."""
    repo = tmp_path / "repo"
    report = scored_set(repo, {"ret-001": "ret-001.yaml", "ret-002": "ret-002.yaml"})
    out = repo / "site" / "report.html"
    result = run_cli("report", report, "--stats", "--html", out, "--repo", repo)
    assert result.exit_code == 0, result.stderr
    assert "scored on another golden set" not in result.stderr
    assert len(page_links(out)) == 2
