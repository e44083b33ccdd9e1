"""goldcase score with traces and repeated trials, end to end on a small repository.

The corpus has the method's two sections: the standard window and the custom-product
exception. E2 asks about a custom-printed mug; its support is the exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goldcase import engine
from goldcase.context import Context
from goldcase.schemas import validator
from kit import run_cli

POLICY = (
    "# Returns\n\nMost items can be returned within 30 days of delivery.\n\n"
    "Custom-printed products are excluded from the standard return window.\n"
)
STANDARD = {"doc": "policy.md", "text": "Most items can be returned within 30 days of delivery."}
EXCEPTION = {
    "doc": "policy.md",
    "text": "Custom-printed products are excluded from the standard return window.",
}


def case(case_id: str, quote: str, fact: str) -> str:
    return (
        f"id: {case_id}\nquestion: question {case_id}\nexpected_answer: {fact}\nsupport:\n"
        f"  - doc: policy.md\n    quote: {quote}\nexpect:\n  fact: {fact}\nslice: returns\n"
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "cases" / "golden").mkdir(parents=True)
    (root / "corpus").mkdir()
    (root / "corpus" / "policy.md").write_text(POLICY)
    (root / "goldcase.toml").write_text("")
    (root / "golden.version").write_text("1\n")
    exception = "Custom-printed products are excluded from the standard return window."
    standard = "Most items can be returned within 30 days of delivery."
    for case_id in ("E2a", "E2b", "E2c"):
        (root / "cases" / "golden" / f"{case_id}.yaml").write_text(
            case(case_id, exception, "custom_excluded")
        )
    (root / "cases" / "golden" / "E1.yaml").write_text(case("E1", standard, "window_30"))
    return root


def score(repo: Path, lines: list[dict[str, Any]]) -> dict[str, Any]:
    results = repo / "run.jsonl"
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = repo / "report.json"
    result = run_cli("score", results, "--repo", repo, "--format", "json", "--out", out)
    assert result.exit_code == 0, result.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    assert not list(validator("report.schema.json").iter_errors(report))
    return report


def wrong(case_id: str, retrieved: list[Any], context: list[Any]) -> dict[str, Any]:
    return {
        "id": case_id,
        "outcome": "answer",
        "fact": "window_30",
        "retrieved": retrieved,
        "context": context,
    }


def test_the_three_e2_diagnoses(repo: Path) -> None:
    report = score(
        repo,
        [
            {
                "id": "E1",
                "outcome": "answer",
                "fact": "window_30",
                "retrieved": [STANDARD],
                "context": [STANDARD],
            },
            wrong("E2a", [STANDARD, EXCEPTION], [STANDARD, EXCEPTION]),  # the answer's fault
            wrong("E2b", [STANDARD, EXCEPTION], [STANDARD]),  # the context left it out
            wrong("E2c", [STANDARD], [STANDARD]),  # never retrieved
        ],
    )
    stages = report["retrieval"]["stages"]
    assert [row["id"] for row in stages["answer"]] == ["E2a"]
    assert stages["context"] == [{"id": "E2b", "slice": "returns", "missing_docs": ["policy.md"]}]
    assert stages["retrieval"] == [{"id": "E2c", "slice": "returns", "missing_docs": ["policy.md"]}]
    assert report["retrieval"]["stages_by_slice"] == {
        "returns": {"tool": 0, "retrieval": 1, "context": 1, "answer": 1, "unknown": 0}
    }
    # quotes: E1 at rank 1, E2a at 2, E2b at 2, E2c never
    assert report["retrieval"]["recall_at"]["1"] == 0.25
    assert report["retrieval"]["recall_at"]["3"] == 0.75
    assert report["retrieval"]["mrr"] == pytest.approx((1 + 0.5 + 0.5 + 0) / 4)
    assert report["retrieval"]["all_support_in_context"] == 0.5
    assert report["trials"] is None


def test_text_output_lists_cases_under_each_stage(repo: Path) -> None:
    results = repo / "run.jsonl"
    results.write_text(json.dumps(wrong("E2c", [STANDARD], [STANDARD])) + "\n")
    text = run_cli("score", results, "--repo", repo).stdout
    assert "failed at retrieval (1):\n    E2c (missing policy.md)" in text
    assert "failed at unknown (3):" in text  # E1, E2a, E2b have no result line at all


def test_repeated_trials(repo: Path) -> None:
    def line(case_id: str, trial: int, ok: bool) -> dict[str, Any]:
        fact = "window_30" if case_id == "E1" else "custom_excluded"
        return {
            "id": case_id,
            "trial": trial,
            "outcome": "answer",
            "fact": fact if ok else "something_else",
        }

    # E1 passes 4 of 4, E2a 2 of 4, E2b 0 of 4, E2c 3 of 4
    pattern = {"E1": [1, 1, 1, 1], "E2a": [1, 0, 1, 0], "E2b": [0, 0, 0, 0], "E2c": [1, 1, 0, 1]}
    report = score(
        repo, [line(c, t + 1, bool(ok)) for c, oks in pattern.items() for t, ok in enumerate(oks)]
    )
    trials = report["trials"]
    assert trials["cases"] == 4 and trials["trials"] == 16
    assert trials["mean_pass_rate"]["value"] == pytest.approx((1 + 0.5 + 0 + 0.75) / 4)
    assert trials["pass_hat_k"]["4"]["value"] == pytest.approx(1 / 4)
    assert trials["pass_at_k"]["4"]["value"] == pytest.approx(3 / 4)
    assert [row["id"] for row in trials["flaky"]] == ["E2a", "E2c"]
    assert trials["per_case"]["E2c"] == [3, 4]
    assert report["success"] == 1  # a case passes only when every trial passes


def test_duplicate_trial_is_an_error_before_scoring(repo: Path) -> None:
    results = repo / "run.jsonl"
    line = {"id": "E1", "trial": 1, "outcome": "abstain"}
    results.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    result = run_cli("score", results, "--repo", repo)
    assert result.exit_code == 2
    assert "run.jsonl:2:" in result.stderr and "trial 1" in result.stderr


def test_labeller_agreement_is_printed_as_the_ceiling(repo: Path) -> None:
    labels = repo / "labels" / "second"
    labels.mkdir(parents=True)
    # agrees with E1 (answerable, the same expected answer); disagrees on E2a (answerable)
    (labels / "E1.yaml").write_text("id: E1\nanswerable: true\nexpected_answer: window_30\n")
    (labels / "E2a.yaml").write_text("id: E2a\nanswerable: false\n")
    report = score(repo, [{"id": "E1", "outcome": "answer", "fact": "window_30"}])
    agreement = report["agreement"]
    assert (agreement["items"], agreement["agreements"], agreement["rate"]) == (2, 1, 0.5)
    results = repo / "run.jsonl"
    text = run_cli("score", results, "--repo", repo).stdout
    assert "labeller agreement (the ceiling for these scores): 50.0% (1 of 2 items agree" in text


def test_score_loads_the_case_set_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agreement ceiling is computed on the set the score loaded, not on a second load."""
    (repo / "labels" / "second").mkdir(parents=True)
    (repo / "labels" / "second" / "E1.yaml").write_text("id: E1\nanswerable: false\n")
    loads: list[Path] = []
    walk = engine.case_entries  # every load of the set lists the case files once

    def counted(ctx: Context) -> engine.Entries:
        loads.append(ctx.root)
        return walk(ctx)

    monkeypatch.setattr(engine, "case_entries", counted)  # the score's listing, its load reuses
    report = score(repo, [{"id": "E1", "outcome": "answer", "fact": "window_30"}])
    assert report["agreement"]["items"] == 1
    assert loads == [repo]


def test_no_labels_no_ceiling(repo: Path) -> None:
    report = score(repo, [{"id": "E1", "outcome": "answer", "fact": "window_30"}])
    assert report["agreement"] is None


def test_compare_two_trial_runs(repo: Path) -> None:
    def run(name: str, passes: int) -> Path:
        lines = [
            {
                "id": c,
                "trial": t,
                "outcome": "answer",
                "fact": ("window_30" if c == "E1" else "custom_excluded") if t <= passes else "x",
            }
            for c in ("E1", "E2a", "E2b", "E2c")
            for t in (1, 2, 3, 4)
        ]
        results = repo / f"{name}.jsonl"
        results.write_text("".join(json.dumps(line) + "\n" for line in lines))
        out = repo / f"{name}.json"
        assert (
            run_cli("score", results, "--repo", repo, "--format", "json", "--out", out).exit_code
            == 0
        )
        return out

    (repo / "goldcase.toml").write_text("[slices.returns]\nfloor = 4\n")  # let the 4 cases gate
    base, head = run("base", 4), run("head", 2)
    result = run_cli("compare", base, head)
    assert "trials: mean pass rate 100.0% -> 50.0% (-50.0 points; 95% interval" in result.stdout
    assert "on 4 paired cases" in result.stdout
    payload = json.loads(run_cli("compare", base, head, "--format", "json").stdout)
    assert payload["measure"] == "mean_pass_rate"
    returns = payload["slices"]["returns"]
    # every case 4/4 -> 2/4: differences all -1/2; one-sided exact sign-flip p = 1 / 2^4, the
    # smallest p 4 changed cases can give, over 0.05: no test can be significant
    assert (returns["p_value"], returns["changed"]) == (1 / 16, 4)
    assert returns["p_adjusted"] == 1.0
    assert (returns["delta_points"], returns["reason"]) == (-50.0, "ok: too few changes")
    assert payload["gate"] == "pass"
