"""``goldcase.cachesweep``: the user cache folder keeps the folders of repositories that exist
and were used this month, within 2 GiB, the current one always; it is swept at most once a
day, never through a link, and a folder removed under a reader is a miss."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import goldcase.cache
from goldcase.cache import Cache, location
from goldcase.cachesweep import DAY, RECORD, STAMP, remove, sweep
from kit import golden_set, run_cli

KEY = "0123456789abcdef"


@pytest.fixture
def repos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user cache folder of this test's own; its ``repos/`` folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "goldcase" / "repos"


def _fill(root: Path, size: int = 1000) -> Path:
    """The repository at ``root`` (made) with a cache goldcase wrote: ``size`` bytes of data."""
    root.mkdir(parents=True, exist_ok=True)
    cache = Cache.for_repository(root)
    cache.put("ns", "key", b"x" * size)
    cache.save()
    folder = location(root)
    assert folder is not None and folder.is_dir()
    return folder


def _age(path: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(path, (then, then), follow_symlinks=False)


def _due(repos: Path) -> None:
    """The last sweep made two days old: the next write sweeps."""
    _age(repos / STAMP, 2)


@contextlib.contextmanager
def _opened(folder: Path) -> Iterator[int]:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def test_a_folder_unused_for_a_month_goes_and_a_recent_one_stays(
    repos: Path, tmp_path: Path
) -> None:
    old, recent = _fill(tmp_path / "old"), _fill(tmp_path / "recent")
    _age(old, 31)
    _age(recent, 29)
    _due(repos)
    current = _fill(tmp_path / "current")
    assert not old.exists()
    assert recent.is_dir() and current.is_dir()
    assert Cache.for_repository(tmp_path / "recent").get("ns", "key") == b"x" * 1000


def test_the_folder_of_a_repository_that_is_gone_goes(repos: Path, tmp_path: Path) -> None:
    """A clone deleted today loses its folder at the next sweep; a folder whose record is not
    its own path (it does not hash to the folder's name) is not taken for gone."""
    deleted, kept = _fill(tmp_path / "deleted"), _fill(tmp_path / "kept")
    assert (deleted / RECORD).read_bytes() == os.fsencode(os.path.realpath(tmp_path / "deleted"))
    (kept / RECORD).write_bytes(os.fsencode(tmp_path / "nowhere"))
    shutil.rmtree(tmp_path / "deleted")
    _due(repos)
    _fill(tmp_path / "current")
    assert not deleted.exists()
    assert kept.is_dir()


def test_a_sweep_runs_once_a_day(repos: Path, tmp_path: Path) -> None:
    old = _fill(tmp_path / "old")
    _age(old, 40)  # after this day's sweep (the first write made it)
    _fill(tmp_path / "current")
    assert old.is_dir()
    _due(repos)
    _fill(tmp_path / "current", 2000)
    assert not old.exists()
    assert time.time() - (repos / STAMP).stat().st_mtime < DAY


def test_past_the_cap_the_least_recently_used_go_first_never_the_current(
    repos: Path, tmp_path: Path
) -> None:
    folders = {name: _fill(tmp_path / name, 10_000) for name in ("a", "b", "c", "current")}
    for days, name in enumerate(("current", "b", "a", "c")):  # current: the least recent
        _age(folders[name], 20 - days)
    names = {name: folder.name for name, folder in folders.items()}
    with _opened(repos) as fd:
        removed = sweep(fd, names["current"], time.time(), max_bytes=25_000)
    assert [folder.name for folder in removed] == [names["b"], names["a"]]
    assert folders["c"].is_dir() and folders["current"].is_dir()
    with _opened(repos) as fd:
        (removed,) = sweep(fd, names["current"], time.time(), max_bytes=0)
    assert removed.name == names["c"]
    assert sorted(p.name for p in repos.iterdir()) == [STAMP, names["current"]]


def test_a_read_records_use_at_most_once_a_day(repos: Path, tmp_path: Path) -> None:
    folder = _fill(tmp_path / "repo")
    _age(folder, 3)
    before = folder.stat().st_mtime
    assert Cache.for_repository(tmp_path / "repo").get("ns", "key") == b"x" * 1000
    assert folder.stat().st_mtime > before + 2 * DAY
    _age(folder, 0.5)
    recorded = folder.stat().st_mtime_ns
    assert Cache.for_repository(tmp_path / "repo").get("ns", "key") == b"x" * 1000
    assert folder.stat().st_mtime_ns == recorded


def test_a_link_under_repos_is_not_followed(repos: Path, tmp_path: Path) -> None:
    """A link shaped as a repository's folder, and links inside one, pointing outside: the
    sweep removes goldcase's folder and the links in it, never what they point to."""
    outside = tmp_path / "precious"
    (outside / "inner").mkdir(parents=True)
    (outside / "file.txt").write_text("keep me\n", encoding="utf-8")
    (outside / "inner" / "deep.txt").write_text("keep me too\n", encoding="utf-8")
    old = _fill(tmp_path / "old")
    (old / "0.0.1-linked").symlink_to(outside)
    (old / "0.0.1-folder").mkdir()
    (old / "0.0.1-folder" / "data").symlink_to(outside / "inner")
    (old / "stray").symlink_to(outside / "file.txt")
    planted = repos / f"planted-{KEY}"
    planted.symlink_to(outside)
    for path in (old / "0.0.1-folder", old, planted):
        _age(path, 60)
    _due(repos)
    _fill(tmp_path / "current")
    assert not old.exists()
    assert planted.is_symlink()
    assert (outside / "file.txt").read_text(encoding="utf-8") == "keep me\n"
    assert (outside / "inner" / "deep.txt").read_text(encoding="utf-8") == "keep me too\n"


def test_only_folders_shaped_as_goldcase_names_them_are_removed(
    repos: Path, tmp_path: Path
) -> None:
    current = _fill(tmp_path / "current")
    strangers = [repos / "notes", repos / f"UPPER-{KEY.upper()}", repos / f"short-{KEY[:-1]}"]
    for path in strangers:
        path.mkdir()
        (path / "data").write_text("not goldcase's\n", encoding="utf-8")
        _age(path, 90)
    (repos / f"file-{KEY}").write_text("a file, not a folder\n", encoding="utf-8")
    _age(repos / f"file-{KEY}", 90)
    with _opened(repos) as fd:
        (removed,) = sweep(fd, "", time.time(), max_bytes=0)
    assert removed.name == current.name
    assert all((path / "data").is_file() for path in strangers)
    assert (repos / f"file-{KEY}").is_file()


def test_a_folder_removed_during_a_read_is_a_miss(
    repos: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process sweeps the folder away between this one opening it and reading its
    file: the read finds nothing (a miss), and the next save makes the folder again."""
    folder = _fill(tmp_path / "repo")
    read_file = goldcase.cache._read_file

    def swept_first(name: str, dir_fd: int) -> tuple[bytes, int]:
        with _opened(repos) as fd:
            assert remove(fd, folder.name)
        return read_file(name, dir_fd)

    monkeypatch.setattr(goldcase.cache, "_read_file", swept_first)
    cache = Cache.for_repository(tmp_path / "repo")
    assert cache.get("ns", "key") is None
    monkeypatch.setattr(goldcase.cache, "_read_file", read_file)
    assert not folder.exists()
    cache.put("ns", "key", b"again")
    cache.save()
    assert Cache.for_repository(tmp_path / "repo").get("ns", "key") == b"again"


def test_a_check_sweeps_the_user_cache(repos: Path, tmp_path: Path) -> None:
    """``goldcase check`` writes its cache and, a day after the last sweep, drops the folder
    of a repository unused for a month."""
    old = _fill(tmp_path / "old")
    _age(old, 45)
    _due(repos)
    root = golden_set(tmp_path / "set")
    done = run_cli("check", "--repo", root)
    assert done.exit_code == 0, done.stderr
    assert not old.exists()
    assert (location(root) or Path("/nonexistent")).is_dir()


def test_a_folder_holding_more_than_goldcase_writes_stays_and_a_stopped_removal_ends(
    repos: Path, tmp_path: Path
) -> None:
    """A folder with a folder deeper than a build's is renamed aside but not emptied past
    what goldcase writes (what is deeper survives); a removal left half done (a renamed
    folder, by a process that was stopped) is finished by the next sweep."""
    odd, stopped = _fill(tmp_path / "odd"), _fill(tmp_path / "stopped")
    deep = odd / "0.0.1-build" / "nested"
    deep.mkdir(parents=True)
    (deep / "notes.txt").write_text("not goldcase's\n", encoding="utf-8")
    tomb = repos / f"~removing-{KEY}"
    stopped.rename(tomb)
    current = _fill(tmp_path / "current")
    with _opened(repos) as fd:
        (removed,) = sweep(fd, current.name, time.time(), max_bytes=0)
    assert removed.name == odd.name
    assert not tomb.exists()
    (aside,) = repos.glob("~removing-*")
    assert (aside / "0.0.1-build" / "nested" / "notes.txt").read_text(encoding="utf-8") == (
        "not goldcase's\n"
    )


def test_without_a_home_directory_commands_run_without_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HOME unset and XDG_CACHE_HOME too, for a user the system does not list (a container
    run as a bare uid, which needs root to make here): no user cache folder can be named, so
    a check runs without one, and gc says why."""
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)

    def unknown(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", unknown)
    root = golden_set(tmp_path / "set")
    done = run_cli("check", "--repo", root)
    assert done.exit_code == 0, done.stderr
    swept = run_cli("gc")
    assert swept.exit_code == 2
    assert swept.stderr == (
        "error: no user cache folder: neither XDG_CACHE_HOME nor HOME is set, and the system "
        "names no home folder for this user; set XDG_CACHE_HOME to a folder of yours\n"
    )
