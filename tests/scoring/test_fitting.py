"""goldcase calibrate end to end: a certified threshold on known scores, the score command it
prints (threshold and seed land in the eval report), and abstaining when too few cases."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from kit import run_cli

CASE = """\
id: {id}
question: how long for a credit on a damaged parcel {id}
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
slice: returns
"""


def build(make_repo: Callable[..., Path], where: str, right: int, wrong: int) -> tuple[Path, Path]:
    """``right`` cases answered correctly at confidence 0.9, ``wrong`` wrongly at 0.3."""
    ids = [f"c{i:03d}" for i in range(right + wrong)]
    files = {f"cases/{where}/{i}.yaml": CASE.format(id=i) for i in ids}
    files["goldcase.toml"] = "[split]\nseed = 11\nfraction = 0.5\n"
    repo = make_repo(files)
    lines = []
    for n, case_id in enumerate(ids):
        good = n < right
        answer = "You have 14 days." if good else "You have 30 days."
        lines.append(
            {
                "id": case_id,
                "outcome": "answer",
                "answer": answer,
                "confidence": 0.9 if good else 0.3,
            }
        )
    results = repo / "run.jsonl"
    results.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return repo, results


def test_a_certified_threshold_on_known_scores(make_repo: Callable[..., Path]) -> None:
    repo, results = build(make_repo, "dev", right=20, wrong=10)
    out = run_cli("calibrate", results, "--repo", repo, "--split", "dev", "--target-risk", "0.2")
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    # two candidate thresholds -> two tests at 0.05 / 2; at 0.9, 20 right answers and no wrong
    # one bound the risk at 1 - 0.025^(1/20) = 0.1684
    assert lines[1] == (
        "target risk 0.2 (wrong answers among answered cases), confidence 0.95: "
        "2 threshold(s) tested"
    )
    assert lines[2] == (
        "threshold 0.9: answers 20 of 30 cases (coverage 66.7%), 0 wrong (0.0%); "
        "risk bound 0.1684 <= 0.2"
    )
    assert lines[3].endswith(f"--repo {repo} --split golden --threshold 0.9")


def test_the_printed_command_scores_the_eval_split_with_threshold_and_seed(
    make_repo: Callable[..., Path],
) -> None:
    repo, results = build(make_repo, "golden", right=60, wrong=20)
    out = run_cli("calibrate", results, "--repo", repo, "--target-risk", "0.2", "--format", "json")
    assert out.exit_code == 0, out.stderr
    fitted = json.loads(out.stdout)
    assert (fitted["split"], fitted["split_seed"], fitted["split_fraction"]) == (
        "calibration",
        11,
        0.5,
    )
    assert fitted["total"] == 40  # half of each stratum: 80 cases, one stratum
    assert (fitted["certified"], fitted["threshold"], fitted["wrong"]) == (True, 0.9, 0)
    command = shlex.split(fitted["score_command"])
    assert command[:2] == ["goldcase", "score"]
    report_path = repo / "eval.json"
    scored = run_cli(*command[1:], "--out", report_path, "--format", "json")
    assert scored.exit_code == 0, scored.stderr
    report = json.loads(report_path.read_text())
    assert (report["split"], report["split_seed"], report["threshold"]) == ("eval", 11, 0.9)
    assert report["total"] == 40
    assert report["answered"] == report["correct_answers"]  # every kept answer is right


def test_too_few_cases_abstains_from_everything(make_repo: Callable[..., Path]) -> None:
    repo, results = build(make_repo, "dev", right=8, wrong=0)
    out = run_cli("calibrate", results, "--repo", repo, "--split", "dev", "--target-risk", "0.1")
    assert out.exit_code == 1
    assert "cannot certify 0.1: too few answered calibration cases to certify 0.1: 8 " in out.stdout
    assert "threshold 1.0: abstains from every case (coverage 0.0%)" in out.stdout
    assert out.stdout.splitlines()[-1].endswith("--split golden --threshold 1.0")


def test_fitting_on_golden_warns_and_bad_targets_are_refused(
    make_repo: Callable[..., Path],
) -> None:
    repo, results = build(make_repo, "golden", right=10, wrong=0)
    out = run_cli("calibrate", results, "--repo", repo, "--split", "golden", "--target-risk", "0.5")
    assert "warning: fitting on the golden split includes the eval half" in out.stderr
    bad = run_cli("calibrate", results, "--repo", repo, "--target-risk", "1.5")
    assert bad.exit_code == 2
    assert "--target-risk should be between 0 and 1, got 1.5" in bad.stderr


@pytest.mark.parametrize("content", ["{broken\n", '{"id": "nope", "outcome": "answer"}\n'])
def test_a_results_file_score_refuses_is_refused(
    make_repo: Callable[..., Path], content: str
) -> None:
    repo, results = build(make_repo, "golden", right=4, wrong=0)
    results.write_text(content, encoding="utf-8")
    out = run_cli("calibrate", results, "--repo", repo, "--target-risk", "0.2")
    assert out.exit_code == 2
    assert out.stderr.startswith("error: ")


def test_answers_without_confidence_and_a_confidence_of_one(
    make_repo: Callable[..., Path],
) -> None:
    repo, results = build(make_repo, "dev", right=3, wrong=0)
    lines = [
        {"id": "c000", "outcome": "answer", "answer": "You have 14 days.", "confidence": 1.0},
        {"id": "c001", "outcome": "answer", "answer": "You have 14 days."},
        {"id": "c002", "outcome": "abstain"},
    ]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = run_cli("calibrate", results, "--repo", repo, "--split", "dev", "--target-risk", "0.1")
    assert out.exit_code == 1
    assert "1 answer(s) gave no confidence: a threshold counts them as abstentions" in out.stdout
    # a threshold of 1.0 would still keep the answer at 1.0, and score takes 0..1 only
    assert out.stdout.splitlines()[-1] == (
        "an answer with confidence 1.0 cannot be held back by a threshold; no score command "
        "to suggest"
    )


@pytest.mark.parametrize("target", ["1e-320", "5e-324"])
def test_a_subnormal_target_risk_abstains_from_everything(
    make_repo: Callable[..., Path], target: str
) -> None:
    """A target of 1e-320 is between 0 and 1, so it is taken; the answers a bound that small
    needs overflowed a float, which stopped the command with ``internal error: OverflowError``.
    No set holds that many answers: calibrate abstains from everything and says so."""
    repo, results = build(make_repo, "dev", right=20, wrong=0)
    out = run_cli("calibrate", results, "--repo", repo, "--split", "dev", "--target-risk", target)
    assert out.exit_code == 1, out.stderr
    assert f"cannot certify {float(target):g}: too few answered calibration cases" in out.stdout
    assert "about 10^32" in out.stdout  # answers needed: some 320 digits, shown as a power
    assert "threshold 1.0: abstains from every case (coverage 0.0%)" in out.stdout
