"""Fit an abstention threshold on a results file: score the run on the calibration split with no
threshold (every check of ``goldcase score`` applies), then choose the threshold with
``goldcase.scoring.calibration.calibrate`` and say how to measure it on the eval split."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from msgspec import Struct

from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.scoring.calibration import Calibration, answers_from_report, calibrate
from goldcase.scoring.scorer import score

FIT_SPLITS = ("calibration", "dev", "golden", "all")
WARN_OVERLAP = (
    "fitting on the {split} split includes the eval half; a threshold scored on cases it was "
    "fitted on looks better than it is: fit on the calibration split"
)


class Fit(Struct, frozen=True):
    results: str  # the results file as given
    repo: str | None  # --repo as given, for the next command
    split: str
    split_seed: int | None
    split_fraction: float | None
    unrated: int  # answers without a confidence
    calibration: Calibration

    @property
    def score_split(self) -> str:
        return "golden" if self.split == "dev" else "eval"

    @property
    def score_command(self) -> str | None:
        """The command that measures the fitted threshold on cases it was not fitted on."""
        if self.calibration.threshold > 1.0:
            return None
        words = ["goldcase", "score", self.results]
        if self.repo is not None:
            words += ["--repo", self.repo]
        words += ["--split", self.score_split, "--threshold", repr(self.calibration.threshold)]
        return shlex.join(words)


def fit(
    ctx: Context,
    results: Path,
    *,
    shown: str,
    repo: str | None,
    split: str,
    target_risk: float,
    delta: float,
) -> Fit:
    if split not in FIT_SPLITS:
        raise GoldcaseError(f"unknown split {split!r}; choose one of {', '.join(FIT_SPLITS)}")
    report = score(ctx, results, shown=shown, split=split, threshold=None)
    answers, total, unrated = answers_from_report(report)
    result = calibrate(answers, total, target_risk, delta)
    return Fit(
        shown, repo, split, report.get("split_seed"), report.get("split_fraction"), unrated, result
    )


def warnings(split: str) -> list[str]:
    return [WARN_OVERLAP.format(split=split)] if split in ("golden", "all") else []


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def render_text(f: Fit) -> str:
    c = f.calibration
    seed = "" if f.split_seed is None else f" (seed {f.split_seed}, fraction {f.split_fraction:g})"
    lines = [
        f"goldcase calibrate: {f.results}, split {f.split}{seed}: {c.total} cases",
        f"target risk {c.target_risk:g} (wrong answers among answered cases), "
        f"confidence {1 - c.delta:g}: {len(c.steps)} threshold(s) tested",
    ]
    if f.unrated:
        lines.append(
            f"{f.unrated} answer(s) gave no confidence: a threshold counts them as abstentions"
        )
    if c.certified:
        lines.append(
            f"threshold {c.threshold!r}: answers {c.answered} of {c.total} cases "
            f"(coverage {_pct(c.coverage)}), {c.wrong} wrong ({_pct(c.risk)}); "
            f"risk bound {c.bound:.4f} <= {c.target_risk:g}"
        )
    else:
        lines.append(f"cannot certify {c.target_risk:g}: {c.reason}")
        lines.append(f"threshold {c.threshold!r}: abstains from every case (coverage 0.0%)")
    command = f.score_command
    if command is None:
        lines.append(
            "an answer with confidence 1.0 cannot be held back by a threshold; no "
            "score command to suggest"
        )
    else:
        lines.append(f"measure it on the {f.score_split} split: {command}")
    return "\n".join(lines) + "\n"


def as_dict(f: Fit) -> dict[str, Any]:
    c = f.calibration
    return {
        "results_file": f.results,
        "split": f.split,
        "split_seed": f.split_seed,
        "split_fraction": f.split_fraction,
        "target_risk": c.target_risk,
        "delta": c.delta,
        "certified": c.certified,
        "threshold": c.threshold,
        "total": c.total,
        "answered": c.answered,
        "wrong": c.wrong,
        "coverage": c.coverage,
        "risk": c.risk,
        "bound": c.bound,
        "unrated_answers": f.unrated,
        "reason": c.reason,
        "steps": [
            {
                "threshold": s.threshold,
                "answered": s.answered,
                "wrong": s.wrong,
                "bound": s.bound,
                "certified": s.certified,
            }
            for s in c.steps
        ],
        "score_command": f.score_command,
    }


def render_json(f: Fit) -> str:
    return json.dumps(as_dict(f), indent=2, ensure_ascii=False) + "\n"
