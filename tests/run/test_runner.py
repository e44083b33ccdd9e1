"""goldcase run --cmd: the requests, the results file, errors, retries, resuming, trials, jobs,
and the manifest, against a real worker process (tests/run/fake_system.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from goldcase.errors import GoldcaseError
from goldcase.run.manifest import MAX_DEPTH, read_manifest
from goldcase.run.outfile import _strays
from goldcase.scoring.results import Result, Unlisted
from kit import run_cli
from run.kit import (
    CASES,
    EXPECTED,
    IDS,
    QUOTE,
    by_id,
    lines,
    make_set,
    requests,
    run_goldcase,
    script,
    worker_command,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_set(tmp_path / "repo")


def test_every_case_is_asked_once_and_written_as_a_valid_line(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, script(tmp_path, {"oos-001": "abstain"}))
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert sorted(written) == IDS
    assert written["ret-001"] == {
        **written["ret-001"],
        "id": "ret-001",
        "trial": 1,
        "outcome": "answer",
        "answer": "30 days",
        "confidence": 0.9,
    }
    assert all(isinstance(line["latency_ms"], float) for line in written.values())
    assert written["oos-001"]["outcome"] == "abstain"
    assert "run: 4 lines written to" in done.stderr
    scored = run_cli("score", out, "--repo", repo, "--format", "json")
    assert scored.exit_code == 0, scored.stderr
    assert json.loads(scored.stdout)["success"] == 4


def test_a_request_carries_the_id_question_and_trial_and_nothing_of_the_expectations(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, {}), "--trials", "2").exit_code == 0
    received = requests(tmp_path)
    assert len(received) == 8
    for request in received:
        assert set(request) == {"id", "question", "trial"}
        assert request["question"] in CASES[request["id"]]
    raw = (tmp_path / "requests.log").read_text(encoding="utf-8")
    for secret in (EXPECTED, QUOTE, "14 days", "returns-policy.md", "answerable", "expect"):
        assert secret not in raw
    assert sorted((r["id"], r["trial"]) for r in received) == [
        (case_id, trial) for case_id in IDS for trial in (1, 2)
    ]


def test_an_answer_matching_an_abstain_pattern_is_an_abstention(repo: Path, tmp_path: Path) -> None:
    actions = {"oos-001": "answer:I don't know.", "ret-001": "answer:Sorry, I can't answer that."}
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, actions)).exit_code == 0
    written = by_id(out)
    assert written["oos-001"]["outcome"] == written["ret-001"]["outcome"] == "abstain"
    assert written["oos-001"]["answer"] == "I don't know."  # kept, for the record
    assert written["ret-002"]["outcome"] == "answer"


def test_configured_abstain_patterns_replace_the_defaults(tmp_path: Path) -> None:
    repo = make_set(tmp_path / "repo", config='[run]\nabstain_patterns = ["^no idea"]\n')
    actions = {"oos-001": "answer:No idea, sorry", "ret-001": "answer:I don't know."}
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, actions)).exit_code == 0
    written = by_id(out)
    assert (written["oos-001"]["outcome"], written["ret-001"]["outcome"]) == ("abstain", "answer")


@pytest.mark.parametrize(
    ("pattern", "answer"),
    [("\\w*" * 12 + "!", "a" * 60), ("\\w*x", "a" * 2_000_000)],
    ids=["polynomial", "quadratic"],
)
def test_an_abstain_pattern_is_searched_in_time_linear_in_the_answer(
    tmp_path: Path, pattern: str, answer: str
) -> None:
    """Python's backtracking re took over a minute on sixty letters with the first pattern (its
    time grows with the twelfth power of the length) and quadratic time on the second: a
    config and an answer a stranger wrote hung goldcase run. The run is a child process
    under a timeout far above what it needs: a hang is the failure."""
    config = f"[run]\nabstain_patterns = [{json.dumps(pattern)}]\n"
    repo = make_set(tmp_path / "repo", config=config)
    out = tmp_path / "run.jsonl"
    args = ["run", "--repo", repo, "--out", out, "--cmd", worker_command()]
    done = subprocess.run(
        [sys.executable, "-m", "goldcase", *map(str, args)],
        env={**os.environ, **script(tmp_path, {"oos-001": f"answer:{answer}"})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    written = by_id(out)["oos-001"]
    assert (written["outcome"], len(written["answer"])) == ("answer", len(answer))


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ("crash", "the worker exited with status 3: boom: the index is gone"),
        ("raw:this is not json", "malformed response: not JSON"),
        ('raw:{"answer": "\\ud800"}', "malformed response: an escape of half a surrogate pair"),
        ("raw:[1, 2]", "malformed response: expected a JSON object, got list"),
        ('json:{"answer": "x", "confidnce": 1}', "unknown field 'confidnce'"),
        ('json:{"id": "ret-003", "answer": "x"}', "it answers id 'ret-003'"),
        ("error:the index is rebuilding", "the index is rebuilding"),
        ('json:{"answer": "x", "tool_calls": [{"input": 1}]}', "tool_calls"),
    ],
)
def test_a_failed_request_is_an_error_line_and_the_run_goes_on(
    repo: Path, tmp_path: Path, action: str, reason: str
) -> None:
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, script(tmp_path, {"ret-002": action}), "--retries", "0")
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert written["ret-002"]["outcome"] == "error"
    assert reason in written["ret-002"]["error"]
    assert {written[i]["outcome"] for i in ("ret-001", "ret-003")} == {"answer"}
    assert "1 error" in done.stderr


def test_a_worker_that_hangs_is_stopped_at_the_timeout_and_replaced(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    actions = {"ret-001": "hang"}
    done = run_goldcase(repo, out, script(tmp_path, actions), "--timeout", "0.5", "--retries", "0")
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert written["ret-001"]["error"] == "no response within 0.5 s"
    assert written["ret-002"]["outcome"] == "answer"  # asked of a new worker


def test_a_request_longer_than_a_pipe_holds_to_a_worker_that_reads_nothing_times_out(
    tmp_path: Path,
) -> None:
    """A pipe holds 64 KiB: a question of 260 kB (a case file may hold a megabyte) written to
    a worker that never reads its input blocked goldcase run for ever, whatever --timeout
    said. The run is a child process under a timeout far above what it needs."""
    question = "how long " + "is it really " * 20_000
    extra = {"cases/golden/big-001.yaml": f"id: big-001\nquestion: {question}\n"
             "answerable: false\nslice: out-of-scope\n"}  # fmt: skip
    repo = make_set(tmp_path / "repo", extra)
    out = tmp_path / "run.jsonl"
    deaf = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(150)'"
    args = ["run", "--repo", repo, "--out", out, "--cmd", deaf, "--timeout", "1", "--retries", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "goldcase", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    errors = {case_id: line["error"] for case_id, line in by_id(out).items()}
    assert errors == dict.fromkeys(["big-001", *IDS], "no response within 1 s")


def test_a_worker_that_answers_twice_is_replaced_before_the_next_request(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, script(tmp_path, {IDS[0]: "twice"}))
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert written[IDS[0]]["answer"] == "30 days"
    assert written[IDS[1]]["answer"] == "30 days"  # not the stray line: a new worker answered it
    assert all(line.get("answer") != "stray" for line in written.values())


def test_a_crash_is_retried_and_a_retryable_error_is_asked_again(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    actions = {"ret-001": "busy-once", "ret-002": "crash"}
    done = run_goldcase(repo, out, script(tmp_path, actions), "--retries", "1")
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert written["ret-001"]["outcome"] == "answer"
    assert "exited with status 3" in written["ret-002"]["error"]
    asked = [r["id"] for r in requests(tmp_path)]
    assert asked.count("ret-001") == 2 and asked.count("ret-002") == 2


def test_a_tool_trace_is_kept_and_scored_as_a_tool_failure(repo: Path, tmp_path: Path) -> None:
    calls = [
        {"name": "search", "input": {"q": "returns"}, "output": ["doc"], "error": None},
        {"name": "lookup_order", "input": {"id": 7}, "error": "timeout after 5 s"},
    ]
    response = json.dumps({"answer": "I think 14 days", "tool_calls": calls})
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, {"ret-001": f"json:{response}"})).exit_code == 0
    assert by_id(out)["ret-001"]["tool_calls"] == calls
    scored = run_cli("score", out, "--repo", repo)
    assert scored.exit_code == 0, scored.stderr
    assert "failed at tool (1):" in scored.stdout
    assert "ret-001 (lookup_order failed: timeout after 5 s)" in scored.stdout


def test_a_second_run_asks_nothing_and_a_torn_last_line_is_asked_again(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    again = run_goldcase(repo, out, env)
    assert again.exit_code == 0
    assert "nothing to ask: all 4 (id, trial) pairs are in" in again.stderr
    assert len(requests(tmp_path)) == 4
    whole = out.read_bytes()
    last = whole.rstrip(b"\n").rsplit(b"\n", 1)[1]
    out.write_bytes(whole[: len(whole) - len(last) // 2 - 1])  # half of the last line, no newline
    repaired = run_goldcase(repo, out, env)
    assert repaired.exit_code == 0, repaired.stderr
    assert "dropped an unfinished last line" in repaired.stderr
    assert len(requests(tmp_path)) == 5
    assert sorted(line["id"] for line in lines(out)) == IDS


def test_more_trials_later_asks_only_the_new_ones(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    assert run_goldcase(repo, out, env, "--trials", "3").exit_code == 0
    pairs = sorted((line["id"], line["trial"]) for line in lines(out))
    assert pairs == [(case_id, t) for case_id in IDS for t in (1, 2, 3)]
    assert len(requests(tmp_path)) == 12
    manifest = json.loads(out.with_name("run.jsonl.run.json").read_text(encoding="utf-8"))
    assert manifest["trials"] == 3
    assert [s["asked"] for s in manifest["sessions"]] == [4, 8]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": "zzz-9", "trial": 1, "outcome": "abstain"}\n', "case 'zzz-9' is not in the split"),
        ('{"id": "ret-001", "outcome": "abstain"}\n', "no trial number"),
        ('{"id": "ret-001", "trial": 1, "outcome": "maybe"}\n', 'outcome is "maybe"'),
    ],
)
def test_a_file_it_did_not_write_is_left_alone(
    repo: Path, tmp_path: Path, content: str, message: str
) -> None:
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    out.write_text(content, encoding="utf-8")
    refused = run_goldcase(repo, out, env)
    assert refused.exit_code == 2
    assert message in refused.stderr
    assert "goldcase run resumes only a file it wrote for this split" in refused.stderr
    assert out.read_text(encoding="utf-8") == content


def test_a_file_of_many_lines_it_did_not_write_lists_twenty_and_counts_the_rest(
    repo: Path, tmp_path: Path
) -> None:
    """A results file of another set, or of a stranger, can hold a million such lines: the
    first twenty are explained (a long id quoted cut), the rest counted, and the file kept."""
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    long_id = "x" * 500 + "\n"
    content = "".join(
        json.dumps({"id": f"{long_id}{n}", "trial": 1, "outcome": "abstain"}) + "\n"
        for n in range(5_000)
    )
    out.write_text(content, encoding="utf-8")
    refused = run_goldcase(repo, out, env)
    assert refused.exit_code == 2
    assert refused.stderr.count("is not in the split being run") == 20
    assert "x" * 100 not in refused.stderr
    assert "4,980 more errors not shown (5,000 in all)" in refused.stderr
    assert out.read_text(encoding="utf-8") == content
    # what is held: twenty problems and one count, not one problem a line
    results = [Result(n, json.loads(line)) for n, line in enumerate(content.splitlines(), 1)]
    held = _strays(results, set(IDS), "run.jsonl")
    assert len(held) == 21
    assert isinstance(held[-1], Unlisted)
    assert (held[-1].line, held[-1].count) == (21, 4_980)


def test_a_file_without_a_manifest_another_system_or_another_set_is_refused(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    other = run_goldcase(repo, out, env, cmd=worker_command() + " --other")
    assert other.exit_code == 2
    assert "was begun with another system" in other.stderr
    (repo / "cases" / "golden" / "ret-004.yaml").write_text(
        CASES["ret-002"].replace("ret-002", "ret-004").replace("shoes", "boots"), encoding="utf-8"
    )
    changed = run_goldcase(repo, out, env)
    assert changed.exit_code == 2
    assert "was begun on another set (version 3" in changed.stderr
    out.with_name("run.jsonl.run.json").unlink()
    bare = run_goldcase(repo, out, env)
    assert bare.exit_code == 2
    assert "has no manifest" in bare.stderr
    assert len(requests(tmp_path)) == 4


def test_the_manifest_records_provenance_and_never_the_command(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, {}), "--system", "rag-v2").exit_code == 0
    text = out.with_name("run.jsonl.run.json").read_text(encoding="utf-8")
    manifest = json.loads(text)
    report = json.loads(run_cli("score", out, "--repo", repo, "--format", "json").stdout)
    assert manifest["golden_version"] == "3" == report["golden_version"]
    assert manifest["set_digest"] == report["set_digest"]
    assert manifest["corpus_digest"] == report["corpus_digest"]
    digest = hashlib.sha256(f"cmd\0{worker_command()}".encode()).hexdigest()
    assert manifest["system"] == {"name": "rag-v2", "kind": "cmd", "digest": digest}
    assert (manifest["split"], manifest["trials"], manifest["cases"]) == ("golden", 1, 4)
    [session] = manifest["sessions"]
    assert session["ended_by"] == "complete"
    assert (session["asked"], session["written"], session["errors"]) == (4, 4, 0)
    assert session["started"] <= session["ended"]
    assert "fake_system" not in text


def test_score_warns_when_the_set_changed_since_the_run(repo: Path, tmp_path: Path) -> None:
    assert run_cli("lock", "--repo", repo).exit_code == 1  # locked: nothing else to warn of
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, {})).exit_code == 0
    quiet = run_cli("score", out, "--repo", repo)
    assert "warning" not in quiet.stderr
    (repo / "golden.version").write_text("4\n", encoding="utf-8")
    (repo / "cases" / "golden" / "ret-002.yaml").write_text(
        CASES["ret-002"].replace("shoes", "boots"), encoding="utf-8"
    )
    warned = run_cli("score", out, "--repo", repo)
    assert warned.exit_code == 0
    assert "warning: " in warned.stderr
    assert "was made on golden version 3" in warned.stderr
    assert "the set is now version 4" in warned.stderr


def test_jobs_run_that_many_workers_at_once(repo: Path, tmp_path: Path) -> None:
    actions = dict.fromkeys(IDS, "meet:3")
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, script(tmp_path, actions), "--jobs", "3")
    assert done.exit_code == 0, done.stderr
    assert len(list((tmp_path / "requests.log.pids").iterdir())) >= 3
    assert sorted(by_id(out)) == IDS


def test_the_split_option_runs_the_dev_cases(repo: Path, tmp_path: Path) -> None:
    dev = CASES["ret-002"].replace("ret-002", "dev-001").replace("shoes", "a hat")
    (repo / "cases" / "dev" / "dev-001.yaml").write_text(dev, encoding="utf-8")
    out = tmp_path / "dev.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, {}), "--split", "dev").exit_code == 0
    assert list(by_id(out)) == ["dev-001"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give exactly one of --cmd, --http, --python"),
        (("--cmd", "x", "--python", "m:f"), "got --cmd, --python"),
        (("--cmd", "x", "--header", "A=B"), "--header goes with --http"),
        (("--cmd", "'unclosed"), "cannot split it into words"),
        (("--python", "nocolon"), "expected module:function"),
        (("--http", "file:///etc/passwd"), "expected an http:// or https:// URL"),
    ],
)
def test_bad_options_are_refused(
    repo: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    done = run_cli("run", "--repo", repo, "--out", tmp_path / "x.jsonl", *args)
    assert done.exit_code == 2
    assert message in done.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_a_folder_or_a_fifo_as_out_is_refused_without_waiting(repo: Path, tmp_path: Path) -> None:
    folder = run_goldcase(repo, tmp_path, script(tmp_path, {}))
    assert folder.exit_code == 2
    assert "is a directory" in folder.stderr
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    done = run_goldcase(repo, fifo, script(tmp_path, {}))
    assert done.exit_code == 2
    assert "not a regular file" in done.stderr
    assert requests(tmp_path) == []


def test_a_command_that_cannot_start_is_an_error_on_each_request(
    repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, {}, "--retries", "0", cmd="/nonexistent/worker")
    assert done.exit_code == 0
    assert {line["outcome"] for line in lines(out)} == {"error"}
    assert "cannot start the worker '/nonexistent/worker'" in lines(out)[0]["error"]


def test_broken_case_files_stop_the_run_before_any_request(repo: Path, tmp_path: Path) -> None:
    (repo / "cases" / "golden" / "bad.yaml").write_text("id: bad\nquestion: [\n", encoding="utf-8")
    done = run_goldcase(repo, tmp_path / "run.jsonl", script(tmp_path, {}))
    assert done.exit_code == 2
    assert "do not pass the schema" in done.stderr
    assert requests(tmp_path) == []


def test_a_manifest_holding_half_a_surrogate_pair_is_refused_naming_it(
    repo: Path, tmp_path: Path
) -> None:
    """An edited manifest escaping half a surrogate pair ("\\ud800") in a session it keeps
    made the next run end in an internal error when it wrote the manifest back; it is refused
    before anything is asked, the results and the manifest as they were."""
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    manifest = out.with_name("run.jsonl.run.json")
    text = manifest.read_text(encoding="utf-8").replace('"complete"', '"\\ud800"')
    assert "\\ud800" in text
    manifest.write_text(text, encoding="utf-8")
    results = out.read_bytes()
    asked = len(requests(tmp_path))
    again = run_goldcase(repo, out, env, "--trials", "2")
    assert again.exit_code == 2
    assert again.stderr.startswith(f"error: {manifest}: not a run manifest goldcase wrote")
    assert "half a surrogate pair" in again.stderr
    assert (out.read_bytes(), manifest.read_text(encoding="utf-8")) == (results, text)
    assert len(requests(tmp_path)) == asked
    score = run_cli("score", "--repo", repo, out)
    assert score.exit_code == 0, score.stderr
    assert "its provenance is not known" in score.stderr


def test_a_manifest_nested_deep_is_read_or_refused_never_a_crash(tmp_path: Path) -> None:
    """A manifest nested deeper than goldcase writes (a run writes it back, and a value just
    shallow enough to decode can be too deep to encode) is refused naming it, at every depth
    up to the interpreter's limit and past it, never a RecursionError."""
    path = tmp_path / "run.jsonl.run.json"
    for depth in range(1, sys.getrecursionlimit() + 50):
        value = "[" * depth + "1" + "]" * depth
        path.write_text(f'{{"format": "goldcase-run", "version": 1, "x": {value}}}')
        if depth < MAX_DEPTH:
            assert read_manifest(path) is not None
            continue
        with pytest.raises(GoldcaseError, match="not a run manifest") as refused:
            read_manifest(path)
        assert refused.value.message.startswith(f"{path}: not a run manifest")
    path.write_text('{"format": "goldcase-run", "version": 1, "x": ' + "[" * 40 + "]" * 40 + "}")
    with pytest.raises(GoldcaseError, match=f"nested more than {MAX_DEPTH} levels deep"):
        read_manifest(path)


def test_a_manifest_is_read_through_a_link_only_inside_the_repository(tmp_path: Path) -> None:
    """docs/score.md: the manifest is read as a case file is. A link is followed when it
    leads inside the repository, refused naming the manifest when it leads out, and never
    followed with no repository to stay in."""
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    for folder in (repo / "runs", elsewhere):
        folder.mkdir(parents=True)
        (folder / "k.jsonl.run.json").write_text('{"format": "goldcase-run", "version": 1}')
    inside = repo / "inside.jsonl.run.json"
    inside.symlink_to(repo / "runs" / "k.jsonl.run.json")
    outside = repo / "outside.jsonl.run.json"
    outside.symlink_to(elsewhere / "k.jsonl.run.json")
    assert read_manifest(inside, repo) == {"format": "goldcase-run", "version": 1}
    for path, root, where in (
        (outside, repo, " that leads outside the repository"),
        (inside, None, ""),
    ):
        with pytest.raises(GoldcaseError) as refused:
            read_manifest(path, root)
        assert refused.value.message == (
            f"{path}: the run manifest is a link{where}, so it was not read: replace the link "
            "with the manifest itself"
        )


HOSTILE = "4\x1b]0;title\x07\n::stop-commands::token\n::error file=x::injected\u2028"


@pytest.mark.parametrize("key", ["golden_version", "set_digest", "split", "corpus_digest"])
def test_a_hostile_manifest_prints_no_control_character_nor_line(
    repo: Path, tmp_path: Path, key: str
) -> None:
    """The manifest is committed beside the results, so a pull request can edit it: what
    score's warning and run's refusal quote from it starts no line of its own (a workflow
    command GitHub Actions obeys) and sends no terminal escape."""
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    manifest = out.with_name("run.jsonl.run.json")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data[key] = HOSTILE
    if key == "golden_version":  # quoted when the set differs
        data["set_digest"] = "0" * 64
    manifest.write_text(json.dumps(data), encoding="utf-8")
    shown = [run_cli("score", "--repo", repo, out), run_goldcase(repo, out, env)]
    for done in shown:
        text = done.stdout + done.stderr
        assert not any(line.startswith("::") for line in text.splitlines()), text
        assert "\x1b" not in text and "\x07" not in text and "\u2028" not in text
    assert shown[1].exit_code == 2
    assert key != "golden_version" or "\\x1b]0;title\\x07\\n::stop-commands::" in shown[0].stderr


@pytest.mark.parametrize("key", ["golden_version", "split"])
def test_a_long_value_in_a_manifest_is_quoted_cut(repo: Path, tmp_path: Path, key: str) -> None:
    """A stranger's manifest whose golden_version (quoted by score's warning and run's
    refusal) or split (run's refusal) holds 5,000 characters: quoted whole, the message was
    a 5,000-character line; now cut at 80 characters, as the manifest's version is."""
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {})
    assert run_goldcase(repo, out, env).exit_code == 0
    manifest = out.with_name("run.jsonl.run.json")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data[key] = "v" * 5_000
    if key == "golden_version":  # quoted when the set differs
        data["set_digest"] = "0" * 64
    manifest.write_text(json.dumps(data), encoding="utf-8")
    cut = "v" * 79 + "…"
    refused = run_goldcase(repo, out, env)
    assert refused.exit_code == 2
    quoted = f"(version {cut} (000000000000); now " if key == "golden_version" else f"({cut}; now "
    assert quoted in refused.stderr and "v" * 80 not in refused.stderr, refused.stderr
    if key == "golden_version":
        warned = run_cli("score", "--repo", repo, out).stderr
        assert f"was made on golden version {cut} (set 000000000000); " in warned, warned
        assert "v" * 80 not in warned


def test_the_set_s_own_long_version_is_quoted_cut(repo: Path, tmp_path: Path) -> None:
    """score's warning quotes the set's golden.version too (a cloned set's, so anyone's
    line, up to 64 KiB): escaped and cut at 80 characters, as the manifest's."""
    out = tmp_path / "run.jsonl"
    assert run_goldcase(repo, out, script(tmp_path, {})).exit_code == 0
    manifest = out.with_name("run.jsonl.run.json")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["set_digest"] = "0" * 64
    manifest.write_text(json.dumps(data), encoding="utf-8")
    (repo / "golden.version").write_text("\x1b]0;t\x07" + "w" * 5_000 + "\n", encoding="utf-8")
    warned = run_cli("score", "--repo", repo, out).stderr
    cut = ("\\x1b]0;t\\x07" + "w" * 5_000)[:79] + "…"  # escaped first, then cut
    assert f"the set is now version {cut} (" in warned, warned
    assert "\x1b" not in warned and "w" * 68 not in warned


def test_a_system_s_error_prints_no_terminal_escape(repo: Path, tmp_path: Path) -> None:
    """The run's summary names the commonest error reasons, the system's own text: an error
    holding an OSC sequence (a window title here; a forged link or a clipboard write in
    terminals that obey them) was printed raw."""
    out = tmp_path / "run.jsonl"
    reason = "\x1b]0;pwned\x07\x1b[2Jthe index is gone\u2028"
    done = run_goldcase(repo, out, script(tmp_path, {"ret-001": f"error:{reason}"}))
    assert done.exit_code == 0, done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr, done.stderr
    assert "1 × \\x1b]0;pwned\\x07\\x1b[2Jthe index is gone" in done.stderr
    assert by_id(out)["ret-001"]["error"] == "\x1b]0;pwned\x07\x1b[2Jthe index is gone"


def test_an_out_that_is_a_link_is_refused_and_nothing_written_where_it_leads(
    repo: Path, tmp_path: Path
) -> None:
    """A branch commits ``runs/k5.jsonl`` as a link to a file outside the repository that
    does not exist yet: the run created it there and appended every line to it (and would
    cut an unfinished last line off a file that does exist)."""
    away = tmp_path / "away"
    away.mkdir()
    (repo / "runs").mkdir()
    link = repo / "runs" / "k5.jsonl"
    link.symlink_to(away / "created.jsonl")
    result = run_goldcase(repo, link, script(tmp_path, {}))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: {link}: is a link (to {away / 'created.jsonl'})")
    assert "goldcase run writes the file itself, never through a link" in result.stderr
    assert list(away.iterdir()) == [] and link.is_symlink()
    assert requests(tmp_path) == []


def test_an_out_under_a_linked_folder_leading_out_is_refused(repo: Path, tmp_path: Path) -> None:
    away = tmp_path / "away"
    away.mkdir()
    (repo / "runs").symlink_to(away)
    out = repo / "runs" / "k5.jsonl"
    result = run_goldcase(repo, out, script(tmp_path, {}))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {out}: a linked folder leads outside the repository")
    assert list(away.iterdir()) == []
    assert requests(tmp_path) == []


def test_a_manifest_that_is_a_link_is_refused(repo: Path, tmp_path: Path) -> None:
    """The manifest is read and written back beside the results file: as a link it was read
    wherever it led and its content written into the repository."""
    outside = tmp_path / "other.run.json"
    outside.write_text("{}", encoding="utf-8")
    out = repo / "k5.jsonl"
    (repo / "k5.jsonl.run.json").symlink_to(outside)
    result = run_goldcase(repo, out, script(tmp_path, {}))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {repo / 'k5.jsonl.run.json'}: is a link")
    assert not out.exists() and (repo / "k5.jsonl.run.json").is_symlink()
