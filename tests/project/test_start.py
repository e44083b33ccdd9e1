"""docs/start.md, followed to the letter in a fresh virtual environment.

The commands are read from the page itself, so the page and this test cannot drift: every
``sh`` block, in order, in one bash shell (so ``cd`` and ``. .venv/bin/activate`` carry over),
except a block whose preceding line is ``<!-- not run … -->`` (the install from the
repository's URL and the clone, which need the network: the wheel they would give is built here
from this checkout instead, into the folder the page installs it from). Each command must exit
0, or the status its ``# exits N`` comment gives. A ``text`` block right after a block of one
command is that command's output, exactly.

The fresh environment is made by the page's own ``python3 -m venv``, with this checkout's
environment off PATH, and installs goldcase's wheel and pre-commit with pip as configured here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from goldcase import __version__
from kit import REPO_ROOT

pytestmark = pytest.mark.slow

PAGE = REPO_ROOT / "docs" / "start.md"
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Command:
    line: int  # where it starts on the page
    text: str
    status: int  # the exit status the page expects
    output: str | None  # the output the page shows for it, if any


def commands(page: str) -> list[Command]:
    """The page's commands, in order, with the status and output it expects of each."""
    out: list[Command] = []
    blocks = list(FENCE.finditer(page))
    for k, block in enumerate(blocks):
        kind, body = block.group(1), block.group(2)
        before = page[: block.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if kind != "sh" or before.startswith("<!-- not run"):
            continue
        first_line = page[: block.start()].count("\n") + 2
        found = _block_commands(body, first_line)
        following = blocks[k + 1] if k + 1 < len(blocks) else None
        if following is not None and following.group(1) == "text" and len(found) == 1:
            between = page[block.end() : following.start()]
            if not between.strip():
                found[0] = Command(
                    found[0].line, found[0].text, found[0].status, following.group(2)
                )
        out.extend(found)
    return out


def _block_commands(body: str, first_line: int) -> list[Command]:
    found: list[Command] = []
    pending, start = "", first_line
    for number, raw in enumerate(body.splitlines(), start=first_line):
        if not pending:
            start = number
        pending += raw.rstrip("\\").rstrip() + " " if raw.endswith("\\") else raw
        if raw.endswith("\\"):
            continue
        text = pending.strip()
        pending = ""
        if not text or text.startswith("#"):
            continue
        assert "<<" not in text, f"docs/start.md:{start}: no here-documents (one line a command)"
        wanted = re.search(r"\s#\s*exits (\d+)\b", text)
        found.append(Command(start, text, int(wanted.group(1)) if wanted else 0, None))
    return found


def script(steps: list[Command], record: Path) -> str:
    """One bash script: each command's output and status recorded, stopping at the first
    command whose status is not the page's."""
    lines = ["set -u"]
    for k, step in enumerate(steps):
        lines.append(f"{{ {step.text}\n}} > '{record}/{k}.out' 2> '{record}/{k}.err'")
        lines.append(f"echo $? > '{record}/{k}.status'")
        lines.append(f"[ \"$(cat '{record}/{k}.status')\" = {step.status} ] || exit 99")
    return "\n".join(lines) + "\n"


def fresh_env(home: Path) -> dict[str, str]:
    """This process's environment without this checkout's virtual environment or git's
    variables: the page's own environment must provide goldcase and pre-commit."""
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p) != BIN]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "VIRTUAL_ENV", "PYTHONPATH", "PRE_COMMIT"))
    }
    env.update(
        PATH=os.pathsep.join(path),
        HOME=str(home),
        PRE_COMMIT_HOME=str(home / "pre-commit"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        GIT_AUTHOR_NAME="Ada Reviewer",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Ada Reviewer",
        GIT_COMMITTER_EMAIL="ada@example.com",
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def test_the_page_parses_into_commands() -> None:
    steps = commands(PAGE.read_text(encoding="utf-8"))
    texts = [step.text for step in steps]
    assert texts[0] == "python3 -m venv .venv"
    assert f"python -m pip install ./goldcase-{__version__}-py3-none-any.whl pre-commit" in texts
    assert "goldcase init my-golden-set --hooks local" in texts
    assert [step.status for step in steps if step.status] == [1]
    assert sum(step.output is not None for step in steps) >= 3


def test_the_install_lines_name_this_release() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert f"git+https://github.com/goldcase-dev/goldcase@v{__version__}'" in page
    assert f"git clone --branch v{__version__} https://github.com/goldcase-dev/goldcase" in page
    workflow = yaml.safe_load(page.split("```yaml\n", 1)[1].split("```", 1)[0])
    steps = workflow["jobs"]["goldcase"]["steps"]
    assert steps[-1] == {"uses": f"goldcase-dev/goldcase@v{__version__}"}


def test_the_page_from_nothing_to_a_first_scored_run(tmp_path: Path) -> None:
    work, home, record = tmp_path / "work", tmp_path / "home", tmp_path / "record"
    for folder in (work, home, record):
        folder.mkdir()
    env = fresh_env(home)
    built = subprocess.run(  # what the page's clone-and-build block makes
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", work, REPO_ROOT],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    steps = commands(PAGE.read_text(encoding="utf-8"))
    (tmp_path / "start.sh").write_text(script(steps, record), encoding="utf-8")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", tmp_path / "start.sh"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    for k, step in enumerate(steps):
        status_file = record / f"{k}.status"
        assert status_file.exists(), f"docs/start.md:{step.line}: never ran ({done.stderr})"
        out = (record / f"{k}.out").read_text(encoding="utf-8")
        err = (record / f"{k}.err").read_text(encoding="utf-8")
        status = int(status_file.read_text())
        assert status == step.status, (
            f"docs/start.md:{step.line}: {step.text}: exit {status}\n{out}{err}"
        )
        if step.output is not None:
            assert out == step.output, f"docs/start.md:{step.line}: {step.text}"
    assert done.returncode == 0
    repo = work / "my-golden-set"
    assert (repo / "golden.version").read_text() == "1\n"
    assert (repo / "report.html").is_file() and (repo / "report.json").is_file()
    installed = work / ".venv" / "bin" / "goldcase"
    assert installed.is_file()  # the page's environment, not this checkout's, ran goldcase
