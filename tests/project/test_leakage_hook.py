"""End to end: a commit that adds a prompt file carrying a copied golden question is refused
by the real ``pre-commit``, with the finding line; the same commit without the copy passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit import GOLDCASE, PRE_COMMIT, git, git_set, run, write

pytestmark = pytest.mark.slow

CONFIG = f"""\
repos:
  - repo: local
    hooks:
      - id: goldcase-leakage
        name: goldcase leakage
        entry: "{GOLDCASE} check --select leakage"
        language: system
        files: ^(cases/.*\\.ya?ml|prompts/.*)$
        require_serial: true
"""


def test_commit_of_a_prompt_with_a_golden_question_is_refused(tmp_path: Path) -> None:
    root = git_set(tmp_path / "golden set")
    home = str(tmp_path / "pre-commit home")
    write(root, ".pre-commit-config.yaml", CONFIG)
    run([PRE_COMMIT, "install"], root, PRE_COMMIT_HOME=home)
    # ret-001 asks "How many days does a customer have to request a credit?"
    write(
        root,
        "prompts/system.md",
        "# Assistant\n\nExample: how many days does a CUSTOMER\n"
        "have to request a credit ? Answer: 14 days.\n",
    )
    git(root, "add", "prompts/system.md", ".pre-commit-config.yaml")
    refused = run(
        ["git", "commit", "--no-gpg-sign", "-m", "prompt"], root, check=False, PRE_COMMIT_HOME=home
    )
    output = refused.stdout + refused.stderr  # git shows the hook's output on stderr
    assert refused.returncode == 1
    assert "prompts/system.md:3:1: GC302 holds the question of golden case ret-001" in output
    assert "Failed" in output
    assert git(root, "log", "--format=%s").stdout.split() == ["golden", "set"]

    write(root, "prompts/system.md", "# Assistant\n\nAnswer from the documents only.\n")
    git(root, "add", "prompts/system.md")
    accepted = run(
        ["git", "commit", "--no-gpg-sign", "-m", "prompt"], root, check=False, PRE_COMMIT_HOME=home
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
