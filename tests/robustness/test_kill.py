"""Nothing lost: every command that writes is killed (SIGKILL, from outside, after a random
delay) many times, and every file it touches is afterwards byte for byte its old content or
its new content (or absent when it was absent before / is absent after), never a mix or a
truncated file.

The delay is drawn uniformly over 20 % to 110 % of the time one uninterrupted run takes on the
same input, so kills land before, during and after the writes. ``GOLDCASE_KILLS`` sets the
number of kills per command (CI: 6; ``make fuzz-long``: 60). Each test prints how many runs
ended with the old files, the new files, or some of each (a command that writes several files
is atomic per file, not across files; docs/robustness.md says what a rerun does then).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from robustness.kit import DOCUMENT, GOLDCASE, QUOTE, canonical, env, make_set, run

KILLS = int(os.environ.get("GOLDCASE_KILLS", "6"))
SKIP_DIRS = {".git", ".goldcase-cache"}

Snapshot = dict[str, bytes]


def snapshot(root: Path) -> Snapshot:
    """Every regular file under ``root`` (git's and the cache's folders left out)."""
    out: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def is_temp(rel: str) -> bool:
    """A temporary file goldcase.writer was filling when it was killed (``.<name>.*.tmp``),
    or an import's staging folder."""
    name = rel.rsplit("/", 1)[-1]
    staged = any(part.startswith(".") and ".tmp" in part for part in rel.split("/")[:-1])
    return (name.startswith(".") and name.endswith(".tmp")) or staged


# The command runs under a small keeper process: the keeper makes itself a child subreaper
# (Linux), starts goldcase in a process group of its own, prints its pid, and exits only once
# it has reaped every descendant: goldcase, and whatever goldcase started (git, under
# init), which is handed to the keeper when goldcase dies. The test kills the whole group and
# waits for the keeper, so nothing is left writing into the folder, with no sleep, no
# deadline, and nothing changed in the test process itself.
KEEPER = """
import ctypes, os, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
child = subprocess.Popen(sys.argv[1:], process_group=0,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(child.pid, flush=True)
code = child.wait()
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(128 - code if code < 0 else code)
"""


def run_killed(args: list[str], cwd: Path, delay: float) -> int:
    """SIGKILL goldcase and every process it started after ``delay`` seconds; return once
    all of them are gone (the keeper has reaped them)."""
    keeper = subprocess.Popen(
        [sys.executable, "-c", KEEPER, GOLDCASE, *args],
        cwd=cwd,
        env=env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert keeper.stdout is not None
    pgid = int(keeper.stdout.readline())
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):  # the command may have finished already
        os.killpg(pgid, signal.SIGKILL)
    code = keeper.wait()
    keeper.stdout.close()
    return code


def as_is(state: Snapshot) -> Snapshot:
    return state


_NEW_CASE = re.compile(r"cases/golden/(ret-[0-9a-hjkmnp-tv-z]{9})\.yaml")


def one_new_case(state: Snapshot) -> Snapshot:
    """A new case's id is drawn afresh by every run (docs/new.md): name it NEW, so two runs'
    files compare by their content."""
    out: Snapshot = {}
    for rel, data in state.items():
        match = _NEW_CASE.fullmatch(rel)
        if match:
            rel, data = "cases/golden/NEW.yaml", data.replace(match[1].encode(), b"NEW")
        out[rel] = data
    return out


@dataclass
class Scenario:
    name: str
    build: Callable[[Path], None]  # writes the state before the command into a folder
    args: list[str]
    rerun_recovers: bool = True  # a second, uninterrupted run reaches the new state
    settle: Callable[[Snapshot], Snapshot] = as_is  # names that differ from run to run
    counts: Counter[str] = field(default_factory=Counter)


def check_one(before: Snapshot, after: Snapshot, now: Snapshot) -> str:
    """'old', 'new' or 'some of each'; fails on any file that is neither."""
    temps = sorted(rel for rel in now if is_temp(rel))
    state = {rel: data for rel, data in now.items() if rel not in temps}
    changed = {rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel)}
    for rel in set(state) | changed:
        assert rel in before or rel in after, f"unexpected file {rel}"
        got = state.get(rel)
        assert got in (before.get(rel), after.get(rel)), (
            f"{rel}: {len(got or b'')} bytes, neither the old ({len(before.get(rel, b''))}) "
            f"nor the new ({len(after.get(rel, b''))}) content"
        )
    new = {rel for rel in changed if state.get(rel) == after.get(rel)}
    return "old" if not new else "new" if new == changed else "some of each"


def exercise(scenario: Scenario, tmp_path: Path, seed: int) -> Counter[str]:
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    scenario.build(pristine)
    before = scenario.settle(snapshot(pristine))
    reference = tmp_path / "reference"
    shutil.copytree(pristine, reference, symlinks=True)
    started = time.perf_counter()
    done = run(scenario.args, reference)
    elapsed = time.perf_counter() - started
    assert done.returncode in (0, 1), done.stderr.decode()
    after = scenario.settle(snapshot(reference))
    assert after != before, f"{scenario.name} wrote nothing"
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    for number in range(KILLS):
        work = tmp_path / f"kill-{number}"
        shutil.copytree(pristine, work, symlinks=True)
        run_killed(scenario.args, work, rng.uniform(0.2, 1.1) * elapsed)
        counts[check_one(before, after, scenario.settle(snapshot(work)))] += 1
        counts["temporary files left"] += sum(is_temp(rel) for rel in snapshot(work))
        if scenario.rerun_recovers:
            assert run(scenario.args, work).returncode in (0, 1)
            rerun = {r: d for r, d in snapshot(work).items() if not is_temp(r)}
            assert rerun == after, f"{scenario.name}: a rerun after a kill did not recover"
        shutil.rmtree(work)
    print(f"\n{scenario.name}: {KILLS} kills, one run {elapsed:.2f} s: {dict(counts)}")
    return counts


# ---- the scenarios ----------------------------------------------------------------------


def unformatted(case_id: str) -> str:
    return (
        f"question: 'How many days for a credit, case {case_id}?'\nid: {case_id}\n"
        f'support:\n- quote: "{QUOTE}"\n  doc: returns-policy.md\n'
        "expected_answer: '14 days'\nslice: returns\nsource: hand-written\n"
    )


def with_email(case_id: str) -> str:
    return canonical(case_id) + f"notes: reported by {case_id}@example.com on +44 20 7946 0958\n"


def build_fmt(root: Path) -> None:
    make_set(root, 60, unformatted)


def build_scrub(root: Path) -> None:
    make_set(root, 40, with_email)


def build_new(root: Path) -> None:
    make_set(root, 3, canonical)


def build_lock(root: Path) -> None:
    make_set(root, 40, canonical)
    assert run(["lock"], root).returncode in (0, 1)
    path = root / "cases/golden/ret-001.yaml"
    path.write_text(canonical("ret-001").replace("14 days\n", "fourteen days\n"), "utf-8")


def build_import(root: Path) -> None:
    (root / "corpus").mkdir()
    (root / "corpus/returns-policy.md").write_text(DOCUMENT, encoding="utf-8")
    with (root / "set.jsonl").open("w", encoding="utf-8") as fh:
        for number in range(1, 101):
            line = {
                "id": f"imp-{number:03d}",
                "question": f"Question {number}?",
                "answerable": True,
                "expected_answer": "14 days",
                "support": [{"doc": "returns-policy.md", "quote": QUOTE}],
            }
            fh.write(json.dumps(line) + "\n")


def build_triage(root: Path) -> None:
    make_set(root, 3, canonical)
    with (root / "traces.jsonl").open("w", encoding="utf-8") as fh:
        for number in range(1, 61):
            trace = {"id": f"t-{number}", "question": f"Question {number} about item {number}?"}
            fh.write(json.dumps({**trace, "failed_check": number % 2 == 0}) + "\n")


def build_init(root: Path) -> None:
    (root / "keep.txt").write_text("a file that was there before\n", encoding="utf-8")


def build_merge(root: Path) -> None:
    (root / "base").write_text("1\n", encoding="utf-8")
    (root / "ours").write_text("1\n", encoding="utf-8")
    (root / "theirs").write_text("2\n", encoding="utf-8")


SCENARIOS = [
    Scenario("fmt (60 case files)", build_fmt, ["fmt"]),
    Scenario("scrub --yes (40 case files)", build_scrub, ["scrub", "--yes", "cases/golden"]),
    Scenario(
        "new (one case file)",
        build_new,
        [
            "new",
            "--golden",
            "--slice",
            "returns",
            "--question",
            "How long for a credit?",
            "--expected-answer",
            "14 days",
            "--doc",
            "returns-policy.md",
            "--quote",
            QUOTE,
            "--source",
            "hand-written",
            "--no-prompt",
        ],
        rerun_recovers=False,  # a second run writes a second case under another id, by design
        settle=one_new_case,
    ),
    Scenario("lock (golden.version, golden.lock)", build_lock, ["lock"]),
    Scenario(
        "triage (40 drafts)",
        build_triage,
        ["triage", "traces.jsonl", "--n", "40", "--seed", "k"],
    ),  # a rerun keeps the drafts written and writes the rest
    Scenario(
        "import --format jsonl (100 cases)",
        build_import,
        ["import", "--format", "jsonl", "--out", "imported", "set.jsonl"],
        rerun_recovers=False,
    ),  # --out must be absent: a finished import is refused
    Scenario("init (a new repository)", build_init, ["init", "fresh"], rerun_recovers=False),
    Scenario(
        "merge-driver (golden.version)",
        build_merge,
        ["merge-driver", "base", "ours", "theirs", "golden.version"],
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name.split()[0])
def test_killed_mid_write(scenario: Scenario, tmp_path: Path) -> None:
    counts = exercise(scenario, tmp_path, seed=sum(map(ord, scenario.name)))
    assert sum(counts[k] for k in ("old", "new", "some of each")) == KILLS


WRITER_LOOP = """
import sys
from pathlib import Path
from goldcase.writer import atomic_write_bytes
target = Path(sys.argv[1])
contents = [b"A" * 4_000_000 + b"\\n", b"B" * 6_000_000 + b"\\n"]
n = 0
while True:
    atomic_write_bytes(target, contents[n % 2])
    n += 1
"""


@pytest.mark.slow
def test_atomic_write_killed_in_a_loop(tmp_path: Path) -> None:
    """The writer itself, killed while it rewrites a 4-6 MB file as fast as it can: the
    file is always one whole version."""
    target = tmp_path / "file.bin"
    target.write_bytes(b"A" * 4_000_000 + b"\n")
    rng = random.Random(11)
    seen: Counter[str] = Counter()
    for _ in range(KILLS * 5):
        proc = subprocess.Popen([sys.executable, "-c", WRITER_LOOP, str(target)])
        time.sleep(rng.uniform(0.15, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = target.read_bytes()
        assert data in (b"A" * 4_000_000 + b"\n", b"B" * 6_000_000 + b"\n"), len(data)
        seen[data[:1].decode()] += 1
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "file.bin"]
    print(f"\nwriter loop: {KILLS * 5} kills: {dict(seen)}; temporary files left: {len(leftovers)}")
    assert sum(seen.values()) == KILLS * 5
