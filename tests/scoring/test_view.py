"""The score view: a warm score of an unchanged set loads no case file, and the view is never
trusted across a changed, added or removed file, a racy file, a link, or a damaged entry."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from goldcase import engine
from goldcase.cache import Cache, encode, save_opened
from goldcase.commands.common import open_context
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import case_entries
from goldcase.scoring import results as results_module
from goldcase.scoring import scorer, view
from goldcase.scoring.results import InvalidInput
from goldcase.scoring.scorer import score
from kit import cache_folder, listed_aside, needs_cores, recorded_forks, run_cli
from scoring.kit import case_yaml, six_cases, six_results, write_repo, write_results

IDS = ("r-001", "r-002", "r-003")


def _repo(tmp_path: Path) -> Path:
    root = write_repo(tmp_path / "repo", {case_id: case_yaml(case_id) for case_id in IDS})
    (root / "cases" / "dev" / "d-001.yaml").write_text(case_yaml("d-001"), encoding="utf-8")
    lines: list[dict[str, Any] | str] = [
        {"id": "r-001", "outcome": "answer", "answer": "30 days"},
        {"id": "r-002", "outcome": "answer", "answer": "two weeks"},
        {"id": "r-003", "outcome": "abstain"},
        {"id": "d-001", "outcome": "answer", "answer": "30 days"},
    ]
    write_results(root / "run.jsonl", lines)
    _age_cases(root)
    return root


def _age_cases(root: Path, seconds: float = 10) -> None:
    """Case files written well before the view, as they are in a real repository (a file as
    new as the view is read again by design)."""
    then = time.time_ns() - int(seconds * 1e9)
    for path in (root / "cases").rglob("*.yaml"):
        os.utime(path, ns=(then, then), follow_symlinks=False)


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the times a score loads the set from the case files (the view missed)."""
    calls: list[int] = []
    real = scorer.load_case_set

    def counting(ctx: Context, listed: Any = None) -> Any:
        calls.append(1)
        return real(ctx, listed)

    monkeypatch.setattr(scorer, "load_case_set", counting)
    return calls


def _score(root: Path) -> dict[str, Any]:
    """A score, the cache saved after it as when the command ends."""
    try:
        return score(open_context(root), root / "run.jsonl", shown="run.jsonl", split="all")
    finally:
        save_opened()


def _uncached(root: Path) -> dict[str, Any]:
    """The same score with no cache at all: what any view must agree with."""
    ctx = Context(load_config(root), Cache(None))
    return score(ctx, root / "run.jsonl", shown="run.jsonl", split="all")


def _view_file(root: Path) -> Path:
    return cache_folder(root) / f"{view.NAMESPACE}.msgpack"


def test_a_warm_score_of_an_unchanged_set_loads_no_case_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    expected = _uncached(root)
    loads = _loads(monkeypatch)
    first = _score(root)
    assert loads == [1] and _view_file(root).is_file()
    second = _score(root)
    assert loads == [1]  # the view answered
    assert second == first == expected
    assert [c["id"] for c in second["cases"]] == ["d-001", *IDS]


def test_a_score_that_loads_the_set_lists_the_case_files_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view's key and the load see one listing: the folder is not walked and every file
    ``lstat``ed a second time when the view misses."""
    root = _repo(tmp_path)
    expected = _uncached(root)
    listings: list[int] = []
    real = engine.case_entries

    def counting(ctx: Context) -> Any:
        listings.append(1)
        return real(ctx)

    monkeypatch.setattr(engine, "case_entries", counting)
    loads = _loads(monkeypatch)
    assert _score(root) == expected
    assert loads == [1] and listings == [1]


@needs_cores
def test_a_score_of_a_large_set_takes_its_listing_in_a_child_and_sees_each_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing a child takes while the view is read (``engine.list_aside``) is the
    one taken here: the view still answers an unchanged set and misses a changed one."""
    root = _repo(tmp_path)
    expected = _uncached(root)
    _score(root)  # the case cache and the view
    listers = listed_aside(monkeypatch, tmp_path)
    loads = _loads(monkeypatch)
    assert _score(root) == expected and loads == []
    assert listers() and os.getpid() not in listers()
    _edit(root)
    _age_cases(root)
    changed = _score(root)
    assert loads == [1]  # the view missed
    assert len(listers()) == 2 and os.getpid() not in listers()
    assert changed == _uncached(root) != expected  # r-002 now passes


@needs_cores
def test_a_failure_while_the_child_lists_for_a_score_leaves_no_child_and_no_open_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines are parsed while the child lists the case files: an exception there (here
    one the parser cannot have, to reach that moment) still reaps the child and closes the
    pipe, and a results file with a bad line gets the message it gets without a child."""
    root = _repo(tmp_path)
    write_results(root / "bad.jsonl", [{"id": "r-001", "outcome": "answer"}, "{not json"])
    with pytest.raises(InvalidInput) as alone:
        score(open_context(root), root / "bad.jsonl", shown="bad.jsonl", split="all")
    listers = listed_aside(monkeypatch, tmp_path)
    with pytest.raises(InvalidInput) as beside:
        score(open_context(root), root / "bad.jsonl", shown="bad.jsonl", split="all")
    assert os.getpid() not in listers() and str(beside.value) == str(alone.value)
    forks = recorded_forks(monkeypatch)

    def broken(raw: bytes, name: str, meanwhile: Any = None, ahead: Any = None) -> Any:
        raise MemoryError("no room for the lines")

    monkeypatch.setattr(scorer, "parse_lines", broken)
    with pytest.raises(MemoryError):
        score(open_context(root), root / "run.jsonl", shown="run.jsonl", split="all")
    [_] = forks.children
    forks.left_nothing()  # reaped by the score, its pipe closed: not left to the caller


def _edit(root: Path) -> None:
    path = root / "cases" / "golden" / "r-002.yaml"
    path.write_text(case_yaml("r-002", expected="two weeks"), encoding="utf-8")


def _add(root: Path) -> None:
    (root / "cases" / "golden" / "r-004.yaml").write_text(case_yaml("r-004"), encoding="utf-8")


def _same_size_edit(root: Path) -> None:
    """New content of the same size, the old modification time put back: only the change
    time (which no write keeps) tells."""
    path = root / "cases" / "golden" / "r-001.yaml"
    before = path.stat()
    path.write_text(case_yaml("r-001", expected="31 days"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size


@pytest.mark.parametrize("change", [_edit, _add, _same_size_edit])
def test_a_changed_or_added_case_file_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None]
) -> None:
    root = _repo(tmp_path)
    first = _score(root)
    change(root)
    expected = _uncached(root)
    loads = _loads(monkeypatch)
    after = _score(root)
    assert loads == [1]
    assert after == expected
    assert after["set_digest"] != first["set_digest"]
    _age_cases(root)  # a new change time: read once more, and the view written again
    assert _score(root) == expected
    assert _score(root) == expected
    assert loads == [1, 1]


def test_a_removed_case_file_is_seen(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    _score(root)
    (root / "cases" / "golden" / "r-003.yaml").unlink()
    with pytest.raises(InvalidInput) as refused:
        _score(root)
    assert "unknown case id 'r-003'" in str(refused.value)


def test_a_case_file_as_new_as_the_view_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's racy-clean rule: a file modified in the same instant the view was written may
    have changed after it was read, with the same stat signature."""
    root = _repo(tmp_path)
    first = _score(root)
    racy = (root / "cases" / "golden" / "r-002.yaml").stat().st_mtime_ns
    os.utime(_view_file(root), ns=(racy, racy))  # the view as old as one file: same key
    loads = _loads(monkeypatch)
    assert _score(root) == first
    assert loads == [1]


def test_a_view_written_again_is_trusted_on_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed since the view was written is read once: the view written again then
    stands for it. Its one entry replaced, the view's file is written whole, so its time
    moves past the changed file's; appended to a journal, the file kept its old time and
    the set was loaded again on every run until the journal outgrew it."""
    root = _repo(tmp_path)
    _score(root)
    long_ago = time.time_ns() - 60 * 10**9
    os.utime(_view_file(root), ns=(long_ago, long_ago))
    _edit(root)
    _age_cases(root, seconds=30)  # changed after the view was written, before this run
    expected = _uncached(root)
    loads = _loads(monkeypatch)
    assert _score(root) == expected
    assert loads == [1]
    assert _score(root) == expected
    assert loads == [1]  # the view answered


def test_a_linked_case_file_gets_no_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    target = root / "cases" / "golden" / "r-003.yaml"
    stored = root / "stored.yaml"
    target.rename(stored)
    target.symlink_to(stored)
    expected = _uncached(root)
    loads = _loads(monkeypatch)
    assert _score(root) == _score(root) == expected
    assert loads == [1, 1]
    assert not _view_file(root).exists()


def _refused_each_time_without_view(
    root: Path, monkeypatch: pytest.MonkeyPatch, *said: str
) -> None:
    """Two scores of a set that cannot be scored: each loads the set, is refused saying
    ``said``, and writes no view."""
    _age_cases(root)
    loads = _loads(monkeypatch)
    for _ in range(2):
        with pytest.raises(InvalidInput) as refused:
            _score(root)
        assert all(part in str(refused.value) for part in said), str(refused.value)
    assert loads == [1, 1]
    assert not _view_file(root).exists()


def test_a_set_that_cannot_be_scored_gets_no_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    (root / "cases" / "golden" / "r-009.yaml").write_text(
        "id: r-009\nquestion: 3\n", encoding="utf-8"
    )
    _refused_each_time_without_view(root, monkeypatch, "cases/golden/r-009.yaml:")


def test_a_case_file_whose_name_is_not_utf8_stops_the_score_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder named in bytes that are not UTF-8 (a cloned repository can hold one) is a
    GC113 problem of its case, listed like any other; the score used to end in an internal
    error while keying the view."""
    root = _repo(tmp_path)
    folder = os.path.join(os.fsencode(root / "cases" / "golden"), b"\xff")
    os.mkdir(folder)
    with open(os.path.join(folder, b"r-009.yaml"), "wb") as fh:
        fh.write(case_yaml("r-009").encode())
    _refused_each_time_without_view(root, monkeypatch, "cases/golden/\\xff/r-009.yaml:", "GC113")


def _key(root: Path) -> str:
    ctx = open_context(root)
    key = view.stat_key(ctx, case_entries(ctx))
    assert key is not None
    return key


def _rows(root: Path) -> list[list[Any]]:
    return [
        [f"cases/golden/{i}.yaml", "golden", "d", {"id": i, "question": "q?"}, "h"] for i in IDS
    ]


def _with(root: Path, index: int, value: Any) -> list[Any]:
    """The view of ``_rows`` under the right key, each case's field ``index`` replaced."""
    rows = [[*row[:index], value, *row[index + 1 :]] for row in _rows(root)]
    return [_key(root), "digest", rows]


def _cases(root: Path) -> list[dict[str, Any]]:
    """``_rows`` as the view holds them now: each case a mapping of its fields."""
    names = ("path", "split", "digest", "data", "hash")
    return [dict(zip(names, row, strict=True)) for row in _rows(root)]


def _field(root: Path, name: str, value: Any) -> list[Any]:
    """The view of ``_cases`` under the right key, each case's field ``name`` replaced."""
    return [_key(root), "digest", [{**case, name: value} for case in _cases(root)]]


HOSTILE: dict[str, Callable[[Path], Any]] = {
    "a case without its path": lambda root: [
        _key(root),
        "digest",
        [{k: v for k, v in case.items() if k != "path"} for case in _cases(root)],
    ],
    "a case path that is not text": lambda root: _field(root, "path", 5),
    "a case of a draft split": lambda root: _field(root, "split", "inbox"),
    "a case split that is not text": lambda root: _field(root, "split", ["golden"]),
    "a case file digest that is not text": lambda root: _field(root, "digest", None),
    "a case mapping that is a list": lambda root: _field(root, "data", ["id"]),
    "a case mapping without an id": lambda root: _field(root, "data", {"question": "q?"}),
    "a case id that is not text": lambda root: _field(root, "data", {"id": 1, "question": "q"}),
    "a case hash that is bytes": lambda root: _field(root, "hash", b"h"),
    # below: views in the shape an earlier goldcase wrote (each case a list of five fields),
    # and the shapes its checks refused; each reads as no view
    "not a list": lambda root: {"key": _key(root)},
    "an element more": lambda root: [_key(root), "digest", _rows(root), 1],
    "another key": lambda root: ["0" * 32, "digest", _rows(root)],
    "a digest that is not text": lambda root: [_key(root), 7, _rows(root)],
    "cases that are not a list": lambda root: [_key(root), "digest", b"\x90"],
    "a case that is not a list": lambda root: [_key(root), "digest", ["r-001"]],
    "a case of four fields": lambda root: [_key(root), "digest", [r[:4] for r in _rows(root)]],
    "a path that is not text": lambda root: _with(root, 0, 5),
    "a case of a draft": lambda root: _with(root, 1, "inbox"),
    "a split that is not text": lambda root: _with(root, 1, ["golden"]),
    "a file digest that is not text": lambda root: _with(root, 2, None),
    "a case that is not a mapping": lambda root: _with(root, 3, ["id"]),
    "a case without an id": lambda root: _with(root, 3, {"question": "q?"}),
    "an id that is not text": lambda root: _with(root, 3, {"id": 1, "question": "q?"}),
    "a case hash that is not text": lambda root: _with(root, 4, b"h"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_view_of_the_wrong_shape_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    root = _repo(tmp_path)
    _score(root)
    payload = encode({"set": HOSTILE[name](root)})
    assert payload is not None
    _view_file(root).write_bytes(payload)
    expected = _uncached(root)
    loads = _loads(monkeypatch)
    assert _score(root) == expected
    assert loads == [1]


def test_a_view_of_the_right_shape_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control for the hostile views of the current shape: the same cases, no field
    replaced, are taken as they are: no case file is loaded, and the run's line for d-001,
    a dev case the hand-made view leaves out, names an unknown case."""
    root = _repo(tmp_path)
    _score(root)
    payload = encode({"set": _field(root, "hash", "h")})
    assert payload is not None
    _view_file(root).write_bytes(payload)
    loads = _loads(monkeypatch)
    with pytest.raises(InvalidInput, match="unknown case id 'd-001'"):
        _score(root)
    assert loads == []


def test_a_damaged_view_file_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    _score(root)
    damaged = bytearray(_view_file(root).read_bytes())
    damaged[-5] ^= 0xFF
    _view_file(root).write_bytes(bytes(damaged))
    expected = _uncached(root)
    loads = _loads(monkeypatch)
    assert _score(root) == expected
    assert loads == [1]


class _Graded(list[str]):
    """Every case graded, by id, in order (a case graded ahead and then again shows twice);
    ``listed_at``: how many had been graded when the listing first said it was done."""

    listed_at: int | None = None


class _StillListing:
    """A listing of the case files that is not done for its first ``busy`` looks
    (``ready``), as a child's is on a large set while the lines are graded ahead; then the
    listing itself. (When the child ends is up to the machine; this fixes it.)"""

    def __init__(self, ctx: Context, busy: int, graded: _Graded) -> None:
        self.ctx = ctx
        self.busy = busy
        self.graded = graded

    def ready(self) -> bool:
        self.busy -= 1
        if self.busy < 0 and self.graded.listed_at is None:
            self.graded.listed_at = len(self.graded)
        return self.busy < 0

    def __call__(self) -> engine.Entries:
        return case_entries(self.ctx)

    def cancel(self) -> None:
        """No child to kill: the listing is taken when called."""


def _graded_ahead(monkeypatch: pytest.MonkeyPatch, busy: int) -> _Graded:
    """The listing not done for ``busy`` looks; what returns counts every case graded."""
    graded = _Graded()
    monkeypatch.setattr(scorer, "list_aside", lambda ctx: _StillListing(ctx, busy, graded))
    monkeypatch.setattr(scorer, "AHEAD_CHUNK", 1)
    real = scorer.CaseGrader.grade

    def counting(self: scorer.CaseGrader, *args: Any, **kwargs: Any) -> Any:
        graded.append(self.case_id)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(scorer.CaseGrader, "grade", counting)
    return graded


def test_lines_graded_ahead_count_once_the_listing_confirms_the_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two cases graded against the view while the files are listed, the other two after:
    each case graded once, and the report the one a score with no cache gives."""
    root = _repo(tmp_path)
    expected = _uncached(root)
    _score(root)
    graded = _graded_ahead(monkeypatch, busy=3)  # one look before grading, then one a case
    loads = _loads(monkeypatch)
    assert _score(root) == expected
    assert loads == [] and sorted(graded) == ["d-001", *IDS]
    assert graded.listed_at == 2  # grading stopped when the listing was done


@pytest.mark.parametrize("change", [_edit, _add, _same_size_edit])
def test_lines_graded_ahead_against_a_stale_view_are_graded_again_from_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None]
) -> None:
    """Every case graded against the view before the listing shows a file changed: that
    grading is let go, the set loaded, and every case graded again from the files."""
    root = _repo(tmp_path)
    first = _score(root)
    change(root)
    _age_cases(root)
    expected = _uncached(root)
    graded = _graded_ahead(monkeypatch, busy=1_000)
    loads = _loads(monkeypatch)
    after = _score(root)
    assert loads == [1] and after == expected
    assert after["set_digest"] != first["set_digest"]
    again = [c["id"] for c in expected["cases"]]  # the files' cases (r-004 added)
    assert sorted(graded) == sorted(["d-001", *IDS, *again])  # the view's ahead, then again


def test_a_line_for_a_case_the_stale_view_lacks_is_no_problem_once_the_files_have_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Graded ahead, the line for a new case names no case of the view: the problem found
    then is dropped with the view, and the set loaded from the files knows the case."""
    root = _repo(tmp_path)
    _score(root)
    _add(root)
    _age_cases(root)
    with (root / "run.jsonl").open("a", encoding="utf-8") as out:
        out.write('{"id": "r-004", "outcome": "answer", "answer": "30 days"}\n')
    expected = _uncached(root)
    _graded_ahead(monkeypatch, busy=1_000)
    assert _score(root) == expected
    assert any(c["id"] == "r-004" for c in expected["cases"])


def test_a_line_for_no_case_found_ahead_is_raised_once_the_view_is_confirmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The problems found against the view stop the score when the view is the set, with the
    message a score with no cache gives."""
    root = _repo(tmp_path)
    _score(root)
    with (root / "run.jsonl").open("a", encoding="utf-8") as out:
        out.write('{"id": "r-404", "outcome": "answer", "answer": "30 days"}\n')
    with pytest.raises(InvalidInput) as alone:
        _uncached(root)
    graded = _graded_ahead(monkeypatch, busy=1_000)
    loads = _loads(monkeypatch)
    with pytest.raises(InvalidInput) as ahead:
        _score(root)
    assert str(ahead.value) == str(alone.value) and "r-404" in str(ahead.value)
    assert loads == [] and graded == []


class _CheckedSlowly:
    """The taker of the child checking a large file's lines, whose answer is not in for its
    first ``busy`` looks (``ready``), as on a file the child takes longer over than this
    process; what was graded by the time the answer is taken is noted in ``graded_then``."""

    def __init__(self, taker: Any, busy: int, graded: list[str]) -> None:
        self.taker = taker
        self.busy = busy
        self.graded = graded
        self.graded_then: int | None = None

    def ready(self) -> bool:
        self.busy -= 1
        return self.busy < 0

    def __call__(self) -> bytes | None:
        self.graded_then = len(self.graded)
        return self.taker()

    def cancel(self) -> None:
        self.taker.cancel()


def _large_run(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """Six cases, and 3,000 result lines: a file whose lines a child checks (256 KiB or
    more); the case files aged and the view written, as on a second score of a run."""
    root = write_repo(tmp_path / "repo", six_cases())
    lines = [
        {**line, "trial": trial, "meta": {"note": "n" * 100}}
        for trial in range(1, 501)
        for line in six_results()
        if isinstance(line, dict)
    ]
    _write_lines(root, lines)
    assert (root / "run.jsonl").stat().st_size >= results_module.CHECK_ASIDE_FROM
    _age_cases(root)
    _score(root)
    return root, lines


def _write_lines(root: Path, lines: list[dict[str, Any]]) -> None:
    (root / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")


def _checked_slowly(monkeypatch: pytest.MonkeyPatch, busy: int) -> tuple[list[str], list[Any]]:
    """Every case graded (by id), and the takers of the line checks made."""
    graded = _graded_ahead(monkeypatch, busy=-1)  # the listing: done at once
    takers: list[_CheckedSlowly] = []
    real = results_module.aside

    def slowly(work: Callable[[], bytes]) -> _CheckedSlowly:
        takers.append(_CheckedSlowly(real(work), busy, graded))
        return takers[-1]

    monkeypatch.setattr(results_module, "aside", slowly)
    return graded, takers


@needs_cores
def test_lines_graded_while_a_child_checks_them_count_once_it_finds_them_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two cases graded before the child's "valid" is in, the rest after: each case graded
    once, and the report the one a score with no cache and no child gives."""
    root, _ = _large_run(tmp_path)
    with monkeypatch.context() as alone:
        alone.setattr(results_module, "CHECK_ASIDE_FROM", 10**12)
        expected = _uncached(root)
    graded, takers = _checked_slowly(monkeypatch, busy=3)
    loads = _loads(monkeypatch)
    assert _score(root) == expected
    [taker] = takers
    assert taker.graded_then == 2 and sorted(graded) == sorted(c["id"] for c in expected["cases"])
    assert loads == []


@needs_cores
def test_lines_graded_while_a_child_checks_them_are_graded_again_when_it_gives_no_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child fails: the lines are read and checked here, as other lists, and what was
    graded before is let go and graded again from them."""
    root, _ = _large_run(tmp_path)
    expected = _uncached(root)

    def failing(raw: bytes) -> bool:
        raise MemoryError("the child ran out of room")

    monkeypatch.setattr(results_module, "_all_valid", failing)  # in the child: it fails
    graded, takers = _checked_slowly(monkeypatch, busy=1_000)
    assert _score(root) == expected
    [taker] = takers
    assert taker.graded_then == 6 and len(graded) == 12  # all before, all again after


@needs_cores
def test_a_line_that_breaks_grading_before_it_is_checked_gets_the_schemas_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line the schema refuses can still become a result line unchecked (an id given as
    a list), and break the grading done before the child's answer: that grading is let go,
    and the score stops with the message it has with no child."""
    root, lines = _large_run(tmp_path)
    lines[1500] = {**lines[1500], "id": [lines[1500]["id"]]}
    _write_lines(root, lines)
    with monkeypatch.context() as alone:
        alone.setattr(results_module, "CHECK_ASIDE_FROM", 10**12)
        with pytest.raises(InvalidInput) as without:
            _score(root)
    _checked_slowly(monkeypatch, busy=1_000)
    with pytest.raises(InvalidInput) as beside:
        _score(root)
    assert str(beside.value) == str(without.value)
    assert "run.jsonl:1501:" in str(without.value)


@needs_cores
def test_lines_graded_unchecked_are_let_go_before_a_refused_file_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line the schema refuses but that grades (a confidence of 2): the child says so, and
    the lines graded before its answer, with their grading, are let go before the file is
    read again line by line (two copies of the lines would be the peak); the message is the
    one a score with no child gives."""
    root, lines = _large_run(tmp_path)
    lines[1500] = {**lines[1500], "confidence": 2}
    _write_lines(root, lines)
    with monkeypatch.context() as alone:
        alone.setattr(results_module, "CHECK_ASIDE_FROM", 10**12)
        with pytest.raises(InvalidInput) as without:
            _score(root)
    graded, _ = _checked_slowly(monkeypatch, busy=1_000)
    made: list[Any] = []

    class Recorded(scorer._Ahead):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    held: list[tuple[Any, Any]] = []
    real_decode = results_module._decode

    def decode(raw: bytes, name: str) -> Any:  # the file read again, line by line
        held.extend((early._lines, early.grading) for early in made)
        return real_decode(raw, name)

    monkeypatch.setattr(scorer, "_Ahead", Recorded)
    monkeypatch.setattr(results_module, "_decode", decode)
    with pytest.raises(InvalidInput) as beside:
        _score(root)
    assert str(beside.value) == str(without.value) and "run.jsonl:1501:" in str(without.value)
    assert len(graded) == 6  # every case was graded against the unchecked lines
    assert held == [(None, None)]


@needs_cores
@pytest.mark.parametrize("through", ["library", "command"])
def test_a_ctrl_c_while_grading_ahead_kills_the_children_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, through: str
) -> None:
    """A Ctrl-C while the lines are graded before the child's answer: the child checking
    them (here one that would never answer) and the one listing the files are killed and
    reaped, their pipes closed, and the interruption goes on at once. Through the command
    it ends as a Ctrl-C does, with the shell's 130 (click's Abort made it exit 2)."""
    root, _ = _large_run(tmp_path)
    hold_read, hold_write = os.pipe()  # the line check waits on it for ever
    try:
        monkeypatch.setattr(results_module, "_all_valid", lambda raw: bool(os.read(hold_read, 1)))
        _checked_slowly(monkeypatch, busy=1_000)
        monkeypatch.setattr(scorer, "list_aside", engine.list_aside)  # a real listing child,
        monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 0)  # even for six cases
        forks = recorded_forks(monkeypatch)

        def interrupted(self: scorer.CaseGrader, *args: Any, **kwargs: Any) -> Any:
            raise KeyboardInterrupt

        monkeypatch.setattr(scorer.CaseGrader, "grade", interrupted)
        if through == "library":
            with pytest.raises(KeyboardInterrupt):
                _score(root)
        else:
            done = run_cli("score", root / "run.jsonl", "--repo", root, "--split", "all")
            assert (done.exit_code, done.stdout) == (130, "")
            assert done.stderr.endswith("error: interrupted\n"), done.stderr
        assert len(forks.children) == 2  # the listing, then the line check
        for pid, (read_fd, _) in zip(forks.children, forks.pipes, strict=True):
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            with pytest.raises(OSError):
                os.fstat(read_fd)
    finally:
        os.close(hold_read)
        os.close(hold_write)
