"""goldcase lock [--check]: the lock's format, the version scheme and every GC4xx finding."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from goldcase.errors import GoldcaseError
from goldcase.versioning import lockfile, locking
from goldcase.versioning.version import next_version
from kit import (
    DOCUMENT,
    GOLDCASE,
    cache_folder,
    cached_table,
    case_data,
    case_text,
    commit,
    env,
    expected_case_hash,
    git,
    git_set,
    golden_set,
    read_lock,
    read_version,
    run_cli,
    write,
)


def expected_set_digest(ids: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for case_id in sorted(ids):
        h.update(f"{case_id}\t{expected_case_hash(case_data(case_id))}\n".encode())
    return h.hexdigest()


def expected_corpus_digest(docs: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel in sorted(docs):
        h.update(rel.encode() + b"\0" + hashlib.sha256(docs[rel]).digest())
    return h.hexdigest()


def test_first_lock_writes_version_1_and_the_lock(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 1  # files written: a fixer's exit status
    assert result.stdout.splitlines() == [
        "golden.version: (none) -> 1 (first lock)",
        "wrote golden.version and golden.lock; add them to the commit: "
        "git add golden.version golden.lock",
    ]
    assert (root / "golden.version").read_text() == "1\n"
    doc_sha = hashlib.sha256(DOCUMENT.encode()).hexdigest()
    assert read_lock(root) == {
        "cases": {
            "ret-001": expected_case_hash(case_data("ret-001")),
            "ret-002": expected_case_hash(case_data("ret-002")),
        },
        "corpus": {"corpus/returns-policy.md": doc_sha},
        "corpus_digest": expected_corpus_digest({"corpus/returns-policy.md": DOCUMENT.encode()}),
        "format": 1,
        "set_digest": expected_set_digest(("ret-001", "ret-002")),
        "version": "1",
    }


def test_the_version_lock_prints_is_escaped(tmp_path: Path) -> None:
    """golden.version is the set's own line (a cloned set's, anyone's): a terminal escape in
    it is shown escaped by lock, not sent to the terminal."""
    root = golden_set(tmp_path / "set")
    write(root, "golden.version", "\x1b]0;pwned\x07v1\n")
    first = run_cli("lock", "--repo", root)
    assert first.stdout.splitlines()[0] == "golden.version: \\x1b]0;pwned\\x07v1 (first lock)"
    again = run_cli("lock", "--repo", root)
    assert again.stdout == "golden.lock is up to date (version \\x1b]0;pwned\\x07v1)\n"
    assert "\x1b" not in first.stdout + again.stdout


def test_the_base_lock_s_version_and_a_document_s_name_lock_prints_are_escaped(
    tmp_path: Path,
) -> None:
    """The note quotes the version the base's lock records, and the corpus line names the
    documents: a committed version and a document's name holding a terminal escape are shown
    escaped, not sent to the terminal."""
    root = golden_set(tmp_path / "set")
    git(root, "init", "-q", "-b", "main")
    write(root, "golden.version", "\x1b]0;pwned\x07v1\n")
    run_cli("lock", "--repo", root)
    commit(root, "a set whose version holds an escape")
    write(root, "corpus/\x1b[2Jevil.md", "A document.\n")
    done = run_cli("lock", "--repo", root)
    assert done.stdout.splitlines()[:2] == [
        "golden.version: \\x1b]0;pwned\\x07v1 -> \\x1b]0;pwned\\x07v2 (set or corpus changed "
        "since HEAD, version \\x1b]0;pwned\\x07v1)",
        "corpus documents: 1 added (corpus/\\x1b[2Jevil.md)",
    ]
    assert "\x1b" not in done.stdout


def test_lock_text_has_sorted_keys_and_one_case_a_line(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    lines = (root / "golden.lock").read_text().splitlines()
    h1, h2 = (expected_case_hash(case_data(i)) for i in ("ret-001", "ret-002"))
    assert lines[:5] == [
        "{",
        '  "cases": {',
        f'    "ret-001": "{h1}",',
        f'    "ret-002": "{h2}"',
        "  },",
    ]
    top = [line.split('"')[1] for line in lines if line.startswith('  "')]
    assert top == ["cases", "corpus", "corpus_digest", "format", "set_digest", "version"]
    assert lines[-2:] == ['  "version": "1"', "}"]


def test_nothing_changed_exits_0(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    before = (root / "golden.lock").stat().st_mtime_ns
    result = run_cli("lock", "--repo", root)
    assert (result.exit_code, result.stdout) == (0, "golden.lock is up to date (version 1)\n")
    assert (root / "golden.lock").stat().st_mtime_ns == before
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_change_bumps_and_says_what_changed(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set", ("ret-001", "ret-002"))
    run_cli("lock", "--repo", root)
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    (root / "cases/golden/ret-002.yaml").unlink()
    write(root, "corpus/shipping.md", "Parcels leave the warehouse on weekdays.\n")
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "golden.version: 1 -> 2 (set or corpus changed)",
        "golden cases: 1 added (ret-003), 1 changed (ret-001), 1 removed (ret-002)",
        "corpus documents: 1 added (corpus/shipping.md)",
        "wrote golden.version and golden.lock; add them to the commit: "
        "git add golden.version golden.lock",
    ]
    assert read_version(root) == "2"
    assert read_lock(root)["version"] == "2"
    assert sorted(read_lock(root)["cases"]) == ["ret-001", "ret-003"]


def test_reformatting_a_case_does_not_bump(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    reordered = (
        "# a comment\nsupport:\n  - quote: A customer has 14 days from delivery to request a "
        'credit\n    doc: returns-policy.md\nexpected_answer: "14 days"\nid: ret-001\n'
        "question: How many days does a customer have to request a credit?\n"
    )
    write(root, "cases/golden/ret-001.yaml", reordered)
    assert run_cli("lock", "--repo", root).exit_code == 0
    assert read_version(root) == "1"


def test_a_lock_reformatted_by_hand_is_written_again_as_goldcase_writes_it(
    tmp_path: Path,
) -> None:
    """The same lock in other JSON (indented by an editor) is rewritten, version unmoved,
    though goldcase knew the file it wrote before as its own text."""
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    assert run_cli("lock", "--repo", root).exit_code == 0
    written = (root / "golden.lock").read_text()
    write(root, "golden.lock", json.dumps(json.loads(written), indent=4) + "\n")
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "golden.version: 1 (set and corpus unchanged)",
        "wrote golden.lock; add it to the commit: git add golden.lock",
    ]
    assert (root / "golden.lock").read_text() == written


def test_an_unchanged_lock_known_as_written_is_not_rendered_to_be_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every commit locks: a lock that is what goldcase wrote (the same stat signature,
    older than the cache's record) and pins the same set is not rendered again."""
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    assert run_cli("lock", "--repo", root).exit_code == 0
    later = time.time_ns() + 60 * 10**9  # the cache written after the lock (racy-clean)
    os.utime(cache_folder(root) / "lock.msgpack", ns=(later, later))
    rendered: list[str] = []
    real = lockfile.render

    def counted(lock: lockfile.Lock) -> str:
        rendered.append(lock.version)
        return real(lock)

    monkeypatch.setattr(lockfile, "render", counted)
    assert run_cli("lock", "--repo", root).exit_code == 0
    assert rendered == []
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001") + "tags: [edited]\n")
    assert run_cli("lock", "--repo", root).exit_code == 1
    assert rendered == ["2"]


def test_a_lock_rewritten_while_lock_runs_is_not_taken_for_goldcase_s_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor reformats golden.lock after ``lock`` read it: what ``lock`` compared is the
    text it read, so the file now on disk is not recorded as its rendering, and the next run
    writes it back as goldcase writes it."""
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    written = (root / "golden.lock").read_text()
    os.utime(root / "golden.lock")  # no longer the file goldcase knows as its own
    real = locking.find_base

    def reformatted_meanwhile(*args: Any, **kwargs: Any) -> locking.Base:
        write(root, "golden.lock", json.dumps(json.loads(written), indent=4) + "\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(locking, "find_base", reformatted_meanwhile)
    assert run_cli("lock", "--repo", root).exit_code == 0  # compared what it read
    monkeypatch.setattr(locking, "find_base", real)
    later = time.time_ns() + 60 * 10**9  # the cache written after the edit (racy-clean)
    os.utime(cache_folder(root) / "lock.msgpack", ns=(later, later))
    assert run_cli("lock", "--repo", root).exit_code == 1
    assert (root / "golden.lock").read_text() == written


def test_dev_cases_are_not_locked(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    write(root, "cases/dev/dev-001.yaml", case_text("dev-001"))
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0
    assert run_cli("lock", "--repo", root).exit_code == 0
    assert "dev-001" not in read_lock(root)["cases"]


def test_moving_a_case_from_golden_to_dev_is_a_removal(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    (root / "cases/golden/ret-002.yaml").rename(root / "cases/dev/ret-002.yaml")
    result = run_cli("lock", "--check", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "golden.lock:4:5: GC401 golden case ret-002 removed (or moved out of the golden set) "
        "since golden.lock (version 1); run goldcase lock to bump golden.version"
    )


def test_check_catches_a_case_edited_without_a_bump(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-002.yaml", case_text("ret-002", answer="the card used"))
    commit(root, "edit without a bump")
    result = run_cli("lock", "--check", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "cases/golden/ret-002.yaml:1:1: GC401 golden case ret-002 changed since golden.lock "
        "(version 1); run goldcase lock to bump golden.version",
        "1 error in 2 case files",
    ]
    assert read_version(root) == "1"  # --check changes nothing


def test_check_reports_the_same_through_goldcase_check(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    result = run_cli("check", "--repo", root, "--select", "version")
    assert (result.exit_code, result.stdout.splitlines()[0]) == (
        1,
        "cases/golden/ret-003.yaml:1:1: GC401 golden case ret-003 added since golden.lock "
        "(version 1); run goldcase lock to bump golden.version",
    )


def test_corpus_change_is_gc403(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    write(root, "corpus/returns-policy.md", DOCUMENT + "Gift cards are not refundable.\n")
    result = run_cli("lock", "--check", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "corpus/returns-policy.md:1:1: GC403 corpus document changed since golden.lock "
        "(version 1); run goldcase lock to bump golden.version"
    )
    (root / "corpus/returns-policy.md").unlink()
    result = run_cli("lock", "--check", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "golden.lock:7:5: GC403 corpus document corpus/returns-policy.md removed since "
        "golden.lock (version 1); run goldcase lock to bump golden.version"
    )


def test_missing_lock_is_gc402(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    result = run_cli("lock", "--check", "--repo", root)
    assert (result.exit_code, result.stdout.splitlines()[0]) == (
        1,
        "golden.lock:1:1: GC402 golden.lock is missing: nothing pins the set's version to its "
        "content; run goldcase lock",
    )
    assert not (root / "golden.lock").exists()
    # goldcase check reports it as soon as the repository has a golden.version
    assert run_cli("check", "--repo", root, "--select", "version").exit_code == 0
    write(root, "golden.version", "1\n")
    assert "GC402" in run_cli("check", "--repo", root, "--select", "version").stdout


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (
            '{"cases": {}\n  "version": "1"}',
            "2:3",
            "golden.lock is not JSON: Expecting ',' delimiter",
        ),
        ("[1]", "1:1", "golden.lock should hold a JSON object, found list"),
        (
            '{"version": "1"}',
            "1:1",
            "golden.lock: missing cases, corpus, corpus_digest, format, "
            "set_digest; expected the keys cases, corpus, corpus_digest, format, set_digest, "
            "version",
        ),
        ("<<<<<<< HEAD\n", "1:1", "golden.lock is not JSON: Expecting value"),
    ],
)
def test_corrupt_lock_is_gc404(tmp_path: Path, text: str, where: str, message: str) -> None:
    root = golden_set(tmp_path / "set")
    write(root, "golden.version", "1\n")
    write(root, "golden.lock", text)
    result = run_cli("lock", "--check", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"golden.lock:{where}: GC404 {message}; run goldcase lock to rewrite it"
    )


def test_hand_edited_hash_is_gc404_and_lock_repairs_it_with_a_bump(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    text = (root / "golden.lock").read_text()
    h1 = expected_case_hash(case_data("ret-001"))
    write(root, "golden.lock", text.replace(h1, "0" * 64))
    result = run_cli("lock", "--check", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "golden.lock:11:3: GC404 golden.lock: set_digest does not match the cases it lists "
        "(edited by hand?); run goldcase lock to rewrite it"
    )
    fixed = run_cli("lock", "--repo", root)
    assert fixed.stdout.splitlines()[0] == "golden.version: 1 -> 2 (golden.lock was unreadable)"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_a_committed_hand_edited_lock_is_no_base_and_lock_repairs_it_with_a_bump(
    tmp_path: Path,
) -> None:
    """The base holds the very text on disk, which does not parse: no lock at the base."""
    root = git_set(tmp_path / "set")
    text = (root / "golden.lock").read_text()
    h1 = expected_case_hash(case_data("ret-001"))
    write(root, "golden.lock", text.replace(h1, "0" * 64))
    commit(root, "a hand edit")
    fixed = run_cli("lock", "--repo", root)
    assert fixed.stdout.splitlines()[0] == "golden.version: 1 -> 2 (golden.lock was unreadable)"
    assert read_lock(root)["cases"]["ret-001"] == h1
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_a_lock_committed_as_it_is_on_disk_is_the_base(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    assert run_cli("lock", "--repo", root).stdout == "golden.lock is up to date (version 1)\n"
    write(root, "cases/golden/ret-002.yaml", case_text("ret-002", answer="over 200 pounds"))
    out = run_cli("lock", "--repo", root).stdout.splitlines()
    assert out[:2] == [
        "golden.version: 1 -> 2 (set or corpus changed since HEAD, version 1)",
        "golden cases: 1 changed (ret-002)",
    ]


def test_a_lock_edited_after_a_check_cached_it_is_read_again(tmp_path: Path) -> None:
    """lock and check take the parsed lock from the cache while the file is unchanged; an
    edit (same size, digits swapped) is seen."""
    root = git_set(tmp_path / "set")
    assert run_cli("check", "--repo", root).exit_code == 0  # the lock, parsed and cached
    assert run_cli("lock", "--repo", root).stdout == "golden.lock is up to date (version 1)\n"
    text = (root / "golden.lock").read_text()
    h1 = expected_case_hash(case_data("ret-001"))
    write(root, "golden.lock", text.replace(h1, h1[::-1]))
    checked = run_cli("check", "--repo", root)
    assert "GC404 golden.lock: set_digest does not match" in checked.stdout
    fixed = run_cli("lock", "--repo", root)
    assert fixed.stdout.splitlines()[0] == (
        "golden.version: 1 (the set and corpus are what golden.lock pins at HEAD; no bump)"
    )
    assert (root / "golden.lock").read_text() == text


def test_version_differing_from_the_lock_is_gc405_and_lock_adopts_it(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    write(root, "golden.version", "2026.1\n")
    result = run_cli("lock", "--check", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "golden.version:1:1: GC405 golden.version says '2026.1' but golden.lock records '1'; "
        "run goldcase lock"
    )
    fixed = run_cli("lock", "--repo", root)
    assert (fixed.exit_code, fixed.stdout.splitlines()[0]) == (
        1,
        "golden.version: 1 -> 2026.1 (set and corpus unchanged)",
    )
    assert (
        fixed.stdout.splitlines()[1]
        == "wrote golden.lock; add it to the commit: git add golden.lock"
    )
    assert read_lock(root)["version"] == "2026.1"


def test_missing_version_file_is_gc405(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    (root / "golden.version").unlink()
    result = run_cli("lock", "--check", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "golden.version:1:1: GC405 golden.version is missing but golden.lock records '1'; "
        "run goldcase lock"
    )
    assert run_cli("lock", "--repo", root).exit_code == 1
    assert read_version(root) == "1"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("1", "2"),
        ("9", "10"),
        ("2026.3", "2026.4"),
        ("2026.9", "2026.10"),
        ("v009", "v010"),
        ("set-7", "set-8"),
    ],
)
def test_next_version(before: str, after: str) -> None:
    assert next_version(before) == after


def test_a_megabyte_version_is_read_once() -> None:
    """A version of a megabyte of digits and a letter was tried at every split, each to its
    end (hours); a number too long to count on from is refused, not a traceback."""
    with pytest.raises(GoldcaseError, match="does not end in a number"):
        next_version("1" * 1_000_000 + "x")
    with pytest.raises(GoldcaseError, match="ends in a number of 5,000 digits"):
        next_version("v" + "1" * 5000)


def test_version_without_a_trailing_number_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GoldcaseError, match="does not end in a number"):
        next_version("beta")
    root = golden_set(tmp_path / "set")
    run_cli("lock", "--repo", root)
    write(root, "golden.version", "beta\n")
    run_cli("lock", "--repo", root)  # adopts the user's label: nothing changed
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 2
    assert result.stderr == (
        "error: golden.version holds 'beta', which does not end in a number, so goldcase cannot "
        "bump it; write a version that ends in one (1, 2026.3, v7) and run goldcase lock\n"
    )


def test_on_the_main_branch_each_commit_that_changes_the_set_moves_the_version(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set")
    assert git(root, "branch", "--show-current").stdout.strip() == "main"
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    assert run_cli("lock", "--repo", root).stdout.startswith(
        "golden.version: 1 -> 2 (set or corpus changed since HEAD, version 1)"
    )
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003", answer="over 200 pounds"))
    again = run_cli("lock", "--repo", root)
    assert again.stdout.splitlines()[0] == (
        "golden.version: 2 (set or corpus changed since HEAD, version 1)"
    )
    assert read_version(root) == "2"
    commit(root)
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 2 -> 3")


BRANCH_BUMP = "set or corpus changed since the merge base of HEAD and main, version 1"


def test_a_branch_moves_the_version_once_however_many_commits_change_the_set(
    tmp_path: Path,
) -> None:
    """The issue: a branch of five commits bumped five times, so versions counted commits."""
    root = git_set(tmp_path / "set")
    git(root, "checkout", "-q", "-b", "feature")
    for number in range(3, 8):
        write(root, f"cases/golden/ret-{number:03d}.yaml", case_text(f"ret-{number:03d}"))
        out = run_cli("lock", "--repo", root).stdout.splitlines()[0]
        if number == 3:  # no commit of its own yet: the branch's base is HEAD
            assert out == "golden.version: 1 -> 2 (set or corpus changed since HEAD, version 1)"
        else:
            assert out == f"golden.version: 2 ({BRANCH_BUMP})"
        commit(root, f"add ret-{number:03d}")
        assert git(root, "show", "HEAD:golden.version").stdout == "2\n"
        assert run_cli("lock", "--check", "--repo", root).exit_code == 0
    # each commit's lock pins that commit's set: the digests tell the five apart
    digests = {
        json.loads(git(root, "show", f"HEAD~{back}:golden.lock").stdout)["set_digest"]
        for back in range(5)
    }
    assert len(digests) == 5
    git(root, "checkout", "-q", "main")
    assert git(root, "merge", "-q", "--no-edit", "--no-gpg-sign", "feature").returncode == 0
    assert read_version(root) == "2"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_a_hand_bump_is_kept(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    write(root, "golden.version", "5\n")
    result = run_cli("lock", "--repo", root)
    assert result.stdout.splitlines()[0] == (
        "golden.version: 1 -> 5 (kept: above 2, the version after HEAD's)"
    )
    assert read_lock(root)["version"] == "5"


def test_a_version_that_does_not_move_past_the_base_is_moved(tmp_path: Path) -> None:
    """A version set by hand to the base's on a changed set would name two sets: lock moves
    it on, and lock --check says so first."""
    root = git_set(tmp_path / "set")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "notes.txt", "a commit of the branch's own\n")
    commit(root, "notes")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    run_cli("lock", "--repo", root)
    write(root, "golden.version", "1\n")
    write(root, "golden.lock", (root / "golden.lock").read_text().replace('"2"', '"1"'))
    check = run_cli("lock", "--check", "--repo", root)
    assert (check.exit_code, check.stdout.splitlines()[0]) == (
        1,
        "golden.version:1:1: GC405 golden.version is '1', but the set or corpus differs from "
        "what golden.lock pins at the merge base of HEAD and main (version 1); run goldcase "
        "lock to move it to 2",
    )
    moved = run_cli("lock", "--repo", root)
    assert moved.stdout.splitlines()[0] == f"golden.version: 1 -> 2 ({BRANCH_BUMP})"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


TAKEN_BACK = (
    "golden.version: 2 -> 1 (the set and corpus are what golden.lock pins at HEAD; the bump is "
    "taken back)"
)


def test_an_edit_undone_takes_its_bump_back(tmp_path: Path) -> None:
    """The issue's story: a case edited then reverted kept its bump, so version 2 named
    exactly the set version 1 named, and compare refused to compare their reports."""
    root = git_set(tmp_path / "set")
    committed_lock = (root / "golden.lock").read_text(encoding="utf-8")
    original = (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 1 -> 2")
    write(root, "cases/golden/ret-001.yaml", original)
    back = run_cli("lock", "--repo", root)
    assert back.exit_code == 1
    assert back.stdout.splitlines()[0] == TAKEN_BACK
    assert read_version(root) == "1"
    assert (root / "golden.lock").read_text(encoding="utf-8") == committed_lock
    assert git(root, "status", "--porcelain").stdout == ""
    assert run_cli("lock", "--repo", root).stdout == "golden.lock is up to date (version 1)\n"


@pytest.mark.parametrize("how", ["removed", "corpus restored"])
def test_any_way_back_to_the_committed_content_takes_the_bump_back(
    tmp_path: Path, how: str
) -> None:
    root = git_set(tmp_path / "set")
    if how == "removed":
        write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    else:
        write(root, "corpus/returns-policy.md", DOCUMENT + "A new line.\n")
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 1 -> 2")
    if how == "removed":
        (root / "cases/golden/ret-003.yaml").unlink()
    else:
        write(root, "corpus/returns-policy.md", DOCUMENT)
    assert run_cli("lock", "--repo", root).stdout.splitlines()[0] == TAKEN_BACK
    assert git(root, "status", "--porcelain").stdout == ""


def test_a_branch_that_undoes_its_change_takes_its_bump_back(tmp_path: Path) -> None:
    """On a branch the base is where it started: a change committed on the branch and undone
    by a later commit of it is the base's set again, at the base's version."""
    root = git_set(tmp_path / "set")
    original = (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    run_cli("lock", "--repo", root)
    commit(root, "version 2 on the branch")
    write(root, "cases/golden/ret-001.yaml", original)
    back = run_cli("lock", "--repo", root)
    assert back.stdout.splitlines()[0] == (
        "golden.version: 2 -> 1 (the set and corpus are what golden.lock pins at the merge "
        "base of HEAD and main; the bump is taken back)"
    )


def test_a_change_kept_keeps_its_bump(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    run_cli("lock", "--repo", root)
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="14 days, from delivery"))
    again = run_cli("lock", "--repo", root)  # another content, not the committed one
    assert again.stdout.startswith(
        "golden.version: 2 (set or corpus changed since HEAD, version 1)"
    )


def test_the_bump_of_a_change_on_the_main_branch_is_not_taken_back(tmp_path: Path) -> None:
    """On the main branch HEAD is the base: a change committed at version 2 and then
    reverted is a third set, version 3 (a version never names two sets there)."""
    root = git_set(tmp_path / "set")
    original = (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    run_cli("lock", "--repo", root)
    commit(root, "version 2")
    write(root, "cases/golden/ret-001.yaml", original)
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 2 -> 3")


def test_without_commits_the_version_does_not_move(tmp_path: Path) -> None:
    """No report can name a version that was never committed: the first commit makes 1."""
    root = golden_set(tmp_path / "set")
    git(root, "init", "-q", "-b", "main")
    run_cli("lock", "--repo", root)
    original = (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    # Never committed: no version to bump, so nothing to take back.
    assert run_cli("lock", "--repo", root).stdout.startswith(
        "golden.version: 1 (not committed yet: the first commit makes this version)"
    )
    write(root, "cases/golden/ret-001.yaml", original)
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 1 (not committed")
    assert (root / "golden.version").read_text(encoding="utf-8").strip() == "1"


def test_two_lock_runs_at_once_leave_a_consistent_version_and_lock(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    procs = [
        subprocess.Popen(
            [GOLDCASE, "lock"],
            cwd=root,
            env=env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 0, 0, 1], outputs
    assert read_version(root) == "2"
    assert read_lock(root)["version"] == "2"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_lock_json_output(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    result = run_cli("lock", "--check", "--repo", root, "--format", "json")
    payload = json.loads(result.stdout)
    assert [f["code"] for f in payload["findings"]] == ["GC402"]


def test_lock_in_a_repository_with_no_commits_and_a_detached_head(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    git(root, "init", "-q")
    assert run_cli("lock", "--repo", root).exit_code == 1
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    # never committed: no report can name version 1 yet, so the first commit keeps it
    assert run_cli("lock", "--repo", root).stdout.startswith(
        "golden.version: 1 (not committed yet: the first commit makes this version)"
    )
    commit(root)
    git(root, "checkout", "-q", "--detach")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003", answer="big orders"))
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 1 -> 2")


# --- lock --stage: the files it rewrote join the commit only when the commit holds the set ---


def test_stage_refuses_a_golden_case_in_an_ignored_folder(tmp_path: Path) -> None:
    """git status names an ignored folder, not the case files in it; the lock pins them."""
    root = git_set(tmp_path / "set")
    write(root, ".gitignore", "drafts-local/\n")
    commit(root, "ignore rule")
    write(root, "cases/golden/drafts-local/ret-003.yaml", case_text("ret-003"))
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 1
    assert (
        "not staged: cases/golden/drafts-local/ret-003.yaml is on disk but not in this commit"
        in (result.stdout)
    )
    assert git(root, "diff", "--cached", "--name-only").stdout == ""


def test_stage_in_a_set_inside_a_larger_repository(tmp_path: Path) -> None:
    """Paths are the set's own: a note beside the cases is not a case the lock pins, an
    unstaged edit of a case is."""
    mono = tmp_path / "mono"
    mono.mkdir()
    git(mono, "init", "-q", "-b", "main")
    root = golden_set(mono / "sets" / "one")
    assert run_cli("lock", "--repo", root).exit_code == 1
    commit(mono, "the set")
    write(root, "cases/golden/README.txt", "how these cases were written\n")  # untracked
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    git(mono, "add", "sets/one/cases/golden/ret-003.yaml")
    staged = run_cli("lock", "--stage", "--repo", root)
    assert staged.exit_code == 0, staged.stdout
    assert git(mono, "diff", "--cached", "--name-only").stdout.split() == [
        "sets/one/cases/golden/ret-003.yaml",
        "sets/one/golden.lock",
        "sets/one/golden.version",
    ]
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003", answer="over 200 pounds"))
    refused = run_cli("lock", "--stage", "--repo", root)
    assert refused.exit_code == 1
    assert "not staged: cases/golden/ret-003.yaml is on disk but not in this commit" in (
        refused.stdout
    )


# --- the base's lock, read once a base ---


def test_a_base_lock_that_does_not_parse_is_named_not_taken_for_none(tmp_path: Path) -> None:
    """golden.lock committed at the base as something that is no lock (a merge committed
    with its conflict markers, a stranger's pull request): the version cannot follow it.
    ``lock`` says so beside what it does; before, it was taken for no lock at the base
    without a word, and the version moved by another rule."""
    root = git_set(tmp_path / "set")
    write(root, "golden.lock", "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> theirs\n")
    commit(root, "a lock with conflict markers")
    base = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "notes.txt", "a commit of the branch\n")
    commit(root, "branch work")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 1
    [note] = [line for line in result.stdout.splitlines() if line.startswith("note: ")]
    assert note.startswith(
        f"note: golden.lock at {base[:12]} (the merge base of HEAD and main) is not JSON: "
    )
    assert note.endswith(
        ", so the version follows no base: a golden.lock that parses, committed there "
        "(goldcase lock, then commit), mends it"
    )
    # the lock written is the repair: a check of it (CI on this branch) passes, as a check
    # of the set's own lock that did not parse fails (GC404 on the disk's golden.lock)
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_a_base_lock_committed_as_a_link_is_named_not_taken_for_none(tmp_path: Path) -> None:
    """A link committed where golden.lock would be (to a lock elsewhere, or anywhere) is no
    lock at the base either, and ``lock`` names it as it names one that does not parse."""
    root = git_set(tmp_path / "set")
    (root / "golden.lock").rename(root / "elsewhere.json")
    (root / "golden.lock").symlink_to("elsewhere.json")
    commit(root, "the lock as a link")
    base = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "checkout", "-q", "-b", "feature")
    (root / "golden.lock").unlink()
    commit(root, "no link on the branch")
    result = run_cli("lock", "--repo", root)
    [note] = [line for line in result.stdout.splitlines() if line.startswith("note: ")]
    assert note.startswith(
        f"note: golden.lock at {base[:12]} (the merge base of HEAD and main) is a symbolic "
        "link, not a file, so the version follows no base"
    )


def test_the_base_lock_is_kept_under_its_commit(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    base = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    run_cli("lock", "--repo", root)
    commit(root, "add ret-003")
    assert cached_table(root, "base-lock")["golden.lock"][0] == base  # one entry, the last base
    write(root, "cases/golden/ret-004.yaml", case_text("ret-004"))
    out = run_cli("lock", "--repo", root).stdout.splitlines()[0]
    assert out == f"golden.version: 2 ({BRANCH_BUMP})"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0
    commit(root, "add ret-004")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-edit", "--no-gpg-sign", "feature")
    merged = git(root, "rev-parse", "HEAD").stdout.strip()
    write(root, "cases/golden/ret-005.yaml", case_text("ret-005"))
    assert run_cli("lock", "--repo", root).stdout.startswith("golden.version: 2 -> 3")
    assert list(cached_table(root, "base-lock")) == ["golden.lock"]
    assert cached_table(root, "base-lock")["golden.lock"][0] == merged


@pytest.mark.parametrize("args", [("lock", "--check"), ("lock",)])
def test_a_base_lock_over_the_bytes_a_lock_may_take_is_refused_naming_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    """The base's golden.lock is measured by the size git records before it is read, as the
    one on disk is (a sparse 600 MB lock is about 600 KB in git, and was read whole as
    bytes, then as text). Over the bytes a lock may take (lowered here, so that 2 MB show
    it) the command stops, naming the commit, rather than take it for no lock at the base."""
    root = git_set(tmp_path / "set")
    good = (root / "golden.lock").read_text()
    write(root, "golden.lock", good + " " * 2_000_000)
    commit(root, "an oversized lock")
    base = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "golden.lock", good)
    commit(root, "the lock as goldcase wrote it")
    monkeypatch.setattr(lockfile, "MAX_LOCK_BYTES", 1_000_000)
    done = run_cli(*args, "--repo", root)
    size = len(good.encode()) + 2_000_000
    assert (done.exit_code, done.stdout) == (2, "")
    assert done.stderr == (
        f"error: golden.lock at {base[:12]} (the merge base of HEAD and main) holds {size:,} "
        "bytes, more than the 1,000,000 a lock may take, so the version cannot follow it; "
        "where it was committed, remove it (git rm golden.lock, then git commit --no-verify: "
        "the hooks read it too), run goldcase lock and commit; a branch then merges or "
        "rebases onto that commit\n"
    )


def test_two_sets_of_one_repository_sharing_a_cache_folder_keep_their_own_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOLDCASE_CACHE_DIR", str(tmp_path / "one cache"))
    mono = tmp_path / "mono"
    mono.mkdir()
    git(mono, "init", "-q", "-b", "main")
    first = golden_set(mono / "sets" / "a", ("ret-001", "ret-002"))
    second = golden_set(mono / "sets" / "b", ("ret-001",))
    for root in (first, second):
        assert run_cli("lock", "--repo", root).exit_code == 1
    commit(mono, "two sets")
    git(mono, "checkout", "-q", "-b", "feature")
    write(first, "cases/golden/ret-003.yaml", case_text("ret-003"))
    assert run_cli("lock", "--repo", first).stdout.startswith("golden.version: 1 -> 2")
    assert run_cli("lock", "--repo", second).stdout == "golden.lock is up to date (version 1)\n"
    commit(mono, "a changed")
    assert run_cli("lock", "--repo", second).stdout == "golden.lock is up to date (version 1)\n"
    assert run_cli("lock", "--check", "--repo", second).exit_code == 0
    assert run_cli("lock", "--check", "--repo", first).exit_code == 0


def test_stage_with_an_index_git_cannot_read_stops_without_staging(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    (root / ".git" / "index").write_bytes(b"DIRC not an index")
    result = run_cli("lock", "--stage", "--repo", root)
    assert result.exit_code == 2
    assert "git ls-files failed" in result.stderr
    assert "golden.version and golden.lock were not staged" in result.stderr
    assert read_version(root) == "2"  # written, as without --stage


# --- git skips a file the lock covers: a sparse checkout, or --skip-worktree ---

WIDEN = (
    "widen the sparse checkout to the golden cases and the corpus (git sparse-checkout add "
    "FOLDER, or git sparse-checkout disable), or clear the mark (git update-index "
    "--no-skip-worktree FILE)"
)


def _pinned(root: Path) -> tuple[str, str]:
    return (root / "golden.version").read_text(), (root / "golden.lock").read_text()


def _refused(root: Path, *args: str) -> str:
    """What ``goldcase lock ARGS`` printed when it refused (exit 2, nothing on stdout)."""
    result = run_cli("lock", *args, "--repo", root)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    return str(result.stderr)


def test_lock_refuses_in_a_sparse_checkout_that_leaves_golden_cases_out(tmp_path: Path) -> None:
    """Built from the disk, the lock would drop the cases the sparse checkout leaves off it
    ("1 removed") and bump the version for a set nobody changed."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/eu/ret-003.yaml", case_text("ret-003"))
    run_cli("lock", "--repo", root)
    commit(root, "a folder of cases")
    before = _pinned(root)
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/eu/")
    assert not (root / "cases/golden/eu").exists()
    refusal = _refused(root)
    assert refusal == (
        "error: golden.lock not written: cases/golden/eu/ret-003.yaml is in git's index but "
        "not in the work tree (left out by a sparse checkout, or marked skip-worktree), "
        "so golden.lock, built from the disk, would not pin the set a commit "
        f"holds; {WIDEN}\n"
    )
    assert _pinned(root) == before


@pytest.mark.parametrize("sparse_index", [False, True], ids=["full-index", "sparse-index"])
def test_lock_refuses_in_a_cone_sparse_checkout_without_the_corpus(
    tmp_path: Path, sparse_index: bool
) -> None:
    root = git_set(tmp_path / "set")
    before = _pinned(root)
    git(root, "sparse-checkout", "init", "--cone", *(["--sparse-index"] if sparse_index else []))
    git(root, "sparse-checkout", "set", "cases")
    assert not (root / "corpus").exists()
    refusal = _refused(root)
    assert refusal.startswith(
        "error: golden.lock not written: corpus/returns-policy.md is in git's index but not "
        "in the work tree"
    )
    assert _pinned(root) == before


def test_lock_refuses_a_golden_case_marked_skip_worktree_and_edited(tmp_path: Path) -> None:
    """Marked skip-worktree, the file stays on disk and git stops comparing it: the lock
    would pin an edit no commit holds."""
    root = git_set(tmp_path / "set")
    before = _pinned(root)
    git(root, "update-index", "--skip-worktree", "cases/golden/ret-001.yaml")
    write(root, "cases/golden/ret-001.yaml", case_text("ret-001", answer="fourteen days"))
    refusal = _refused(root)
    assert refusal.startswith(
        "error: golden.lock not written: cases/golden/ret-001.yaml is in git's index but not "
        "in the work tree (left out by a sparse checkout, or marked skip-worktree)"
    )
    assert _pinned(root) == before


def test_lock_refuses_a_golden_case_linked_to_a_file_marked_skip_worktree(
    tmp_path: Path,
) -> None:
    """The lock pins what a linked case file leads to: git skipping that file counts."""
    root = git_set(tmp_path / "set")
    write(root, "drafts/ret-003.yaml", case_text("ret-003"))
    (root / "cases/golden/ret-003.yaml").symlink_to("../../drafts/ret-003.yaml")
    run_cli("lock", "--repo", root)
    commit(root, "a linked case")
    git(root, "update-index", "--skip-worktree", "drafts/ret-003.yaml")
    refusal = _refused(root)
    assert refusal.startswith(
        "error: golden.lock not written: cases/golden/ret-003.yaml (a link to "
        "drafts/ret-003.yaml) is in git's index but not in the work tree"
    )


def test_lock_check_refuses_in_a_sparse_checkout_that_leaves_golden_cases_out(
    tmp_path: Path,
) -> None:
    """Without the refusal it reported the skipped case as removed and said to run goldcase
    lock, which would have dropped it from the lock."""
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/ret-003.yaml")
    assert not (root / "cases/golden/ret-003.yaml").exists()
    refusal = _refused(root, "--check")
    assert refusal == (
        "error: golden.lock not checked: cases/golden/ret-003.yaml is in git's index but not "
        "in the work tree (left out by a sparse checkout, or marked skip-worktree), "
        "so the disk does not show the set a commit holds; "
        f"{WIDEN}\n"
    )


def test_lock_names_several_skipped_files_and_says_are(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/ret-00[23].yaml")
    refusal = _refused(root)
    assert refusal.startswith(
        "error: golden.lock not written: cases/golden/ret-002.yaml, cases/golden/ret-003.yaml "
        "are in git's index but not in the work tree"
    )


def test_check_names_a_case_a_sparse_checkout_leaves_out_as_unread_not_removed(
    tmp_path: Path,
) -> None:
    """A sparse checkout removes nothing from the set: the version check says the case was
    not read and how to widen the checkout, not that it was removed (which sent the user to
    goldcase lock, which refuses)."""
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/ret-003.yaml",
        "!/corpus/returns-policy.md")  # fmt: skip
    result = run_cli("check", "--select", "version", "--repo", root)
    assert result.exit_code == 1, result.stdout
    lines = [line for line in result.stdout.splitlines() if " GC40" in line]
    assert len(lines) == 2, result.stdout
    case_line, doc_line = sorted(lines, key=lambda line: " GC403 " in line)
    assert case_line.startswith("golden.lock:")
    assert case_line.endswith(
        "GC401 golden case ret-003 (cases/golden/ret-003.yaml) is in git's index but not in "
        "the work tree (left out by a sparse checkout, or marked skip-worktree), so it was not "
        f"checked against golden.lock; {WIDEN}"
    )
    assert doc_line.endswith(
        "GC403 corpus document corpus/returns-policy.md is in git's index but not in the work "
        "tree (left out by a sparse checkout, or marked skip-worktree), so it was not checked "
        f"against golden.lock; {WIDEN}"
    )
    assert "removed" not in result.stdout


def test_check_still_calls_a_case_deleted_from_a_sparse_checkout_removed(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/cases/golden/ret-003.yaml")
    git(root, "rm", "-q", "cases/golden/ret-002.yaml")
    result = run_cli("check", "--select", "version", "--repo", root)
    assert "GC401 golden case ret-002 removed (or moved out of the golden set)" in result.stdout
    assert "GC401 golden case ret-003 (cases/golden/ret-003.yaml) is in git's index" in (
        result.stdout
    )


def test_lock_works_in_a_sparse_checkout_that_keeps_the_set_and_corpus(tmp_path: Path) -> None:
    """Files outside the golden cases and the corpus may be left out: the lock covers
    neither."""
    root = git_set(tmp_path / "set")
    write(root, "prompts/system.md", "You answer from the documents.\n")
    write(root, "cases/dev/dev-001.yaml", case_text("dev-001"))
    commit(root, "prompts and a dev case")
    before = _pinned(root)
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/prompts/", "!/cases/dev/")
    assert not (root / "prompts").exists()
    result = run_cli("lock", "--repo", root)
    assert (result.exit_code, result.stderr) == (0, ""), result.stdout
    assert result.stdout == "golden.lock is up to date (version 1)\n"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0
    assert _pinned(root) == before


def test_lock_with_an_index_git_cannot_read_writes_nothing(tmp_path: Path) -> None:
    """git cannot say whether it skips a file: the lock is not written on a guess."""
    root = git_set(tmp_path / "set")
    before = _pinned(root)
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    (root / ".git" / "index").write_bytes(b"DIRC not an index")
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: git ls-files failed in {root}: cannot tell whether git skips a golden case "
        "or corpus document in the work tree, so golden.lock was not written; run git status "
        "to see why\n"
    )
    assert _pinned(root) == before


def test_lock_outside_git_asks_nothing_of_git_it_cannot_answer(tmp_path: Path) -> None:
    root = golden_set(tmp_path / "set")
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 1, result.stderr
    assert read_version(root) == "1"
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


# --- a file marked assume-unchanged, then deleted: git holds it, the disk does not ---

RESTORE = (
    "clear the mark and restore the file (git update-index --no-assume-unchanged FILE, then "
    "git checkout -- FILE), or delete it from the index too (git rm FILE)"
)
ASSUMED = "not on disk (marked assume-unchanged, so git does not see it deleted)"


def _marked_and_deleted(root: Path, rel: str) -> None:
    """``git status`` then shows nothing, and the commit keeps the file."""
    git(root, "update-index", "--assume-unchanged", rel)
    (root / rel).unlink()
    assert git(root, "status", "--porcelain").stdout == ""


@pytest.mark.parametrize("args", [(), ("--stage",)], ids=["lock", "stage"])
def test_lock_refuses_to_drop_a_golden_case_marked_assume_unchanged_and_deleted(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Built from the disk, the lock would drop the case ("1 removed") that every commit
    still holds."""
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    before = _pinned(root)
    _marked_and_deleted(root, "cases/golden/ret-003.yaml")
    assert _refused(root, *args) == (
        "error: golden.lock not written: cases/golden/ret-003.yaml is in git's index but "
        f"{ASSUMED}, so golden.lock, built from the disk, would not pin the set a commit "
        f"holds; {RESTORE}\n"
    )
    assert _pinned(root) == before
    assert git(root, "diff", "--cached", "--name-only").stdout == ""


def test_lock_check_refuses_a_corpus_document_marked_assume_unchanged_and_deleted(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set")
    _marked_and_deleted(root, "corpus/returns-policy.md")
    assert _refused(root, "--check") == (
        "error: golden.lock not checked: corpus/returns-policy.md is in git's index but "
        f"{ASSUMED}, so the disk does not show the set a commit holds; {RESTORE}\n"
    )


def test_lock_check_refuses_a_lock_that_already_dropped_a_file_git_holds(tmp_path: Path) -> None:
    """golden.lock on disk agrees with the disk (an older goldcase wrote it), but drops a
    case the base pins and git still holds: the disk is not the set, whatever the lock."""
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    (root / "cases/golden/ret-003.yaml").unlink()
    assert run_cli("lock", "--repo", root).exit_code == 1  # deleted as git sees it: dropped
    git(root, "update-index", "--assume-unchanged", "cases/golden/ret-003.yaml")
    before = _pinned(root)
    assert _refused(root, "--check").startswith(
        f"error: golden.lock not checked: cases/golden/ret-003.yaml is in git's index but {ASSUMED}"
    )
    assert _refused(root).startswith(
        f"error: golden.lock not written: cases/golden/ret-003.yaml is in git's index but {ASSUMED}"
    )
    assert _pinned(root) == before


@pytest.mark.parametrize(
    "fix",
    [
        ["rm", "-q", "cases/golden/ret-003.yaml"],
        ["update-index", "--no-assume-unchanged", "cases/golden/ret-003.yaml"],
    ],
    ids=["git-rm", "clear-the-mark"],
)
def test_either_fix_the_refusal_names_lets_the_lock_drop_the_case(
    tmp_path: Path, fix: list[str]
) -> None:
    """Removed from the index, or the mark cleared (git then sees the deletion): a removal
    as any other, which ``git add`` or ``git commit -a`` puts in the commit."""
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    _marked_and_deleted(root, "cases/golden/ret-003.yaml")
    git(root, *fix)
    result = run_cli("lock", "--repo", root)
    assert result.exit_code == 1, result.stderr
    assert "golden cases: 1 removed (ret-003)" in result.stdout


def test_a_file_marked_assume_unchanged_and_on_disk_is_locked_as_any_other(
    tmp_path: Path,
) -> None:
    """The mark alone (``core.ignoreStat`` sets it on every file git adds) refuses nothing."""
    root = git_set(tmp_path / "set")
    git(root, "update-index", "--assume-unchanged", "cases/golden/ret-001.yaml")
    result = run_cli("lock", "--repo", root)
    assert (result.exit_code, result.stderr) == (0, ""), result.stdout
    assert run_cli("lock", "--check", "--repo", root).exit_code == 0


def test_check_names_a_case_marked_assume_unchanged_and_deleted_as_unread_not_removed(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set", ids=("ret-001", "ret-002", "ret-003"))
    _marked_and_deleted(root, "cases/golden/ret-003.yaml")
    result = run_cli("check", "--select", "version", "--repo", root)
    assert result.exit_code == 1, result.stdout
    lines = [line for line in result.stdout.splitlines() if " GC401 " in line]
    assert len(lines) == 1, result.stdout
    assert lines[0].startswith("golden.lock:")
    assert lines[0].endswith(
        f"GC401 golden case ret-003 (cases/golden/ret-003.yaml) is in git's index but "
        f"{ASSUMED}, so it was not checked against golden.lock; {RESTORE}"
    )


@pytest.mark.parametrize("name", ["ret\n003.yaml", "ret\x1b[2J003.yaml", "ret\u202e003.yaml"])
def test_a_skipped_file_named_with_a_control_character_is_named_escaped(
    tmp_path: Path, name: str
) -> None:
    """A name holding a newline must not start a line of its own (nor a terminal escape
    clear the screen): it is shown as findings show it."""
    root = git_set(tmp_path / "set")
    write(root, f"cases/golden/{name}", case_text("ret-003"))
    git(root, "add", "cases/golden")
    git(root, "update-index", "--skip-worktree", f"cases/golden/{name}")
    shown = name.encode("unicode_escape").decode()
    refusal = _refused(root)
    assert refusal.startswith(
        f"error: golden.lock not written: cases/golden/{shown} is in git's index but not in "
        "the work tree"
    )
    assert refusal.count("\n") == 1 and "\x1b" not in refusal and "\u202e" not in refusal
