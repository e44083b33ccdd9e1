"""How the ``goldcase`` process ends (``cli.leave``): called as the console script, it ends
once its output is out and its exit handlers have run, with the command's exit status,
without the interpreter's teardown; with a thread still running it ends the usual way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kit import GOLDCASE, case_text, env, golden_set, write


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run by this interpreter in a fresh process (goldcase importable as here)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_status_and_every_line_of_output_are_kept(tmp_path: Path) -> None:
    """A large output through a pipe is all there (nothing left in a buffer), and the status
    is the command's: 1 for a set with errors."""
    root = golden_set(tmp_path / "set")
    for n in range(300):  # a quote that is not in its document: one GC202 a case
        write(root, f"cases/golden/q-{n:03d}.yaml", case_text(f"q-{n:03d}", quote=f"Not there {n}"))
    done = subprocess.run(
        [str(GOLDCASE), "check"], cwd=root, env=env(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert sum(" GC202 " in line for line in lines) == 300
    assert lines[-1].endswith(" case files"), lines[-1]  # the summary, written last


def test_exit_handlers_run_before_the_process_ends(tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    done = _python(
        "import atexit, sys\n"
        "from goldcase.cli import main\n"
        f"atexit.register(lambda: open({str(mark)!r}, 'w').write('ran'))\n"
        "sys.argv = ['goldcase', '--version']\n"
        "raise SystemExit(main())\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("goldcase ")
    assert mark.read_text() == "ran"


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    """A thread Python would wait for (not a daemon) finishes its work: the process ends the
    usual way, which waits for it."""
    mark = tmp_path / "thread"
    done = _python(
        "import sys, threading, time\n"
        "from goldcase.cli import main\n"
        "def work():\n"
        "    time.sleep(0.2)\n"
        f"    open({str(mark)!r}, 'w').write('done')\n"
        "threading.Thread(target=work).start()\n"
        "sys.argv = ['goldcase', '--version']\n"
        "raise SystemExit(main())\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert mark.read_text() == "done"


def test_a_reader_that_goes_away_is_a_status_not_a_traceback(tmp_path: Path) -> None:
    """The reader of the output closes the pipe before goldcase has written it all (``| head
    -n 1``): status 1, and no traceback or 'Exception ignored' on standard error."""
    root = golden_set(tmp_path / "set")
    for n in range(300):
        write(root, f"cases/golden/q-{n:03d}.yaml", case_text(f"q-{n:03d}", quote=f"Not there {n}"))
    done = subprocess.run(
        f"set -o pipefail; {GOLDCASE} check --format json | head -c 1 >/dev/null",
        shell=True,
        executable="/bin/bash",
        cwd=root,
        env=env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert done.returncode == 1, done.stderr
