"""``goldcase score`` from the command line: formats, --out, exit status, errors, warnings."""

from __future__ import annotations

import array
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from kit import GOLDCASE, env, run_cli
from scoring.kit import case_yaml, six_cases, six_results, write_repo, write_results


@pytest.fixture
def six(tmp_path: Path) -> Path:
    root = write_repo(tmp_path / "six", six_cases())
    write_results(root / "run.jsonl", six_results())
    assert run_cli("lock", "--repo", root).exit_code == 1  # wrote golden.lock for 1.4.0
    return root


def test_a_set_its_lock_does_not_pin_is_scored_with_a_warning(six: Path) -> None:
    (six / "golden.lock").unlink()
    unlocked = run_cli("score", six / "run.jsonl", "--repo", six)
    assert unlocked.exit_code == 0
    assert unlocked.stderr == (
        "warning: the set has no golden.lock, so this report names no locked version; run "
        "goldcase lock (and commit) before scoring runs you mean to compare\n"
    )
    assert run_cli("lock", "--repo", six).exit_code == 1
    case = six / "cases" / "golden" / "E1.yaml"
    case.write_text(case.read_text(encoding="utf-8").replace("slice:", "notes: edited\nslice:"))
    (six / "corpus" / "returns-policy.md").write_text("edited\n", encoding="utf-8")
    stale = run_cli("score", six / "run.jsonl", "--repo", six)
    assert stale.exit_code == 0
    assert stale.stderr == (
        "warning: the golden cases and the corpus differ from golden.lock (version 1.4.0): "
        "this report is stamped version 1.4.0 but scores other content; run goldcase lock, "
        "then score again\n"
    )


def test_text_output_names_every_denominator(six: Path) -> None:
    result = run_cli("score", six / "run.jsonl", "--repo", six)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert "\x1b[" not in result.stdout
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "6 cases: 2 passed, 3 answered (1 correct), 1 error, 0 missing" in lines
    assert any(
        line.startswith("task success") and "33.3%" in line and "2 passed / 6 cases" in line
        for line in lines
    )
    assert any(
        line.startswith("answer coverage") and "50.0%" in line and "3 answered / 6 cases" in line
        for line in lines
    )
    assert any(
        line.startswith("answered accuracy") and "33.3%" in line and "1 correct / 3 answers" in line
        for line in lines
    )
    assert any(line.startswith("E2") and line.endswith("fact") for line in lines)
    assert all(line == line.rstrip() for line in result.stdout.splitlines())


def test_json_output_and_out_file_hold_the_same_report(six: Path) -> None:
    out = six / "reports" / "run.json"
    result = run_cli("score", six / "run.jsonl", "--repo", six, "--format", "json", "--out", out)
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed == json.loads(out.read_text(encoding="utf-8"))
    assert (printed["total"], printed["success"], printed["results_file"]) == (
        6,
        2,
        str(six / "run.jsonl"),
    )


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_the_report_written_with_out_carries_its_cases_digest_whatever_is_printed(
    six: Path, fmt: str
) -> None:
    """docs/score.md: ``cases_digest`` is sha256 of the canonical JSON of ``cases``. Text and
    Markdown never show it, so it is only computed for a JSON report; the file ``--out``
    writes is one, whatever the format printed."""
    out = six / "reports" / f"run-{fmt}.json"
    result = run_cli("score", six / "run.jsonl", "--repo", six, "--format", fmt, "--out", out)
    assert result.exit_code == 0, result.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    canonical = json.dumps(
        report["cases"], sort_keys=True, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    assert report["cases_digest"] == hashlib.sha256(canonical).hexdigest()


def test_markdown_output_fits_a_pull_request_comment(six: Path) -> None:
    result = run_cli("score", six / "run.jsonl", "--repo", six, "--format", "markdown")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "### goldcase score: task success 33.3% (2 / 6)"
    assert "| exception | 0 / 2 | 0.0% | 0.0% – 65.8% |  | under its floor of 20 |" in lines
    assert (
        '| `E6` | exception | abstain | (no answer: abstained) | "30 days" | '
        "abstained: wanted an answer |" in lines
    )
    assert "<details><summary>4 failing cases</summary>" in lines


def test_invalid_results_exit_2_list_every_error_and_score_nothing(six: Path) -> None:
    bad = write_results(
        six / "bad.jsonl",
        [
            {"id": "E1", "outcome": "answer", "fact": "return_window_30_days"},
            {"id": "E1", "outcome": "abstain"},
            {"id": "E99", "outcome": "abstain"},
            "not json",
        ],
    )
    out = six / "report.json"
    result = run_cli("score", bad, "--repo", six, "--out", out)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert not out.exists()
    assert result.stderr.splitlines() == [
        f"error: {bad}:2: second result for case 'E1' (first on line 1); keep one line per "
        "case, or number repeated runs with trial",
        f"error: {bad}:3: unknown case id 'E99'; no case under cases/ has it (was the run made "
        "on another set, or the case renamed?)",
        f"error: {bad}:4: malformed JSON at column 1: Expecting value; each line must be one "
        "complete JSON object",
    ]


def test_a_missing_results_file_exits_2(six: Path) -> None:
    result = run_cli("score", "nope.jsonl", "--repo", six)
    assert (result.exit_code, result.stderr) == (2, "error: nope.jsonl: no such file\n")


@pytest.mark.parametrize(
    ("options", "warned"),
    [
        (["--split", "all"], True),
        (["--threshold", "0.5"], True),
        (["--split", "golden", "--threshold", "0.5"], True),
        (["--split", "eval", "--threshold", "0.5"], False),
        ([], False),
    ],
)
def test_scoring_a_threshold_against_its_own_fit_warns(
    six: Path, options: list[str], warned: bool
) -> None:
    result = run_cli("score", six / "run.jsonl", "--repo", six, *options)
    assert result.exit_code == 0, result.stderr
    expected = (
        "warning: a threshold fitted on part of the set is being scored against it; "
        "score the eval split for a number that can decide anything\n"
    )
    assert result.stderr == (expected if warned else "")


def test_piped_output_has_no_escape_codes_even_with_force_color(six: Path) -> None:
    env = {**os.environ, "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "goldcase", "score", "run.jsonl"],
        cwd=six,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "task success" in done.stdout


def test_score_is_listed_in_help() -> None:
    result = run_cli("--help")
    assert any(line.split()[:1] == ["score"] for line in result.stdout.splitlines())


def test_a_bad_threshold_is_refused_before_any_warning(six: Path) -> None:
    result = run_cli("score", six / "run.jsonl", "--repo", six, "--threshold", "1.5")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "error: --threshold 1.5: expected a confidence from 0 to 1\n"


def test_a_folder_is_not_a_results_file(six: Path) -> None:
    result = run_cli("score", six, "--repo", six)
    assert result.exit_code == 2
    assert result.stderr == f"error: {six}: is a folder; give the results file (JSONL)\n"


SHARES = """
[slices.standard]
traffic = 0.6
[slices.exception]
traffic = 0.3
[slices.refunds]
traffic = 0.3
"""


def test_traffic_shares_make_the_weighted_rate_the_headline(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "six", six_cases(), SHARES)
    write_results(root / "run.jsonl", six_results())
    assert run_cli("lock", "--repo", root).exit_code == 1  # a locked set: no lock warning
    result = run_cli("score", root / "run.jsonl", "--repo", root)
    assert result.exit_code == 0, result.stderr
    lines = [line.strip() for line in result.stdout.splitlines()]
    first = next(i for i, line in enumerate(lines) if "task success" in line)
    # standard 1/2 at 0.6 and exception 0/2 at 0.3, renormalised: (0.6 * 1/2) / 0.9 = 33.3%
    assert lines[first].split()[:4] == ["traffic-weighted", "task", "success", "33.3%"]
    assert "2 slices by traffic share;" in lines[first]
    # the unweighted rate comes next, labelled as what it is (the label wraps in its cell)
    assert lines[first + 1].startswith("task success")
    assert "2 passed / 6 cases over this set's cases" in lines[first + 1]
    assert lines[first + 2] == "(stratified; not a traffic estimate)"
    # a share with no case in the split, and shares that do not sum to 1
    assert result.stderr.splitlines() == [
        "warning: slice 'refunds' has a traffic share of 0.3 but no case in this split; the "
        "weighted rate leaves it out and scales the other shares up",
        "warning: the traffic shares in the config sum to 1.2, not 1; the weighted rate "
        "renormalises them, but check [slices.<name>] traffic in goldcase.toml",
    ]
    markdown = run_cli("score", root / "run.jsonl", "--repo", root, "--format", "markdown")
    assert markdown.stdout.splitlines()[0].startswith(
        "### goldcase score: traffic-weighted task success 33.3% (95% interval "
    )


def test_shares_that_sum_to_one_raise_no_warning(tmp_path: Path) -> None:
    config = "[slices.standard]\ntraffic = 0.7\n[slices.exception]\ntraffic = 0.2\n"
    config += "[slices.missing]\ntraffic = 0.1\n"
    root = write_repo(tmp_path / "six", six_cases(), config)
    write_results(root / "run.jsonl", six_results())
    assert run_cli("lock", "--repo", root).exit_code == 1  # a locked set: no lock warning
    result = run_cli("score", root / "run.jsonl", "--repo", root)
    assert result.exit_code == 0
    assert result.stderr == ""


@pytest.mark.parametrize("shape", ["link", "linked folder"])
@pytest.mark.parametrize("command", ["score", "export", "report"])
def test_an_out_through_a_link_is_refused(
    six: Path, tmp_path: Path, shape: str, command: str
) -> None:
    """Every --out is held to one rule (safeio.refuse_linked_output): a branch committing
    ``reports`` as a link to a folder elsewhere had score, export and report write there."""
    away = tmp_path / "away"
    away.mkdir()
    report = tmp_path / "report.json"
    assert run_cli("score", six / "run.jsonl", "--repo", six, "--out", report).exit_code == 0
    if shape == "link":
        (six / "reports").mkdir()
        (six / "reports" / "out.json").symlink_to(away / "out.json")
    else:
        (six / "reports").symlink_to(away)
    out = six / "reports" / "out.json"
    args = {
        "score": ("score", six / "run.jsonl", "--out", out),
        "export": ("export", "--format", "jsonl", "--out", out),
        "report": ("report", report, "--html", out),
    }[command]
    result = run_cli(*args, "--repo", six)
    assert (result.exit_code, result.stdout) == (2, "")
    expected = "is a link (to" if shape == "link" else "a linked folder leads outside"
    assert result.stderr.startswith(f"error: {out}: {expected}"), result.stderr
    assert f"goldcase {command}" in result.stderr
    assert list(away.iterdir()) == []


def _manifest(path: Path, golden_version: str) -> Path:
    """A manifest ``goldcase run`` could have written, made on another set."""
    path.parent.mkdir(parents=True, exist_ok=True)
    made = {"format": "goldcase-run", "version": 1, "golden_version": golden_version}
    path.write_text(json.dumps({**made, "set_digest": "f" * 64}), encoding="utf-8")
    return path


NOT_READ = (
    "warning: {manifest}: the run manifest is a link that leads {where}, so it was not read: "
    "replace the link with the manifest itself; its provenance is not known\n"
)


@pytest.mark.parametrize(
    ("target", "where"),
    [("outside", "outside the repository"), ("git", "into git's own folder")],
)
def test_a_manifest_linked_outside_the_repository_is_not_read(
    six: Path, tmp_path: Path, target: str, where: str
) -> None:
    """docs/score.md: the manifest beside the results is read as a case file is, through a
    link only when it leads inside the repository. One a branch committed as a link to a file
    of the user's (or of git's own folder) was read, and what it said printed."""
    secret = tmp_path / "elsewhere.json" if target == "outside" else six / ".git" / "m.json"
    _manifest(secret, "from-the-linked-file")
    manifest = six / "run.jsonl.run.json"
    manifest.symlink_to(secret)
    scored = run_cli("score", six / "run.jsonl", "--repo", six, "--format", "json")
    assert scored.exit_code == 0
    assert json.loads(scored.stdout)["success"] == 2
    assert scored.stderr == NOT_READ.format(manifest=manifest, where=where)


def test_a_manifest_linked_inside_the_repository_is_read(six: Path) -> None:
    _manifest(six / "runs" / "first.jsonl.run.json", "1.3.0")
    (six / "run.jsonl.run.json").symlink_to(Path("runs") / "first.jsonl.run.json")
    scored = run_cli("score", six / "run.jsonl", "--repo", six)
    assert scored.exit_code == 0
    assert scored.stderr.startswith(
        f"warning: {six / 'run.jsonl'} was made on golden version 1.3.0 (set ffffffffffff); "
        "the set is now version 1.4.0"
    )


@pytest.mark.parametrize("kind", ["fifo", "device", "huge", "version"])
def test_a_manifest_that_is_no_regular_file_or_too_large_is_not_read(six: Path, kind: str) -> None:
    """Never a hang, never memory: a FIFO, a link to /dev/zero (inside no repository) and a
    file over 16 MiB are warned about naming the manifest, and the score goes on; a version
    of 100 kB is quoted cut (at 80 characters)."""
    manifest = six / "run.jsonl.run.json"
    if kind == "fifo":
        os.mkfifo(manifest)
    elif kind == "device":
        manifest.symlink_to("/dev/zero")
    elif kind == "huge":
        with manifest.open("wb") as fh:
            fh.truncate(17 * 1024 * 1024)
    else:
        manifest.write_text(json.dumps({"format": "goldcase-run", "version": "x" * 100_000}))
    scored = run_cli("score", six / "run.jsonl", "--repo", six)
    assert scored.exit_code == 0
    [warning] = scored.stderr.splitlines()
    assert warning.startswith(f"warning: {manifest}: ")
    assert warning.endswith("; its provenance is not known")
    assert len(warning) < len(str(manifest)) + 200, warning[:400]


def _filled_pipe() -> tuple[int, int, int]:
    """A pipe (read end, write end) whose buffer holds all but one page: a write of more
    than a page there blocks until it is read. The third value: the bytes it holds."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    held = 0
    room = fcntl.fcntl(write_fd, F_GETPIPE_SZ) - PAGE
    while held < room:
        held += os.write(write_fd, b"x" * min(PAGE, room - held))
    os.set_blocking(write_fd, True)
    return read_fd, write_fd, held


F_GETPIPE_SZ = 1032  # fcntl's F_GETPIPE_SZ on Linux (named in the module from Python 3.10)
PAGE = 4096
PATIENCE = 240.0  # seconds to wait for the first byte of the report on a busy machine


def _held(read_fd: int) -> int:
    """The bytes waiting in the pipe (FIONREAD)."""
    count = array.array("i", [0])
    fcntl.ioctl(read_fd, termios.FIONREAD, count)
    return count[0]


def _ctrl_c_as_a_terminal_gives_it() -> None:
    """SIGINT handled by default in the child, as in a terminal (a shell without job control
    starts background commands with it ignored, and Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform != "linux", reason="FIONREAD and F_GETPIPE_SZ as on Linux")
def test_a_ctrl_c_ends_score_with_130_as_every_command(tmp_path: Path) -> None:
    """A real SIGINT to a real ``goldcase score``, sent once the process is surely inside the
    command and stays there: its report goes to a pipe nobody reads, whose buffer is all but
    full, so the first page written (the test sees it arrive) leaves it blocked in the write.
    click turned the KeyboardInterrupt into an Abort, which ended with exit 2 (`error:
    aborted`), where `goldcase run` gives the shell's 130."""
    ids = [f"c-{n:03d}" for n in range(100)]  # a JSON report of 20 kB: pages of it
    root = write_repo(tmp_path / "set", {case_id: case_yaml(case_id) for case_id in ids})
    answers = [{"id": case_id, "outcome": "answer", "answer": "30 days"} for case_id in ids]
    write_results(root / "run.jsonl", answers)
    read_fd, write_fd, held = _filled_pipe()
    proc: subprocess.Popen[str] | None = None
    try:
        proc = subprocess.Popen(
            [str(GOLDCASE), "score", "run.jsonl", "--format", "json"],
            cwd=root,
            env=env(),
            stdout=write_fd,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ctrl_c_as_a_terminal_gives_it,
        )
        os.close(write_fd)
        write_fd = -1
        deadline = time.monotonic() + PATIENCE
        while _held(read_fd) == held:  # no byte of the report yet
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no report written"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=PATIENCE)
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)
        if proc is not None and proc.poll() is None:  # a failed assertion: no process left
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert stderr.endswith("error: interrupted\n"), stderr
