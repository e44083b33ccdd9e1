"""goldcase triage end to end in a repository (docs/triage.md): what it prints, the drafts it
writes and their fields, personal data, a rerun, --dry-run, --inbox, --format json, the
config, and the drafts passing goldcase check and goldcase fmt."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from goldcase.ids import draft_id
from goldcase.moments import parse_moment
from kit import REPO_ROOT, run_cli
from traffic.kit import GOLDEN_QUESTION, distinct_questions, set_files, trace, write_log

Repo = Callable[..., Path]
DRAFT = re.compile(r"tr-[0-9a-hjkmnp-tv-z]{9}")
SCHEMAS = (
    "schema/case.schema.json",
    "schema/draft.schema.json",
)  # the draft's refers to the case's


@pytest.fixture(autouse=True)
def in_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run from the repository's root (make_repo builds it at tmp_path/repo), so the
    log is named as a user names it: traces/week.jsonl."""
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")


def log_of(root: Path, rows: list[dict[str, object] | str]) -> Path:
    return write_log(root / "traces" / "week.jsonl", rows)


def triage(root: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli("triage", "--repo", root, "traces/week.jsonl", *args)
    return result.exit_code, result.stdout, result.stderr


def drafts(root: Path) -> dict[str, str]:
    folder = root / "cases" / "inbox"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.yaml"))}


def week(n_flagged: int = 6, n_plain: int = 6) -> list[dict[str, object] | str]:
    questions = distinct_questions(n_flagged + n_plain)
    return [trace(i + 1, q, failed=i < n_flagged) for i, q in enumerate(questions)]


def test_drafts_are_written_with_the_documented_fields(make_repo: Repo) -> None:
    root = make_repo(set_files(schemas=False))  # the drafts' schema is written with them
    rows = [
        trace(
            1,
            "my parcel never came, mail me at jo.bloggs@example.co.uk",
            failed=True,
            thumbs=True,
            answer="We emailed jo.bloggs@example.co.uk: you have 30 days.",
            time="2026-03-02T10:14:00+01:00",
        )
    ]
    log_of(root, rows)
    code, out, err = triage(root, "--n", "1", "--seed", "week-10")
    assert (code, err.splitlines()) == (
        0,
        [f"wrote {rel}, a schema for editors" for rel in SCHEMAS],
    )
    ((name, text),) = drafts(root).items()
    target = text.splitlines()[0].split("$schema=", 1)[1]  # the editors' modeline
    assert (root / "cases/inbox" / target).resolve() == (root / SCHEMAS[1]).resolve()
    assert (root / SCHEMAS[1]).read_bytes() == (REPO_ROOT / SCHEMAS[1]).read_bytes()
    asked = parse_moment("2026-03-02T09:14:00Z")
    assert asked is not None and name == draft_id("t-0001", asked.at, ()) + ".yaml"
    data = yaml.safe_load(text)
    assert data == {
        "id": name[:-5],
        "question": "my parcel never came, mail me at [EMAIL]",
        "answerable": None,
        "expected_answer": None,
        "support": None,
        "slice": None,
        "source": "transcript",
        "asked_at": "2026-03-02T09:14:00Z",
        "labelled_by": None,
        "notes": None,
        "trace": {
            "answer": "We emailed [EMAIL]: you have 30 days.",
            "flags": ["failed_check", "thumbs_down"],
            "drawn": "flagged",
            "file": "traces/week.jsonl",
            "line": 1,
            "id": "t-0001",
            "repeats": 0,
        },
    }
    assert text.startswith("# yaml-language-server: $schema=../../schema/draft.schema.json\n")
    assert f"# Then: goldcase promote {name[:-5]} --to golden" in text
    assert "personal data replaced by tokens in the new drafts: 2 email addresses" in out
    check = run_cli("check", "--repo", root)
    assert check.exit_code == 0, check.stdout
    assert run_cli("fmt", "--repo", root, "--check", "cases/inbox").exit_code == 0


def test_what_triage_prints(make_repo: Repo) -> None:
    root = make_repo(set_files())
    rows = week()
    rows.insert(0, trace(100, GOLDEN_QUESTION.upper(), failed=True))
    rows.append('{"question": "cut off')
    log_of(root, rows)
    code, out, err = triage(root, "--n", "4", "--seed", "7", "--failed-share", "0.5")
    assert code == 0
    assert err == "traces/week.jsonl:14: not JSON: Unterminated string starting at (column 14)\n"
    lines = out.splitlines()
    assert lines[0] == (
        "read traces/week.jsonl: 13 traces, 1 bad line (listed on stderr), 7 flagged "
        "(failed a check, hit a cap, or thumbs-down)"
    )
    assert lines[1] == (
        "drew 4 traces (seed 7): 2 flagged of 2 wanted, 2 from all traffic of 2 wanted "
        "(more when the flagged ran out)"
    )
    assert lines[2] == "passed over while drawing:"
    assert len(lines[3:8]) == 5 and lines[3].endswith("the same question as a case or draft")
    assert lines[8] == "personal data in the new drafts: none found"
    assert lines[9] == "wrote 4 drafts to cases/inbox/"
    assert all(DRAFT.search(line) for line in lines[10:14])
    assert lines[14:] == [
        "labelling estimate:",
        "  first pass: 4 items x 60 s = 4 min",
        "  second pass: (2 flagged + 2 not flagged x 10%) = 2.2 expected disagreements x 150 s "
        "= 5 min 30 s",
        "  in all: about 9 min 30 s of the labeller's time",
        "next: label the drafts (docs/triage.md), then goldcase promote ID... "
        "--to golden|dev, and commit",
    ]
    assert len(drafts(root)) == 4


def test_the_same_seed_twice_writes_the_same_drafts(make_repo: Repo, tmp_path: Path) -> None:
    root = make_repo(set_files())
    log_of(root, week(10, 10))
    one, two = tmp_path / "one", tmp_path / "two"
    assert triage(root, "--n", "8", "--seed", "s", "--inbox", str(one))[0] == 0
    assert triage(root, "--n", "8", "--seed", "s", "--inbox", str(two))[0] == 0
    texts = {p.name: p.read_bytes() for p in one.iterdir()}
    assert len(texts) == 8
    assert texts == {p.name: p.read_bytes() for p in two.iterdir()}
    assert "$schema=../repo/schema/draft.schema.json" in next(iter(texts.values())).decode()
    assert not (root / "cases" / "inbox").exists()


def test_a_rerun_keeps_the_drafts_and_writes_nothing(make_repo: Repo) -> None:
    root = make_repo(set_files())
    log_of(root, week())
    triage(root, "--n", "5", "--seed", "s")
    first = drafts(root)
    name = next(iter(first))
    labelled = first[name].replace("answerable:\n", "answerable: false\n")
    (root / "cases" / "inbox" / name).write_text(labelled, encoding="utf-8")
    code, out, _ = triage(root, "--n", "5", "--seed", "s")
    assert code == 0
    assert "wrote 0 drafts to cases/inbox/ (5 drafts there already, kept as they are)" in out
    assert out.count("  kept     ") == 5
    assert drafts(root) == {**first, name: labelled}  # the labeller's work is untouched


def test_dry_run_writes_nothing(make_repo: Repo) -> None:
    root = make_repo(set_files())
    log_of(root, week())
    code, out, _ = triage(root, "--n", "3", "--dry-run")
    assert code == 0
    assert "would write 3 drafts to cases/inbox/ (dry run: nothing written)" in out
    assert not (root / "cases" / "inbox").exists()


def test_json(make_repo: Repo) -> None:
    root = make_repo(set_files())
    log_of(root, [*week(2, 2), trace(9, GOLDEN_QUESTION, failed=True), "not json"])
    code, out, _ = triage(root, "--n", "3", "--format", "json", "--seed", "x")
    data = json.loads(out)
    assert code == 0
    assert (data["lines"], data["traces"], data["flagged"]) == (6, 5, 3)
    assert data["bad_lines"] == [{"line": 6, "reason": "not JSON: Expecting value (column 1)"}]
    assert data["quota"] == {"flagged": 2, "random": 1}
    assert data["skipped"]["duplicate"] == 1
    assert [d["stratum"] for d in data["drawn"]] == ["flagged", "flagged", "random"]
    assert data["written"] == [d["path"] for d in data["drawn"]]
    assert data["estimate"]["first_pass_seconds"] == 180


def test_fields_and_numbers_come_from_the_config(make_repo: Repo) -> None:
    root = make_repo(set_files())
    (root / "goldcase.toml").write_text(
        "[triage]\nn = 2\nfailed_share = 1.0\nseconds_per_item = 90\n"
        '[triage.fields]\nquestion = "input.text"\nfailed_check = "eval.failed"\n',
        encoding="utf-8",
    )
    rows = [
        {"input": {"text": q}, "eval": {"failed": i % 2 == 0}}
        for i, q in enumerate(distinct_questions(6))
    ]
    log_of(root, rows)  # type: ignore[arg-type]
    code, out, _ = triage(root)
    assert code == 0
    assert "drew 2 traces (seed 0): 2 flagged of 2 wanted" in out
    assert "  first pass: 2 items x 90 s = 3 min" in out


def test_a_log_with_no_trace_is_an_error(make_repo: Repo) -> None:
    root = make_repo(set_files())
    log_of(root, ["nope", '{"answer": "x"}'])
    code, _, err = triage(root)
    assert code == 2
    assert err.splitlines()[-1] == (
        "error: traces/week.jsonl: no trace to draw from (2 lines, 2 bad); a trace is a JSON "
        "object with a question (docs/triage.md)"
    )


def test_bad_config_is_refused(make_repo: Repo) -> None:
    root = make_repo(set_files())
    (root / "goldcase.toml").write_text('[triage.fields]\nquestion = ""\n', encoding="utf-8")
    log_of(root, week())
    code, _, err = triage(root)
    assert code == 2
    assert "triage.fields.question should be a field name or a dotted path" in err


def test_a_trace_holding_control_characters_becomes_a_draft(make_repo: Repo) -> None:
    """Strangers' traces hold terminal escapes and separators in questions and answers: the
    draft is written with them as escapes, and reads back as they were."""
    root = make_repo(set_files())
    question = "what is \x1b]0;title\x07\x1b[2J the refund\u2028window?\nsecond line"
    answer = "\x1b[31m30 days\x1b[0m"
    log_of(root, [trace(1, question, failed=True, answer=answer)])
    code, _, err = triage(root, "--n", "1")
    assert code == 0, err
    ((_, text),) = drafts(root).items()
    assert "\x1b" not in text and "\u2028" not in text
    data = yaml.safe_load(text)
    assert (data["question"], data["trace"]["answer"]) == (question, answer)


def test_a_draft_linked_out_of_the_repository_is_not_read(make_repo: Repo, tmp_path: Path) -> None:
    """A draft in the inbox that is a link was read wherever it led, whatever its size, to
    pass over the traces asking its question; a link is now not followed (goldcase check
    reports it), and the trace it would have hidden is drawn."""
    root = make_repo(set_files())
    outside = tmp_path / "elsewhere.yaml"
    question = "can i swap a kettle for a toaster"
    outside.write_text(f"id: tr-0000000aa\nquestion: {question}\n", encoding="utf-8")
    (root / "cases" / "inbox").mkdir(parents=True, exist_ok=True)
    (root / "cases" / "inbox" / "tr-0000000aa.yaml").symlink_to(outside)
    log_of(root, [trace(1, question, failed=True)])
    code, out, _ = triage(root, "--n", "1", "--format", "json", "--seed", "x", "--dry-run")
    data = json.loads(out)
    assert code == 0
    assert data["skipped"].get("duplicate", 0) == 0
    assert len(data["drawn"]) == 1


def test_a_time_out_of_any_calendar_is_a_bad_line(make_repo: Repo) -> None:
    """An integer of 400 digits as Unix seconds, and a time one hour east of the first day a
    calendar holds, ended the run in ``internal error: OverflowError``."""
    root = make_repo(set_files())
    first, second, third = distinct_questions(3)
    bad_number = trace(1, first, failed=True)
    bad_number["time"] = 10**400
    bad_text = trace(2, second, failed=True, time="0001-01-01T00:00:00+01:00")
    log_of(root, [bad_number, bad_text, trace(3, third, failed=True)])
    code, _, err = triage(root, "--n", "3")
    assert code == 0, err
    assert "traces/week.jsonl:1: " in err and "traces/week.jsonl:2: " in err
    assert "internal error" not in err
    assert len(drafts(root)) == 1


@pytest.mark.parametrize("inbox", ["staging", "staging/week-10"], ids=["link", "under-a-link"])
def test_an_inbox_through_a_link_out_of_the_repository_is_refused(
    make_repo: Repo, tmp_path: Path, inbox: str
) -> None:
    """--inbox names a folder of the repository that a pull request committed as a link
    leading out of it: the drafts were written wherever it led (and the drafts there read)."""
    root = make_repo(set_files())
    outside = tmp_path / "elsewhere"
    (outside / "week-10").mkdir(parents=True)
    (root / "staging").symlink_to(outside)
    log_of(root, week(2, 2))
    code, _, err = triage(root, "--n", "2", "--inbox", inbox)
    assert code == 2
    refusal = {
        "staging": f"staging: is a link (to {outside}); goldcase triage writes the folder itself",
        "staging/week-10": "staging/week-10: a linked folder leads outside the repository",
    }
    assert err.startswith(f"error: {refusal[inbox]}"), err
    assert err.rstrip().endswith("with --inbox"), err
    assert [p.name for p in outside.rglob("*.yaml")] == []
