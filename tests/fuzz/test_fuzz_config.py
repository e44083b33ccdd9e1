"""Fuzz the configuration: ``config.load_config`` on goldcase.toml and on
``[tool.goldcase]`` in pyproject.toml, then ``goldcase check`` and ``goldcase stats`` with a
config that loaded (values of the right type may still be out of range)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.kit import REPO_ROOT, assert_handled, deadline, examples, goldcase, mutated, tiny_repo
from goldcase.config import Config, load_config
from goldcase.errors import GoldcaseError

SEEDS = [
    (REPO_ROOT / "goldcase.toml").read_bytes(),
    b"",
    b'cases = "cases"\ncorpus = "corpus"\nprivate = true\nambiguous_slices = ["a"]\n'
    b'[split]\nseed = 3\nfraction = 0.5\n[leakage]\nfewshot = ["prompts/**"]\n'
    b"near_threshold = 0.7\nnum_perm = 128\nshingle = 1\nngram = 13\n"
    b"[composition]\nslice_floor = 20\nsynthetic_cap = 0.2\nunanswerable_floor = 0.25\n"
    b'answer_max_words = 12\n[severity]\nGC303 = "error"\nGC501 = "off"\n',
]
SECTIONS: dict[str, tuple[str, ...]] = {
    "": ("cases", "corpus", "prompts", "private", "ambiguous_slices"),
    "split": ("seed", "fraction"),
    "leakage": ("fewshot", "near_threshold", "num_perm", "shingle", "ngram"),
    "composition": ("slice_floor", "synthetic_cap", "unanswerable_floor", "answer_max_words"),
    "severity": ("GC101", "GC202", "GC303", "GC501", "GC999"),
    "slices.returns": ("floor", "traffic"),
}
EDGE = st.one_of(
    st.sampled_from(
        [
            0,
            1,
            -1,
            2,
            10**6,
            2**63 - 1,
            0.0,
            1.0,
            1.5,
            -0.5,
            math.inf,
            -math.inf,
            math.nan,
            True,
            "",
            "x",
            "error",
            "off",
            "warning",
            "/abs",
            "..",
            "../up",
            "a/../..",
            "[",
            "**",
            "/**",
            "prompts/**",
            ["prompts/**"],
            ["/abs/**"],
            ["../**"],
            [],
            [1],
            ["a", "a"],
        ]
    ),
    st.integers(),
    st.floats(),
    st.text(max_size=10),
)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


@st.composite
def structured(draw: st.DrawFn) -> bytes:
    lines: list[str] = []
    for section in draw(st.lists(st.sampled_from(sorted(SECTIONS)), unique=True, max_size=4)):
        if section:
            lines.append(f"[{section}]")
        for key in draw(st.lists(st.sampled_from(SECTIONS[section]), unique=True, max_size=4)):
            lines.append(f'"{key}" = {_toml_value(draw(EDGE))}')
    if draw(st.booleans()):
        lines.insert(0, f'"{draw(st.text(max_size=6))}" = 1')
    return ("\n".join(line for line in lines if line.startswith("[") or "=" in line) + "\n").encode(
        "utf-8", "surrogatepass"
    )


CONFIG = st.one_of(mutated(SEEDS), structured())


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_repo(tmp_path_factory.mktemp("fuzz-config") / "repo")


def _load(root: Path) -> Config | None:
    with deadline():
        try:
            return load_config(root)
        except GoldcaseError as exc:
            assert exc.message and exc.exit_code == 2
            return None


@examples(150)
@given(raw=CONFIG)
def test_load_config_gives_a_config_or_an_error(repo: Path, raw: bytes) -> None:
    (repo / "goldcase.toml").write_bytes(raw)
    _load(repo)


PYPROJECT_SEEDS = [
    (REPO_ROOT / "pyproject.toml").read_bytes(),
    b'[project]\nname = "x"\n[tool.goldcase]\ncases = "cases"\n[tool.goldcase.split]\nseed = 1\n',
    b'tool = "x"\n',
    b"[tool]\ngoldcase = 3\n",
    b"[tool.goldcase]\nslices = 1\n",
]


@examples(60)
@given(raw=CONFIG, table=st.booleans(), pyproject=mutated(PYPROJECT_SEEDS))
def test_pyproject_tool_table(
    tmp_path_factory: pytest.TempPathFactory, raw: bytes, table: bool, pyproject: bytes
) -> None:
    root = tmp_path_factory.mktemp("pyproject")
    body = b"[project]\nname = 'x'\n[tool.goldcase]\n" + raw if table else pyproject
    (root / "pyproject.toml").write_bytes(body)
    _load(root)


@examples(40)
@given(raw=CONFIG, command=st.sampled_from(["check", "stats"]))
def test_commands_with_a_fuzzed_config(repo: Path, raw: bytes, command: str) -> None:
    (repo / "goldcase.toml").write_bytes(raw)
    extra = ["--no-cache"] if command == "check" else []
    assert_handled(goldcase(command, "--repo", repo, *extra))


# Inputs the fuzzer found (each crashed or hung before the fix), with the error they now give.
FOUND = [
    ("pyproject.toml", b'tool = "goldcase"\n', None),
    (
        "pyproject.toml",
        b"[tool]\ngoldcase = 3\n",
        "pyproject.toml: [tool.goldcase] should be a table, got int",
    ),
    (
        "goldcase.toml",
        b"[leakage]\nnum_perm = 0\n",
        "goldcase.toml: leakage.num_perm is 0; expected a value from 1 up to 4096",
    ),
    (
        "goldcase.toml",
        b'[leakage]\nfewshot = ["../**"]\n',
        "goldcase.toml: leakage.fewshot must be a folder inside the repository, got '../**'",
    ),
    (
        "goldcase.toml",
        b'[leakage]\nfewshot = ["/etc/**"]\n',
        "goldcase.toml: leakage.fewshot must be a folder inside the repository, got '/etc/**'",
    ),
    (
        "goldcase.toml",
        b"[leakage]\nfewshot = [1]\n",
        "goldcase.toml: leakage.fewshot should be a list of glob patterns",
    ),
    (
        "goldcase.toml",
        b"[split]\nfraction = nan\n",
        "goldcase.toml: split.fraction is nan; expected a value above 0.0 up to 1.0",
    ),
    (
        "goldcase.toml",
        b"[composition]\nsynthetic_cap = 1.5\n",
        "goldcase.toml: composition.synthetic_cap is 1.5; expected a value from 0.0 up to 1.0",
    ),
    (
        "goldcase.toml",
        b"[slices.returns]\nfloor = -1\n",
        "goldcase.toml: slices.returns.floor should be 0 or more",
    ),
]


@pytest.mark.parametrize(("name", "raw", "message"), FOUND)
def test_found_inputs(tmp_path: Path, name: str, raw: bytes, message: str | None) -> None:
    (tmp_path / name).write_bytes(raw)
    if message is None:
        assert load_config(tmp_path).source is None  # not a goldcase table: the defaults
        return
    with pytest.raises(GoldcaseError) as caught:
        load_config(tmp_path)
    assert caught.value.message == message
