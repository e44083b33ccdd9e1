"""``goldcase.cache``: keyed by goldcase's version and source content (two installs of one
version share it), written by every command that fills it, data only."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import goldcase
from goldcase.cache import Cache, code_salt, decode, encode
from goldcase.safeio import stat_signature
from kit import cache_folder, golden_set, run_cli, write

SALT = "from goldcase.cache import code_salt; print(code_salt())"


def _salt(package_parent: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(package_parent))
    done = subprocess.run(
        [sys.executable, "-c", SALT], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_two_installs_of_one_version_share_the_code_salt(tmp_path: Path) -> None:
    """A copy of the package with other modification times (another install) gets the same
    salt; a copy with one byte of source changed gets another."""
    source = Path(goldcase.__file__).parent
    first, second = tmp_path / "one", tmp_path / "two"
    for target in (first, second):
        shutil.copytree(source, target / "goldcase", ignore=shutil.ignore_patterns("__pycache__"))
    for path in (second / "goldcase").rglob("*.py"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    assert _salt(first) == _salt(second)
    text = (second / "goldcase/text.py").read_text(encoding="utf-8")
    (second / "goldcase/text.py").write_text(text + "\n# edited\n", encoding="utf-8")
    assert _salt(first) != _salt(second)


def test_every_command_that_fills_the_cache_writes_it(tmp_path: Path) -> None:
    golden_set(tmp_path)
    (tmp_path / "train.txt").write_text("nothing golden here\n", encoding="utf-8")
    done = run_cli("contamination", "--repo", tmp_path, tmp_path / "train.txt")
    assert done.exit_code == 0, done.stderr
    saved = decode((cache_folder(tmp_path) / "files.msgpack").read_bytes())
    assert sorted(saved) == ["cases/golden/ret-001.yaml", "cases/golden/ret-002.yaml"]


def test_a_value_that_is_not_data_is_not_saved(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("ns", "a", object())
    cache.put("other", "b", [1, "x", b"y", None, 2.5, {"k": True}])
    cache.save()
    assert Cache(tmp_path).get("ns", "a") is None
    assert Cache(tmp_path).get("other", "b") == [1, "x", b"y", None, 2.5, {"k": True}]
    assert encode({"a": object()}) is None


def test_a_saved_cache_writes_nothing_twice(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("ns", "a", 1)
    cache.save()
    (written,) = tmp_path.rglob("ns.msgpack")
    before = written.stat().st_mtime_ns, written.stat().st_ino
    cache.save()
    assert (written.stat().st_mtime_ns, written.stat().st_ino) == before


def _part_run(folder: Path, puts: dict[str, object]) -> None:
    """A run that looks at part of the set: it reads the namespace, changes a few entries."""
    cache = Cache(folder)
    cache.partial = True
    cache.get("ns", "a")
    for key, value in puts.items():
        cache.put("ns", key, value)
    cache.save()


def _whole(folder: Path, size: int = 1000) -> Path:
    cache = Cache(folder)
    for i in range(size):
        cache.put("ns", f"k{i}", f"value {i}" * 10)
    cache.save()
    (written,) = folder.rglob("ns.msgpack")
    return written


def test_a_part_run_appends_its_changes_and_leaves_the_namespace_file(tmp_path: Path) -> None:
    written = _whole(tmp_path)
    before = written.read_bytes(), written.stat().st_ino
    _part_run(tmp_path, {"k1": "changed", "new": [1, 2]})
    _part_run(tmp_path, {"k1": "changed again"})
    assert (written.read_bytes(), written.stat().st_ino) == before
    assert written.with_name("ns.journal").is_file()
    again = Cache(tmp_path)
    assert again.get("ns", "k1") == "changed again"  # the later record wins
    assert again.get("ns", "new") == [1, 2]
    assert again.get("ns", "k2") == "value 2" * 10


@pytest.mark.parametrize("changed", [True, False])
def test_a_part_run_taking_its_only_keys_drops_the_others(tmp_path: Path, changed: bool) -> None:
    """``take(..., only=True)``: the keys taken are all the namespace keeps, even in a run
    over part of the set (where the others are kept otherwise); the namespace is written
    whole without the rest and its journal emptied, whether or not the run put anything."""
    written = _whole(tmp_path, size=10)
    _part_run(tmp_path, {"k1": "changed"})  # a journal to empty
    cache = Cache(tmp_path)
    cache.partial = True
    assert cache.take("ns", ["k2", "k3", "gone"], dict[str, str], only=True) == {
        "k2": "value 2" * 10,
        "k3": "value 3" * 10,
    }
    if changed:
        cache.put("ns", "k4", "rebuilt")
    cache.save()
    assert not written.with_name("ns.journal").exists()
    kept = {"k2": "value 2" * 10, "k3": "value 3" * 10}
    assert decode(written.read_bytes()) == (kept | {"k4": "rebuilt"} if changed else kept)
    again = Cache(tmp_path)
    again.partial = True
    again.take("ns", ["k2", "k3", "k4"], dict[str, str], only=True)
    before = written.stat().st_mtime_ns, written.stat().st_ino
    again.save()  # nothing dropped, nothing put: nothing written
    assert (written.stat().st_mtime_ns, written.stat().st_ino) == before


def test_a_few_entries_left_by_only_keys_wait_for_a_quarter(tmp_path: Path) -> None:
    """Fewer entries left than a quarter of the keys taken are not worth writing the
    namespace whole for: the run appends, and they are dropped once a quarter is reached."""
    written = _whole(tmp_path, size=12)
    keys = [f"k{i}" for i in range(12)]
    before = written.read_bytes()
    for left in (1, 2):  # k11, then k10 too: under a quarter of the keys taken
        cache = Cache(tmp_path)
        cache.partial = True
        cache.take("ns", keys[: 12 - left], dict[str, str], only=True)
        cache.put("ns", "k0", f"changed {left}")
        cache.save()
        assert written.read_bytes() == before  # appended
    cache = Cache(tmp_path)
    cache.partial = True
    cache.take("ns", keys[:8], dict[str, str], only=True)  # four left: a third of eight
    cache.save()
    assert sorted(decode(written.read_bytes())) == sorted(keys[:8])
    assert decode(written.read_bytes())["k0"] == "changed 2"


def test_a_whole_run_writes_the_namespace_and_empties_the_journal(tmp_path: Path) -> None:
    written = _whole(tmp_path)
    _part_run(tmp_path, {"k1": "changed"})
    cache = Cache(tmp_path)
    assert cache.get("ns", "k1") == "changed"
    cache.put("ns", "k2", "also")
    cache.save()  # a whole run: only what it used
    assert not written.with_name("ns.journal").exists()
    assert decode(written.read_bytes()) == {"k1": "changed", "k2": "also"}


def test_a_whole_run_that_read_every_entry_appends_its_few_changes(tmp_path: Path) -> None:
    """Nothing is stale when a whole run read every entry (``goldcase lock`` on a set where
    one case changed): its change goes to the journal, the namespace file stays."""
    written = _whole(tmp_path, size=100)
    before = written.read_bytes(), written.stat().st_ino
    cache = Cache(tmp_path)
    keys = [f"k{i}" for i in range(100)]
    assert len(cache.take("ns", keys, dict[str, str])) == 100
    cache.put("ns", "k7", "changed")
    cache.save()
    assert (written.read_bytes(), written.stat().st_ino) == before
    again = Cache(tmp_path).take("ns", keys, dict[str, str])
    assert again == {**{k: f"value {k[1:]}" * 10 for k in keys}, "k7": "changed"}


def test_a_run_that_changed_every_entry_writes_the_namespace_whole(tmp_path: Path) -> None:
    """A namespace of one entry replaced by a much smaller one (the score's view of a set
    that shrank) keeps nothing of its file: it is written whole, and its time moves on."""
    written = _whole(tmp_path, size=100)
    long_ago = written.stat().st_mtime_ns - 60 * 10**9
    os.utime(written, ns=(long_ago, long_ago))
    cache = Cache(tmp_path)
    keys = [f"k{i}" for i in range(100)]
    assert len(cache.take("ns", keys, dict[str, str])) == 100
    for key in keys:
        cache.put("ns", key, "short")
    cache.save()
    assert not written.with_name("ns.journal").exists()
    assert written.stat().st_mtime_ns > long_ago
    assert decode(written.read_bytes()) == dict.fromkeys(keys, "short")


def test_a_run_that_appends_leaves_the_time_files_are_measured_against(
    tmp_path: Path,
) -> None:
    """git's racy-clean rule trusts an entry only for a file older than the namespace's file
    (docs/check.md, "Only what changed is read"). A whole run that appends leaves that time
    as it was: the journal may hold records another process appended, which this run never
    checked, so a file changed since the last whole write is read again."""
    folder = tmp_path / "cache"
    edited, untouched = write(tmp_path, "edited.yaml", "a\n"), write(tmp_path, "b.yaml", "b\n")
    long_ago = edited.stat().st_mtime_ns - 60 * 10**9
    os.utime(untouched, ns=(long_ago - 10**9, long_ago - 10**9))
    first = Cache(folder)
    first.record("ns", "edited", stat_signature(edited), "parsed a")
    first.record("ns", "untouched", stat_signature(untouched), "parsed b")
    first.save()
    (namespace,) = folder.rglob("ns.msgpack")
    os.utime(namespace, ns=(long_ago, long_ago))  # written a minute before the edit

    whole = Cache(folder)
    assert whole.known("ns", "untouched", stat_signature(untouched)) == "parsed b"
    assert whole.known("ns", "edited", stat_signature(edited)) is None  # newer: read again
    whole.record("ns", "edited", stat_signature(edited), "parsed a again")
    whole.save()
    assert namespace.stat().st_mtime_ns == long_ago  # appended: the time stays
    after = Cache(folder)
    assert after.get("ns", "edited") == [stat_signature(edited), "parsed a again"]
    assert after.known("ns", "edited", stat_signature(edited)) is None
    assert after.known("ns", "untouched", stat_signature(untouched)) == "parsed b"


def test_a_run_after_a_damaged_record_writes_the_namespace_whole(tmp_path: Path) -> None:
    """A record appended after one cut short would never be read (reading stops there): a
    run that finds the journal damaged writes the namespace whole, its change inside."""
    written = _whole(tmp_path)
    _part_run(tmp_path, {"k1": "first"})
    journal = written.with_name("ns.journal")
    journal.write_bytes(journal.read_bytes() + b"\0\0\1\0cut")  # a record cut short
    _part_run(tmp_path, {"k2": "second"})
    assert not journal.exists()
    again = Cache(tmp_path)
    assert (again.get("ns", "k1"), again.get("ns", "k2")) == ("first", "second")


def test_a_damaged_record_drops_itself_and_what_follows(tmp_path: Path) -> None:
    written = _whole(tmp_path)
    _part_run(tmp_path, {"k1": "first"})
    journal = written.with_name("ns.journal")
    good = journal.read_bytes()
    _part_run(tmp_path, {"k2": "second"})
    _part_run(tmp_path, {"k3": "third"})
    damaged = bytearray(journal.read_bytes())
    damaged[len(good) + 30] ^= 0xFF  # inside the second record's payload: its CRC fails
    journal.write_bytes(bytes(damaged))
    cache = Cache(tmp_path)
    assert cache.get("ns", "k1") == "first"
    assert cache.get("ns", "k2") == "value 2" * 10
    assert cache.get("ns", "k3") == "value 3" * 10
    journal.write_bytes(good[:-3])  # cut short by a crash
    assert Cache(tmp_path).get("ns", "k1") == "value 1" * 10


def test_a_journal_past_a_quarter_of_its_namespace_rewrites_it(tmp_path: Path) -> None:
    written = _whole(tmp_path, size=10)
    inode = written.stat().st_ino
    _part_run(tmp_path, {f"big{i}": "x" * 400_000 for i in range(1)})
    assert written.stat().st_ino != inode  # rewritten whole
    assert not written.with_name("ns.journal").exists()
    assert Cache(tmp_path).get("ns", "big0") == "x" * 400_000


def test_a_journal_that_is_a_fifo_or_a_link_is_neither_waited_on_nor_followed(
    tmp_path: Path,
) -> None:
    written = _whole(tmp_path)
    journal = written.with_name("ns.journal")
    os.mkfifo(journal)
    _part_run(tmp_path, {"k1": "changed"})  # no reader: the append fails, nothing waits
    assert Cache(tmp_path).get("ns", "k2") == "value 2" * 10
    journal.unlink()
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"")
    journal.symlink_to(outside)
    _part_run(tmp_path, {"k1": "changed"})
    assert outside.read_bytes() == b""
    assert Cache(tmp_path).get("ns", "k2") == "value 2" * 10


def test_a_value_recorded_with_a_stat_signature_is_known_only_for_that_signature(
    tmp_path: Path,
) -> None:
    # Signatures are given, not taken: the first field is the file's modification time, and
    # 1 ns after the epoch is older than any cache file.
    old, other = [1, 2, 3, 4], [1, 2, 3, 5]
    first = Cache(tmp_path / "cache")
    first.record("files-of-a-kind", "a.md", old, "its digest")
    first.record("files-of-a-kind", "b.md", None, "no signature, nothing stored")
    first.save()
    again = Cache(tmp_path / "cache")
    assert again.known("files-of-a-kind", "a.md", old) == "its digest"
    assert again.known("files-of-a-kind", "a.md", other) is None
    assert again.known("files-of-a-kind", "a.md", None) is None
    assert again.known("files-of-a-kind", "b.md", None) is None


def test_a_file_not_older_than_the_cache_is_not_known(tmp_path: Path) -> None:
    # git's racy-clean rule: a file changed in the instant the cache was written may hold
    # other bytes under the same signature. A modification time far ahead stands for it.
    ahead = [2**62, 2, 3, 4]
    first = Cache(tmp_path / "cache")
    first.record("files-of-a-kind", "a.md", ahead, "its digest")
    first.save()
    again = Cache(tmp_path / "cache")
    assert again.written_ns("files-of-a-kind") < 2**62
    assert again.known("files-of-a-kind", "a.md", ahead) is None


def test_the_last_four_other_builds_are_kept_and_nothing_else_is_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside the current build's folder, the four most recent other builds' folders stay and
    older ones go; a folder not named as a build's is never a build's to prune."""
    base = tmp_path / "cache"
    monkeypatch.setenv("GOLDCASE_CACHE_DIR", str(base))
    builds = [f"0.0.{i}-{i:024x}" for i in range(6)]
    for age, name in enumerate(["notes", *builds]):
        (base / name).mkdir(parents=True)
        (base / name / "x").write_text("x", encoding="utf-8")
        os.utime(base / name, (1000 + age, 1000 + age))
    cache = Cache.for_repository(tmp_path / "repo")
    cache.put("ns", "key", 1)
    cache.save()
    assert sorted(p.name for p in base.iterdir()) == sorted([*builds[2:], "notes", code_salt()])
