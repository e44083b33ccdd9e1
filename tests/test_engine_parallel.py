"""A cold check of many files parses them on every core, where the families' per-file work
(``prepare``: support's GC208, privacy's scan, probes) is done too: the findings are the ones
a check that does all of it in one process reports, cold or warm. The parallel path is forced
on a small set through ``parallel_from``."""

from __future__ import annotations

import os
import select
import signal
from pathlib import Path

import pytest

from goldcase import checks, engine
from goldcase.cache import Cache
from goldcase.checks import probes
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set, run_checks
from goldcase.model import Finding
from kit import case_text, golden_set, listed_aside, needs_cores, recorded_forks, write

ALL = 10**9  # never parsed on several processes


def _planted(root: Path) -> Path:
    """A set with findings of every family that prepares per-file work, among clean cases."""
    golden_set(root, ("ret-001", "ret-002", "ret-003"))
    for n in range(12):  # clean cases, so the work is spread over several chunks
        write(root, f"cases/golden/c-{n:02d}.yaml", case_text(f"c-{n:02d}"))
    write(root, "cases/golden/bad-quote.yaml", case_text("bad-quote", quote="No such sentence"))
    write(root, "cases/golden/figure.yaml", case_text("figure", answer="21 days"))
    write(
        root,
        "cases/golden/mail.yaml",
        case_text("mail", question="Can jane.doe@example.org get a credit?")
        + "source: transcript\n",
    )
    write(
        root,
        "cases/dev/probe.yaml",
        case_text("probe")
        + 'expect:\n  contains: ["14 days"]\nprobes:\n  pass: ["Two weeks."]\n'
        + '  fail: ["You have 14 days, or 30."]\n',
    )
    write(root, "cases/golden/broken.yaml", "id: broken\nquestion: [unclosed\n")
    write(root, "cases/golden/no-id.yaml", "question: Where is the id?\n")
    return root


def _check(root: Path, parallel_from: int, cache: bool = True) -> list[Finding]:
    ctx = Context(load_config(root), Cache.for_repository(root) if cache else Cache(None))
    return run_checks(ctx, parallel_from=parallel_from).findings


@needs_cores
def test_a_cold_parallel_check_finds_what_a_serial_one_does_and_a_warm_one_after(
    tmp_path: Path,
) -> None:
    root = _planted(tmp_path)
    serial = _check(root, ALL, cache=False)
    codes = {f.code for f in serial}
    assert {"GC202", "GC208", "GC505", "GC601", "GC602", "GC101"} <= codes
    cold = _check(root, 1)
    warm = _check(root, 1)
    assert cold == serial
    assert warm == serial


@needs_cores
def test_the_parse_workers_do_the_per_file_work_of_the_families_asked(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    ctx = Context(load_config(root), Cache(None))
    case_set = load_case_set(ctx, prepare=["support", "privacy", "leakage"], parallel_from=1)
    done = set(ctx.prepared)
    parsed = {f.path for f in case_set.files if f.data is not None}
    assert done == {(name, path) for name in ("support", "privacy") for path in parsed} - {
        ("support", "cases/golden/no-id.yaml")  # support reads cases with an id only
    }
    mail = ctx.prepared[("privacy", "cases/golden/mail.yaml")]
    assert [hit.kind for hit in mail] == ["email"]
    figure = ctx.prepared[("support", "cases/golden/figure.yaml")]
    assert [f.code for f in figure] == ["GC208"]


@needs_cores
def test_a_focused_cold_check_prepares_only_the_files_it_reports_on(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    ctx = Context(load_config(root), Cache(None))
    ctx.focus = frozenset({"cases/golden/mail.yaml"})
    load_case_set(ctx, prepare=list(checks.FAMILIES), parallel_from=1)
    assert {path for _, path in ctx.prepared} == {"cases/golden/mail.yaml"}


def test_a_small_cold_check_prepares_nothing_ahead(tmp_path: Path) -> None:
    root = _planted(tmp_path)
    ctx = Context(load_config(root), Cache(None))
    load_case_set(ctx, prepare=list(checks.FAMILIES))
    assert ctx.prepared == {}


@needs_cores
def test_a_family_whose_work_ahead_fails_in_a_worker_does_it_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's ``prepare`` that raises costs the family its own work, not the findings."""
    root = _planted(tmp_path)
    serial = _check(root, ALL, cache=False)

    def failing(ctx: Context) -> checks.Preparer:
        def prepare(case_set: object) -> dict[str, object]:
            raise RuntimeError("no work ahead")

        return prepare

    monkeypatch.setattr(probes, "prepare", failing)
    ctx = Context(load_config(root), Cache(None))
    load_case_set(ctx, prepare=list(checks.FAMILIES), parallel_from=1)
    assert {name for name, _ in ctx.prepared} == {"support", "privacy"}  # the parse stands
    found = run_checks(Context(load_config(root), Cache(None)), parallel_from=1).findings
    assert found == serial
    assert any(f.code in probes.CODES for f in found)


@needs_cores
def test_a_warm_check_takes_its_listing_in_a_child_and_sees_each_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing taken aside (a forked child's ``case_entries``) is the one taken here: a
    case edited, added or removed after the cache was written is seen as on one process."""
    root = _planted(tmp_path)
    _check(root, ALL)  # the cache, to decode while the child lists
    listers = listed_aside(monkeypatch, tmp_path)
    write(root, "cases/golden/c-03.yaml", case_text("c-03", quote="No such sentence"))
    write(root, "cases/golden/c-99.yaml", case_text("c-01"))  # a second c-01: a duplicate id
    (root / "cases/golden/c-05.yaml").unlink()
    aside = _check(root, ALL)
    assert listers() and os.getpid() not in listers()
    monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 10**12)
    assert aside == _check(root, ALL, cache=False)
    assert {f.path for f in aside} >= {"cases/golden/c-03.yaml", "cases/golden/c-99.yaml"}


@needs_cores
def test_a_listing_child_that_fails_leaves_the_listing_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _planted(tmp_path)
    _check(root, ALL)
    expected = _check(root, ALL, cache=False)

    class Broken:
        def encode(self, value: object) -> bytes:
            (tmp_path / f"failed-in-{os.getpid()}").touch()
            raise RuntimeError("the child cannot send its listing")

    monkeypatch.setattr(engine, "_ENTRIES", Broken())
    monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 0)
    assert _check(root, ALL) == expected
    [mark] = tmp_path.glob("failed-in-*")  # it failed in a child, and was listed here after
    assert int(mark.name.rsplit("-", 1)[1]) != os.getpid()


@needs_cores
def test_a_failure_while_the_child_lists_leaves_no_child_and_no_open_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception in this process between the fork and the collection of the listing (a
    family that cannot be imported, an interrupt) still reaps the child and closes the
    pipe's end: a long-lived caller (the label page) would otherwise keep a child blocked on
    a full pipe, and a descriptor, for each such failure. The child (here one still
    listing, held by the test) is killed, not waited for: the listing is not wanted."""
    root = _planted(tmp_path)
    _check(root, ALL)
    hold_read, hold_write = os.pipe()
    real = engine.case_entries

    def held(ctx: Context) -> engine.Entries:
        select.select([hold_read], [], [], 60)  # never let go: a wait would end only here
        (tmp_path / "listed").touch()
        return real(ctx)

    def cannot_import(name: str) -> None:
        raise ImportError(f"the family {name} cannot be imported")

    monkeypatch.setattr(engine, "case_entries", held)
    monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 0)
    monkeypatch.setattr(checks, "family", cannot_import)
    forks = recorded_forks(monkeypatch)
    ctx = Context(load_config(root), Cache.for_repository(root))
    try:
        with pytest.raises(ImportError):
            load_case_set(ctx, prepare=["leakage"])
        assert forks.children and forks.pipes
        forks.left_nothing()  # reaped by load_case_set, its pipe closed: not left to us
        assert not (tmp_path / "listed").exists()  # killed while it listed
    finally:
        os.close(hold_read)
        os.close(hold_write)


@needs_cores
def test_a_listing_child_reaped_already_when_sigchld_is_ignored_still_gives_its_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With SIGCHLD ignored the kernel reaps the child itself, so its exit status is lost:
    a listing that decodes is the child's, one cut short is taken here."""
    root = _planted(tmp_path)
    _check(root, ALL)
    listers = listed_aside(monkeypatch, tmp_path)
    write(root, "cases/golden/c-03.yaml", case_text("c-03", quote="No such sentence"))
    expected = _check(root, ALL, cache=False)
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        aside = _check(root, ALL)
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert any(pid != os.getpid() for pid in listers())  # a child did list
    assert aside == expected


@needs_cores
def test_a_listing_says_whether_it_would_wait_and_a_cancelled_one_leaves_no_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Listing.ready`` is True at once with no child, False while a child lists (here
    held until the test lets it go) and True once it has; the child's listing is the one
    taken here. ``cancel`` kills and reaps a child still listing and closes its pipe, and
    with no child it has nothing to do."""
    root = _planted(tmp_path)
    _check(root, ALL)
    ctx = Context(load_config(root), Cache.for_repository(root))
    expected = engine.case_entries(ctx)
    monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 10**12)  # too small a set for a child
    alone = engine.list_aside(ctx)
    assert alone.ready()
    alone.cancel()
    assert alone() == expected

    hold_read, hold_write = os.pipe()
    real = engine.case_entries

    def held(ctx: Context) -> engine.Entries:
        os.read(hold_read, 1)  # in the child: waits until the test writes a byte
        return real(ctx)

    monkeypatch.setattr(engine, "case_entries", held)
    monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 0)
    forks = recorded_forks(monkeypatch)
    listings: list[engine.Listing] = []
    try:
        listings.append(engine.list_aside(ctx))
        assert not listings[0].ready() and not listings[0].ready()
        os.write(hold_write, b"x")
        while not listings[0].ready():  # bounded by the test's timeout, not a clock of its own
            os.sched_yield()
        assert listings[0]() == expected
        forks.left_nothing()

        listings.append(engine.list_aside(ctx))  # never let go: only a kill ends it
        assert not listings[1].ready()
        listings[1].cancel()
        with pytest.raises(ChildProcessError):  # reaped by cancel, not left to the test
            os.waitpid(forks.children[-1], os.WNOHANG)
        with pytest.raises(OSError):  # the pipe's read end closed
            os.fstat(forks.pipes[-1][0])
        assert listings[1].ready()
    finally:
        os.write(hold_write, b"xx")  # a child still held (an assertion failed first) ends
        for listing in listings:
            listing.cancel()
        os.close(hold_read)
        os.close(hold_write)
