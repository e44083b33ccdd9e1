"""Fuzz golden.lock and golden.version: ``goldcase lock --check`` reports or refuses, and
``goldcase lock`` then leaves files that ``lock --check`` accepts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import assert_handled, examples, goldcase, mutated, mutated_tree, tiny_repo

VERSIONS = [
    b"1\n",
    b"2",
    b"1.4.2\n",
    b"v3\n",
    b"",
    b"\n\n",
    b"1\n2\n",
    b"-1\n",
    b"1e9\n",
    b"99999999999999999999999999\n",
    b"\xff\n",
    b"1\r\n",
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-lock") / "repo")


@st.composite
def damaged(draw: st.DrawFn, lock: bytes) -> tuple[bytes, bytes | None]:
    if draw(st.booleans()):
        new_lock = draw(mutated([lock]))
    else:
        tree = draw(mutated_tree(json.loads(lock), ("version", "set_digest", "corpus_digest")))
        new_lock = json.dumps(tree).encode("utf-8", "surrogatepass")
    version = draw(st.one_of(st.none(), mutated(VERSIONS)))
    return new_lock, version


@examples(40)
@given(data=st.data())
def test_lock_check_then_lock(
    pristine: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    root = tmp_path_factory.mktemp("lock") / "repo"
    shutil.copytree(pristine, root)
    new_lock, version = data.draw(damaged((pristine / "golden.lock").read_bytes()))
    (root / "golden.lock").write_bytes(new_lock)
    if version is not None:
        (root / "golden.version").write_bytes(version)
    assert_handled(goldcase("lock", "--check", "--repo", root))
    assert_handled(goldcase("check", "--repo", root, "--select", "version", "--no-cache"))
    fixed = goldcase("lock", "--repo", root)
    assert_handled(fixed)
    if fixed.exit_code in (0, 1):
        after = goldcase("lock", "--check", "--repo", root)
        assert after.exit_code == 0, (fixed.stdout, after.stdout, after.stderr)


def test_found_version_with_a_carriage_return(pristine: Path, tmp_path: Path) -> None:
    """Found by the long run: a lock whose version is "1\\r" was rewritten as is, and
    golden.version (read as "1") never matched it again."""
    root = tmp_path / "repo"
    shutil.copytree(pristine, root)
    lock = json.loads((root / "golden.lock").read_text(encoding="utf-8"))
    lock["version"] = "1\r"
    (root / "golden.lock").write_text(json.dumps(lock), encoding="utf-8")
    check = goldcase("lock", "--check", "--repo", root)
    assert check.exit_code == 1
    assert check.stdout.splitlines()[0] == (
        "golden.lock:1:1: GC404 golden.lock: version '1\\r' is not one golden.version could "
        "hold (one line, no surrounding spaces); run goldcase lock to rewrite it"
    )
    assert goldcase("lock", "--repo", root).exit_code == 1
    assert goldcase("lock", "--check", "--repo", root).exit_code == 0
