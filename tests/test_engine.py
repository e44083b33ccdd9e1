"""The case cache: each case's hash is computed once when its file is parsed and kept with it;
a warm load serves unchanged files from the cache and never a changed one."""

from __future__ import annotations

import hashlib
from pathlib import Path

from goldcase.cache import Cache, decode
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import load_case_set
from goldcase.loader import set_digest
from goldcase.model import CaseSet
from kit import cache_folder, case_data, case_text, expected_case_hash, golden_set, write


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
