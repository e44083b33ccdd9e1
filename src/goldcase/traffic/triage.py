"""``goldcase triage``: from a week of production traces to drafts in ``cases/inbox/``.

Read the trace log (``goldcase.traffic.traces``), replace personal data in every question
with the GC505 detectors' tokens (``goldcase.privacy.pii``; contact details the corpus
publishes are kept, as GC505 keeps them), draw the sample (``goldcase.traffic.sample``), write
one draft per trace drawn (``goldcase.traffic.drafts``), and estimate the labelling time
(``goldcase.traffic.estimate``). Nothing is written with ``dry_run``; ``inbox`` writes the
drafts to another folder (and reads the drafts there instead).
"""

from __future__ import annotations

import os
from collections import Counter
from functools import partial
from pathlib import Path

from msgspec import Struct, field

from goldcase.authoring.editor_schema import DRAFT_SCHEMA_REL
from goldcase.context import Context
from goldcase.engine import load_case_set, taken_ids
from goldcase.errors import GoldcaseError
from goldcase.ids import draft_id
from goldcase.leakage.neardup import NearConfig
from goldcase.model import CaseSet
from goldcase.privacy import pii
from goldcase.text import normalise_input
from goldcase.traffic.drafts import Provenance, inbox_drafts, render, write_drafts
from goldcase.traffic.estimate import Estimate
from goldcase.traffic.sample import Draw, Known, Plan, draw
from goldcase.traffic.traces import LogFile, TraceLog


class Options(Struct, frozen=True):
    n: int
    seed: str
    failed_share: float
    inbox: Path | None = None  # None: cases/inbox/
    dry_run: bool = False


class Result(Struct):
    log: TraceLog
    draw: Draw
    inbox: Path
    seed: str
    dry_run: bool
    ids: list[str] = field(default_factory=list)  # one per drawn trace, in draw order
    written: list[Path] = field(default_factory=list)
    existing: list[Path] = field(default_factory=list)  # appeared while triage ran
    redacted: Counter[str] = field(default_factory=Counter)  # kind -> values replaced
    estimate: Estimate | None = None


def triage(ctx: Context, path: Path, shown: str, options: Options) -> Result:
    with LogFile(path, shown, ctx.config.triage.fields) as source:
        return _triage(ctx, source, options)


def _triage(ctx: Context, source: LogFile, options: Options) -> Result:
    config, shown = ctx.config.triage, source.shown
    log = source.survey()
    if not log.traces:
        raise GoldcaseError(
            f"{shown}: no trace to draw from ({log.lines} lines, {log.bad_lines} bad); "
            "a trace is a JSON object with a question (docs/triage.md)"
        )
    keep = _published(ctx)
    case_set = load_case_set(ctx)
    inbox = options.inbox if options.inbox is not None else ctx.config.inbox_dir
    drafts = inbox_drafts(inbox)
    plan = Plan(options.n, options.failed_share, options.seed, _near(ctx))
    drawn = draw(
        source, _known(case_set, drafts), set(drafts), plan, partial(pii.redact, keep=keep)
    )
    result = Result(log, drawn, inbox, options.seed, options.dry_run)
    texts = _drafts(ctx, case_set, drafts, result, keep)
    if not options.dry_run:
        result.written, result.existing = write_drafts(inbox, texts)
    flagged = sum(d.trace.flagged for d in drawn.drawn)  # a random draw may carry a flag too
    result.estimate = Estimate(
        flagged,
        len(drawn.drawn) - flagged,
        config.seconds_per_item,
        config.seconds_per_disagreement,
        config.pass_rate,
    )
    return result


def _published(ctx: Context) -> frozenset[str]:
    """Contact details the corpus publishes: not personal data (as GC505 reads them)."""
    try:
        documents = ctx.corpus.documents.values()
    except GoldcaseError:
        return frozenset()
    return pii.published(doc.raw.decode("utf-8", "replace") for doc in documents)


def _near(ctx: Context) -> NearConfig:
    cfg = ctx.config.leakage
    return NearConfig(cfg.near_threshold, cfg.num_perm, cfg.shingle)


def _known(case_set: CaseSet, drafts: dict[str, str | None]) -> list[Known]:
    known = [Known(normalise_input(c.question), f"{c.split} case {c.id}") for c in case_set.cases]
    known += [Known(normalise_input(q), f"draft {i}") for i, q in drafts.items() if q]
    return known


def _drafts(
    ctx: Context,
    case_set: CaseSet,
    drafts: dict[str, str | None],
    result: Result,
    keep: frozenset[str],
) -> dict[str, str]:
    """The id of every trace drawn, and the text of each new draft (id -> text)."""
    taken = taken_ids(ctx, case_set) | set(drafts)
    schema = Path(os.path.relpath(ctx.root / DRAFT_SCHEMA_REL, result.inbox))
    source = Provenance(result.log.shown, result.seed, schema.as_posix())
    texts: dict[str, str] = {}
    for drawn in result.draw.drawn:
        trace = drawn.trace
        asked = trace.asked.at if trace.asked else None
        if drawn.kept:
            result.ids.append(draft_id(trace.key, asked, ()))
            continue
        new_id = draft_id(trace.key, asked, taken)
        taken.add(new_id)
        result.ids.append(new_id)
        _count(result.redacted, trace.question, keep)
        answer = trace.answer
        if answer is not None:
            _count(result.redacted, answer, keep)
            answer = pii.redact(answer, keep)
        texts[new_id] = render(new_id, drawn, answer, source)
    return texts


def _count(counter: Counter[str], text: str, keep: frozenset[str]) -> None:
    counter.update(m.kind for m in pii.find(text, keep))
