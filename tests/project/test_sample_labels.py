"""The second labeller's sample shipped with the sample set (labels/second, docs/sample-set.md).

The label and case files are read with PyYAML, not goldcase's loader; the figures asserted
are the ones read off those files by hand: 30 labels, all finished, the same `answerable` as
the case on every one (20 answerable, 10 not), and three bare yes/no answers where the case
needs the condition or the reason, each resolved in its case.
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
BARE = {"bil-011": "Yes", "ret-019": "No", "war-011": "No"}


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
    assert answerable == 20


def test_the_three_bare_answers_are_the_disagreements_and_resolved(
    labels: dict[str, Any],
) -> None:
    for case_id, answer in BARE.items():
        assert labels[case_id]["expected_answer"] == answer
        assert _yaml(GOLDEN / f"{case_id}.yaml")["resolution"].startswith(
            f"a bare {answer.lower()} is not a right answer here"
        )
    result = run_cli("agreement", "--repo", ROOT, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert (report["items"], report["pending"]) == (30, 0)
    assert (report["agreement"]["agree"], report["agreement"]["of"]) == (27, 30)
    assert (report["expected_answers"]["agree"], report["expected_answers"]["of"]) == (17, 20)
    # every pair agrees on answerable: kappa 1, chance agreement (2/3)^2 + (1/3)^2 = 5/9
    assert report["kappa_answerable"]["kappa"] == pytest.approx(1.0)
    assert report["kappa_answerable"]["expected"] == pytest.approx(5 / 9)
    found = [(d["id"], d["fields"], d["resolved"]) for d in report["disagreements"]]
    assert found == [(case_id, ["expected_answer"], True) for case_id in sorted(BARE)]
