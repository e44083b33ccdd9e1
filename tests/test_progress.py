"""Progress bars: on a terminal the long jobs (import, a cold check of a large set, the score of
a large run, hashes, contamination) show one on standard error; anywhere else nothing, and the
output is the same either way.

The terminal is a real pseudo-terminal (``os.openpty``) given to goldcase as its standard
error, standard output stays a pipe, as in ``goldcase check > findings.txt``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console

from goldcase import progress
from kit import GOLDCASE, env

pytestmark = pytest.mark.slow

CASES = 1000  # the size from which a cold check and hashes show a bar (engine.SHOW_FROM)
TRIALS = 10  # 10,000 result lines: the size from which grading shows a bar


def big_set(root: Path) -> Path:
    (root / "corpus").mkdir(parents=True)
    (root / "corpus" / "policy.md").write_text("A customer has 14 days.\n", encoding="utf-8")
    (root / "goldcase.toml").write_text("", encoding="utf-8")
    golden = root / "cases" / "golden"
    golden.mkdir(parents=True)
    for n in range(CASES):
        (golden / f"c{n:04d}.yaml").write_text(
            f"id: c{n:04d}\nquestion: how many days for request number {n} please\n"
            "expected_answer: 14 days\nsupport:\n  - doc: policy.md\n"
            "    quote: A customer has 14 days\n",
            encoding="utf-8",
        )
    lines = [
        {"id": f"c{n:04d}", "trial": t, "outcome": "answer", "answer": "14 days"}
        for n in range(CASES)
        for t in range(1, TRIALS + 1)
    ]
    (root / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    (root / "system.py").write_text(  # a system under test for goldcase run: one worker
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'answer': '14 days'}), flush=True)\n",
        encoding="utf-8",
    )
    return root


def on_terminal(args: list[str | Path], cwd: Path) -> tuple[int, str, str]:
    """Run goldcase with a pseudo-terminal as standard error: (status, stdout, terminal)."""
    master, slave = os.openpty()
    chunks: list[bytes] = []

    def drain() -> None:  # a full terminal buffer would stop the writer: read it as it comes
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the last writer closed its end
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    with subprocess.Popen(
        [str(a) for a in args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env(TERM="xterm-256color", COLUMNS="100"),
    ) as proc:
        os.close(slave)
        out, _ = proc.communicate(timeout=600)
    reader.join()
    os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode(errors="replace")


def piped(args: list[str | Path], cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=env(), timeout=600
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return big_set(tmp_path_factory.mktemp("progress") / "big set")


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["check", "--no-cache", "--select", "schema"], "reading case files"),
        (["score", "run.jsonl"], "grading"),
        (["hashes", "--out", "golden.hashes"], "hashing questions"),
        (["contamination", "corpus/policy.md"], "scanning"),
        (["run", "--cmd", f"{sys.executable} system.py", "--out", "asked.jsonl"], "run: asking"),
    ],
    ids=["check", "score", "hashes", "contamination", "run"],
)
def test_a_bar_on_a_terminal_and_nothing_in_a_pipe(repo: Path, args: list[str], shown: str) -> None:
    status, out, terminal = on_terminal([GOLDCASE, *args], repo)
    quiet_status, quiet_out, quiet_err = piped([GOLDCASE, *args], repo)
    assert shown in terminal, terminal
    assert shown not in quiet_err and "\x1b[" not in quiet_err
    assert (status, out) == (quiet_status, quiet_out)  # the bar changes nothing else


def test_import_shows_each_stage(tmp_path: Path) -> None:
    articles = [
        {
            "title": f"Article {a}",
            "paragraphs": [
                {
                    "context": f"Harbour {a} was founded in 1821.",
                    "qas": [
                        {
                            "id": f"q{a}-{q}",
                            "question": f"When was harbour {a} founded, asked {q}?",
                            "answers": [{"text": "1821", "answer_start": 27 + len(str(a))}],
                        }
                        for q in range(5)
                    ],
                }
            ],
        }
        for a in range(300)
    ]
    source = tmp_path / "squad.json"
    source.write_text(json.dumps({"data": articles}), encoding="utf-8")
    status, out, terminal = on_terminal(
        [GOLDCASE, "import", "--format", "squad", source, "--out", tmp_path / "set"], tmp_path
    )
    assert status == 0, terminal
    for stage in ("reading squad.json", "writing set", "reading case files"):
        assert stage in terminal, stage
    assert out.splitlines()[0] == "wrote 1500 cases and 300 documents to " + str(tmp_path / "set")


def test_progress_draws_only_when_enabled_and_in_its_own_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(
        "rich.console.Console",
        lambda **_: Console(file=screen, force_terminal=True, width=80),
    )
    with progress.task("off", 10) as advance:
        advance(10)
    assert screen.getvalue() == ""
    progress.enable(True)
    try:
        with progress.task("hidden", 10, show=False) as advance:
            advance(10)
        assert screen.getvalue() == ""
        with progress.task("counting", 3) as advance:
            list(progress.each(advance, range(3), step=2))
        assert "counting" in screen.getvalue()
        pid = os.fork()
        if pid == 0:  # a forked child never draws: the parent owns the display
            os._exit(0 if not progress.enabled() else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        progress.enable(False)


def test_each_advances_by_step_and_the_rest() -> None:
    steps: list[float] = []
    assert list(progress.each(steps.append, range(5), step=2)) == [0, 1, 2, 3, 4]
    assert steps == [2, 2, 1]
