"""Helpers shared by the robustness tests: goldcase and git as subprocesses with a fixed
identity, and small golden sets written from scratch."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

GOLDCASE = str(Path(sys.executable).parent / "goldcase")
QUOTE = "A customer has 14 days from delivery to request a credit"
DOCUMENT = f"# Returns\n\n{QUOTE} for a damaged delivery.\n"


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    out.update(
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_COMMITTER_NAME="Test Committer",
        GIT_COMMITTER_EMAIL="committer@example.com",
        GIT_CONFIG_NOSYSTEM="1",
    )
    return out


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([GOLDCASE, *args], cwd=cwd, env=env(), capture_output=True, timeout=300)


def git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(["git", *args], cwd=root, env=env(), capture_output=True, timeout=120)
    assert done.returncode == 0, (args, done.stderr.decode())
    return done


def commit(root: Path, message: str = "change") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)


def make_set(root: Path, cases: int, body: Callable[[str], str]) -> None:
    (root / "corpus").mkdir(parents=True)
    (root / "corpus/returns-policy.md").write_text(DOCUMENT, encoding="utf-8")
    (root / "cases/dev").mkdir(parents=True)
    (root / "cases/golden").mkdir(parents=True)
    (root / "goldcase.toml").write_text("", encoding="utf-8")
    for number in range(1, cases + 1):
        case_id = f"ret-{number:03d}"
        (root / f"cases/golden/{case_id}.yaml").write_text(body(case_id), encoding="utf-8")


def canonical(case_id: str) -> str:
    return (
        f"id: {case_id}\nquestion: How many days for a credit, case {case_id}?\n"
        f"expected_answer: 14 days\nsupport:\n  - doc: returns-policy.md\n"
        f"    quote: {QUOTE}\nslice: returns\nsource: hand-written\n"
    )
