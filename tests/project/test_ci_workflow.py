"""The GitHub Actions workflow in docs/ci.md: it parses, has the documented shape, and each of
its commands does what the workflow needs on a real clone with a pull-request branch."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kit import DATA, REPO_ROOT

DOC = REPO_ROOT / "docs" / "ci.md"
BIN = Path(sys.executable).parent
CASE = """\
id: {id}
question: {question}
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: {quote}
"""
RET_001 = CASE.format(
    id="ret-001",
    question="How long to ask for a credit?",
    quote="A customer has 14 days from delivery to request a credit",
)
RET_002 = CASE.format(
    id="ret-002",
    question="How long to return a sale item?",
    quote="Items bought in a sale can be returned within 14 days.",
)
HOOKS = """\
repos:
  - repo: local
    hooks:
      - id: goldcase-schema
        name: goldcase schema
        entry: goldcase check --select schema
        language: system
        files: ^cases/.*\\.ya?ml$
"""


def workflow() -> dict[Any, Any]:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1
    data: dict[Any, Any] = yaml.safe_load(blocks[0])
    return data


def steps() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = workflow()["jobs"]["goldcase"]["steps"]
    return found


def test_the_workflow_has_the_documented_shape() -> None:
    flow = workflow()
    assert flow[True] == {"pull_request": None}  # YAML 1.1 reads the key `on` as true
    assert flow["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert steps()[0] == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}
    runs = [s["run"].split()[0:2] for s in steps() if "run" in s]
    assert runs == [
        ["python", "-m"],
        ["pre-commit", "run"],
        ["goldcase", "lock"],
        ["goldcase", "check"],
        ["goldcase", "review"],
        ["gh", "pr"],
    ]
    assert all(s["if"].startswith("${{ !cancelled()") for s in steps()[4:])


def test_the_workflow_validates_against_the_github_workflow_schema(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    path = tmp_path / "golden-set.yml"
    path.write_text(blocks[0], encoding="utf-8")
    done = subprocess.run(
        [BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", path],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def run(cwd: Path, command: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    env.update(
        GIT_AUTHOR_NAME="A",
        GIT_AUTHOR_EMAIL="a@example.com",
        GIT_COMMITTER_NAME="C",
        GIT_COMMITTER_EMAIL="c@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        **extra,
    )
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A clone whose branch adds ret-002 (and bumps the version), as a pull request would."""
    upstream = tmp_path / "upstream"
    (upstream / "cases/golden").mkdir(parents=True)
    (upstream / "cases/dev").mkdir()
    (upstream / "corpus").mkdir()
    (upstream / "corpus/returns-policy.md").write_text(
        (DATA / "corpus/returns-policy.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (upstream / "goldcase.toml").write_text("", encoding="utf-8")
    (upstream / "cases/golden/ret-001.yaml").write_text(RET_001, encoding="utf-8")
    (upstream / ".pre-commit-config.yaml").write_text(HOOKS, encoding="utf-8")
    for command in (
        "git init -q -b main",
        "goldcase lock",
        "git add -A",
        "git commit -q --no-verify --no-gpg-sign -m set",
    ):
        assert run(upstream, command).returncode in (0, 1)
    clone = tmp_path / "clone"
    assert run(tmp_path, f"git clone -q {upstream} {clone}").returncode == 0
    (clone / "cases/golden/ret-002.yaml").write_text(RET_002, encoding="utf-8")
    for command in (
        "git checkout -q -b feature",
        "goldcase lock",
        "git add -A",
        "git commit -q --no-verify --no-gpg-sign -m 'add ret-002'",
    ):
        assert run(clone, command).returncode in (0, 1), command
    return clone


def step(name: str) -> str:
    return next(s["run"] for s in steps() if s.get("name") == name)


def test_each_goldcase_step_on_a_pull_request(pull_request: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    env = {
        "GITHUB_BASE_REF": "main",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"),
    }
    hooks = run(pull_request, step("pre-commit on the changed files"), **env)
    assert hooks.returncode == 0, hooks.stdout + hooks.stderr
    assert "goldcase schema" in hooks.stdout and "Passed" in hooks.stdout
    lock = run(pull_request, step("golden.lock matches the set"), **env)
    assert lock.returncode == 0, lock.stdout + lock.stderr
    check = run(pull_request, step("Findings as annotations"), **env)
    assert check.returncode == 0, check.stdout
    assert all(line.startswith("::warning ") for line in check.stdout.splitlines()[:-1])
    review = run(pull_request, step("Review of the changed cases"), **env)
    assert review.returncode == 0, review.stderr
    comment = (pull_request / "review.md").read_text(encoding="utf-8")
    assert summary.read_text(encoding="utf-8") == comment
    assert "golden.version moved: `1` → `2`." in comment
    assert "| `ret-002` | golden | added | — |" in comment
    assert "**Items bought in a sale can be returned within 14 days.**" in comment


def test_an_edit_without_a_bump_fails_the_lock_step_and_is_annotated(
    pull_request: Path, tmp_path: Path
) -> None:
    path = pull_request / "cases/golden/ret-001.yaml"
    path.write_text(RET_001.replace("14 days\n", "fourteen days\n"), encoding="utf-8")
    lock = run(pull_request, step("golden.lock matches the set"))
    assert lock.returncode == 1
    assert "GC401" in lock.stdout
    check = run(pull_request, step("Findings as annotations"))
    assert check.returncode == 1
    assert any(
        line.startswith("::error ") and "GC401" in line for line in check.stdout.splitlines()
    )
