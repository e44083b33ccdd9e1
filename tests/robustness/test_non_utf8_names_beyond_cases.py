"""A file whose name is not UTF-8 outside the case folders (a corpus document, a prompt
file, a label file), or listed by a command itself (review). A case file so named is GC113,
named with the byte escaped (docs/check.md); these are read by the same commands (check,
lock, the hooks) and must give a clear word naming the file with the byte escaped, never an
internal error or a raw byte (docs/robustness.md: every bad input gets a clear error naming
the file)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from kit import GOLDCASE, case_text, commit, env, git, git_set, write

QUESTION = "How many days does a customer have to request a credit?"


def goldcase_bytes(root: Path, *args: str) -> tuple[int, str]:
    """goldcase run as the hooks run it; its exit status and both streams, any byte that is
    not UTF-8 shown as U+FFFD (so a raw byte in the output cannot fail the test itself)."""
    done = subprocess.run(
        [str(GOLDCASE), *args], cwd=root, env=env(), capture_output=True, timeout=600
    )
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    return done.returncode, text


def test_a_corpus_document_whose_name_is_not_utf8_is_named_not_an_internal_error(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set")
    (root / "corpus").joinpath(os.fsdecode(b"notes-\xff.md")).write_text("Another document.\n")
    for args in (("check",), ("lock",), ("check", "--staged", "--lock")):
        status, out = goldcase_bytes(root, *args)
        assert "internal error" not in out, (args, out)
        assert status in (1, 2), (args, out)
        assert "corpus/notes-\\xff.md" in out, (args, out)


def test_a_prompt_file_whose_name_is_not_utf8_is_named_not_an_internal_error(
    tmp_path: Path,
) -> None:
    """Prompt files are read on every commit (the leakage hook is always_run)."""
    root = git_set(tmp_path / "set")
    write(root, "prompts/few-shot.txt", f"Q: {QUESTION}\nA: 14 days\n")
    (root / "prompts").joinpath(os.fsdecode(b"old-\xff.txt")).write_text("Q: hello\nA: hi\n")
    status, out = goldcase_bytes(root, "check")
    assert "internal error" not in out, out
    assert status == 1, out
    assert "prompts/old-\\xff.txt" in out, out


def json_output(root: Path, *args: str) -> object:
    done = subprocess.run(
        [str(GOLDCASE), *args], cwd=root, env=env(), capture_output=True, timeout=600
    )
    assert done.returncode in (0, 1), done.stderr.decode("utf-8", "replace")
    return json.loads(done.stdout.decode("utf-8"))  # strict: a raw byte is not JSON text


def texts(value: object) -> str:
    """Every string a JSON document holds, one a line: a name is looked for as it was
    decoded (its escape ``\\xff`` is a backslash and three characters), not as JSON
    spells it again."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(texts(v) for v in [*value.keys(), *value.values()])
    if isinstance(value, list):
        return "\n".join(texts(v) for v in value)
    return ""


def test_a_label_file_whose_name_is_not_utf8_is_named_escaped_in_json(tmp_path: Path) -> None:
    """check's JSON names a case file so named with the byte escaped; a label file's GC509
    carried the raw byte, which no JSON reader takes."""
    root = git_set(tmp_path / "set")
    (root / "labels" / "bob").mkdir(parents=True)
    (root / "labels" / "bob").joinpath(os.fsdecode(b"ret-\xff.yaml")).write_text("{}\n")
    report = json_output(root, "check", "--select", "labelling", "--format", "json")
    assert "labels/bob/ret-\\xff.yaml" in texts(report)


def test_a_labeller_folder_whose_name_is_not_utf8_is_named_escaped(tmp_path: Path) -> None:
    """The labeller is the folder's name: a byte of it that is not UTF-8 is escaped in the
    GC509 finding (check's JSON and text, agreement's JSON), never a raw byte or a crash."""
    root = git_set(tmp_path / "set")
    folder = root / "labels" / os.fsdecode(b"b\xffb")
    folder.mkdir(parents=True)
    (folder / "ret-001.yaml").write_text("id: ret-001\nanswerable: true\n")
    report = json_output(root, "check", "--select", "labelling", "--format", "json")
    assert "labels/b\\xffb/ret-001.yaml" in texts(report)
    report = json_output(root, "agreement", "--format", "json")
    assert "labels/b\\xffb/ret-001.yaml" in texts(report)
    status, out = goldcase_bytes(root, "check", "--select", "labelling")
    assert (status, "internal error" in out) == (1, False), out
    assert "labels/b\\xffb/ret-001.yaml:1:1: GC509 " in out, out


def test_review_of_a_case_file_whose_name_is_not_utf8_is_json(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    (root / "cases" / "golden").joinpath(os.fsdecode(b"ret-\xff.yaml")).write_text(
        case_text("ret-003")
    )
    commit(root, "a case file whose name is not UTF-8")
    report = json_output(root, "review", "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert "cases/golden/ret-\\xff.yaml" in texts(report)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("head", [None, "HEAD"], ids=["working-tree", "commit"])
def test_review_names_a_case_file_whose_name_is_not_utf8_escaped(
    tmp_path: Path, fmt: str, head: str | None
) -> None:
    """Review lists the case files itself (git's tree, or the working tree); the path it
    shows, and the one its --out file is written with, are escaped as check names the file,
    so the GC113 finding is shown on the case."""
    root = git_set(tmp_path / "set")
    (root / "cases" / "golden").joinpath(os.fsdecode(b"ret-\xff.yaml")).write_text(
        case_text("ret-003")
    )
    if head is not None:
        commit(root, "a case file whose name is not UTF-8")
    base = "HEAD~1" if head is not None else "HEAD"
    sides = ["--base", base] + ([] if head is None else ["--head", head])
    out = tmp_path / "summary.md"
    done = subprocess.run(
        [str(GOLDCASE), "review", *sides, "--format", fmt, "--out", str(out)],
        cwd=root,
        env=env(),
        capture_output=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    shown = done.stdout.decode("utf-8")  # strict: a raw byte fails here
    if fmt == "json":
        assert "cases/golden/ret-\\xff.yaml" in texts(json.loads(shown))
    else:
        assert "cases/golden/ret-\\xff.yaml" in shown
    assert "GC113" in shown, shown
    assert out.read_text(encoding="utf-8") == shown


# Commands that list files themselves (a folder given on the command line, or cases/): each
# names a file whose name is not UTF-8 with the byte escaped, in text and JSON alike.

LONG_QUESTION = (
    "Within how many days from the delivery date can a customer with a damaged parcel "
    "request a credit?"
)


def strict_output(root: Path, *args: str | Path, ok: tuple[int, ...] = (0, 1)) -> str:
    """goldcase's standard output and error, which must be UTF-8 (a raw byte fails here)."""
    done = subprocess.run(
        [str(GOLDCASE), *map(str, args)],
        cwd=root,
        env=env(),
        capture_output=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    text = (done.stdout + done.stderr).decode("utf-8")
    assert "internal error" not in text, text
    assert done.returncode in ok, text
    return text


def test_fmt_names_a_case_file_whose_name_is_not_utf8_escaped(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    unordered = "question: Which orders ship free?\n" + case_text("ret-003").replace(
        "question: Which orders ship free?\n", ""
    )
    path = (root / "cases" / "golden").joinpath(os.fsdecode(b"ret-\xff.yaml"))
    path.write_text(unordered)
    out = strict_output(root, "fmt", "--check", ok=(1,))
    assert "would reformat cases/golden/ret-\\xff.yaml" in out, out
    out = strict_output(root, "fmt", "cases/golden", ok=(1,))
    assert "reformatted cases/golden/ret-\\xff.yaml" in out, out
    assert path.read_text().startswith("id: ret-003\n")


def test_scrub_names_a_case_file_whose_name_is_not_utf8_escaped(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    path = (root / "cases" / "golden").joinpath(os.fsdecode(b"ret-\xff.yaml"))
    path.write_text(case_text("ret-003") + "notes: ask bob@example.com\n")
    out = strict_output(root, "scrub", "--yes", "cases", ok=(1,))
    assert "+++ b/cases/golden/ret-\\xff.yaml" in out, out
    assert "[EMAIL]" in path.read_text()


def test_contamination_names_a_training_file_whose_name_is_not_utf8_escaped(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-004.yaml", case_text("ret-004", question=LONG_QUESTION))
    commit(root, "a question long enough for 13-grams")
    train = tmp_path / "train"
    train.mkdir()
    train.joinpath(os.fsdecode(b"shard-\xff.txt")).write_text(f"{LONG_QUESTION} 14 days\n")
    shown = f"{train}/shard-\\xff.txt"
    out = strict_output(root, "contamination", train, ok=(1,))
    assert f"{shown}:1: ret-004 question" in out, out
    report = json.loads(strict_output(root, "contamination", train, "--format", "json", ok=(1,)))
    assert shown in texts(report), report


def test_leakage_against_names_a_prompt_file_whose_name_is_not_utf8_escaped(
    tmp_path: Path,
) -> None:
    root = git_set(tmp_path / "set")
    hashes = tmp_path / "hashes.json"
    strict_output(root, "hashes", "--out", hashes, ok=(0,))
    prompts = tmp_path / "elsewhere" / "prompts"
    prompts.mkdir(parents=True)
    prompts.joinpath(os.fsdecode(b"few-\xff.txt")).write_text(f"Q: {QUESTION}\nA: 14 days\n")
    where = prompts.parent
    out = strict_output(where, "leakage", "--against", hashes, "prompts", ok=(1,))
    assert "prompts/few-\\xff.txt:1:1: GC302 " in out, out
    report = json.loads(
        strict_output(where, "leakage", "--against", hashes, "prompts", "--format", "json", ok=(1,))
    )
    assert "prompts/few-\\xff.txt" in texts(report), report


def test_lock_stage_names_an_untracked_case_file_whose_name_is_not_utf8_escaped(
    tmp_path: Path,
) -> None:
    """git lists the files the commit will not hold; one so named is named as check names it
    (it was shown with U+FFFD for the byte, a name no file has)."""
    root = git_set(tmp_path / "set")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    git(root, "add", "cases/golden/ret-003.yaml")
    (root / "cases" / "golden").joinpath(os.fsdecode(b"ret-\xfe.yaml")).write_text(
        case_text("ret-004")
    )
    out = strict_output(root, "lock", "--stage")
    assert "not staged: cases/golden/ret-\\xfe.yaml is on disk" in out, out
