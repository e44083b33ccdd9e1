"""Helpers for the whole suite: the test data, ``goldcase`` run in-process, and tests on real
git repositories (a small golden set, git with a fixed identity, and ``goldcase`` as a
subprocess with this environment's ``bin`` first on PATH)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, SupportsIndex

import pytest
from click.testing import CliRunner

from goldcase import engine
from goldcase.cli import main
from goldcase.context import Context

BIN = Path(sys.executable).parent
GOLDCASE = BIN / "goldcase"
PRE_COMMIT = BIN / "pre-commit"
REPO_ROOT = Path(__file__).resolve().parent.parent
DATA = REPO_ROOT / "tests" / "data"
REALDATA = REPO_ROOT.parent / "shared" / "realdata"


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str


def cache_folder(root: Path) -> Path:
    """Where goldcase keeps the cache of the repository at ``root`` (this goldcase's folder);
    the suite's own user cache folder is set in conftest.py."""
    from goldcase.cache import code_salt, location

    base = location(root)
    assert base is not None
    return base / code_salt()


def cached_table(root: Path, namespace: str) -> dict[str, Any]:
    """A namespace of the repository's cache as goldcase reads it: its file, then the
    records its journal holds (a run that looked at part of the set appends there)."""
    from goldcase.cache import decode, journal_records

    folder = cache_folder(root)
    table = decode((folder / f"{namespace}.msgpack").read_bytes())
    journal = folder / f"{namespace}.journal"
    for record in journal_records(journal.read_bytes() if journal.exists() else b""):
        table.update(decode(record))
    return table


def run_cli(*args: str | Path) -> Result:
    """Run ``goldcase`` in-process and return its exit status and both streams."""
    runner = CliRunner()
    captured: dict[str, int] = {}

    def invoke() -> None:
        captured["code"] = main([str(a) for a in args])

    with runner.isolation() as (out, err, _):
        invoke()
        sys.stdout.flush()
        sys.stderr.flush()
        stdout = out.getvalue().decode()
        stderr = err.getvalue().decode() if err is not None else ""
    return Result(captured["code"], stdout, stderr)


def run_node(program: str, data: Any) -> Any:
    """Run ``program`` in Node with ``data`` as JSON on its standard input, where it reads it
    as ``INPUT``; what it printed, read as JSON. Skips, saying why, when there is no Node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (promptfoo needs Node 20)")
    prelude = "const INPUT = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
    done = subprocess.run(
        [node, "-e", prelude + program],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


DOCUMENT = (
    "# Returns policy\n\n"
    "A customer has 14 days from delivery to request a credit for a damaged delivery.\n"
    "Credits are paid back to the original payment method within five working days.\n"
    "Orders over 200 pounds ship free of charge.\n"
)

CASE = """\
id: {id}
question: {question}
expected_answer: {answer}
support:
  - doc: returns-policy.md
    quote: {quote}
"""

QUESTIONS = {
    "ret-001": (
        "How many days does a customer have to request a credit?",
        "14 days",
        "A customer has 14 days from delivery to request a credit",
    ),
    "ret-002": (
        "Where are credits paid back to?",
        "the original payment method",
        "Credits are paid back to the original payment method",
    ),
    "ret-003": (
        "Which orders ship free?",
        "orders over 200 pounds",
        "Orders over 200 pounds ship free of charge",
    ),
}


def case_text(case_id: str, **override: str) -> str:
    question, answer, quote = QUESTIONS.get(case_id, QUESTIONS["ret-001"])
    values = {"id": case_id, "question": question, "answer": answer, "quote": quote}
    values.update(override)
    return CASE.format(**values)


def case_data(case_id: str) -> dict[str, Any]:
    """The mapping ``case_text`` parses to, written out by hand (``answerable`` defaults to
    true, and the default is part of the canonical content)."""
    question, answer, quote = QUESTIONS[case_id]
    return {
        "id": case_id,
        "question": question,
        "expected_answer": answer,
        "answerable": True,
        "support": [{"doc": "returns-policy.md", "quote": quote}],
    }


def expected_case_hash(data: dict[str, Any]) -> str:
    """The case hash as docs/version.md defines it: sha256 of the mapping as compact JSON with
    sorted keys."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    out.update(
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_COMMITTER_NAME="Test Committer",
        GIT_COMMITTER_EMAIL="committer@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    out.update(extra)
    return out


def run(
    args: list[str | Path], cwd: Path, check: bool = True, **extra: str
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env(**extra),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"{args} exited {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run(["git", *args], root, check=check)


def goldcase(root: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return run([GOLDCASE, *args], root, check=False)


def commit(root: Path, message: str = "change") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def golden_set(root: Path, ids: tuple[str, ...] = ("ret-001", "ret-002")) -> Path:
    """A golden-set repository (not yet locked, not a git repository)."""
    write(root, "goldcase.toml", "")
    write(root, "corpus/returns-policy.md", DOCUMENT)
    (root / "cases" / "dev").mkdir(parents=True, exist_ok=True)
    for case_id in ids:
        write(root, f"cases/golden/{case_id}.yaml", case_text(case_id))
    return root


def git_set(root: Path, ids: tuple[str, ...] = ("ret-001", "ret-002")) -> Path:
    """A golden set, locked and committed in a fresh git repository."""
    golden_set(root, ids)
    git(root, "init", "-q", "-b", "main")
    goldcase(root, "lock")
    commit(root, "golden set")
    return root


def read_version(root: Path) -> str:
    return (root / "golden.version").read_text(encoding="utf-8").strip()


def read_lock(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "golden.lock").read_text(encoding="utf-8"))
    return data


# The system's Chromium (Debian's package; .ci/run installs it), for the tests that render a
# page; they skip, saying so, without it.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Work is handed to a forked child (goldcase.aside) only on Linux with two cores or more.
needs_cores = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2 or sys.platform != "linux",
    reason="work is handed to a forked child only on Linux with two cores or more",
)


@dataclass
class Forks:
    """The children forked and the pipes opened while ``recorded_forks`` is in place."""

    children: list[int]
    pipes: list[tuple[int, int]]

    def left_nothing(self) -> None:
        """Assert that the last child was reaped by the code under test (not left to the
        test) and the last pipe's read end closed; the child is collected, and the pipe
        closed, whatever the verdict."""
        pid, (read_fd, _) = self.children[-1], self.pipes[-1]
        try:
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            with pytest.raises(OSError):
                os.fstat(read_fd)
        finally:
            with contextlib.suppress(OSError):
                os.close(read_fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def recorded_forks(monkeypatch: pytest.MonkeyPatch) -> Forks:
    """Every child forked and pipe opened from now on (``os.fork`` and ``os.pipe`` wrapped:
    ``goldcase.aside`` forks through them)."""
    forks = Forks([], [])
    real_fork, real_pipe = os.fork, os.pipe

    def fork() -> int:
        pid = real_fork()
        if pid:
            forks.children.append(pid)
        return pid

    def pipe() -> tuple[int, int]:
        forks.pipes.append(real_pipe())
        return forks.pipes[-1]

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(os, "pipe", pipe)
    return forks


def listed_aside(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Callable[[], set[int]]:
    """Every listing of the case files taken aside by a child (``engine.list_aside``, on any
    set), each lister leaving its process id in ``folder``: what it returns reads the ids
    back, so a test can tell a child's listing from this process's."""
    real = engine.case_entries

    def recorded(ctx: Context) -> engine.Entries:
        (folder / f"listed-by-{os.getpid()}").touch()
        return real(ctx)

    monkeypatch.setattr(engine, "case_entries", recorded)
    monkeypatch.setattr(engine, "LIST_ASIDE_FROM", 0)
    return lambda: {int(p.name.rsplit("-", 1)[1]) for p in folder.glob("listed-by-*")}


class CountingText(str):
    """A text that counts the characters every slice of it copies (set ``copied`` to 0
    first): how a test holds a search to time linear in its text without timing it."""

    copied = 0

    def __getitem__(self, key: SupportsIndex | slice) -> str:
        piece = str.__getitem__(self, key)
        CountingText.copied += len(piece)
        return piece


def plant_unreadable(path: Path, kind: str) -> None:
    """``path`` replaced by a FIFO (``kind`` "fifo": a read waits for ever) or a link to
    ``/dev/zero`` ("zero": a read never ends)."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
