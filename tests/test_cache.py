"""``goldcase.cache``: keyed by goldcase's version and source content (two installs of one
version share it), written by every command that fills it, data only."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import goldcase
from goldcase.cache import Cache, decode, encode
from kit import cache_folder, golden_set, run_cli

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
