"""goldcase review on real git histories: the Markdown a pull request gets, text, JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import DATA, run_cli

EXPECTED = DATA / "review"
QUIET = "\n".join(
    f'GC{n} = "off"' for n in (401, 402, 403, 404, 405, 501, 502, 503, 504, 506, 508)
)
CONFIG = f"# only the case files' own findings matter in these tests\n[severity]\n{QUIET}\n"

RET_001 = """\
id: ret-001
question: How many days does a customer have to request a credit for a damaged delivery?
answerable: true
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
expect:
  contains: ['14']
slice: returns
"""
RET_002 = """\
id: ret-002
question: How long are unused items returnable?
answerable: true
expected_answer: 30 days
support:
  - doc: returns-policy.md
    quote: Unused items may be returned within 30 days of delivery.
slice: returns
"""
UNA_001 = """\
id: una-001
question: Who founded the company?
answerable: false
slice: returns
"""
RET_003 = """\
id: ret-003
question: How long do I have to return a sale item?
answerable: true
expected_answer: 14 days
support:
  - doc: delivery.md
    quote: Orders over £50 ship free.
slice: returns
"""
RET_004 = """\
id: ret-004
question: How long is an undelivered parcel kept at the depot?
answerable: true
expected_answer: 7 days
support:
  - doc: delivery.md
    quote: Parcels we could not deliver are held at the depot for 7 days.
slice: returns
"""


def git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Test Author", GIT_AUTHOR_EMAIL="author@example.com",
               GIT_COMMITTER_NAME="Test Committer", GIT_COMMITTER_EMAIL="c@example.com",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
               GIT_CONFIG_NOSYSTEM="1", HOME=str(root.parent))
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True,
                          text=True)
    return done.stdout.strip()


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """main: four cases and version 1; the working tree on branch ``feature`` changes ret-001's
    expectations, breaks ret-002's quote, removes una-001, moves ret-003 from dev to golden,
    adds ret-004 and bumps the version to 2."""
    root = tmp_path / "set"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    shutil.copytree(DATA / "corpus", root / "corpus")
    write(root, {
        "goldcase.toml": CONFIG, "golden.version": "1\n",
        "cases/golden/ret-001.yaml": RET_001, "cases/golden/ret-002.yaml": RET_002,
        "cases/golden/una-001.yaml": UNA_001, "cases/dev/ret-003.yaml": RET_003,
    })
    commit(root, "base set")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, {
        "golden.version": "2\n",
        "cases/golden/ret-001.yaml": RET_001.replace(
            "  contains: ['14']\n", "  contains: [['14', fourteen]]\n  not_contains: [30 days]\n"
        ),
        "cases/golden/ret-002.yaml": RET_002.replace("within 30 days of", "within 31 days of"),
        "cases/golden/ret-003.yaml": RET_003.replace(
            "Orders over £50 ship free.", "Items bought in a sale can be returned within 14 days."
        ),
        "cases/golden/ret-004.yaml": RET_004,
    })
    (root / "cases/golden/una-001.yaml").unlink()
    (root / "cases/dev/ret-003.yaml").unlink()
    return root


def expected(name: str, root: Path) -> str:
    text = (EXPECTED / name).read_text(encoding="utf-8")
    return text.replace("{main}", git(root, "rev-parse", "--short=7", "main"))


def test_markdown_review_of_a_branch_matches_the_hand_written_comment(history: Path) -> None:
    result = run_cli("review", "--repo", history, "--base", "main")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected("branch.expected.md", history)
