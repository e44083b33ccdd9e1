"""Which files are prompt files: the ``[leakage] fewshot`` globs, matched in time linear in
the pattern and the path whatever a branch's config holds."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, SupportsIndex

import pytest

from goldcase.leakage import prompts
from goldcase.leakage.prompts import Glob
from kit import git_set, goldcase, write


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("prompts/**", "prompts/a/b/c.md", True),
        ("prompts/**", "prompt/a.md", False),
        ("prompts/**", "prompts", False),
        ("**", "a.md", True),
        ("**/*.jinja", "app/t/x.jinja", True),
        ("**/*.jinja", "x.jinja", True),
        ("**/**/*.jinja", "x.jinja", True),
        ("a/**/b/**/c.md", "a/b/c.md", True),
        ("a/**/b/**/c.md", "a/x/b/y/z/c.md", True),
        ("a/**/b/**/c.md", "a/x/y/z/c.md", False),
        ("prompts/*.yaml", "prompts/a/b.yaml", False),
        ("prompts/*.yaml", "prompts/.yaml", True),
        ("prompts/*a*b*", "prompts/xaybz", True),
        ("prompts/*a*b*", "prompts/xbya", False),
        ("prompts/?.md", "prompts/ab.md", False),
        ("prompts/[!x]*.md", "prompts/a.md", True),
        ("prompts/[!x]*.md", "prompts/x.md", False),
        ("prompts/[ab].md", "prompts/b.md", True),
        ("prompts/a+b(c).md", "prompts/a+b(c).md", True),
    ],
)
def test_glob(pattern: str, path: str, matches: bool) -> None:
    assert Glob(pattern).match(path) is matches


HOSTILE = [
    "prompts/" + "*" * 40 + "q",  # each star could start anywhere in the name
    "prompts/" + "*a" * 30 + "q",
    "**/" * 40 + "q",  # each ** could take any number of folders
    "**/a/" * 20 + "q",
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("pattern", HOSTILE)
def test_a_hostile_fewshot_glob_does_not_hang_check(tmp_path: Path, pattern: str) -> None:
    """The globs were one backtracking regular expression: 24 stars before a letter no prompt
    file's name holds took 17 seconds on a prompt called fewshot.yaml, forty stars longer than
    anyone waits, on every commit (the leakage hook runs always)."""
    git_set(tmp_path)
    write(tmp_path, "goldcase.toml", f'[leakage]\nfewshot = ["{pattern}"]\n')
    write(tmp_path, "prompts/" + "a" * 60 + ".md", "nothing golden\n")
    write(tmp_path, "a/" * 40 + "b.md", "nothing golden\n")
    start = time.monotonic()
    result = goldcase(tmp_path, "check", "--select", "leakage")
    assert time.monotonic() - start < 30
    assert result.returncode == 0, result.stderr


class _Read(str):
    """A text that counts the characters its searches and counts may read."""

    read = 0

    def find(self, sub: str, start: SupportsIndex | None = None, *args: Any) -> int:
        _Read.read += len(self) - (0 if start is None else int(start))
        return str.find(self, sub, start, *args)

    def count(self, sub: str, start: SupportsIndex | None = None, *args: Any) -> int:
        _Read.read += len(self) if not args else int(args[0])
        return str.count(self, sub, start, *args)


def test_the_lines_of_a_json_prompt_file_s_strings_are_found_in_one_pass() -> None:
    """Each string of a JSON prompt file was searched for from the top, and the lines above it
    counted: an 870 kB list of 80,000 strings took 30 s, a 64 MiB file days."""
    values = [f"v{i}" for i in range(5000)]
    text = _Read(json.dumps(values, indent=1))
    _Read.read = 0
    examples, problem = prompts._json_examples(text)
    assert problem is None
    assert [(e.line, e.text) for e in examples] == [(i + 2, v) for i, v in enumerate(values)]
    assert _Read.read <= 2 * len(text)
