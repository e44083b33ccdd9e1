"""The case cache: each case's hash is computed once when its file is parsed and kept with it;
a warm load serves unchanged files from the cache and never a changed one."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from goldcase import engine
from goldcase.cache import Cache, decode
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.loader import set_digest
from goldcase.model import CaseSet
from kit import cache_folder, case_data, case_text, expected_case_hash, golden_set, run_cli, write


def _load(root: Path) -> CaseSet:
    config = load_config(root)
    ctx = Context(config, Cache.for_repository(root))
    case_set = load_case_set(ctx)
    ctx.cache.save()
    return case_set


def _hand_digest(ids: tuple[str, ...]) -> str:
    lines = "".join(f"{i}\t{expected_case_hash(case_data(i))}\n" for i in sorted(ids))
    return hashlib.sha256(lines.encode()).hexdigest()


def test_the_case_hash_is_kept_with_the_parsed_case(tmp_path: Path) -> None:
    golden_set(tmp_path)
    for case_set in (_load(tmp_path), _load(tmp_path)):  # cold, then from the cache
        hashes = {c.id: c.hash for c in case_set.golden}
        assert hashes == {i: expected_case_hash(case_data(i)) for i in ("ret-001", "ret-002")}
        assert set_digest(case_set.golden) == _hand_digest(("ret-001", "ret-002"))


def test_a_warm_load_gives_the_same_cases_as_a_cold_one(tmp_path: Path) -> None:
    golden_set(tmp_path)
    cold = _load(tmp_path)
    warm = _load(tmp_path)
    assert [(c.path, c.split, c.data, c.digest) for c in warm.files] == [
        (c.path, c.split, c.data, c.digest) for c in cold.files
    ]
    assert warm.golden[0].data == case_data("ret-001")


def test_an_edited_case_is_parsed_again(tmp_path: Path) -> None:
    golden_set(tmp_path)
    _load(tmp_path)
    write(tmp_path, "cases/golden/ret-002.yaml", case_text("ret-002", answer="60 days"))
    case = {c.id: c for c in _load(tmp_path).golden}["ret-002"]
    edited = case_data("ret-002") | {"expected_answer": "60 days"}
    assert case.data == edited
    assert case.hash == expected_case_hash(edited)


def test_a_deleted_case_drops_out_of_the_cache_file(tmp_path: Path) -> None:
    golden_set(tmp_path)
    _load(tmp_path)
    (tmp_path / "cases/golden/ret-002.yaml").unlink()
    assert [c.id for c in _load(tmp_path).golden] == ["ret-001"]
    saved = decode((cache_folder(tmp_path) / "files.msgpack").read_bytes())
    assert sorted(saved) == ["cases/golden/ret-001.yaml"]


def test_an_unchanged_set_does_not_rewrite_the_cache(tmp_path: Path) -> None:
    golden_set(tmp_path)
    _load(tmp_path)
    pickled = cache_folder(tmp_path) / "files.msgpack"
    before = pickled.stat().st_mtime_ns, pickled.stat().st_ino
    _load(tmp_path)
    assert (pickled.stat().st_mtime_ns, pickled.stat().st_ino) == before


def test_cache_get_returns_what_put_stored_and_save_keeps_only_what_was_used(
    tmp_path: Path,
) -> None:
    first = Cache(tmp_path)
    first.put("ns", "a", 1)
    first.put("ns", "b", 2)
    first.save()
    second = Cache(tmp_path)
    assert second.get("ns", "a") == 1
    assert second.get("ns", "a") == 1  # a second read of the same key
    second.put("ns", "a", 3)
    assert second.get("ns", "a") == 3
    assert second.get("ns", "missing") is None
    second.save()
    assert Cache(tmp_path).get("ns", "a") == 3
    assert Cache(tmp_path).get("ns", "b") is None  # not read in the last run: dropped


def test_parsed_cases_are_built_once_and_shared_with_the_valid_ones(tmp_path: Path) -> None:
    golden_set(tmp_path)
    write(tmp_path, "cases/golden/ret-009.yaml", "id: ret-009\nquestion: 3\n")  # schema error
    case_set = _load(tmp_path)
    parsed = case_set.parsed
    assert parsed is case_set.parsed
    assert [c.id for c in parsed] == ["ret-001", "ret-002", "ret-009"]
    assert parsed[0] is case_set.cases[0] and parsed[1] is case_set.cases[1]
    assert [c.id for c in case_set.cases] == ["ret-001", "ret-002"]
    assert parsed[2].hash == ""  # an invalid case has no stored hash


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The case files the next loads read from disk."""
    seen: list[str] = []
    real = engine.read_regular

    def recording(path: Path | str, *args: object, **kwargs: object) -> bytes:
        seen.append(Path(path).name)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "read_regular", recording)
    return seen


def _age(path: Path, seconds: float = 10) -> None:
    """Make the file look written ``seconds`` ago (as a file is, long before the cache)."""
    then = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(then, then))


def test_a_file_older_than_the_cache_with_its_recorded_stat_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    golden_set(tmp_path)
    for path in (tmp_path / "cases" / "golden").iterdir():
        _age(path)
    _load(tmp_path)
    reads = _reads(monkeypatch)
    warm = _load(tmp_path)
    assert reads == []
    assert [c.id for c in warm.golden] == ["ret-001", "ret-002"]


def test_a_file_not_older_than_the_cache_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's racy-clean rule: a file modified in the same instant as the cache file was
    written may have changed after it was read, with the same stat."""
    golden_set(tmp_path)
    _load(tmp_path)
    cache_file = cache_folder(tmp_path) / "files.msgpack"
    racy = tmp_path / "cases" / "golden" / "ret-002.yaml"
    written = cache_file.stat().st_mtime_ns
    os.utime(racy, ns=(written, written))
    reads = _reads(monkeypatch)
    _load(tmp_path)
    assert "ret-002.yaml" in reads


def test_a_change_that_keeps_size_and_modification_time_is_seen(tmp_path: Path) -> None:
    """The signature holds the inode change time too, which no write can keep."""
    golden_set(tmp_path)
    path = tmp_path / "cases" / "golden" / "ret-002.yaml"
    _age(path)
    _load(tmp_path)
    before = path.stat()
    text = path.read_text()
    path.write_text(text.replace("ret-002", "ret-00X"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    ids = [c.data["id"] for c in _load(tmp_path).files if c.data]
    assert "ret-00X" in ids


def test_a_linked_case_file_is_always_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden_set(tmp_path)
    target = tmp_path / "cases" / "golden" / "ret-002.yaml"
    stored = tmp_path / "elsewhere.yaml"
    target.rename(stored)
    target.symlink_to(stored)
    _age(stored)
    _load(tmp_path)
    reads = _reads(monkeypatch)
    _load(tmp_path)
    assert "elsewhere.yaml" in reads or "ret-002.yaml" in reads


def test_a_case_cache_of_another_shape_is_read_as_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decoder checks every entry's shape as the cache is read: one entry of another
    shape (here a signature that is not four integers) and every file is read again."""
    golden_set(tmp_path)
    for path in (tmp_path / "cases" / "golden").iterdir():
        _age(path)
    _load(tmp_path)
    namespace = cache_folder(tmp_path) / "files.msgpack"
    saved = decode(namespace.read_bytes())
    namespace.unlink()  # written whole again below, the damaged entry inside
    cache = Cache.for_repository(tmp_path)
    digest, split, data, findings, case_hash, _ = saved["cases/golden/ret-002.yaml"]
    damaged = [digest, split, data, findings, case_hash, ["not", "a", "signature", 0]]
    for rel, entry in saved.items():
        cache.put("files", rel, damaged if rel.endswith("ret-002.yaml") else entry)
    cache.save()
    reads = _reads(monkeypatch)
    warm = _load(tmp_path)
    assert sorted(reads) == ["ret-001.yaml", "ret-002.yaml"]
    assert [c.data for c in warm.golden] == [case_data("ret-001"), case_data("ret-002")]


def test_a_case_file_whose_name_is_not_utf8_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    """Such a name cannot be written into a report, the cache or golden.lock: the file gets
    GC113 under its name with the odd byte escaped, from a whole check, a check of that file
    and a score, and every other family still runs."""
    golden_set(tmp_path)
    odd = os.fsencode(tmp_path / "cases" / "golden") + b"/ret-\xff.yaml"
    with open(odd, "wb") as handle:
        handle.write(case_text("ret-001").encode())
    shown = "cases/golden/ret-\\xff.yaml"
    finding = f"{shown}:1:1: GC113 the file's name is not UTF-8"
    whole = run_cli("check", "--repo", tmp_path)
    assert whole.exit_code == 1
    assert [line for line in whole.stdout.splitlines() if line.startswith(finding)]
    one = run_cli("check", "--repo", tmp_path, os.fsdecode(odd))
    assert one.exit_code == 1 and one.stdout.startswith(finding)
    write(tmp_path, "run.jsonl", '{"id": "ret-001", "outcome": "abstain"}\n')
    scored = run_cli("score", "--repo", tmp_path, tmp_path / "run.jsonl")
    assert scored.exit_code == 2 and f"{shown}:1: GC113" in scored.stderr
