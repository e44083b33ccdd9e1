"""Ctrl-C: a real SIGINT to a real ``goldcase run`` process leaves a whole, valid results file
that the same command continues. No timing: the fake worker blocks on one case until it is
killed, and the test waits for the file that says it is blocked before it sends the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from goldcase.scoring.results import parse_results, read_raw
from kit import GOLDCASE, env
from run.kit import IDS, lines, make_set, script, worker_command

PATIENCE = 240.0  # seconds to wait for the blocked file on a busy machine before failing


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"goldcase run ended first: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"{path.name} never appeared")
        time.sleep(0.05)


def _ctrl_c_as_a_terminal_gives_it() -> None:
    """SIGINT handled by default in the child, as in a terminal: a shell without job control
    (``make test &`` in a script, some CI runners) starts background commands with SIGINT
    ignored, their children inherit that, and Python then installs no Ctrl-C handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_leaves_a_valid_file_that_the_same_command_continues(tmp_path: Path) -> None:
    repo = make_set(tmp_path / "repo")
    out = tmp_path / "run.jsonl"
    blocked_on = IDS[2]  # the third case by id: the first two are answered before it
    fake = script(tmp_path, {blocked_on: "block"})
    args = [GOLDCASE, "run", "--repo", repo, "--out", out, "--cmd", worker_command()]
    proc = subprocess.Popen(
        [str(a) for a in args],
        env=env(**fake),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_as_a_terminal_gives_it,
    )
    wait_for(tmp_path / "requests.log.blocked", proc)
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, stderr
    assert "interrupted: 2 lines written" in stderr
    assert "run the same command again to continue" in stderr

    results, problems = parse_results(read_raw(out, str(out)), str(out))
    assert problems == []  # every line whole and valid
    assert [r.id for r in results] == IDS[:2]
    assert out.read_bytes().endswith(b"\n")
    manifest = json.loads(out.with_name("run.jsonl.run.json").read_text(encoding="utf-8"))
    assert manifest["sessions"][-1]["ended_by"] == "interrupted"
    assert manifest["sessions"][-1]["written"] == 2

    again = subprocess.run(
        [str(a) for a in args],
        env=env(**script(tmp_path, {})),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert again.returncode == 0, again.stderr
    assert "2 were there already" in again.stderr
    assert sorted(line["id"] for line in lines(out)) == IDS  # each case once
    assert [line["id"] for line in lines(out)][:2] == IDS[:2]  # the first lines untouched
