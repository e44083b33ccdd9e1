"""goldcase score --from promptfoo|inspect on outputs written here, in the shapes the real
clients write (tests/interchange/test_*_client.py runs the clients themselves): ids, errors,
abstentions, trials, structured responses, and every malformed or hostile input refused with
a message naming the file."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from kit import run_cli
from run.kit import make_set


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_set(tmp_path / "repo")


def pf_result(case_id: str | None, output: Any, **extra: Any) -> dict[str, Any]:
    meta = {"id": case_id, "golden_version": "3"} if case_id else {}
    return {
        "testIdx": extra.pop("testIdx", 0),
        "promptIdx": 0,
        "provider": {"id": "echo", "label": ""},
        "testCase": {"vars": {"question": "q"}, "metadata": meta},
        "response": {"output": output},
        "latencyMs": 12,
        "failureReason": extra.pop("failureReason", 0),
        "success": True,
        **extra,
    }


def pf_output(tmp_path: Path, results: list[dict[str, Any]]) -> Path:
    path = tmp_path / "output.json"
    path.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": results}}))
    return path


def scored(repo: Path, path: Path, fmt: str) -> tuple[dict[str, Any], str]:
    done = run_cli("score", path, "--repo", repo, "--from", fmt, "--format", "json")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    return {c["id"]: c for c in report["cases"]}, done.stderr


def test_promptfoo_results_become_result_lines(repo: Path, tmp_path: Path) -> None:
    output = pf_output(
        tmp_path,
        [
            pf_result("ret-001", "You have 30 days."),
            pf_result("oos-001", "I don't know.", testIdx=1),
            pf_result("ret-002", None, testIdx=2, failureReason=2, error="Error: exit 1\n  at x"),
            pf_result("ret-003", "14 days", testIdx=3, failureReason=1, error="assert failed"),
        ],
    )
    cases, _ = scored(repo, output, "promptfoo")
    assert (cases["ret-001"]["outcome"], cases["ret-001"]["passed"]) == ("answer", True)
    assert (cases["oos-001"]["outcome"], cases["oos-001"]["passed"]) == ("abstain", True)
    assert cases["ret-002"]["outcome"] == "error"  # the provider failed
    assert cases["ret-003"]["outcome"] == "answer"  # a failed assertion is graded, not an error


def test_promptfoo_repeats_are_trials_and_objects_are_responses(repo: Path, tmp_path: Path) -> None:
    structured = {"outcome": "abstain", "confidence": 0.1}
    output = pf_output(
        tmp_path,
        [
            pf_result("ret-001", "30 days", testIdx=0),
            pf_result("ret-001", "no idea at all", testIdx=1),
            pf_result("oos-001", structured, testIdx=2),
            pf_result("ret-002", json.dumps({"answer": "30 days", "confidence": 0.5}), testIdx=3),
        ],
    )
    done = run_cli("score", output, "--repo", repo, "--from", "promptfoo", "--format", "json")
    report = json.loads(done.stdout)
    cases = {c["id"]: c for c in report["cases"]}
    assert report["trials"]["per_case"]["ret-001"] == [1, 2]
    assert (cases["oos-001"]["outcome"], cases["oos-001"]["confidence"]) == ("abstain", 0.1)
    assert (cases["ret-002"]["passed"], cases["ret-002"]["confidence"]) == (True, 0.5)
    assert cases["ret-003"]["outcome"] == "missing"


def test_promptfoo_jsonl_output_is_read(repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "output.jsonl"
    lines = [pf_result("ret-001", "30 days"), pf_result("ret-002", "30 days", testIdx=1)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    cases, _ = scored(repo, path, "promptfoo")
    assert cases["ret-001"]["passed"] and cases["ret-002"]["passed"]


def test_promptfoo_from_another_version_warns(repo: Path, tmp_path: Path) -> None:
    result = pf_result("ret-001", "30 days")
    result["testCase"]["metadata"]["golden_version"] = "2"
    _, stderr = scored(repo, pf_output(tmp_path, [result]), "promptfoo")
    assert "warning: " in stderr and "exported from golden version 2" in stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json at all", "not promptfoo output"),
        ('{"results": {"version": 3}}', "no results.results list"),
        ("[1, 2]", "no results.results list"),
    ],
)
def test_promptfoo_output_that_is_not_one_is_refused(
    repo: Path, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "output.json"
    path.write_text(content)
    done = run_cli("score", path, "--repo", repo, "--from", "promptfoo")
    assert done.exit_code == 2
    assert f"{path}: " in done.stderr and message in done.stderr


def test_promptfoo_problems_are_all_listed_and_nothing_is_scored(
    repo: Path, tmp_path: Path
) -> None:
    output = pf_output(tmp_path, [pf_result(None, "x"), pf_result("zzz-9", "x", testIdx=1)])
    done = run_cli("score", output, "--repo", repo, "--from", "promptfoo")
    assert done.exit_code == 2
    assert "result 1: its test has no goldcase id in metadata.id" in done.stderr
    other = pf_output(tmp_path, [pf_result("zzz-9", "x")])
    unknown = run_cli("score", other, "--repo", repo, "--from", "promptfoo")
    assert unknown.exit_code == 2
    assert "(from promptfoo):1: unknown case id 'zzz-9'" in unknown.stderr


def test_promptfoo_with_two_providers_is_refused(repo: Path, tmp_path: Path) -> None:
    second = pf_result("ret-001", "x", provider={"id": "openai:gpt-4o"})
    done = run_cli(
        "score", pf_output(tmp_path, [pf_result("ret-001", "x"), second]), "--repo", repo,
        "--from", "promptfoo",
    )  # fmt: skip
    assert done.exit_code == 2
    assert "holds 2 provider and prompt pairs" in done.stderr


# --- Inspect ------------------------------------------------------------------------------------


def sample(case_id: Any, text: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": case_id,
        "epoch": extra.pop("epoch", 1),
        "metadata": extra.pop("metadata", {"golden_version": "3"}),
        "output": {"choices": [{"message": {"role": "assistant", "content": text}}]},
        "total_time": 0.25,
        **extra,
    }
    if text is not None:
        out["output"]["completion"] = text
    return out


def json_log(tmp_path: Path, samples: list[dict[str, Any]]) -> Path:
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"version": 2, "status": "success", "eval": {}, "samples": samples}))
    return path


def eval_log(tmp_path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_inspect_samples_become_result_lines(repo: Path, tmp_path: Path) -> None:
    parts = [{"type": "reasoning", "reasoning": "..."}, {"type": "text", "text": "30 days"}]
    samples = [
        sample("ret-001", "It is 30 days."),
        sample("ret-002", None, output={"choices": [{"message": {"content": parts}}]}),
        sample("oos-001", "I don't know."),
        sample("ret-003", None, error={"message": "RuntimeError: boom\ntraceback"}),
    ]
    for path in (json_log(tmp_path, samples), _as_eval(tmp_path, samples)):
        cases, _ = scored(repo, path, "inspect")
        assert cases["ret-001"]["passed"] and cases["ret-002"]["passed"]
        assert (cases["oos-001"]["outcome"], cases["oos-001"]["passed"]) == ("abstain", True)
        assert cases["ret-003"]["outcome"] == "error"


def _as_eval(tmp_path: Path, samples: list[dict[str, Any]]) -> Path:
    members = {f"samples/{s['id']}_{s['epoch']}.json": json.dumps(s).encode() for s in samples}
    members["header.json"] = b'{"status": "success"}'
    return eval_log(tmp_path, members)


def test_inspect_epochs_are_trials_and_the_store_holds_a_response(
    repo: Path, tmp_path: Path
) -> None:
    samples = [
        sample("ret-001", "30 days", epoch=1),
        sample("ret-001", "14 days", epoch=2),
        sample("oos-001", "The CEO is Ann.", store={"goldcase": {"outcome": "abstain"}}),
        sample(7, "30 days", metadata={"id": "ret-002"}),  # metadata.id wins over the sample id
    ]
    done = run_cli(
        "score", json_log(tmp_path, samples), "--repo", repo, "--from", "inspect",
        "--format", "json",
    )  # fmt: skip
    report = json.loads(done.stdout)
    cases = {c["id"]: c for c in report["cases"]}
    assert report["trials"]["per_case"]["ret-001"] == [1, 2]
    assert cases["oos-001"]["outcome"] == "abstain"
    assert cases["ret-002"]["passed"]


def test_a_zstd_eval_member_is_read(repo: Path, tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    data = json.dumps(sample("ret-001", "30 days")).encode()
    path = eval_log(tmp_path, {"samples/ret-001_epoch_1.json": data}, zipfile.ZIP_STORED)
    packed = zstandard.ZstdCompressor().compress(data)
    _rewrite_member(path, packed, method=93)
    cases, _ = scored(repo, path, "inspect")
    assert cases["ret-001"]["passed"]


def _rewrite_member(path: Path, packed: bytes, method: int) -> None:
    """Replace the only member's data by ``packed`` written with ``method`` (as Inspect's
    zstd writer does), fixing the sizes and method in both headers."""
    raw = bytearray(path.read_bytes())
    info = zipfile.ZipFile(io.BytesIO(bytes(raw))).infolist()[0]
    start = info.header_offset
    name_len = int.from_bytes(raw[start + 26 : start + 28], "little")
    extra_len = int.from_bytes(raw[start + 28 : start + 30], "little")
    data_at = start + 30 + name_len + extra_len
    tail = raw[data_at + info.compress_size :]
    central = tail.find(b"PK\x01\x02")
    head = raw[:data_at]
    head[start + 8 : start + 10] = method.to_bytes(2, "little")
    head[start + 18 : start + 22] = len(packed).to_bytes(4, "little")
    shift = len(packed) - info.compress_size
    rest = bytearray(tail[central:])
    rest[10:12] = method.to_bytes(2, "little")
    rest[20:24] = len(packed).to_bytes(4, "little")
    end = rest.find(b"PK\x05\x06")
    offset = int.from_bytes(rest[end + 16 : end + 20], "little") + shift
    rest[end + 16 : end + 20] = offset.to_bytes(4, "little")
    path.write_bytes(bytes(head) + packed + bytes(tail[:central]) + bytes(rest))


def test_a_decompression_bomb_is_stopped_at_the_bound(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goldcase.interchange import from_inspect

    monkeypatch.setattr(from_inspect, "MAX_MEMBER", 1_000_000)
    path = eval_log(tmp_path, {"samples/ret-001_epoch_1.json": b" " * 50_000_000})
    assert path.stat().st_size < 200_000  # small on disk, large once inflated
    done = run_cli("score", path, "--repo", repo, "--from", "inspect")
    assert done.exit_code == 2
    assert "is larger than 1,000,000 bytes" in done.stderr


def test_samples_that_expand_past_the_log_bound_in_all_are_refused(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each member under its own bound, but together far more than a log is read to: a
    2.4 MB archive of twelve 200 MB answers took every byte of memory (MemoryError)."""
    from goldcase.interchange import from_inspect

    monkeypatch.setattr(from_inspect, "MAX_SAMPLES_BYTES", 1_000_000)
    samples = [sample(case_id, "a" * 400_000) for case_id in ("ret-001", "ret-002", "ret-003")]
    path = _as_eval(tmp_path, samples)
    assert path.stat().st_size < 100_000
    done = run_cli("score", path, "--repo", repo, "--from", "inspect")
    assert done.exit_code == 2
    assert "its samples expand to more than 1,000,000 bytes" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{}", "no 'eval' header"),
        (b'{"eval": {}, "status": "success"}', "the log holds no samples"),
        (b"PK\x03\x04 not really a zip", "not an Inspect log"),
        (b"\xff\xfe garbage", "not an Inspect log"),
    ],
)
def test_an_inspect_log_that_is_not_one_is_refused(
    repo: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "log.json"
    path.write_bytes(content)
    done = run_cli("score", path, "--repo", repo, "--from", "inspect")
    assert done.exit_code == 2
    assert message in done.stderr


def test_a_fifo_is_refused_without_waiting_for_a_writer(repo: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "log.eval"
    os.mkfifo(fifo)
    for fmt in ("inspect", "promptfoo"):
        done = run_cli("score", fifo, "--repo", repo, "--from", fmt)
        assert done.exit_code == 2
        assert "not a regular file" in done.stderr or "cannot read it" in done.stderr


@pytest.mark.parametrize(
    ("fmt", "wanted"),
    [
        ("inspect", "an Inspect log (.json or .eval)"),
        ("promptfoo", "promptfoo output (promptfoo eval -o OUTPUT.json)"),
    ],
)
def test_a_folder_or_a_missing_file_is_named_with_what_to_give(
    repo: Path, tmp_path: Path, fmt: str, wanted: str
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    given = run_cli("score", folder, "--repo", repo, "--from", fmt)
    assert (given.exit_code, given.stderr) == (2, f"error: {folder}: is a folder; give {wanted}\n")
    missing = run_cli("score", tmp_path / "gone.json", "--repo", repo, "--from", fmt)
    assert (missing.exit_code, missing.stderr) == (
        2,
        f"error: {tmp_path / 'gone.json'}: no such file\n",
    )


# --- hostile names in what a system wrote --------------------------------------------------

HOSTILE = "\x1b]0;title\x07\n::stop-commands::token\n::error file=x::injected\u2028.json"


def _no_command_nor_escape(text: str) -> None:
    assert not any(line.startswith("::") for line in text.splitlines()), text
    assert "\x1b" not in text and "\x07" not in text and "\u2028" not in text


def test_a_promptfoo_provider_name_prints_no_line_of_its_own(repo: Path, tmp_path: Path) -> None:
    second = pf_result("ret-001", "x", provider={"id": HOSTILE})
    output = pf_output(tmp_path, [pf_result("ret-001", "x"), second])
    done = run_cli("score", output, "--repo", repo, "--from", "promptfoo")
    assert done.exit_code == 2
    assert "holds 2 provider and prompt pairs" in done.stderr
    _no_command_nor_escape(done.stdout + done.stderr)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2])
def test_an_eval_member_name_prints_no_line_of_its_own(
    repo: Path, tmp_path: Path, method: int
) -> None:
    """A member named samples/<control characters>.json that is not JSON (deflated), or is
    compressed as Inspect never writes (bzip2): the message names it, escaped."""
    path = eval_log(tmp_path, {f"samples/{HOSTILE}": b"not json"}, method)
    done = run_cli("score", path, "--repo", repo, "--from", "inspect")
    assert done.exit_code == 2
    assert "samples/\\x1b]0;title\\x07\\n::stop-commands::" in done.stderr
    _no_command_nor_escape(done.stdout + done.stderr)


def test_half_a_surrogate_pair_in_an_answer_is_refused_with_the_file_named(
    repo: Path, tmp_path: Path
) -> None:
    """JSON can escape half a surrogate pair, which no output can print: the file is refused,
    named, where it used to end score with an internal error."""
    half = "wrong \ud800"
    outputs = [
        (pf_output(tmp_path, [pf_result("ret-001", half)]), "promptfoo"),
        (json_log(tmp_path, [sample("ret-001", half)]), "inspect"),
        (_as_eval(tmp_path, [sample("ret-001", half)]), "inspect"),
    ]
    for path, source in outputs:
        done = run_cli("score", path, "--repo", repo, "--from", source)
        assert done.exit_code == 2, done.stderr
        assert f"{path.name}" in done.stderr and "half a surrogate pair" in done.stderr
    whole = pf_output(tmp_path, [pf_result("ret-001", "It is 30 days \U0001f600")])
    assert run_cli("score", whole, "--repo", repo, "--from", "promptfoo").exit_code in (0, 1)


@pytest.mark.parametrize(
    "time",
    [10**400, 1e300, -1, "12"],
    ids=["400 digits", "1e300", "negative", "text"],
)
def test_a_latency_no_clock_gives_is_read_as_none(repo: Path, tmp_path: Path, time: Any) -> None:
    """A tool's latency that is an integer of 400 digits ended ``score --from`` in ``internal
    error: OverflowError``; a latency no clock gives is read as 0 ms (docs/score.md)."""
    output = pf_output(tmp_path, [pf_result("ret-001", "You have 30 days.", latencyMs=time)])
    log = json_log(tmp_path, [sample("ret-001", "You have 30 days.", total_time=time)])
    for path, fmt in ((output, "promptfoo"), (log, "inspect")):
        cases, _ = scored(repo, path, fmt)
        assert cases["ret-001"]["passed"]


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from goldcase import jsonmemory

    monkeypatch.setattr(jsonmemory, "BUDGET", 8 * 1024**2)


BULKY = {"golden_version": "3", "x": [[]] * 200_000}  # 600 KB that decode to about 13 MB


@pytest.mark.usefixtures("small_budget")
def test_an_inspect_json_log_past_the_memory_budget_is_refused(repo: Path, tmp_path: Path) -> None:
    path = json_log(tmp_path, [sample("ret-001", "30 days", metadata=BULKY)])
    done = run_cli("score", path, "--repo", repo, "--from", "inspect")
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {path}: decoding its ")
    assert "more than the 8 MiB goldcase allows; score a log or output of fewer samples" in (
        done.stderr
    )


@pytest.mark.usefixtures("small_budget")
def test_an_eval_sample_past_the_memory_budget_is_refused(repo: Path, tmp_path: Path) -> None:
    member = json.dumps(sample("ret-001", "30 days", metadata=BULKY)).encode()
    path = eval_log(tmp_path, {"samples/ret-001_epoch_1.json": member})
    done = run_cli("score", path, "--repo", repo, "--from", "inspect")
    assert done.exit_code == 2
    assert f"error: {path}:samples/ret-001_epoch_1.json: decoding its " in done.stderr


@pytest.mark.usefixtures("small_budget")
@pytest.mark.parametrize("jsonl", [False, True])
def test_a_promptfoo_output_past_the_memory_budget_is_refused(
    repo: Path, tmp_path: Path, jsonl: bool
) -> None:
    result = pf_result("ret-001", "30 days", namedScores={"x": [[]] * 200_000})
    if jsonl:
        path = tmp_path / "output.jsonl"
        path.write_text(json.dumps(result) + "\n")
    else:
        path = pf_output(tmp_path, [result])
    done = run_cli("score", path, "--repo", repo, "--from", "promptfoo")
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {path}: decoding its ")
