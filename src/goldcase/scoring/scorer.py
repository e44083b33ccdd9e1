"""Score one results file against the set: validate everything first, then grade and count.

Nothing is scored unless every input is sound: the case files load, no two cases share an id,
and every result line is valid JSON matching the schema, names a known case, and is the only
line for its case (or for its (case, trial)). Every problem found is listed at once.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import heapq
import itertools
import math
import operator
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct

from goldcase import progress
from goldcase.collector import let_go
from goldcase.context import Context
from goldcase.engine import Entries, list_aside, load_case_set, release_case_cache
from goldcase.errors import GoldcaseError
from goldcase.loader import set_digest
from goldcase.model import INBOX, Case, CaseSet
from goldcase.scoring import view
from goldcase.scoring.diagnostics import ceiling, diagnostics
from goldcase.scoring.outcomes import CaseGrader, Graded
from goldcase.scoring.report import SHOWN_FAILURES, build_report
from goldcase.scoring.results import (
    MAX_SHOWN,
    InvalidInput,
    Problem,
    Result,
    Unlisted,
    index_results,
    parse_lines,
    read_raw,
)
from goldcase.scoring.split import select as select_half
from goldcase.scoring.view import ScoredSet
from goldcase.text import clip
from goldcase.versioning.locking import read_on_disk

SPLITS = ("golden", "dev", "calibration", "eval", "all")
WARN_FITTED = (
    "a threshold fitted on part of the set is being scored against it; "
    "score the eval split for a number that can decide anything"
)
_CASE_ID = operator.attrgetter("case_id")  # of a CaseGrader or a Graded


class Selection(Struct, frozen=True):
    """The cases a split scores, and how the split was drawn (seeded splits only)."""

    name: str
    cases: list[Case]
    seed: int | None = None
    fraction: float | None = None


def check_threshold(threshold: float | None) -> None:
    if threshold is not None and (math.isnan(threshold) or not 0 <= threshold <= 1):
        raise GoldcaseError(f"--threshold {threshold}: expected a confidence from 0 to 1")


def split_warnings(split: str, threshold: float | None) -> list[str]:
    """Warnings a score on this split deserves before anyone reads its numbers."""
    if split == "all" or (split == "golden" and threshold is not None):
        return [WARN_FITTED]
    return []


def lock_warnings(ctx: Context, report: dict[str, Any]) -> list[str]:
    """Warnings when the version a report is stamped with does not pin what was scored: no
    golden.lock, an unreadable one, or one whose digests differ from the set and corpus."""
    disk = read_on_disk(ctx.config)
    if disk.lock_text is None:
        return [
            "the set has no golden.lock, so this report names no locked version; run "
            "goldcase lock (and commit) before scoring runs you mean to compare"
        ]
    if disk.lock is None:
        return ["golden.lock cannot be read; run goldcase lock, then score again"]
    moved = [
        what
        for what, mine, locked in (
            ("golden cases", report["set_digest"], disk.lock.set_digest),
            ("corpus", report["corpus_digest"], disk.lock.corpus_digest),
        )
        if mine != locked
    ]
    if not moved:
        return []
    verb = "differs" if moved == ["corpus"] else "differ"
    return [
        f"the {' and the '.join(moved)} {verb} from golden.lock (version {disk.lock.version}): "
        f"this report is stamped version {report['golden_version']} but scores other content; "
        "run goldcase lock, then score again"
    ]


def select(ctx: Context, case_set: CaseSet, split: str) -> Selection:
    if split == "golden":
        return Selection(split, case_set.golden)
    if split == "dev":
        return Selection(split, case_set.dev)
    if split == "all":
        return Selection(split, case_set.golden + case_set.dev)
    if split in ("calibration", "eval"):
        return _seeded(ctx, case_set, split)
    raise GoldcaseError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")


def _seeded(ctx: Context, case_set: CaseSet, split: str) -> Selection:
    seed, fraction = ctx.config.split.seed, ctx.config.split.fraction
    return Selection(split, select_half(case_set.golden, split, seed, fraction), seed, fraction)


def case_problems(ctx: Context, case_set: CaseSet) -> Iterator[Problem]:
    """Case files that failed to load, and ids used by two files."""
    first: dict[str, str] = {}
    for case_file in case_set.files:
        if case_file.split == INBOX:
            continue  # a draft is never scored, and a broken one does not stop a score
        for finding in case_file.findings:
            if finding.severity == "error":
                yield Problem(
                    case_file.path,
                    finding.line,
                    f"{finding.code} {finding.message}; fix the case file before "
                    "scoring (goldcase check lists every problem)",
                )
        data = case_file.data
        case_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(case_id, str):
            continue
        if case_id in first:
            yield Problem(
                case_file.path,
                _id_line(ctx, case_file.path),
                f"case id {case_id!r} is also used by {first[case_id]}; ids are "
                "unique across cases/, rename one",
            )
        else:
            first[case_id] = case_file.path


def _id_line(ctx: Context, rel: str) -> int:
    try:
        lines = ctx.read_bytes(rel).split(b"\n")
    except OSError:
        return 1
    return next((n for n, line in enumerate(lines, 1) if line.startswith(b"id:")), 1)


def unknown_ids(by_id: dict[str, list[Result]], known: set[str], name: str) -> list[Problem]:
    """A problem for each of the first ``MAX_SHOWN`` lines whose id no case has, the rest
    counted in one ``Unlisted`` (a run scored against another set can have a million)."""
    unknown = by_id.keys() - known  # in C; the lines are then visited only when there is one
    if not unknown:
        return []
    lines = ((r.line, case_id) for case_id in unknown for r in by_id[case_id])
    first = heapq.nsmallest(MAX_SHOWN + 1, lines)
    listed: list[Problem] = [
        Problem(
            name,
            line,
            f"unknown case id {clip(repr(case_id))}; no case under cases/ has it "
            "(was the run made on another set, or the case renamed?)",
        )
        for line, case_id in first[:MAX_SHOWN]
    ]
    rest = sum(len(by_id[case_id]) for case_id in unknown) - len(listed)
    if rest:
        more = f"and {rest:,} more lines from here on with a case id no case has"
        listed.append(Unlisted(name, first[MAX_SHOWN][0], more, rest))
    return listed


def score(
    ctx: Context,
    results_path: Path,
    *,
    shown: str | None = None,
    split: str = "golden",
    threshold: float | None = None,
    raw: bytes | None = None,
    digest: bool = True,
) -> dict[str, Any]:
    """Validate, grade and count: the report as a dict (see ``schema/report.schema.json``).
    ``raw``: the results' bytes when they were not read from ``results_path`` as they are
    (``score --from`` converts another tool's output). ``digest``: whether the report is
    complete, as a JSON report is: every case listed, every failing one saying why, and
    ``cases_digest`` computed. Without, the report is the one the text and Markdown
    renderings read: ``cases`` holds the first ``SHOWN_FAILURES`` failing cases (in id
    order), all they list, and ``cases_digest`` is None (on 100,000 cases the digest costs
    0.3 s, the other cases' entries and reasons 0.15 s)."""
    with _no_cyclic_gc():
        return _score(ctx, results_path, shown, split, threshold, raw, digest)


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """A run's 100,000 small dicts make no cycles, but they make the cyclic collector run
    hundreds of times (a third of the time spent reading); it is switched back on after.

    Everything made meanwhile is still in the youngest generation then, so the collector's
    next pass (while the report is rendered) would walk all of it, up to 0.4 s for 100,000
    cases: it is moved to the oldest generation first (``freeze`` then ``unfreeze`` moves
    objects without looking at them), unless the caller keeps objects frozen itself."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _score(
    ctx: Context,
    results_path: Path,
    shown: str | None,
    split: str,
    threshold: float | None,
    raw: bytes | None,
    digest: bool,
) -> dict[str, Any]:
    check_threshold(threshold)
    if split not in SPLITS:
        raise GoldcaseError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    name = shown if shown is not None else str(results_path)
    if raw is None:
        raw = read_raw(results_path, name)
    # The case files are listed by a child (on 100,000 files it takes as long as the view
    # and the lines together) while this process reads the view and parses the lines.
    # Another checks the lines against the schema while this process reads the view and
    # builds the lines (``parse_lines``). While either child is still at work, the lines
    # are graded ahead (``_Ahead``), which counts once both have said yes.
    explained = None if digest else SHOWN_FAILURES
    early = _Ahead(ctx, name, split, threshold, explained)
    listing = list_aside(ctx)
    try:
        results_digest = hashlib.sha256(raw).hexdigest()
        parsed = parse_lines(raw, name, lambda: view.read(ctx), early)
        del raw  # the lines are parsed: the bytes would only add to the peak
        early.checked(parsed, listing.ready)
    except BaseException:  # an error or a Ctrl-C: the child killed and reaped, not waited for
        listing.cancel()
        raise
    entries = listing()
    peeked, ahead = early.peeked, early.grading
    del early
    if peeked is None or not view.confirmed(ctx, entries, peeked):
        ahead = peeked = None  # no view, or not the files': what was graded against it goes
        scored = loaded_set(ctx, entries)
    else:
        scored = peeked.scored
    del entries, peeked  # 100,000 paths and signatures: 30 MB the rest of the run does not need
    if isinstance(ahead, InvalidInput):
        raise ahead
    if ahead is None:  # nothing graded ahead: all of it now
        by_id, lines = validated(scored, parsed, name)
        selection = select(ctx, scored.case_set, split)
        ahead = _Grading(by_id, lines, selection, threshold, explained)
    grading = ahead
    del parsed, ahead
    graded = grading.finish()
    by_id, result_lines, selection = grading.by_id, grading.lines, grading.selection
    del grading
    case_set = scored.case_set
    inside = set(map(_CASE_ID, graded))  # one graded case a case of the split, its id in C
    outside = sum(len(by_id[case_id]) for case_id in by_id.keys() - inside)
    extra = diagnostics(selection.cases, by_id, graded, ctx.corpus, threshold)
    # The parsed lines are the largest thing held, and the report does not need them. They
    # make room for the view's encoding when the set's view is saved at the end, and for
    # the complete report (``digest``: every case listed, its JSON text: 454 MB against 397
    # at the peak of 100,000 x 1 kept); else they wait for the process's end (a tenth of a
    # second to free on 100,000 lines).
    keep = scored.view_key is None and not digest
    if keep:
        let_go(by_id)
    del by_id
    view.remember(ctx, scored)  # now: its rows take the room the lines left
    report = build_report(
        ctx,
        scored.golden_digest,
        selection,
        graded,
        threshold=threshold,
        results_file=name,
        results_digest=results_digest,
        result_lines=result_lines,
        outside_split=outside,
        listed=None if digest else SHOWN_FAILURES,
    )
    report.update(extra, agreement=ceiling(ctx, case_set))
    if keep:  # the graded cases and the set, as the lines above
        let_go((graded, scored, selection))
    return report


def loaded_set(ctx: Context, entries: Entries) -> ScoredSet:
    """The set of the case files ``entries`` lists (``case_entries``, taken before anything
    is read: a later change gives another key), loaded when the score view is not theirs
    (see ``scoring.view``) and checked for what stops a score, with the key its view is
    remembered under once the lines are graded (``view.remember``)."""
    case_set = load_case_set(ctx, entries)  # listed once: the key and the load see the same files
    release_case_cache(ctx)  # saved: the next score (or check) of an unchanged set skips parsing
    problems = list(case_problems(ctx, case_set))
    known = {c.id for c in case_set.parsed}
    if not problems:  # the cases alone, as the view gives them: the files would add to the peak
        case_set = CaseSet([], case_set.cases)
    return ScoredSet(
        case_set, set_digest(case_set.golden), problems, known, view.stat_key(ctx, entries)
    )


def validated(
    scored: ScoredSet, parsed: tuple[list[Result], list[Problem]], name: str
) -> tuple[dict[str, list[Result]], int]:
    """Result lines by case id (``parse_lines``' results) and how many lines were read;
    ``InvalidInput`` listing every problem with the set or the file when there is any."""
    problems = list(scored.problems)
    results, line_problems = parsed
    by_id, repeated = index_results(results, name)
    unknown = unknown_ids(by_id, scored.known, name)
    problems.extend(sorted(line_problems + repeated + unknown, key=lambda p: p.line))
    if problems:
        raise InvalidInput(problems)
    return by_id, len(results)


class _Ahead:
    """Grading done before what it reads is known to be sound, on a large run, where this
    process would otherwise wait: against lines a child is still checking against the
    schema (``unchecked``, from ``parse_lines``), then against the view's set while the
    case files are still being listed (``checked``). What it gives (``grading``: the cases
    graded so far, or the problems found) counts only once the lines are the ones kept and
    the listing confirms the view (``view.confirmed``); the grading then goes on from where
    it stopped, or is dropped and done again from the files."""

    def __init__(
        self, ctx: Context, name: str, split: str, threshold: float | None, explained: int | None
    ) -> None:
        self._ctx = ctx
        self._name = name
        self._split = split
        self._threshold = threshold
        self._explained = explained
        self._peeked = False
        self.peeked: view.Peeked | None = None  # the view's set, once read
        self.grading: _Grading | InvalidInput | None = None
        self._lines: list[Result] | None = None  # held: compared by identity (``checked``)

    def unchecked(self, lines: list[Result], until: Callable[[], bool]) -> None:
        """Grade lines not yet known to be valid until ``until()`` (the child's answer). A
        line the schema would refuse may break grading (a confidence given as text): that
        grading is dropped, and the line's problem is the one reported."""
        self._lines = lines
        try:
            self.grading = self._start((lines, []), until)
        except Exception:  # lines not known to be valid: graded again if they are
            self.dropped()

    def dropped(self) -> None:
        """The lines graded unchecked are not the ones kept: the grading and they go now,
        before the file is read again (two copies of the lines would be the peak)."""
        self.grading = self._lines = None

    def checked(
        self, parsed: tuple[list[Result], list[Problem]], until: Callable[[], bool]
    ) -> None:
        """Go on grading the lines ``parse_lines`` kept until ``until()`` (the listing): what
        was graded counts when they are the lines graded before (the same list)."""
        if parsed[0] is not self._lines or parsed[1]:
            self.grading = None  # other lines were graded (or none): let go
        self._lines = None
        if self.grading is None:
            self.grading = self._start(parsed, until)
        elif isinstance(self.grading, _Grading):
            self.grading.ahead(until)

    def _start(
        self, parsed: tuple[list[Result], list[Problem]], until: Callable[[], bool]
    ) -> _Grading | InvalidInput | None:
        if not self._peeked:
            self.peeked, self._peeked = view.peek(self._ctx), True
        if self.peeked is None or until():
            return None
        scored = self.peeked.scored
        try:
            by_id, lines = validated(scored, parsed, self._name)
        except InvalidInput as problems:
            return problems
        selection = select(self._ctx, scored.case_set, self._split)
        grading = _Grading(by_id, lines, selection, self._threshold, self._explained)
        grading.ahead(until)
        return grading


class _Grading:
    """Every case of a selection graded in id order against its result lines, a chunk at a
    time: ``ahead`` grades until told to stop, ``finish`` the rest, and then every failing
    case says why, or (``explained``) only the first that many."""

    def __init__(
        self,
        by_id: dict[str, list[Result]],
        lines: int,
        selection: Selection,
        threshold: float | None,
        explained: int | None,
    ) -> None:
        self.by_id = by_id
        self.lines = lines
        self.selection = selection
        self._threshold = threshold
        self._explained = explained
        self._graders = sorted(map(CaseGrader, selection.cases), key=_CASE_ID)
        self._graded: list[Graded] = []

    def ahead(self, until: Callable[[], bool]) -> None:
        """Grade a chunk at a time until ``until()`` or every case is graded."""
        graders, graded = self._graders, self._graded
        while len(graded) < len(graders) and not until():
            chunk = graders[len(graded) : len(graded) + AHEAD_CHUNK]
            graded.extend(self._grade(chunk))

    def finish(self) -> list[Graded]:
        graders, graded = self._graders, self._graded
        rest = graders[len(graded) :]
        with progress.task("grading", len(graders), show=self.lines >= SHOW_FROM) as advance:
            advance(len(graded))
            graded.extend(self._grade(progress.each(advance, rest, 1024)))
        if self._explained is not None:
            failing = (pair for pair in zip(graders, graded, strict=True) if pair[1].failed)
            for grader, one in itertools.islice(failing, self._explained):
                grader.explain_graded(one, self.by_id.get(grader.case_id, ()), self._threshold)
        return graded

    def _grade(self, graders: Iterable[CaseGrader]) -> list[Graded]:
        by_id, threshold, why = self.by_id, self._threshold, self._explained is None
        return [
            grader.grade(by_id.get(grader.case_id, ()), threshold, why=why) for grader in graders
        ]


AHEAD_CHUNK = 1024  # cases graded ahead between two looks at the listing (a few ms)
SHOW_FROM = 10_000  # result lines before grading shows a progress bar
