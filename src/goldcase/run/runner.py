"""The run: every (case, trial) of a split not yet in the results file, asked by ``--jobs``
sessions at once, each answer written as one line the moment it is in.

Order: trial 1 of every case (by id), then trial 2, …, so a stopped run of several trials has
whole trials first. An error the system marks retryable is asked again, up to ``--retries``
times, after 0.5 s, 1 s, 2 s, … (at most 30 s; or what an HTTP ``Retry-After`` asks). Ctrl-C
stops the sessions (workers are killed), writes nothing more, records the session as
interrupted and leaves the file whole: the same command continues it.
"""

from __future__ import annotations

import contextlib
import operator
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from msgspec import Struct, field

from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.errors import GoldcaseError
from goldcase.loader import set_digest
from goldcase.model import Case, CaseSet
from goldcase.output import plain
from goldcase.run.guard import Guard, refuse_fewshot
from goldcase.run.manifest import Provenance, manifest_path, open_manifest, system_digest
from goldcase.run.outfile import LineWriter, resume
from goldcase.run.progress import Progress
from goldcase.run.protocol import Answer, encode, error_line, malformed, request, to_answer
from goldcase.run.systems import Reply, Session, System
from goldcase.safeio import refuse_linked_output
from goldcase.scoring.scorer import select
from goldcase.versioning.version import read_version

BACKOFF_FIRST, BACKOFF_CAP = 0.5, 30.0
REASONS_KEPT = 20  # distinct error reasons counted for the summary


class RunOptions(Struct, frozen=True):
    out: Path
    shown: str  # how messages name the results file
    split: str = "golden"
    trials: int = 1
    jobs: int = 1
    timeout: float = 60.0
    retries: int = 2
    name: str | None = None


class Summary(Struct):
    total: int = 0  # (case, trial) pairs in the run
    already: int = 0  # in the file before this session
    dropped: int = 0  # bytes of an unfinished last line cut off
    asked: int = 0
    written: int = 0
    errors: int = 0
    ended_by: str = "complete"
    reasons: Counter[str] = field(default_factory=Counter)

    def lines(self, shown: str) -> list[str]:
        """What the command prints when the session is over."""
        out: list[str] = []
        if self.dropped:
            out.append(
                f"run: dropped an unfinished last line ({self.dropped} bytes) left by an "
                f"interrupted run in {shown}; its case was asked again"
            )
        if not self.asked and self.ended_by == "complete":
            return [*out, f"run: nothing to ask: all {self.total} (id, trial) pairs are in {shown}"]
        errors = f"{self.errors} error{'' if self.errors == 1 else 's'}"
        done = (
            f"{self.written} line{'' if self.written == 1 else 's'} written to {shown} ({errors})"
        )
        if self.ended_by == "interrupted":
            out.append(
                f"run: interrupted: {done}; {self.already + self.written} of {self.total} done; "
                "run the same command again to continue"
            )
        else:
            out.append(f"run: {done}; {self.already} were there already")
        # a reason is the system's own text (its error, a worker's last words, a status line)
        out += [f"  {n} × {plain(reason)}" for reason, n in self.reasons.most_common(5)]
        return out


def backoff(attempt: int, asked: float | None) -> float:
    """Seconds to wait before retry ``attempt + 1``."""
    if asked is not None:
        return asked
    return min(BACKOFF_CAP, BACKOFF_FIRST * 2**attempt)


def run(ctx: Context, system: System, options: RunOptions, progress: Progress) -> Summary:
    """Ask the system every (case, trial) of the split not yet in ``options.out``."""
    for written in (options.out, manifest_path(options.out)):  # both read, then written
        refuse_linked_output(ctx.root, written, "goldcase run", whole=False)  # appended to
    case_set = load_case_set(ctx)
    _refuse_broken(case_set)
    cases = sorted(select(ctx, case_set, options.split).cases, key=operator.attrgetter("id"))
    guard = Guard(case_set.golden)
    refuse_fewshot(guard.fewshot_leaks(ctx))
    system.prepare()
    provenance = _provenance(ctx, case_set, system, options, len(cases))
    manifest = open_manifest(options.out, options.shown, provenance)
    resumed = resume(options.out, {c.id for c in cases}, options.shown)
    summary = Summary(total=len(cases) * options.trials, dropped=resumed.dropped)
    count = sum(1 for _ in _pending(cases, options.trials, resumed.done))
    summary.already = summary.total - count
    if not count:
        return summary
    manifest.start()
    job = _Run(ctx, guard, options, progress, summary)
    try:
        summary.ended_by = job.go(system, _pending(cases, options.trials, resumed.done), count)
    finally:
        manifest.end(summary.ended_by, summary.asked, summary.written, summary.errors)
    if job.leak is not None:
        raise GoldcaseError(job.leak)
    return summary


def _pending(
    cases: Sequence[Case], trials: int, done: set[tuple[str, int]]
) -> Iterator[tuple[Case, int]]:
    """(case, trial) pairs still to ask, trial by trial: made as they are asked, so memory
    does not grow with the run."""
    for trial in range(1, trials + 1):
        for case in cases:
            if (case.id, trial) not in done:
                yield case, trial


def _refuse_broken(case_set: CaseSet) -> None:
    broken = [f.path for f in case_set.files if not f.valid]
    if broken:
        raise GoldcaseError(
            f"{len(broken)} case file(s) do not pass the schema, first {broken[0]}; run "
            "goldcase check and fix them before running the set"
        )


def _provenance(
    ctx: Context, case_set: CaseSet, system: System, options: RunOptions, cases: int
) -> Provenance:
    return Provenance(
        golden_version=read_version(ctx.config),
        set_digest=set_digest(case_set.golden),
        corpus_digest=ctx.corpus.digest,
        split=options.split,
        trials=options.trials,
        cases=cases,
        system_name=options.name or system.default_name,
        system_kind=system.kind,
        system_digest=system_digest(system.kind, system.identity),
    )


class _Run:
    """The state the jobs share: what is left to ask, the file, the counts, the stop flag."""

    def __init__(
        self,
        ctx: Context,
        guard: Guard,
        options: RunOptions,
        progress: Progress,
        summary: Summary,
    ) -> None:
        self._guard = guard
        self._options = options
        self._patterns = ctx.config.run.abstain_patterns
        self._progress = progress
        self._summary = summary
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._items: Iterator[tuple[Case, int]] = iter(())
        self._writer: LineWriter | None = None
        self._failure: BaseException | None = None
        self.leak: str | None = None

    def go(self, system: System, pending: Iterator[tuple[Case, int]], count: int) -> str:
        """Run every pending pair; how the session ended."""
        self._items = pending
        self._writer = LineWriter(self._options.out, self._options.shown)
        sessions = [system.session() for _ in range(min(self._options.jobs, count))]
        threads = [
            threading.Thread(target=self._job, args=(s,), daemon=True, name=f"goldcase-job-{i}")
            for i, s in enumerate(sessions)
        ]
        self._progress.start(count, self._summary.already)
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.2)  # a timed join lets Ctrl-C through
        except KeyboardInterrupt:
            self._interrupt(sessions, threads)
            return "interrupted"
        finally:
            self._writer.close()
            self._progress.stop()
        if self._failure is not None:
            raise self._failure
        return "leak" if self.leak is not None else "complete"

    def _interrupt(self, sessions: Sequence[Session], threads: Sequence[threading.Thread]) -> None:
        """Stop everything: no line is written from here on; workers are killed."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C waits
        try:
            self._stop.set()
            assert self._writer is not None
            self._writer.close()
            for session in sessions:
                with contextlib.suppress(Exception):
                    session.abort()
            for thread in threads:
                thread.join(2.0)  # an HTTP request or a Python call may run on: not waited for
        finally:
            signal.signal(signal.SIGINT, previous)

    def _job(self, session: Session) -> None:
        try:
            while (item := self._next()) is not None:
                answer = self._ask(session, *item)
                if answer is None or not self._accept(*item, answer):
                    break
        except BaseException as exc:  # a bug or a full disk: stop the run, report it
            self._failure = self._failure or exc
            self._stop.set()
        finally:
            with contextlib.suppress(Exception):
                session.close()

    def _next(self) -> tuple[Case, int] | None:
        with self._lock:
            if self._stop.is_set():
                return None
            return next(self._items, None)

    def _ask(self, session: Session, case: Case, trial: int) -> Answer | None:
        """The answer to write, after retries; None when the run was stopped meanwhile."""
        options = self._options
        asked = request(case, trial)
        for attempt in range(options.retries + 1):
            started = time.perf_counter()
            reply = session.ask(asked, options.timeout)
            latency = round((time.perf_counter() - started) * 1000, 1)
            if self._stop.is_set():
                return None
            answer = self._answer(case, trial, reply, latency)
            if answer.malformed:
                session.discard()
            if not answer.retry or attempt == options.retries:
                return answer
            if self._stop.wait(backoff(attempt, reply.retry_after)):
                return None
        raise AssertionError("unreachable: the last attempt returns")  # pragma: no cover

    def _answer(self, case: Case, trial: int, reply: Reply, latency: float) -> Answer:
        if reply.error is not None:
            return Answer(error_line(case.id, trial, reply.error, latency), retry=reply.retryable)
        return to_answer(case.id, trial, reply.value, latency, self._patterns)

    def _accept(self, case: Case, trial: int, answer: Answer) -> bool:
        """Check the prompt, write the line, count it; False when the run must stop."""
        if answer.prompt is not None:
            other = self._guard.prompt_leak(answer.prompt, case)
            if other is not None:
                self._leaked(case, trial, other)
                return False
        try:
            data = encode(answer.line)
        except ValueError as exc:
            answer = malformed(case.id, trial, str(exc), answer.line.get("latency_ms", 0.0))
            data = encode(answer.line)
        assert self._writer is not None
        if not self._writer.write(data):
            return False
        self._count(answer)
        return True

    def _count(self, answer: Answer) -> None:
        outcome = answer.line["outcome"]
        with self._lock:
            summary = self._summary
            summary.asked += 1
            summary.written += 1
            if outcome == "error":
                summary.errors += 1
                reason = str(answer.line.get("error") or "")
                if reason in summary.reasons or len(summary.reasons) < REASONS_KEPT:
                    summary.reasons[reason] += 1
                else:
                    summary.reasons["(other reasons)"] += 1
        self._progress.advance(outcome)

    def _leaked(self, case: Case, trial: int, other: str) -> None:
        with self._lock:
            if self.leak is None:
                self.leak = (
                    f"the prompt sent for case {case.id} (trial {trial}) holds the question of "
                    f"golden case {other}: prompts must not carry golden questions (use dev "
                    f"cases as few-shot examples); the run stopped, and the line of {case.id} "
                    "was not written"
                )
            self._summary.asked += 1
        self._stop.set()
