"""goldcase promote (docs/triage.md, "Promote"): a labelled draft becomes a case once it passes
every check of its destination; all the drafts named, or none; refusals at the drafts' lines."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from goldcase.config import load_config
from goldcase.repolock import serialised
from kit import run_cli
from traffic.kit import (
    DEV_QUESTION,
    GOLDEN_QUESTION,
    QUOTE,
    distinct_questions,
    set_files,
    trace,
    write_log,
)

Repo = Callable[..., Path]
SUFFIX = "[0-9a-hjkmnp-tv-z]{9}"


@pytest.fixture
def repo(make_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A set with one golden and one dev case, and three drafts drawn from a log."""
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    root = make_repo(set_files())
    rows = [trace(i + 1, q, failed=True) for i, q in enumerate(distinct_questions(3))]
    write_log(root / "traces" / "week.jsonl", rows)  # type: ignore[arg-type]
    assert run_cli("triage", "traces/week.jsonl", "--n", "3").exit_code == 0
    return root


def inbox(root: Path) -> list[Path]:
    return sorted((root / "cases" / "inbox").glob("*.yaml"))


def label(
    path: Path,
    *,
    answerable: str = "true",
    answer: str | None = "14 days",
    quote: str | None = QUOTE,
    slice_name: str | None = "returns",
    question: str | None = None,
) -> str:
    """Fill the draft in as a labeller does, in the file; returns its id."""
    text = path.read_text(encoding="utf-8")
    text = text.replace("answerable:\n", f"answerable: {answerable}\n")
    if answer is not None:
        text = text.replace("expected_answer:\n", f"expected_answer: {answer}\n")
    if quote is not None:
        text = text.replace(
            "support:\n", f"support:\n  - doc: returns-policy.md\n    quote: {quote}\n"
        )
    if slice_name is not None:
        probes = "probes:\n  fail: [You have 30 days.]\n" if answerable == "true" else ""
        text = text.replace("slice:\n", f"{probes}slice: {slice_name}\n")
    text = text.replace("labelled_by:\n", "labelled_by: support-lead  # read it on Monday\n")
    if question is not None:
        text = re.sub(r"^question: .*$", f"question: {question}", text, count=1, flags=re.M)
    path.write_text(text, encoding="utf-8")
    return path.stem


def line_of(path: Path, start: str) -> int:
    """The number of the draft's first line that starts with ``start``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith(start))


def promote(*args: str) -> tuple[int, list[str]]:
    result = run_cli("promote", *args)
    return result.exit_code, (result.stdout + result.stderr).splitlines()


def test_a_labelled_draft_becomes_a_golden_case(repo: Path) -> None:
    draft = inbox(repo)[0]
    draft_id = label(draft)
    code, lines = promote(draft_id, "--to", "golden")
    assert code == 0, lines
    match = re.fullmatch(
        rf"cases/inbox/{draft_id}\.yaml -> cases/golden/(ret-{SUFFIX})\.yaml", lines[0]
    )
    assert match, lines
    assert lines[1:] == [
        f"commit them: git add cases/golden/{match[1]}.yaml && git commit",  # no draft in git
        "the golden set changed: the goldcase-version hook bumps golden.version at the commit "
        "(or run goldcase lock and add golden.version and golden.lock)",
    ]
    assert not draft.exists()
    text = (repo / "cases" / "golden" / f"{match[1]}.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../../schema/case.schema.json\n")
    assert "labelled_by: support-lead  # read it on Monday\n" in text  # comments kept
    data = yaml.safe_load(text)
    assert data["id"] == match[1]
    assert set(data) == {
        "id", "question", "answerable", "expected_answer", "support", "probes", "slice",
        "source", "asked_at", "labelled_by",
    }  # fmt: skip
    assert "trace" not in text and "goldcase promote" not in text
    check = json.loads(run_cli("check", "--repo", repo, "--format", "json").stdout)
    errors = [f["code"] for f in check["findings"] if f["severity"] == "error"]
    assert errors == []  # no golden.lock in this repository: versioning has not started
    assert run_cli("fmt", "--repo", repo, "--check").exit_code == 0


def test_a_dev_case_gets_the_dev_prefix_and_no_bump_message(repo: Path) -> None:
    draft_id = label(inbox(repo)[0], answerable="false", answer=None, quote=None)
    code, lines = promote(draft_id, "--to", "dev")
    assert code == 0
    assert re.fullmatch(
        rf"cases/inbox/{draft_id}\.yaml -> cases/dev/dev-ret-{SUFFIX}\.yaml", lines[0]
    )
    assert len(lines) == 2


def test_several_drafts_all_or_none(repo: Path) -> None:
    good, bad, _ = inbox(repo)
    label(good)
    label(bad, quote="A customer has 15 days from delivery to request a credit")
    code, lines = promote(good.stem, bad.stem, "--to", "golden")
    assert code == 1
    at = line_of(bad, "    quote:")
    assert re.fullmatch(
        rf"cases/inbox/{bad.stem}\.yaml:{at}:12: GC202 quote not found verbatim in "
        r"returns-policy\.md; .* \(as cases/golden/ret-" + SUFFIX + r"\.yaml\)",
        lines[0],
    ), lines
    assert lines[-1] == "refused: 1 error; fix the drafts and run again"
    assert good.exists() and bad.exists()
    assert sorted(p.name for p in (repo / "cases" / "golden").iterdir()) == ["ret-001.yaml"]


@pytest.mark.parametrize(
    ("changes", "where", "code", "message"),
    [
        ({"answer": None}, "", "GC107", "missing 'expected_answer'"),
        ({"quote": None}, "", "GC107", "missing 'support'"),
        ({"question": DEV_QUESTION}, "question:", "GC301", "equals the question of dev case"),
        ({"question": GOLDEN_QUESTION}, "question:", "GC304", "golden case ret-001"),
    ],
)
def test_what_the_destination_refuses(
    repo: Path, changes: dict[str, str | None], where: str, code: str, message: str
) -> None:
    draft = inbox(repo)[0]
    label(draft, **changes)  # type: ignore[arg-type]
    status, lines = promote(draft.stem, "--to", "golden")
    assert status == 1, lines
    at = f"{line_of(draft, where)}:11" if where else "1:1"
    mine = [line for line in lines if line.startswith(f"cases/inbox/{draft.stem}.yaml:")]
    assert mine and mine[0].startswith(f"cases/inbox/{draft.stem}.yaml:{at}: {code} "), lines
    assert message in mine[0]


def test_a_golden_question_promoted_to_dev_is_refused_at_both_ends(repo: Path) -> None:
    draft = inbox(repo)[0]
    label(draft, question=GOLDEN_QUESTION)
    status, lines = promote(draft.stem, "--to", "dev")
    assert status == 1
    assert any(line.startswith("cases/golden/ret-001.yaml:2:11: GC301 ") for line in lines)


def test_the_time_split_is_a_check_of_the_destination(repo: Path) -> None:
    (repo / "goldcase.toml").write_text("[split]\nby_time = true\n", encoding="utf-8")
    dev = repo / "cases" / "dev" / "dev-ret-001.yaml"
    dev.write_text(dev.read_text(encoding="utf-8") + 'asked_at: "2026-12-31"\n', encoding="utf-8")
    draft = inbox(repo)[0]
    label(draft)
    status, lines = promote(draft.stem, "--to", "golden")
    assert status == 1
    at = line_of(draft, "asked_at:")
    assert lines[0].startswith(f"cases/inbox/{draft.stem}.yaml:{at}:11: GC513 golden case asked")
    assert promote(draft.stem, "--to", "dev")[0] == 0


def test_warnings_are_shown_and_do_not_refuse(repo: Path) -> None:
    draft = inbox(repo)[0]
    label(draft, answer="yes, 30 days")
    at = line_of(draft, "expected_answer:")
    code, lines = promote(draft.stem, "--to", "golden")
    assert code == 0
    warned = [line for line in lines if " GC208 " in line]
    assert warned[0].startswith(f"cases/inbox/{draft.stem}.yaml:{at}:18: GC208 expected_answer")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"answerable": ""}, "answerable is blank; label the draft first"),
        ({"slice_name": None}, "slice is blank; name the slice the case is reported in"),
    ],
)
def test_a_draft_not_labelled_yet(repo: Path, changes: dict[str, str | None], message: str) -> None:
    draft = inbox(repo)[0]
    label(draft, **changes)  # type: ignore[arg-type]
    code, lines = promote(draft.stem, "--to", "golden")
    assert code == 2
    assert lines == [
        f"error: cases/inbox/{draft.stem}.yaml: {message}" + lines[0].split(message)[1]
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "tr-nothing",
            "error: no draft tr-nothing in cases/inbox/; goldcase triage writes drafts there",
        ),
        ("../golden/ret-001", "error: no draft ret-001 in cases/inbox/"),
        ("-x", "error: '-x' is not a draft id"),
    ],
)
def test_no_such_draft(repo: Path, name: str, message: str) -> None:
    code, lines = promote("--to", "golden", "--", name)
    assert code == 2
    assert lines[0].startswith(message)


def test_a_draft_named_by_its_file(repo: Path) -> None:
    draft = inbox(repo)[0]
    label(draft)
    assert promote(f"cases/inbox/{draft.name}", "--to", "golden")[0] == 0


@pytest.mark.parametrize(
    "committed", [True, False], ids=["draft committed", "draft never committed"]
)
def test_the_printed_git_command_runs_as_written(repo: Path, committed: bool) -> None:
    """The draft is named for ``git add`` only when git tracks it (its removal is then part of
    the commit); a draft triaged and promoted the same day was never added, and naming it
    would stop ``git add`` with "pathspec did not match"."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run(
        [*git, "add", "-A"] if committed else [*git, "add", "cases/golden"], cwd=repo, check=True
    )
    subprocess.run([*git, "commit", "-qm", "set"], cwd=repo, check=True)
    draft_id = label(inbox(repo)[0])
    code, lines = promote(draft_id, "--to", "golden")
    assert code == 0, lines
    (command,) = [line.removeprefix("commit them: ") for line in lines if line.startswith("commit")]
    assert (f"cases/inbox/{draft_id}.yaml" in command) == committed
    add = command.removesuffix(" && git commit")
    done = subprocess.run(add, shell=True, cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    staged = subprocess.run(
        ["git", "diff", "--cached", "--no-renames", "--name-status"],
        cwd=repo,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert any(line.startswith("A\tcases/golden/") for line in staged), staged
    assert (f"D\tcases/inbox/{draft_id}.yaml" in staged) == committed


@pytest.mark.parametrize("link", ["draft", "inbox"])
def test_a_draft_behind_a_link_out_of_the_repository_is_refused(
    repo: Path, tmp_path: Path, link: str
) -> None:
    """A draft that is a link out of the repository, or an inbox that is one, is neither read
    into the set nor removed: promote would copy a file from outside into cases/ and delete
    the original."""
    draft = inbox(repo)[0]
    draft_id = label(draft)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / draft.name
    target.write_bytes(draft.read_bytes())
    if link == "draft":
        draft.unlink()
        draft.symlink_to(target)
    else:
        folder = repo / "cases" / "inbox"
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
        folder.symlink_to(outside)
    code, lines = promote(draft_id, "--to", "dev")
    assert code == 2
    if link == "draft":
        assert lines == [
            f"error: cases/inbox/{draft_id}.yaml: cannot read it: outside the repository "
            "(a link that leads out of it)"
        ]
    else:  # the whole inbox: refused before anything is read (docs/config.md)
        assert lines == [
            f"error: cases/inbox is a link that leads outside the repository (to {outside}); "
            "goldcase reads and writes only inside it: replace the link with the folder itself"
        ]
    assert target.exists()
    assert sorted(p.name for p in (repo / "cases" / "dev").iterdir()) == ["dev-ret-001.yaml"]


def test_a_draft_that_is_a_fifo_is_refused(repo: Path) -> None:
    fifo = repo / "cases" / "inbox" / "tr-0000000ab.yaml"
    os.mkfifo(fifo)
    code, lines = promote("tr-0000000ab", "--to", "dev")
    assert code == 2
    assert lines == [
        "error: cases/inbox/tr-0000000ab.yaml: cannot read it: not a regular file "
        "(a FIFO, socket or device)"
    ]


def test_a_save_made_while_promote_runs_is_in_the_case_or_refused(repo: Path) -> None:
    """The labelling page saves a draft under the repository's lock (docs/label.md); held
    here, as a save in progress holds it, while ``goldcase promote`` starts, and the draft
    saved meanwhile. promote read the draft without the lock, wrote the case and removed the
    draft: the save answered 200 was lost, or (written after the removal) brought the draft
    back beside its case. Now promote waits for the lock, and the case holds the save."""
    draft = inbox(repo)[0]
    draft_id = label(draft)
    command = [sys.executable, "-m", "goldcase", "promote", draft_id, "--to", "golden"]
    with serialised(load_config(repo)):  # a save: read the draft, then write it
        saved = draft.read_text(encoding="utf-8").replace(
            "labelled_by: support-lead", "labelled_by: support-lead-saved", 1
        )
        promoting = subprocess.Popen(command, cwd=repo, stdout=subprocess.PIPE, text=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            promoting.wait(timeout=5)  # an unguarded promote is done by then
        draft.write_text(saved, encoding="utf-8")
    out, _ = promoting.communicate(timeout=120)
    assert promoting.returncode == 0, out
    [case] = [repo / line.split(" -> ")[1] for line in out.splitlines() if " -> " in line]
    assert "labelled_by: support-lead-saved" in case.read_text(encoding="utf-8")
    assert not draft.exists()
