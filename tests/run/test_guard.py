"""The dev/golden rule at run time: few-shot files holding a golden question stop the run before
its first request; a prompt holding another golden question stops it during the run. Messages
name ids, files and lines, never the question's text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldcase.model import Case
from goldcase.run.guard import Guard
from goldcase.text import normalise_input
from run.kit import CASES, by_id, make_set, requests, run_goldcase, script

QUESTION_1 = "how long do i have to return a jacket"
QUESTION_2 = "how long is the window for returning shoes bought online"


@pytest.mark.parametrize(
    ("rel", "text", "where"),
    [
        (
            "prompts/fewshot.yaml",
            "- question: How long do I have to RETURN a jacket?\n  answer: 30 days\n",
            "prompts/fewshot.yaml:1",
        ),
        (
            "prompts/system.md",
            f"You answer questions.\nExample: {QUESTION_2}, and more.\n",
            "prompts/system.md:2",
        ),
        (
            "prompts/chat.jsonl",
            json.dumps({"role": "user", "content": QUESTION_2.upper()}) + "\n",
            "prompts/chat.jsonl:1",
        ),
    ],
)
def test_a_golden_question_in_a_fewshot_file_stops_the_run_before_it_starts(
    tmp_path: Path, rel: str, text: str, where: str
) -> None:
    repo = make_set(tmp_path / "repo", {rel: text})
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, script(tmp_path, {}))
    assert done.exit_code == 2
    assert f"{where}: holds the question of golden case ret-00" in done.stderr
    assert "the run did not start" in done.stderr
    assert QUESTION_1 not in done.stderr.lower() and QUESTION_2 not in done.stderr.lower()
    assert requests(tmp_path) == []
    assert not out.exists()


def test_configured_fewshot_globs_are_the_files_searched(tmp_path: Path) -> None:
    repo = make_set(
        tmp_path / "repo",
        {"examples/shots.yaml": f"- question: {QUESTION_1}\n", "prompts/ok.md": "Be brief.\n"},
        config='[leakage]\nfewshot = ["examples/**"]\n',
    )
    done = run_goldcase(repo, tmp_path / "run.jsonl", script(tmp_path, {}))
    assert done.exit_code == 2
    assert "examples/shots.yaml:1: holds the question of golden case ret-001" in done.stderr


def test_a_dev_question_in_the_fewshot_file_is_fine(tmp_path: Path) -> None:
    repo = make_set(tmp_path / "repo", {"prompts/fewshot.yaml": "- question: do you ship abroad\n"})
    done = run_goldcase(repo, tmp_path / "run.jsonl", script(tmp_path, {}))
    assert done.exit_code == 0, done.stderr


def test_a_prompt_holding_another_golden_question_fails_the_run_naming_both_ids(
    tmp_path: Path,
) -> None:
    repo = make_set(tmp_path / "repo")
    out = tmp_path / "run.jsonl"
    leaked = f"Examples:\\nQ: {QUESTION_2}?\\nA: 30 days\\nQ: {QUESTION_1}"
    actions = {"ret-001": f"prompt:{leaked}", "ret-002": f"prompt:Q: {QUESTION_2}"}
    done = run_goldcase(repo, out, json.loads(json.dumps(script(tmp_path, actions))))
    assert done.exit_code == 2
    assert (
        "the prompt sent for case ret-001 (trial 1) holds the question of golden case ret-002"
        in done.stderr
    )
    assert QUESTION_2 not in done.stderr
    assert "ret-001" not in by_id(out)  # the leaking line is not written
    manifest = json.loads(out.with_name("run.jsonl.run.json").read_text(encoding="utf-8"))
    assert manifest["sessions"][-1]["ended_by"] == "leak"


def test_a_prompt_holding_its_own_question_is_fine(tmp_path: Path) -> None:
    repo = make_set(tmp_path / "repo")
    out = tmp_path / "run.jsonl"
    own = {"ret-002": f"prompt:System: be brief.\\nUser: {QUESTION_2.upper()}?"}
    done = run_goldcase(repo, out, script(tmp_path, own))
    assert done.exit_code == 0, done.stderr
    assert "prompt" not in by_id(out)["ret-002"]  # read, checked, not written


@pytest.mark.parametrize(
    ("prompt", "found"),
    [
        (f"intro {QUESTION_1} outro", ["ret-001"]),
        (QUESTION_1.replace(" ", "  ").upper() + "!", ["ret-001"]),
        ("how long do i have to return a jacketed potato", []),  # word boundaries
        ("what is the name of the chief executive officer", ["oos-001"]),
        ("nothing golden here", []),
    ],
)
def test_the_guard_finds_questions_on_word_boundaries(prompt: str, found: list[str]) -> None:
    golden = [Case(f"{i}.yaml", "golden", {"id": i, "question": _question(i)}) for i in CASES]
    assert sorted(Guard(golden).found(normalise_input(prompt))) == found


def _question(case_id: str) -> str:
    line = next(x for x in CASES[case_id].splitlines() if x.startswith("question: "))
    return line.removeprefix("question: ")
