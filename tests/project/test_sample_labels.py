"""The second labeller's sample shipped with the sample set (labels/second, docs/sample-set.md).

The label and case files are read with PyYAML, not goldcase's loader; the figures asserted
are the ones read off those files by hand: 30 labels, all finished, the same `answerable` as
the case on every one (18 answerable, 12 not), and two bare yes/no answers where the case
needs the condition or the reason, each resolved in its case with who decided.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from kit import run_cli

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "labels" / "second"
GOLDEN = ROOT / "cases" / "golden"
SEED = "2026"
BARE = {"bil-011": ("Yes", "billing-lead"), "war-011": ("No", "support-lead")}


def _yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


@pytest.fixture(scope="module")
def labels() -> dict[str, dict[str, Any]]:
    return {path.stem: _yaml(path) for path in sorted(LABELS.glob("*.yaml"))}


def test_the_labels_are_the_seeded_sample(tmp_path: Path, labels: dict[str, Any]) -> None:
    """`goldcase label sample --seed 2026 --n 30` on a copy of the set draws exactly the 30
    cases labels/second holds."""
    for name in ("cases", "corpus"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "goldcase.toml", tmp_path / "goldcase.toml")
    args = ["--seed", SEED, "--n", "30", "--labeller", "again"]
    result = run_cli("label", "sample", *args, "--repo", tmp_path)
    assert result.exit_code == 0, result.stderr
    drawn = sorted(path.stem for path in (tmp_path / "labels" / "again").glob("*.yaml"))
    assert len(drawn) == 30
    assert drawn == sorted(labels)


def test_every_label_is_finished_and_agrees_on_answerable(labels: dict[str, Any]) -> None:
    answerable = 0
    for case_id, label in labels.items():
        case = _yaml(GOLDEN / f"{case_id}.yaml")
        assert label["id"] == case_id
        assert label["answerable"] in (True, False), case_id
        assert label["answerable"] == case.get("answerable", True), case_id
        if label["answerable"]:
            answerable += 1
            assert label["expected_answer"], case_id
        else:
            assert not label.get("expected_answer"), case_id
    assert answerable == 18


def test_the_two_bare_answers_are_the_disagreements_and_resolved(
    labels: dict[str, Any],
) -> None:
    for case_id, (answer, decided_by) in BARE.items():
        assert labels[case_id]["expected_answer"] == answer
        resolution = _yaml(GOLDEN / f"{case_id}.yaml")["resolution"]
        assert resolution["rule"].startswith(f"a bare {answer.lower()} is not a right answer here")
        assert resolution["decided_by"] == decided_by
    result = run_cli("agreement", "--repo", ROOT, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert (report["items"], report["pending"]) == (30, 0)
    assert (report["agreement"]["agree"], report["agreement"]["of"]) == (28, 30)
    assert (report["expected_answers"]["agree"], report["expected_answers"]["of"]) == (16, 18)
    # every pair agrees on answerable: kappa 1, chance agreement (18/30)^2 + (12/30)^2 = 0.52
    assert report["kappa_answerable"]["kappa"] == pytest.approx(1.0)
    assert report["kappa_answerable"]["expected"] == pytest.approx(0.52)
    found = [(d["id"], d["fields"], d["resolved"]) for d in report["disagreements"]]
    assert found == [(case_id, ["expected_answer"], True) for case_id in sorted(BARE)]
