from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.config import ABSTAIN_PATTERNS, find_root, load_config
from goldcase.errors import GoldcaseError
from kit import git_set, goldcase, write


def test_defaults_without_a_config(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert (config.cases, config.corpus, config.prompts) == ("cases", "corpus", "prompts")
    assert config.slice_floor("anything") == 20
    assert config.split.fraction == 0.4


def test_goldcase_toml(tmp_path: Path) -> None:
    (tmp_path / "goldcase.toml").write_text(
        'corpus = "docs"\nambiguous_slices = ["edge"]\n'
        "[slices.returns]\nfloor = 30\ntraffic = 0.25\n"
        "[split]\nseed = 7\n[composition]\nsynthetic_cap = 0.25\n"
    )
    config = load_config(tmp_path)
    assert config.corpus_dir == tmp_path.resolve() / "docs"
    assert config.slice_floor("returns") == 30
    assert config.slices["returns"].traffic == 0.25
    assert config.split.seed == 7
    assert config.ambiguous_slices == ("edge",)
    assert config.composition.synthetic_cap == 0.25


def test_pyproject_tool_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.goldcase]\ncases = "golden-cases"\n')
    assert load_config(tmp_path).cases == "golden-cases"
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_root(nested) == tmp_path.resolve()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cases = 3\n", "cases should be str, got int"),
        ('corpus = "../elsewhere"\n', "must be a folder inside the repository"),
        ("[split]\nsed = 1\n", "unknown key 'sed'"),
        ('[severity]\nGC303 = "loud"\n', "severity.GC303 is 'loud'"),
        ("[slices.returns]\ntraffic = 2\n", "traffic should be between 0 and 1"),
        ("[split]\nseed = true\n", "seed should be int, got bool"),
        ('[run]\nabstain_patterns = "x"\n', "abstain_patterns should be list, got str"),
        ('[run]\nabstain_patterns = ["("]\n', "'(' is not a regular expression"),
        ('[run]\nabstain_patterns = ["(?P<x>a)"]\n', "uses syntax JavaScript reads otherwise"),
        ('[run]\nabstain_patterns = ["(?i)a"]\n', "uses syntax JavaScript reads otherwise"),
        ('[run]\nabstain_patterns = [""]\n', "non-empty regular expressions"),
        ("[run]\nabstain = []\n", "unknown key 'abstain'"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "goldcase.toml").write_text(text)
    with pytest.raises(GoldcaseError, match=message.replace("(", r"\(")):
        load_config(tmp_path)


def test_run_abstain_patterns_default_and_configured(tmp_path: Path) -> None:
    assert load_config(tmp_path).run.abstain_patterns == ABSTAIN_PATTERNS
    (tmp_path / "goldcase.toml").write_text("[run]\nabstain_patterns = ['^no idea', 'n/a']\n")
    assert load_config(tmp_path).run.abstain_patterns == ("^no idea", "n/a")


def test_no_repository_found(tmp_path: Path) -> None:
    with pytest.raises(GoldcaseError, match="no golden-set repository"):
        find_root(tmp_path)


@pytest.mark.parametrize(
    "pattern",
    [
        "(a+)+$",
        "(a|aa)+$",
        "(a|a)*x",
        r"(\w+\s?)*\.",
        "((ab)*c)+",
        "(?:x|y){2,}z",
        "(?:a*)*b",
        "((a)+)+",
    ],
)
def test_an_abstain_pattern_that_backtracks_exponentially_is_refused(
    tmp_path: Path, pattern: str
) -> None:
    """A repeated group that holds a repeat or an alternation takes exponential time in a
    backtracking engine (Python's and the exported grader's JavaScript): "(a|aa)+$" on 40
    letters a and a "!" never ends, so one line in goldcase.toml hung every run and score."""
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n")
    with pytest.raises(GoldcaseError, match="repeats a group that itself repeats or alternates"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    "pattern",
    [
        *ABSTAIN_PATTERNS,
        r"^(?:sorry\W+)?no idea",
        r"[(a+)+]x",
        r"\(a+\)+",
        r"(?:do not|don't) know",
        "(ab)+c",
        "(?:no){1}",
        "(a+)?b",
    ],
)
def test_abstain_patterns_without_nested_repeats_are_accepted(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n")
    assert load_config(tmp_path).run.abstain_patterns == (pattern,)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("know(?=\\.)", "invalid perl operator: (?="),
        ("(?<!not )sure", "invalid perl operator: (?<!"),
        ("(no)\\W+\\1", "invalid escape sequence: \\1"),
        ("don\\u2019t", "invalid escape sequence: \\u"),
        ("a{1001}", "invalid repetition size: {1001}"),
    ],
)
def test_an_abstain_pattern_re2_cannot_read_is_refused(
    tmp_path: Path, pattern: str, reason: str
) -> None:
    """goldcase searches the patterns with RE2, in time linear in the answer: what RE2 has no
    linear-time match for (lookarounds, backreferences) is refused as the config is read,
    naming the file, the key and what to write instead."""
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n")
    with pytest.raises(GoldcaseError) as raised:
        load_config(tmp_path)
    assert str(raised.value) == (
        f"goldcase.toml: run.abstain_patterns: {pattern!r} cannot be searched in time linear "
        f"in the answer (RE2: {reason}); write it without backreferences (\\1) or lookarounds "
        "((?=, (?!, (?<=, (?<!), a \\u escape as the character itself, repeat counts up to 1000"
    )


@pytest.mark.parametrize(
    "pattern", ["\\a", "[\\a]", "[]a]", "[^]a]", "[[:alpha:]]+", "[[a]", "[a--b]"]
)
def test_an_abstain_pattern_re2_and_javascript_read_otherwise_is_refused(
    tmp_path: Path, pattern: str
) -> None:
    """RE2 reads \\a as a bell, ] first in a class as a bracket and [:alpha:] as letters;
    JavaScript reads the letter a, an empty class, and the characters [:ahlp."""
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n")
    with pytest.raises(GoldcaseError, match="uses syntax JavaScript reads otherwise"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    "pattern", ["\\\\a", "[a\\]]", "\\[:alpha:\\]", "[:alpha:]", "no\\s+idea$"]
)
def test_abstain_patterns_all_three_engines_read_alike_are_accepted(
    tmp_path: Path, pattern: str
) -> None:
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n")
    assert load_config(tmp_path).run.abstain_patterns == (pattern,)


def test_abstain_patterns_too_large_together_are_refused(tmp_path: Path) -> None:
    """The time to search an answer is linear in its length times the size of the patterns'
    program: each of these is accepted alone, not all three."""
    patterns = ["[a-z]{40}!", "\\w{40}#", "[a-z]{40}\\d"]
    for pattern in patterns:
        (tmp_path / "goldcase.toml").write_text(
            f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n"
        )
        assert load_config(tmp_path).run.abstain_patterns == (pattern,)
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = {json.dumps(patterns)}\n")
    with pytest.raises(
        GoldcaseError,
        match=r"goldcase\.toml: run\.abstain_patterns: the patterns "
        r"compile to [0-9]+ RE2 instructions, over 600",
    ):
        load_config(tmp_path)


def test_a_pattern_set_that_costs_seconds_per_megabyte_is_refused(tmp_path: Path) -> None:
    """At 1000 instructions a set made to defeat RE2's automaton cost some 5 to 11 s per MB of
    answer (a[ab]{400}! on letters a and b drawn at random), so one long answer kept
    goldcase score busy for minutes; docs/run.md gives the cap of 600 instructions."""
    git_set(tmp_path)
    write(tmp_path, "goldcase.toml", '[run]\nabstain_patterns = ["a[ab]{700}!"]\n')
    result = goldcase(tmp_path, "stats")
    assert result.returncode == 2
    assert result.stderr == (
        "error: goldcase.toml: run.abstain_patterns: the patterns compile to 706 RE2 "
        "instructions, over 600 (at worst the time to search an answer is its length times "
        "this size); shorten them, lower their repeat counts ([a-z]{30} counts its class 30 "
        "times) or drop one\n"
    )


@pytest.mark.parametrize(
    "patterns",
    [
        [*ABSTAIN_PATTERNS, "^(?:sorry\\W+)?no idea", "no\\s+idea$"],
        [
            *ABSTAIN_PATTERNS,
            "unable to (?:find|answer|determine)",
            "no (?:relevant )?information (?:about|on|regarding)",
        ],
        ["^(no|not) (idea|sure)", "(i|we) (cannot|can't) (say|tell)", "(n/a)"],
    ],
    ids=["defaults-and-two-more", "defaults-and-two-phrases", "groups"],
)
def test_ordinary_pattern_sets_fit_under_the_cap(tmp_path: Path, patterns: list[str]) -> None:
    """The defaults and two phrases of the docs fit; a group costs no instruction (only
    whether a pattern matches counts)."""
    (tmp_path / "goldcase.toml").write_text(f"[run]\nabstain_patterns = {json.dumps(patterns)}\n")
    assert load_config(tmp_path).run.abstain_patterns == tuple(patterns)


@pytest.mark.parametrize("name", ["goldcase.toml", "pyproject.toml"])
@pytest.mark.parametrize(
    "value", ["[" * 100_000 + "]" * 100_000, "{a=" * 5_000 + "1" + "}" * 5_000]
)
def test_a_config_nested_too_deeply_is_a_clear_error(tmp_path: Path, name: str, value: str) -> None:
    """tomllib reads arrays and inline tables by recursion: a config a branch nested a
    hundred thousand deep ended in ``internal error: RecursionError``."""
    git_set(tmp_path)
    table = "[tool.goldcase]\n" if name == "pyproject.toml" else ""
    if name == "pyproject.toml":
        (tmp_path / "goldcase.toml").unlink()
    write(tmp_path, name, f"{table}x = {value}\n")
    result = goldcase(tmp_path, "stats")
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {tmp_path.resolve() / name}: invalid TOML: nested")
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


@pytest.mark.parametrize("name", ["goldcase.toml", "pyproject.toml"])
@pytest.mark.parametrize("key", ["[split]\nseed", "[slices.x]\nfloor", "[leakage]\nngram"])
def test_a_number_of_thousands_of_digits_is_a_clear_error(
    tmp_path: Path, name: str, key: str
) -> None:
    """tomllib turns digits into an int, which refuses more than 4,300 of them with a
    ValueError that is no TOMLDecodeError: a stranger's config stopped ``stats``, ``split``,
    ``agreement`` and ``check`` with ``internal error: ValueError``."""
    git_set(tmp_path)
    table = "[tool.goldcase]\n" if name == "pyproject.toml" else ""
    if name == "pyproject.toml":
        (tmp_path / "goldcase.toml").unlink()
        key = key.replace("[", "[tool.goldcase.")
    write(tmp_path, name, f"{table}{key} = 1{'0' * 5_000}\n")
    for command in ("stats", "split", "agreement"):
        result = goldcase(tmp_path, command)
        assert result.returncode == 2
        assert result.stderr == (
            f"error: {tmp_path.resolve() / name}: invalid TOML: a number of more than 4,300 "
            "digits; no setting takes one\n"
        )


CREDENTIAL = "AUTHORIZATION: basic c2VjcmV0LXRva2Vu"


def _with_credential(root: Path) -> None:
    """A clone whose git config holds a credential, as actions/checkout leaves it."""
    git_set(root)
    subprocess.run(
        ["git", "config", "http.https://github.com/.extraheader", CREDENTIAL], cwd=root, check=True
    )


@pytest.mark.parametrize(
    ("config", "link", "message"),
    [
        ('corpus = ".git"\n', None, "corpus = '.git' is in git's own folder"),
        ('cases = ".git/sets"\n', None, "cases = '.git/sets' is in git's own folder"),
        ('prompts = "app/.GIT"\n', None, "prompts = 'app/.GIT' is in git's own folder"),
        ('corpus = "docs"\n', "docs", "docs is a link that leads into git's own folder"),
    ],
)
def test_a_folder_in_git_s_own_folder_is_refused(
    tmp_path: Path, config: str, link: str | None, message: str
) -> None:
    """A branch setting ``corpus = ".git"`` (and quoting a line of its config) had check print
    the line, credentials included, as the closest passage, and review post it."""
    _with_credential(tmp_path)
    if link is not None:
        (tmp_path / link).symlink_to(".git")
    write(tmp_path, "goldcase.toml", config)
    write(
        tmp_path,
        "cases/golden/ret-001.yaml",
        "id: ret-001\nquestion: What is the header?\nanswerable: true\nexpected_answer: basic\n"
        "support:\n  - doc: config\n    quote: AUTHORIZATION basic token\n",
    )
    for command in ("check", "review"):
        result = goldcase(tmp_path, command)
        assert result.returncode == 2, result.stdout + result.stderr
        assert message in result.stderr
        assert "c2VjcmV0LXRva2Vu" not in result.stdout + result.stderr


BIG = "1" + "0" * 399  # a number of 400 digits


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"[leakage]\nnum_perm = {BIG}\n", f"leakage.num_perm is {BIG[:79]}…; expected a value"),
        (f"[split]\nfraction = {BIG}\n", f"split.fraction is {BIG[:79]}…; expected a value"),
        (f"[severity]\nGC101 = {BIG}\n", f"severity.GC101 is {BIG[:79]}…; expected one of"),
        (f'[run]\n"{BIG}" = 1\n', f"unknown key '{BIG[:78]}…; known keys"),
    ],
)
def test_a_number_of_400_digits_is_quoted_cut(tmp_path: Path, text: str, message: str) -> None:
    """A config is anyone's text: a value it holds is quoted cut at 80 characters."""
    (tmp_path / "goldcase.toml").write_text(text)
    with pytest.raises(GoldcaseError) as caught:
        load_config(tmp_path)
    assert message in str(caught.value)
    assert BIG not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "make", "why"),
    [
        ("goldcase.toml", os.mkfifo, "is a FIFO (named pipe), not a regular file"),
        ("goldcase.toml", Path.mkdir, "is a folder"),
        ("goldcase.toml", lambda p: p.symlink_to("nowhere.toml"), "is a broken link"),
        ("pyproject.toml", os.mkfifo, "is a FIFO (named pipe), not a regular file"),
    ],
)
def test_a_config_that_is_no_file_is_an_error_not_the_defaults(
    tmp_path: Path, name: str, make: Callable[[Path], object], why: str
) -> None:
    """A config file in place but not readable as one (a branch committed a link to nothing,
    a FIFO was made there) was passed over: the defaults' split, seed and threshold were
    used, silently, instead of the team's."""
    make(tmp_path / name)
    with pytest.raises(GoldcaseError) as caught:
        load_config(tmp_path)
    fix = "make it a TOML file" + (", or remove it to take the defaults" if "gold" in name else "")
    shown = tmp_path.resolve() / name
    assert caught.value.message == f"{shown}: cannot read the config: {why}; {fix}"


def test_a_broken_config_in_a_subfolder_of_a_git_repository_marks_the_set(tmp_path: Path) -> None:
    """A set in a subfolder of a repository, its goldcase.toml a link to nothing: the root
    was taken to be git's top (no config there), and the defaults used, exit 0."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "goldcase.toml").symlink_to("nowhere.toml")
    assert find_root(tmp_path / "evals" / "cases") == (tmp_path / "evals").resolve()
    with pytest.raises(GoldcaseError, match="cannot read the config: is a broken link"):
        load_config(find_root(tmp_path / "evals"))
