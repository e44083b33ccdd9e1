"""How far a second labeller agrees with the set's labels: the ceiling for model scores.

Each finished label (``labels/<labeller>/<id>.yaml`` with ``answerable`` filled in) is one item
compared with its case. The figures, each with a 95% interval:

- agreement: items on which the label agrees with the case on every field it fills in
  (answerable; the expected answer when both say answerable; expect when given);
  a proportion, with the Wilson score interval.
- Cohen's kappa on ``answerable``: (p_o - p_e) / (1 - p_e), p_e from the two labellers'
  marginal rates. Interval: kappa ± 1.96 x the large-sample standard error
  sqrt(p_o (1 - p_o) / (n (1 - p_e)^2)) (Cohen 1960), clipped to [-1, 1]. That error is 0
  when p_o is 0 or 1, which would claim certainty from a few items; there the interval is the
  Wilson interval of p_o put through the same formula, (p - p_e) / (1 - p_e). Undefined (null)
  when p_e is 1: both labellers gave every item the same value.
- expected answers: among items both call answerable, the share whose label answer passes
  the case (equal after normalising, or carrying what the case's text checks ask of any right
  answer: ``goldcase.labelling.labels.answer_failures``); a proportion, with the Wilson interval.

With several labellers and no ``--labeller``, every (case, labeller) pair is one item.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.labelling import labels as labelfiles
from goldcase.scoring.metrics import Z95, wilson

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import Case, CaseSet


class Kappa(Struct, frozen=True):
    kappa: float | None
    observed: float
    expected: float
    se: float | None
    interval: tuple[float, float] | None


def cohen_kappa(pairs: list[tuple[bool, bool]], z: float = Z95) -> Kappa | None:
    """Cohen's kappa for two raters' yes/no judgements on the same items."""
    n = len(pairs)
    if n == 0:
        return None
    p_o = sum(a == b for a, b in pairs) / n
    first = sum(a for a, _ in pairs) / n
    second = sum(b for _, b in pairs) / n
    p_e = first * second + (1 - first) * (1 - second)
    if math.isclose(p_e, 1.0):
        return Kappa(None, p_o, p_e, None, None)
    kappa = (p_o - p_e) / (1 - p_e)
    se = math.sqrt(p_o * (1 - p_o) / (n * (1 - p_e) ** 2))
    if se > 0:
        lo, hi = kappa - z * se, kappa + z * se
    else:  # p_o is 0 or 1: the Wilson interval of p_o, read as kappa
        p_lo, p_hi = wilson(round(p_o * n), n, z) or (p_o, p_o)
        lo, hi = (p_lo - p_e) / (1 - p_e), (p_hi - p_e) / (1 - p_e)
    return Kappa(kappa, p_o, p_e, se, (max(-1.0, lo), min(1.0, hi)))


def _rate(k: int, n: int) -> dict[str, Any]:
    interval = wilson(k, n)
    return {
        "agree": k,
        "of": n,
        "rate": None if n == 0 else k / n,
        "interval": None if interval is None else list(interval),
    }


def _item(
    case: Case, label: labelfiles.Label, fields: list[str], ambiguous: bool
) -> dict[str, Any]:
    return {
        "id": case.id,
        "case": case.path,
        "label": label.path,
        "labeller": label.labeller,
        "fields": fields,
        "detail": labelfiles.describe(case, label, fields),
        "resolved": bool(case.data.get("resolution")) or ambiguous,
    }


class _Tally(Struct):
    pairs: list[tuple[bool, bool]]
    agreements: int = 0
    answer_hits: int = 0
    answer_total: int = 0


def _compare(
    cases: dict[str, Case], finished: list[labelfiles.Label], ambiguous: set[str]
) -> tuple[_Tally, list[dict[str, Any]]]:
    tally = _Tally([])
    disagreements: list[dict[str, Any]] = []
    for label in finished:
        case = cases[label.case_id]
        tally.pairs.append((case.answerable, bool(label.answerable)))
        same_answer = labelfiles.answers_agree(case, label)
        if same_answer is not None:
            tally.answer_total += 1
            tally.answer_hits += same_answer
        fields = labelfiles.differences(case, label)
        if fields:
            disagreements.append(_item(case, label, fields, case.slice in ambiguous))
        else:
            tally.agreements += 1
    return tally, disagreements


def _kappa_dict(kappa: Kappa | None) -> dict[str, Any] | None:
    if kappa is None:
        return None
    interval = None if kappa.interval is None else list(kappa.interval)
    return {
        "kappa": kappa.kappa,
        "observed": kappa.observed,
        "expected": kappa.expected,
        "se": kappa.se,
        "interval": interval,
    }


def build_report(ctx: Context, case_set: CaseSet, labeller: str | None = None) -> dict[str, Any]:
    """Everything ``goldcase agreement`` prints, as one JSON-ready mapping, for the loaded
    ``case_set``."""
    cases = case_set.by_id()
    label_set = labelfiles.load_labels(ctx.root, cases, labeller)
    finished = [lb for lb in label_set.labels if not lb.pending]
    tally, disagreements = _compare(cases, finished, set(ctx.config.ambiguous_slices))
    return {
        "labeller": labeller,
        "labellers": label_set.labellers,
        "items": len(finished),
        "pending": len(label_set.labels) - len(finished),
        "agreement": _rate(tally.agreements, len(finished)),
        "kappa_answerable": _kappa_dict(cohen_kappa(tally.pairs)),
        "expected_answers": _rate(tally.answer_hits, tally.answer_total),
        "disagreements": disagreements,
        "label_findings": [f.as_dict() for f in label_set.findings],
    }


def agreement_summary(
    ctx: Context, case_set: CaseSet, labeller: str | None = None
) -> dict[str, Any] | None:
    """The human ceiling a score report prints next to model scores, or None without labels.

    ``{"labellers": [...], "items": n, "agreements": k, "rate": k/n, "interval": [lo, hi],
    "kappa": float | None, "kappa_interval": [lo, hi] | None, "unresolved": m}``
    """
    report = build_report(ctx, case_set, labeller)
    if report["items"] == 0:
        return None
    kappa = report["kappa_answerable"] or {}
    return {
        "labellers": report["labellers"],
        "items": report["items"],
        "agreements": report["agreement"]["agree"],
        "rate": report["agreement"]["rate"],
        "interval": report["agreement"]["interval"],
        "kappa": kappa.get("kappa"),
        "kappa_interval": kappa.get("interval"),
        "unresolved": sum(not d["resolved"] for d in report["disagreements"]),
    }


def sample_labels(ctx: Context, n: int, seed: str, labeller: str) -> list[Path]:
    """Draw a stratified sample of golden cases and write blank label files for it."""
    golden = load_case_set(ctx).golden
    if not golden:
        raise GoldcaseError(
            "no valid golden case to sample: add cases under cases/golden/ (and run goldcase check)"
        )
    chosen = labelfiles.draw_sample(golden, n, seed)
    return labelfiles.write_sample(ctx.root, chosen, labeller, seed)


def _fraction(rate: dict[str, Any]) -> str:
    if rate["of"] == 0:
        return "- (no items)"
    lo, hi = rate["interval"]
    return f"{rate['agree']}/{rate['of']} = {rate['rate']:.1%} (95% interval {lo:.1%} to {hi:.1%})"


def _kappa_line(kappa: dict[str, Any] | None) -> str:
    if kappa is None:
        return "- (no items)"
    chance = f"observed {kappa['observed']:.1%}, by chance {kappa['expected']:.1%}"
    if kappa["kappa"] is None:
        return f"undefined: both gave every item the same value ({chance})"
    lo, hi = kappa["interval"]
    return f"{kappa['kappa']:.2f} (95% interval {lo:.2f} to {hi:.2f}; {chance})"


def render_text(report: dict[str, Any]) -> str:
    """The plain-text form of ``build_report``'s mapping."""
    who = report["labeller"] or ", ".join(report["labellers"]) or "no labeller"
    lines = [
        f"labeller: {who}; items compared: {report['items']}; pending: {report['pending']}",
        f"agreement (the ceiling for model scores): {_fraction(report['agreement'])}",
        f"Cohen's kappa on answerable: {_kappa_line(report['kappa_answerable'])}",
        "expected answers that pass the case, both answerable: "
        + _fraction(report["expected_answers"]),
    ]
    if not report["items"] and not report["pending"]:
        lines.append("no label files under labels/: run goldcase label sample --n 30 --seed S")
    disagreements = report["disagreements"]
    lines.append(f"disagreements: {len(disagreements)}")
    for d in disagreements:
        state = "resolved" if d["resolved"] else "UNRESOLVED"
        lines.append(f"  {d['id']} [{state}] {d['detail']} ({d['label']})")
    for f in report["label_findings"]:
        lines.append(f"{f['path']}:{f['line']}:{f['col']}: {f['code']} {f['message']}")
    return "\n".join(lines) + "\n"
