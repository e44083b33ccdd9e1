"""Fuzz each importer: ``goldcase import --format jsonl|squad|promptfoo FILE --out DIR``.
Seeds: the three-case repository exported as JSONL and promptfoo, a hand-made SQuAD file, and
(when ../shared/realdata is there) the first articles of SQuAD 2.0 and XQuAD and the promptfoo
example."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz import kit as fuzzkit
from fuzz.kit import (
    assert_handled,
    assert_handled_subprocess,
    examples,
    goldcase,
    mutated,
    mutated_tree,
    realdata,
    run_bounded,
    squad_seeds,
    tiny_repo,
)

_COUNTER = itertools.count()
BOMB = (
    "tests:\n  - vars: {question: q}\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10))
    + "defaultTest: {vars: {q: *a9}}\n"
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the seeds: set.jsonl with corpus/ beside it, promptfoo.yaml with its
    documents, squad-*.json."""
    folder = tmp_path_factory.mktemp("fuzz-import")
    repo = tiny_repo(folder / "repo")
    for fmt, name in (("jsonl", "set.jsonl"), ("promptfoo", "promptfoo.yaml")):
        done = goldcase("export", "--repo", repo, "--format", fmt, "--out", folder / name)
        assert done.exit_code == 0, done.stderr
    shutil.copytree(repo / "corpus", folder / "corpus")
    example = realdata("promptfoo-rag-eval")
    if example is not None:
        shutil.copy(example / "promptfooconfig.yaml", folder / "promptfoo-real.yaml")
        shutil.copytree(example / "docs", folder / "docs")
    for number, raw in enumerate(squad_seeds()):
        (folder / f"squad-{number}.json").write_bytes(raw)
    (folder / "bomb.yaml").write_text(BOMB, encoding="utf-8")
    return folder


_SEEDS: dict[tuple[Path, str], list[bytes]] = {}


def _seeds(folder: Path, fmt: str) -> list[bytes]:
    """The seed files, read once: the fuzzed inputs written beside them must not become
    seeds (hypothesis needs the same strategy on every run)."""
    if (folder, fmt) not in _SEEDS:
        pattern = {"jsonl": "set.jsonl", "squad": "squad-*.json", "promptfoo": "*.yaml"}[fmt]
        _SEEDS[folder, fmt] = [p.read_bytes() for p in sorted(folder.glob(pattern))]
    return _SEEDS[folder, fmt]


def _fuzzed(data: st.DataObject, seeds: list[bytes], fmt: str) -> bytes:
    if fmt == "promptfoo" or data.draw(st.booleans()):
        return data.draw(mutated(seeds))
    if fmt == "jsonl":
        lines = [json.loads(line) for line in seeds[0].splitlines() if line.strip()]
        tree = data.draw(mutated_tree(lines))
        return "\n".join(json.dumps(x) for x in tree).encode("utf-8", "surrogatepass")
    tree = data.draw(mutated_tree(json.loads(data.draw(st.sampled_from(seeds)))))
    return json.dumps(tree).encode("utf-8", "surrogatepass")


def _import(folder: Path, fmt: str, raw: bytes) -> tuple[Path, list[str]]:
    number = next(_COUNTER)
    source = (
        folder / f"fuzzed-{number}.{'json' if fmt == 'squad' else fmt.replace('promptfoo', 'yaml')}"
    )
    source.write_bytes(raw)
    return source, ["import", "--format", fmt, "--out", str(folder / f"out-{number}"), str(source)]


@pytest.mark.parametrize("fmt", ["jsonl", "squad", "promptfoo"])
def test_seeds_import(workdir: Path, fmt: str) -> None:
    seeds = _seeds(workdir, fmt)
    assert seeds
    for raw in seeds:
        source, args = _import(workdir, fmt, raw)
        result = goldcase(*args)
        assert_handled(result)
        if source.read_bytes() != BOMB.encode():
            assert result.exit_code in (0, 1), result.stderr


@pytest.mark.parametrize("fmt", ["jsonl", "squad", "promptfoo"])
@examples(15)
@given(data=st.data())
def test_import(workdir: Path, fmt: str, data: st.DataObject) -> None:
    raw = _fuzzed(data, _seeds(workdir, fmt), fmt)
    source, args = _import(workdir, fmt, raw)
    try:
        assert_handled(goldcase(*args))
    finally:
        shutil.rmtree(args[4], ignore_errors=True)
        source.unlink()


@pytest.mark.parametrize("fmt", ["jsonl", "squad", "promptfoo"])
@examples(1)
@given(data=st.data())
def test_import_in_a_bounded_subprocess(workdir: Path, fmt: str, data: st.DataObject) -> None:
    raw = _fuzzed(data, _seeds(workdir, fmt), fmt)
    _, args = _import(workdir, fmt, raw)
    assert_handled_subprocess(run_bounded(args, cwd=workdir))


def test_alias_bomb_is_refused_fast(workdir: Path) -> None:
    """Found by the seeds above: nine levels of aliases (9**10 values) hung the importer."""
    result = goldcase(
        "import", "--format", "promptfoo", "--out", workdir / "bomb-out", workdir / "bomb.yaml"
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {workdir / 'bomb.yaml'}: the config expands to more than 1,000,000 values "
        "(aliases repeating aliases?); write it out plainly\n"
    )
    assert not (workdir / "bomb-out").exists()


def test_found_path_out_of_the_output_folder(workdir: Path) -> None:
    """Found while fuzzing: a JSONL id such as ../../x named a file outside --out."""
    source = workdir / "escape.jsonl"
    escape = workdir.parent / "escaped.yaml"
    source.write_text(
        '{"id": "../../escaped", "question": "q", "answerable": false}\n'
        '{"id": "/tmp/absolute", "question": "q2", "answerable": false}\n'
        '{"id": "ok-1", "question": "q3", "answerable": false}\n',
        encoding="utf-8",
    )
    out = workdir / "escape-out"
    result = goldcase("import", "--format", "jsonl", "--out", out, source)
    assert_handled(result)
    assert not escape.exists() and not Path("/tmp/absolute.yaml").exists()
    assert sorted(p.name for p in (out / "cases/golden").iterdir()) == ["ok-1.yaml"]


def test_found_lone_surrogate_in_squad(workdir: Path) -> None:
    """Found by the long run: a "\\ud800" escape in a SQuAD context crashed the writer."""
    source = workdir / "surrogate.json"
    squad = json.loads(json.dumps(fuzzkit.SQUAD_MINI))
    squad["data"][0]["paragraphs"][0]["context"] = (
        "\ud800" + squad["data"][0]["paragraphs"][0]["context"]
    )
    source.write_text(json.dumps(squad), encoding="utf-8")
    result = goldcase("import", "--format", "squad", "--out", workdir / "surrogate-out", source)
    assert result.exit_code == 2
    assert result.stderr == (
        "error: document Returns-001.txt holds '\\ud800', half of a UTF-16 surrogate pair, "
        "which is not text; fix the escape in the source file\n"
    )


@pytest.mark.parametrize(
    "squad",
    [
        {"version": "v2.0", "data": [{"title": "Returns", "paragraphs": True}]},
        {"data": [{"paragraphs": [{"context": "The cat sat.", "qas": 5}]}]},
        {
            "data": [
                {
                    "paragraphs": [
                        {
                            "context": "The cat sat.",
                            "qas": [{"id": "q", "question": "Who?", "answers": 7}],
                        }
                    ]
                }
            ]
        },
    ],
    ids=["paragraphs-true", "qas-number", "answers-number"],
)
def test_found_squad_values_of_the_wrong_type(workdir: Path, squad: dict[str, object]) -> None:
    """Found by the long run: a list that is a boolean or a number raised TypeError."""
    source = workdir / f"wrong-type-{next(_COUNTER)}.json"
    source.write_text(json.dumps(squad), encoding="utf-8")
    result = goldcase(
        "import", "--format", "squad", "--out", workdir / f"{source.stem}-out", source
    )
    assert_handled(result)
    if result.exit_code == 2:
        assert result.stderr == f"error: {source}: no case could be read; nothing was written\n"


def test_found_alias_bomb_of_long_strings(workdir: Path) -> None:
    """Found by the long run: aliases of lists of 5,000-character strings stayed under the
    count of values but copied gigabytes (a hang); long strings now count by their length."""
    long = "x" * 5000
    lines = ["tests:", "  - vars: {question: q}", f"x0: &a0 [{', '.join([long] * 9)}]"]
    lines += [f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 7)]
    source = workdir / "long-bomb.yaml"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = goldcase("import", "--format", "promptfoo", "--out", workdir / "lb-out", source)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {source}: the config expands to more than 1,000,000 values "
        "(aliases repeating aliases?); write it out plainly\n"
    )


@pytest.mark.parametrize(
    "config",
    [
        "tests:\n  - vars: hello\n",
        "tests:\n  - vars: [1, 2]\n",
        "tests:\n  - vars: {question: q}\n    assert: 5\n",
        "defaultTest: {vars: x, assert: 3}\ntests:\n  - vars: {question: q}\n",
    ],
    ids=["vars-string", "vars-list", "assert-number", "default-wrong-types"],
)
def test_found_promptfoo_values_of_the_wrong_type(workdir: Path, config: str) -> None:
    """Found by the long run: ``vars`` that is not a mapping raised TypeError."""
    source = workdir / f"wrong-type-{next(_COUNTER)}.yaml"
    source.write_text(config, encoding="utf-8")
    result = goldcase(
        "import", "--format", "promptfoo", "--out", workdir / f"{source.stem}-out", source
    )
    assert_handled(result)
