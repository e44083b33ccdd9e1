"""goldcase import: SQuAD, the reference JSONL and promptfoo configs become golden-set
repositories whose quotes verify (or whose unsupported claims are findings)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from goldcase.interchange.promptfoo import read_promptfoo
from kit import DATA, REALDATA, run_cli

FIXTURES = DATA / "interchange"
SCHEMA_LINE = "# yaml-language-server: $schema=../../schema/case.schema.json\n"


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def test_squad_contexts_become_documents_and_answers_sentence_quotes(tmp_path: Path) -> None:
    out = tmp_path / "set"
    result = run_cli("import", "--format", "squad", FIXTURES / "squad-mini.json", "--out", out)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert sorted(p.name for p in (out / "corpus").iterdir()) == [
        "Harbour-Town-history-001.txt",
        "Harbour-Town-history-002.txt",
    ]
    assert sorted(p.name for p in (out / "cases/golden").iterdir()) == [
        "q-1-2.yaml",
        "q-1.yaml",
        "q2.yaml",
        "q3.yaml",
    ]
    # several reference answers: the first is expected, all are alternatives
    assert read(out, "cases/golden/q-1.yaml") == SCHEMA_LINE + (
        "id: q-1\n"
        "question: When was Harbour Town founded?\n"
        "answerable: true\n"
        'expected_answer: "1821"\n'
        "support:\n"
        "  - doc: Harbour-Town-history-001.txt\n"
        "    quote: Harbour Town was founded in 1821 by fishermen.\n"
        "expect:\n"
        '  contains: [["1821", "in 1821"]]\n'
        "slice: Harbour-Town-history\n"
        "source: hand-written\n"
        "notes: imported from squad-mini.json, question q/1\n"
    )
    # answer_start 3 is wrong: the answer's own occurrence is used
    assert (
        "    quote: Its first church was built in 1840, and the lighthouse followed in "
        "1852.\n" in read(out, "cases/golden/q2.yaml")
    )
    assert read(out, "cases/golden/q3.yaml") == SCHEMA_LINE + (
        "id: q3\n"
        "question: Who designed the lighthouse?\n"
        "answerable: false\n"
        "slice: Harbour-Town-history\n"
        "tags: [unanswerable]\n"
        "source: hand-written\n"
        "notes: imported from squad-mini.json, question q3\n"
    )
    # an answer across two sentences quotes both; a repeated question id gets a suffix
    assert "    quote: A second line opened in 1901. It ran north.\n" in read(
        out, "cases/golden/q-1-2.yaml"
    )
    assert read(out, "golden.version") == "1\n"
    assert result.stdout.splitlines()[-1] == "all checks passed: 4 case files"
    check = run_cli("check", "--repo", out)
    assert "GC2" not in check.stdout and "GC1" not in check.stdout


def test_a_non_empty_target_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "set"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    result = run_cli("import", "--format", "squad", FIXTURES / "squad-mini.json", "--out", out)
    assert result.exit_code == 2
    assert "exists and is not empty" in result.stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_an_empty_target_folder_is_used(tmp_path: Path) -> None:
    out = tmp_path / "set"
    out.mkdir()
    result = run_cli("import", "--format", "squad", FIXTURES / "squad-mini.json", "--out", out)
    assert result.exit_code == 0
    assert (out / "goldcase.toml").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["set"]  # no staging folder left behind


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ('{"version": "1.1"}', "expected an object with a 'data' list"),
        ('{"data": []}', "no case could be read"),
    ],
)
def test_bad_squad_files_write_nothing(tmp_path: Path, content: str, message: str) -> None:
    source = tmp_path / "in.json"
    source.write_text(content, encoding="utf-8")
    result = run_cli("import", "--format", "squad", source, "--out", tmp_path / "set")
    assert result.exit_code == 2
    assert message in result.stderr
    assert not (tmp_path / "set").exists()


def test_promptfoo_claims_that_the_context_does_not_hold_are_findings(tmp_path: Path) -> None:
    out = tmp_path / "set"
    result = run_cli(
        "import", "--format", "promptfoo", FIXTURES / "promptfoo/promptfooconfig.yaml", "--out", out
    )
    assert result.exit_code == 1
    assert sorted(p.name for p in (out / "cases/golden").iterdir()) == [
        "carry-over.yaml",
        "pf-001.yaml",
    ]
    assert read(out, "cases/golden/pf-001.yaml") == SCHEMA_LINE + (
        "id: pf-001\n"
        "question: How many days of paid leave do I get?\n"
        "answerable: true\n"
        "expected_answer: Employees may take up to 20 days of paid leave a year.\n"
        "support:\n"
        "  - doc: leave.md\n"
        "    quote: Employees may take up to 20 days of paid leave a year.\n"
        "expect:\n"
        '  contains: ["20"]\n'
        "  not_contains: [25 days]\n"
        'notes: "not imported (no goldcase equivalent): answer-relevance"\n'
    )
    text = read(out, "cases/golden/carry-over.yaml")
    assert '  lead: "no"\n' in text
    assert "    quote: Unused days are paid out in March.\n" in text
    findings = [line for line in result.stdout.splitlines() if " GC" in line]
    # the closest passage itself is the support check's business; where and why are ours
    assert len(findings) == 1
    assert findings[0].startswith(
        "cases/golden/carry-over.yaml:10:12: GC202 quote not found verbatim in leave.md; "
        'closest passage (line 3): "Unused days do not carry over.'
    )
    assert findings[0].endswith('— differs at "are" / "do"')
    assert "note: pf-001: not imported (no goldcase equivalent): answer-relevance" in (
        result.stderr
    )


def test_jsonl_import_reads_the_corpus_beside_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    (folder / "corpus").mkdir(parents=True)
    (folder / "corpus" / "returns-policy.md").write_text(
        read(DATA, "corpus/returns-policy.md"), encoding="utf-8"
    )
    (folder / "golden.version").write_text("2026.3\n", encoding="utf-8")
    (folder / "set.jsonl").write_text(
        '{"id": "ret-014", "question": "How many days?", "answerable": true, '
        '"expected_answer": "14 days", "support": [{"doc": "returns-policy.md", "quote": '
        '"A customer has 14 days from delivery to request a credit"}], "tags": ["numeric"], '
        '"notes": ""}\n'
        '{"id": "una-006", "question": "Who is the chief executive?", "answerable": false, '
        '"support": [], "tags": ["unanswerable"], "notes": "The corpus never names one."}\n'
        '{"id": "bad", "questoin": "typo"}\n'
        '{"id": "half", "question": "How long \\ud800 is it?"}\n',
        encoding="utf-8",
    )
    out = tmp_path / "set"
    result = run_cli("import", "--format", "jsonl", folder / "set.jsonl", "--out", out)
    assert result.exit_code == 0, result.stdout
    assert "note: set.jsonl:3: unknown field(s) questoin; line skipped" in result.stderr
    assert "note: set.jsonl:4: an escape of half a surrogate pair" in result.stderr
    assert not (out / "cases/golden/half.yaml").exists()
    assert read(out, "golden.version") == "2026.3\n"
    assert read(out, "cases/golden/una-006.yaml") == SCHEMA_LINE + (
        "id: una-006\n"
        "question: Who is the chief executive?\n"
        "answerable: false\n"
        "tags: [unanswerable]\n"
        "notes: The corpus never names one.\n"
    )


SQUAD2 = REALDATA / "squad2-dev-cs224n" / "dev-v2.0.json"
COVID = REALDATA / "covid-qa" / "200423_covidQA.json"
PROMPTFOO = REALDATA / "promptfoo-rag-eval" / "promptfooconfig.yaml"


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("source", "cases"), [(SQUAD2, 6078), (COVID, 1380)], ids=["squad2", "covid-qa"]
)
def test_realdata_imports_verify_every_quote(tmp_path: Path, source: Path, cases: int) -> None:
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    out = tmp_path / "set"
    started = time.perf_counter()
    result = run_cli("import", "--format", "squad", source, "--out", out)
    imported = time.perf_counter() - started
    assert result.exit_code == 0, result.stdout[-2000:]
    assert f"wrote {cases} cases" in result.stdout
    started = time.perf_counter()
    check = run_cli("check", "--repo", out, "--select", "support", "--no-cache")
    checked = time.perf_counter() - started
    assert check.exit_code == 0
    # every quote verifies (GC201-GC207); GC208 warns where an alternative answer an annotator
    # gave is a figure the quoted sentence does not state
    assert not re.search(r" GC20[1-7] ", check.stdout), check.stdout[:2000]
    print(f"{source.name}: import {imported:.1f} s, check --select support {checked:.1f} s")
    _exports(out, tmp_path, cases, round_trip=source == COVID)  # the smaller one goes back in


def _exports(root: Path, tmp_path: Path, cases: int, *, round_trip: bool) -> None:
    """Every export format on the imported set; with ``round_trip``, the JSONL imported back
    gives the same cases."""
    import json

    import yaml

    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.engine import load_case_set

    for fmt in ("jsonl", "inspect", "openai-evals", "promptfoo"):
        target = tmp_path / "export" / f"{fmt}.out"
        assert run_cli("export", "--repo", root, "--format", fmt, "--out", target).exit_code == 0
        text = target.read_text(encoding="utf-8")
        if fmt == "promptfoo":
            assert len(yaml.safe_load(text)["tests"]) == cases
        else:
            assert len([json.loads(line) for line in text.splitlines()]) == cases
    if not round_trip:
        return
    back = tmp_path / "back"
    result = run_cli(
        "import",
        "--format",
        "jsonl",
        tmp_path / "export" / "jsonl.out",
        "--out",
        back,
        "--corpus",
        root / "corpus",
    )
    assert result.exit_code == 0

    def cases_of(where: Path) -> dict[str, object]:
        return {c.id: c.data for c in load_case_set(Context(load_config(where)))}

    assert cases_of(back) == cases_of(root)


@pytest.mark.realdata
def test_realdata_promptfoo_example_flags_its_unsupported_claims(tmp_path: Path) -> None:
    if not PROMPTFOO.is_file():
        pytest.skip(f"{PROMPTFOO} is absent")
    result = run_cli("import", "--format", "promptfoo", PROMPTFOO, "--out", tmp_path / "set")
    assert result.exit_code == 1
    gc202 = [line.split(" GC202 ")[0] for line in result.stdout.splitlines() if " GC202 " in line]
    # every claim sentence (two in each context-recall value, one each factuality value) is
    # reported: none of them is verbatim in the documents
    assert gc202 == [
        "cases/golden/pf-001.yaml:8:12:",
        "cases/golden/pf-001.yaml:10:12:",
        "cases/golden/pf-001.yaml:12:12:",
        "cases/golden/pf-002.yaml:8:12:",
        "cases/golden/pf-002.yaml:10:12:",
    ]
    first = read(tmp_path / "set", "cases/golden/pf-001.yaml").splitlines()
    assert first[11] == "    quote: Talk to Fred before submitting anything."
    assert (
        "note: pf-002: the question asks for weeks, the expected answer gives '4 months'; "
        "check that they agree"
    ) in result.stderr.splitlines()
    second = read(tmp_path / "set", "cases/golden/pf-002.yaml").splitlines()
    assert "unless you are an elephant" in second[9]


RICH = """\
defaultTest:
  vars:
    context: file://docs/leave.md
  assert:
    - type: javascript
      value: output.length < 500
tests:
  - description: Leave days?
    vars:
      question: How many days of paid leave?
    assert:
      - type: equals
        value: 20 days
      - type: icontains-any
        value: ["20", twenty]
      - type: contains-all
        value: [days, paid]
  - vars:
      query: Who is the chief executive?
    assert:
      - type: llm-rubric
        value: {rubric}
  - vars:
      topic: leave
      style: short
    assert:
      - type: contains
        value: x
  - vars:
      question: When must requests reach the manager?
      notes: Requests go to your manager at least two weeks ahead.
    assert:
      - type: context-recall
        value: Requests go to your manager at least two weeks ahead.
"""


def test_promptfoo_assertion_mapping(tmp_path: Path) -> None:
    from goldcase.interchange.export import UNANSWERABLE_RUBRIC

    folder = tmp_path / "pf"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "leave.md").write_text(
        read(FIXTURES, "promptfoo/docs/leave.md"), encoding="utf-8"
    )
    (folder / "promptfooconfig.yaml").write_text(
        RICH.format(rubric=f'"{UNANSWERABLE_RUBRIC}"'), encoding="utf-8"
    )
    out = tmp_path / "set"
    result = run_cli(
        "import", "--format", "promptfoo", folder / "promptfooconfig.yaml", "--out", out
    )
    # an answer with no claim to quote is a finding too: the case has no support
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "cases/golden/Leave-days.yaml:6:10: GC107 support is empty; an answerable case needs at "
        "least one quote",
        "cases/golden/pf-004.yaml:8:12: GC205 quote is also in pf-004-notes.txt; quote a longer "
        "passage that only the named document holds",
    ]
    assert sorted(p.name for p in (out / "cases/golden").iterdir()) == [
        "Leave-days.yaml",
        "pf-002.yaml",
        "pf-004.yaml",
    ]
    assert sorted(p.name for p in (out / "corpus").iterdir()) == ["leave.md", "pf-004-notes.txt"]
    assert read(out, "cases/golden/Leave-days.yaml") == SCHEMA_LINE + (
        "id: Leave-days\n"
        "question: How many days of paid leave?\n"
        "answerable: true\n"
        "expected_answer: 20 days\n"
        "support: []\n"
        "expect:\n"
        '  contains: [["20", "twenty"], days, paid]\n'
        'notes: "not imported (no goldcase equivalent): javascript"\n'
    )
    assert "answerable: false\n" in read(out, "cases/golden/pf-002.yaml")
    assert "note: pf-003: no question var (question, query, input, prompt); skipped" in (
        result.stderr
    )
    assert "    quote: Requests go to your manager at least two weeks ahead.\n" in read(
        out, "cases/golden/pf-004.yaml"
    )


GRADED = """\
assertionTemplates:
  goldcase: {type: javascript, value: "true"}
tests:
  - vars: {question: Who is the chief executive?}
    assert: [{$ref: "#/assertionTemplates/goldcase", config: {accepts: abstention}}]
  - vars: {question: So the late fee is £50?}
    assert: [{$ref: "#/assertionTemplates/goldcase", config: {accepts: correction}}]
  - vars: {question: How many days?}
    assert:
      - {$ref: "#/assertionTemplates/goldcase", config: {accepts: answer}}
      - {type: icontains, value: "14"}
"""


def test_goldcase_grader_assertions_say_what_the_case_accepts(tmp_path: Path) -> None:
    # tests that lost their metadata: the grader's config still tells an unanswerable case
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(GRADED, encoding="utf-8")
    imported = read_promptfoo(path)
    assert [c["answerable"] for c in imported.cases] == [False, False, True]
    assert imported.cases[2]["expect"] == {"contains": ["14"]}
    assert imported.notes == []  # the grader is goldcase's own: nothing left out


def test_jsonl_lines_that_cannot_be_cases_are_notes(tmp_path: Path) -> None:
    source = tmp_path / "set.jsonl"
    source.write_text(
        '{"id": "una-001", "question": "Who?", "answerable": false}\n'
        "{not json\n"
        '["a list"]\n'
        "\n"
        '{"id": 7, "question": "x"}\n'
        '{"id": "UNA-001", "question": "Who else?", "answerable": false}\n',
        encoding="utf-8",
    )
    result = run_cli("import", "--format", "jsonl", source, "--out", tmp_path / "set")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "note: set.jsonl:2: not JSON (Expecting property name enclosed in double quotes); "
        "line skipped",
        "note: set.jsonl:3: expected an object with a string id; line skipped",
        "note: set.jsonl:5: expected an object with a string id; line skipped",
        "note: set.jsonl:6: id 'UNA-001' is also on line 1; ids are unique: line skipped",
        f"note: no corpus folder ({tmp_path / 'corpus'}); pass --corpus DIR so that the quotes "
        "can be verified",
    ]


def test_squad_answers_missing_from_their_context_are_notes(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(
        '{"data": [{"title": "T", "paragraphs": [{"qas": []}, {"context": "A b. C d.", "qas": '
        '[{"id": "x1", "question": "q?", "answers": [{"text": "zzz", "answer_start": 0}]}, '
        '{"id": "x2", "question": "", "answers": []}, '
        '{"id": "x3", "question": "r?", "answers": [{"text": "C d", "answer_start": 5}]}]}]}]}',
        encoding="utf-8",
    )
    result = run_cli("import", "--format", "squad", source, "--out", tmp_path / "set")
    assert result.exit_code == 0, result.stdout
    assert result.stderr.splitlines() == [
        "note: T paragraph 0: no context; skipped",
        "note: question x1: the answer 'zzz' is not in its context; skipped",
        "note: T-002.txt: a question with no text; skipped",
    ]
    assert "    quote: C d.\n" in read(tmp_path / "set", "cases/golden/x3.yaml")


@pytest.mark.parametrize(
    ("question", "other_answer"),
    [("How far \\ud800?", "4 km"), ("How far?", "four km\\udfff"), ("\\uDBFF", "4 km")],
)
def test_a_squad_question_with_half_a_surrogate_pair_is_refused(
    tmp_path: Path, question: str, other_answer: str
) -> None:
    """A question or answer escaping half a surrogate pair ("\\ud800") was written into a
    case file nothing could read back (GC101 on the next check); the import is refused as
    one with such a context is, naming the case, and nothing is written."""
    source = tmp_path / "in.json"
    source.write_text(
        '{"data": [{"title": "T", "paragraphs": [{"context": "It is 4 km. It takes 2 days.", '
        f'"qas": [{{"id": "x1", "question": "{question}", "answers": [{{"text": "4 km", '
        f'"answer_start": 6}}, {{"text": "{other_answer}"}}]}}]}}]}}]}}',
        encoding="utf-8",
    )
    result = run_cli("import", "--format", "squad", source, "--out", tmp_path / "set")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: case x1 holds half of a UTF-16 surrogate pair (an escape from \\ud800 to "
        "\\udfff with no other half), which is not text; fix the escape in the source file\n",
    )
    assert not (tmp_path / "set").exists()


def test_a_whole_surrogate_pair_is_imported_as_its_character(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_text(
        '{"data": [{"title": "T", "paragraphs": [{"context": "It takes 2 days.", "qas": ['
        '{"id": "x3", "question": "How long \\ud83d\\ude00?", "answers": [{"text": "2 days", '
        '"answer_start": 9}]}]}]}]}',
        encoding="utf-8",
    )
    result = run_cli("import", "--format", "squad", source, "--out", tmp_path / "set")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "How long \U0001f600?" in read(tmp_path / "set", "cases/golden/x3.yaml")


def test_a_400_character_squad_title_is_cut_with_a_note(tmp_path: Path) -> None:
    """A long article title made a document name longer than the file system allows, and the
    whole import stopped with `File name too long`, naming neither the title nor the file."""
    title = "Harbour " * 50
    source = tmp_path / "long.json"
    source.write_text(
        json.dumps(
            {
                "data": [
                    {
                        "title": title,
                        "paragraphs": [
                            {
                                "context": "Harbour Town was founded in 1821.",
                                "qas": [
                                    {
                                        "id": "q" * 300,
                                        "question": "When was it founded?",
                                        "answers": [{"text": "1821", "answer_start": 28}],
                                    }
                                ],
                            }
                        ],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "set"
    result = run_cli("import", "--format", "squad", source, "--out", out)
    assert result.exit_code == 0, result.stdout + result.stderr
    stem = ("Harbour-" * 10)[:80].rstrip("-")
    assert result.stderr.splitlines() == [
        f"note: article 0: its title {'Harbour ' * 7 + 'Har…'!r} (400 characters) is cut to "
        f"{stem!r} in slice and document names",
        f"note: question {'q' * 59 + '…'}: its id is cut to {'q' * 80!r}",
    ]
    assert [p.name for p in (out / "corpus").iterdir()] == [f"{stem}-001.txt"]
    assert (out / "cases" / "golden" / f"{'q' * 80}.yaml").is_file()


def test_a_file_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    from goldcase.errors import GoldcaseError
    from goldcase.writer import write_new_folder

    target = tmp_path / "set"
    with pytest.raises(GoldcaseError) as caught:
        write_new_folder(target, {"corpus/ok.txt": b"x", f"corpus/{'x' * 300}.txt": b"y"})
    assert caught.value.message == (
        f"{target / 'corpus' / ('x' * 300 + '.txt')}: cannot write: File name too long; "
        "nothing was written"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_fifo_to_import_is_called_a_fifo(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    os.mkfifo(source)
    result = run_cli("import", "--format", "squad", source, "--out", tmp_path / "set")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {source}: is a FIFO (named pipe), not a regular file; give the squad file "
        "to import\n",
    )


def test_a_jsonl_id_ending_in_a_line_break_names_no_file(tmp_path: Path) -> None:
    """Python's ``$`` matches before a final line break: an id "una-002\\n" passed as a
    name and the import wrote a case file whose name ends in a line break."""
    source = tmp_path / "set.jsonl"
    source.write_text(
        '{"id": "una-001", "question": "Who?", "answerable": false}\n'
        '{"id": "una-002\\n", "question": "Who else?", "answerable": false}\n',
        encoding="utf-8",
    )
    out = tmp_path / "set"
    result = run_cli("import", "--format", "jsonl", source, "--out", out)
    assert result.exit_code == 0
    assert (
        "note: set.jsonl:2: id 'una-002\\n' may hold only letters, digits, '.', '_' and '-', "
        "and must start with a letter or digit; line skipped"
    ) in result.stderr.splitlines()
    assert sorted(p.name for p in (out / "cases" / "golden").iterdir()) == ["una-001.yaml"]


def test_an_import_whose_lock_is_refused_leaves_no_folder(tmp_path: Path) -> None:
    """docs/robustness.md: nothing a user wrote is lost or half-written. A corpus document
    whose name is not UTF-8 is copied, then refused by the lock (GC206, named with the byte
    escaped): the repository must not be left behind written but not locked."""
    folder = tmp_path / "export"
    (folder / "corpus").mkdir(parents=True)
    (folder / "corpus" / "returns-policy.md").write_text(
        read(DATA, "corpus/returns-policy.md"), encoding="utf-8"
    )
    (folder / "corpus").joinpath(os.fsdecode(b"notes-\xff.md")).write_text("More.\n")
    (folder / "set.jsonl").write_text(
        '{"id": "ret-014", "question": "How many days?", "answerable": true, '
        '"expected_answer": "14 days", "support": [{"doc": "returns-policy.md", "quote": '
        '"A customer has 14 days from delivery to request a credit"}]}\n',
        encoding="utf-8",
    )
    for out in (tmp_path / "new", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        result = run_cli("import", "--format", "jsonl", folder / "set.jsonl", "--out", out)
        assert result.exit_code == 2, result.stdout + result.stderr
        assert "notes-\\xff.md" in result.stderr
        assert "nothing was written" in result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            ["export", *(["empty"] if (tmp_path / "empty").exists() else [])]
        )
        assert not out.exists() or list(out.iterdir()) == []


INLINE_CONTEXTS = """\
tests:
  - vars:
      question: When must requests reach the manager?
      context:
        - The sky is blue on clear days.
        - Requests go to your manager at least two weeks ahead.
    assert:
      - type: context-recall
        value: Requests go to your manager at least two weeks ahead.
  - vars:
      question: How many days of leave?
      a b: Leave is 20 days a year.
      a-b: Staff get a parking space.
      A B: Parking is free.
    assert:
      - type: context-recall
        value: Leave is 20 days a year.
"""


def test_promptfoo_inline_contexts_that_share_a_name_are_all_kept(tmp_path: Path) -> None:
    """A list of inline contexts, or variables whose names make the same file name (on a
    case-insensitive disk too), each become a document: none is written over another."""
    from kit import goldcase

    config = tmp_path / "pf" / "promptfooconfig.yaml"
    config.parent.mkdir()
    config.write_text(INLINE_CONTEXTS, encoding="utf-8")
    out = tmp_path / "set"
    result = goldcase(tmp_path, "import", "--format", "promptfoo", config, "--out", out)
    assert result.returncode == 0, result.stdout + result.stderr
    documents = sorted((out / "corpus").iterdir())
    assert len({p.name.lower() for p in documents}) == len(documents) == 5
    texts = {p.read_text(encoding="utf-8") for p in documents}
    assert texts == {
        "The sky is blue on clear days.",
        "Requests go to your manager at least two weeks ahead.",
        "Leave is 20 days a year.",
        "Staff get a parking space.",
        "Parking is free.",
    }


def test_promptfoo_context_files_whose_names_differ_only_in_case_are_refused(
    tmp_path: Path,
) -> None:
    """``docs/Leave.md`` and ``other/leave.md`` would be one file on a case-insensitive disk:
    refused, naming it, and nothing is written."""
    from kit import goldcase

    folder = tmp_path / "pf"
    for rel, text in (("docs/Leave.md", "Leave is 20 days."), ("other/leave.md", "Other.")):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    config = folder / "promptfooconfig.yaml"
    config.write_text(
        "tests:\n"
        "  - vars: {question: How long?, context: file://docs/Leave.md}\n"
        "  - vars: {question: What else?, context: file://other/leave.md}\n",
        encoding="utf-8",
    )
    out = tmp_path / "set"
    result = goldcase(tmp_path, "import", "--format", "promptfoo", config, "--out", out)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "two context documents are named leave.md (letter case aside)" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("fmt", ["jsonl", "squad"])
def test_an_import_past_the_memory_budget_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    from goldcase import jsonmemory

    monkeypatch.setattr(jsonmemory, "BUDGET", 8 * 1024**2)
    source = tmp_path / f"set.{'jsonl' if fmt == 'jsonl' else 'json'}"
    case = {"id": "una-001", "question": "Who?", "answerable": False, "tags": [[]] * 200_000}
    source.write_text(json.dumps(case if fmt == "jsonl" else {"data": [case]}) + "\n")
    result = run_cli("import", "--format", fmt, source, "--out", tmp_path / "set")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {source}: decoding its ")
    assert not (tmp_path / "set").exists()


def test_the_unit_note_reads_the_start_of_a_long_expected_answer(tmp_path: Path) -> None:
    """The unit note (docs/import.md) reads the first 1,000 characters of the question and the
    expected answer: a stranger's answer of 400,000 characters of ``1,1,1,…`` followed by no
    unit had the search try every digit against the rest of the run, some 10^10 steps; the
    note still comes for an answer that gives its number at the start."""
    runs = "1," * 200_000
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "tests:\n"
        "  - vars: {question: How many weeks of notice?}\n"
        f"    assert: [{{type: equals, value: '{runs}!'}}]\n"
        "  - vars: {question: How many weeks of notice?}\n"
        f"    assert: [{{type: equals, value: '4 months, {runs}'}}]\n",
        encoding="utf-8",
    )
    imported = read_promptfoo(config)
    assert [len(c["expected_answer"]) for c in imported.cases] == [len(runs) + 1, len(runs) + 10]
    unit_notes = [note for note in imported.notes if "asks for weeks" in note]
    assert len(unit_notes) == 1 and "'4 months'" in unit_notes[0]
