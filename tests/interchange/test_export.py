"""goldcase export: the reference JSONL (and back through import), promptfoo, Inspect AI and
OpenAI evals shapes, and the private-set refusal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from goldcase.engine import load_case_set
from goldcase.interchange.promptfoo import lead_of
from kit import run_cli

Maker = Callable[..., Path]
# A needle's edges as the exported grader writes them (docs/export.md): a letter or digit at
# the edge must not touch another, nor an apostrophe before one; a digit must not touch a
# digit, nor a '.' or ',' before one.
WORD_START = r"(?<![\p{L}\p{N}])(?<![\p{L}\p{N}]')"
WORD_END = r"(?![\p{L}\p{N}])(?!'[\p{L}\p{N}])"
NUMBER_START = WORD_START + r"(?<!\p{Nd})(?<!\p{Nd}[.,])"
NUMBER_END = WORD_END + r"(?!\p{Nd})(?![.,]\p{Nd})"
NUMBER_14 = NUMBER_START + "14" + NUMBER_END
QUOTE = "A customer has 14 days from delivery to request a credit"
RET_014 = f"""\
# a comment export ignores
id: ret-014
question: How many days does a customer have to request a credit for a damaged delivery?
answerable: true
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: {QUOTE}
expect:
  contains: ['14', [fourteen, '14']]
  not_contains: [30 days]
  lead: 'yes'
slice: returns
tags: [numeric, policy]
source: transcript
notes: a customer asked this
"""
UNA_006 = """\
id: una-006
question: What is the name of the chief executive?
answerable: false
tags: [unanswerable]
notes: The corpus never names an executive.
"""
DEV_001 = """\
id: dev-001
question: Which orders ship free?
expected_answer: orders over £50
support:
  - doc: delivery.md
    quote: Orders over £50 ship free.
"""


@pytest.fixture
def repo(make_repo: Maker) -> Path:
    root = make_repo(
        {
            "cases/golden/ret-014.yaml": RET_014,
            "cases/golden/una-006.yaml": UNA_006,
            "cases/dev/dev-001.yaml": DEV_001,
            "golden.version": "2026.2\n",
        }
    )
    return root


def export(root: Path, *args: str) -> str:
    result = run_cli("export", "--repo", root, *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_jsonl_is_the_reference_layout(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "golden.jsonl"
    export(repo, "--format", "jsonl", "--out", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == [
        {
            "id": "ret-014",
            "question": "How many days does a customer have to request a credit for a damaged "
            "delivery?",
            "answerable": True,
            "expected_answer": "14 days",
            "support": [{"doc": "returns-policy.md", "quote": QUOTE}],
            "tags": ["numeric", "policy"],
            "notes": "a customer asked this",
            "slice": "returns",
            "expect": {
                "contains": ["14", ["fourteen", "14"]],
                "not_contains": ["30 days"],
                "lead": "yes",
            },
            "source": "transcript",
        },
        {
            "id": "una-006",
            "question": "What is the name of the chief executive?",
            "answerable": False,
            "support": [],
            "tags": ["unanswerable"],
            "notes": "The corpus never names an executive.",
        },
    ]
    assert list(lines[1]) == ["id", "question", "answerable", "support", "tags", "notes"]


@pytest.mark.parametrize("fmt", ["jsonl", "promptfoo", "inspect", "openai-evals"])
def test_out_writes_the_file_asked_for_and_nothing_beside_it(
    repo: Path, tmp_path: Path, fmt: str
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "golden.version").write_text("mine\n", encoding="utf-8")
    result = run_cli("export", "--repo", repo, "--format", fmt, "--out", folder / "set.data")
    assert result.exit_code == 0, result.stderr
    task = ["set_task.py"] if fmt == "inspect" else []  # the Inspect export's task file
    assert sorted(p.name for p in folder.iterdir()) == ["golden.version", "set.data", *task]
    assert (folder / "golden.version").read_text(encoding="utf-8") == "mine\n"
    wanted = f"wrote 2 golden cases to {folder / 'set.data'} (golden.version 2026.2)\n"
    assert result.stderr.startswith(wanted)


def test_jsonl_round_trip_gives_the_same_cases(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "export" / "golden.jsonl"
    export(repo, "--format", "jsonl", "--out", str(out))
    (out.parent / "golden.version").write_text("2026.2\n", encoding="utf-8")  # carried by hand
    back = tmp_path / "back"
    result = run_cli("import", "--format", "jsonl", out, "--out", back, "--corpus", repo / "corpus")
    assert result.exit_code == 0, result.stdout
    assert _cases(back) == _cases(repo, "golden")
    assert (back / "golden.version").read_text(encoding="utf-8") == "2026.2\n"


def _cases(root: Path, split: str = "golden") -> dict[str, dict[str, object]]:
    from goldcase.config import load_config
    from goldcase.context import Context

    case_set = load_case_set(Context(load_config(root)))
    return {c.id: {**c.data, "answerable": c.answerable} for c in case_set.split(split)}


def test_promptfoo_tests_have_the_documented_shape(repo: Path) -> None:
    text = export(repo, "--format", "promptfoo")
    assert text.startswith(
        "# promptfoo tests exported by goldcase: the golden split, version 2026.2, 2 cases.\n"
    )
    config = yaml.safe_load(text)
    assert config["description"] == "goldcase golden set 2026.2"
    first, second = config["tests"]
    assert first["description"] == "ret-014"
    assert first["vars"] == {
        "question": "How many days does a customer have to request a credit for a damaged delivery?"
    }
    # the checks as JavaScript regular expressions: whole words, numbers as numbers
    assert first["assert"] == [
        {
            "$ref": "#/assertionTemplates/goldcase",
            "config": {
                "accepts": "answer",
                "lead": ["yes"],
                "contains": [[NUMBER_14], [WORD_START + "fourteen" + WORD_END, NUMBER_14]],
                "not_contains": [NUMBER_START + "30 days" + WORD_END],
            },
        }
    ]
    assert first["metadata"]["id"] == "ret-014"
    assert first["metadata"]["expected_answer"] == "14 days"
    assert second["assert"] == [
        {"$ref": "#/assertionTemplates/goldcase", "config": {"accepts": "abstention"}}
    ]
    assert second["metadata"]["answerable"] is False
    assert config["prompts"] == ["{{question}}"]
    templates = config["assertionTemplates"]
    assert list(templates) == ["goldcase"]
    assert templates["goldcase"]["type"] == "javascript"  # no model-graded assertion
    assert templates["goldcase"]["metric"] == "goldcase"
    assert "llm-rubric" not in text


def test_the_promptfoo_grader_carries_the_configured_abstain_patterns(repo: Path) -> None:
    (repo / "goldcase.toml").write_text("[run]\nabstain_patterns = ['^no idea\\b']\n")
    templates = yaml.safe_load(export(repo, "--format", "promptfoo"))["assertionTemplates"]
    code = templates["goldcase"]["value"]
    assert r"""const ABSTAIN = new RegExp("(?:^no idea\\b)", 'i');""" in code


def test_promptfoo_export_imports_back_to_the_same_expectations(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "pf" / "promptfooconfig.yaml"
    export(repo, "--format", "promptfoo", "--out", str(out))
    back = tmp_path / "back"
    result = run_cli("import", "--format", "promptfoo", out, "--out", back)
    assert "wrote 2 cases" in result.stdout
    golden = _cases(repo)
    for case in golden.values():
        for key in ("source", "notes"):  # promptfoo has no place for them
            case.pop(key, None)
    assert _cases(back) == golden


def test_a_case_without_checks_asserts_its_expected_answer(repo: Path) -> None:
    config = yaml.safe_load(export(repo, "--format", "promptfoo", "--split", "dev"))
    # its tokens as goldcase score normalises them (the £ is a symbol, and goes), framed
    assert config["tests"][0]["assert"] == [
        {
            "$ref": "#/assertionTemplates/goldcase",
            "config": {"accepts": "answer", "expected": " orders over 50 "},
        }
    ]


@pytest.mark.parametrize(
    ("pattern", "word"),
    [
        (r"^\W*[yY][eE][sS](?![\w])", "yes"),
        (r"^\W*[nN][oO](?![\w])", "no"),
        (r"^\W*15(?![\w])", "15"),
        (r"^\W*[dD]\.[cC]\.(?![\w])", "d.c."),
    ],
)
def test_the_lead_regex_of_earlier_exports_reads_back(pattern: str, word: str) -> None:
    assert lead_of(pattern) == word


@pytest.mark.parametrize(
    "pattern",
    [
        r"^\W*" + "[ab]" * 40 + "X",  # forty classes, then not the lead's ending
        r"^\W*[ab\x(?![\w])",  # a "[" that opens no class: no export wrote it
        r"^\W*[aA]]\(?![\w])",  # the ending escaped: not a lead regex
    ],
)
def test_a_regex_no_export_wrote_has_no_lead(pattern: str) -> None:
    """Each piece of a lead regex has one reading (a "[" opens a class, a "\\" an escape):
    forty classes before a wrong ending had taken 2^40 tries of the other readings."""
    assert lead_of(pattern) is None


def test_inspect_dataset_lines(repo: Path) -> None:
    lines = [json.loads(x) for x in export(repo, "--format", "inspect").splitlines()]
    assert [sorted(line) for line in lines] == [["id", "input", "metadata", "target"]] * 2
    assert lines[0]["input"].startswith("How many days")
    assert lines[0]["target"] == "14 days"
    assert lines[0]["metadata"]["support"] == [{"doc": "returns-policy.md", "quote": QUOTE}]
    assert lines[0]["metadata"]["golden_version"] == "2026.2"
    # an empty target would pass any answer under Inspect's includes(): the abstention instead
    assert (lines[1]["target"], lines[1]["metadata"]["answerable"]) == ("I don't know.", False)
    assert lines[0]["metadata"]["id"] == "ret-014"
    assert lines[0]["metadata"]["expected_answer"] == "14 days"
    assert lines[0]["metadata"]["expect"]["lead"] == "yes"


def test_inspect_export_writes_a_task_file_beside_the_dataset(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "inspect" / "golden.jsonl"
    result = run_cli("export", "--repo", repo, "--format", "inspect", "--out", out)
    assert result.exit_code == 0, result.stderr
    task = (tmp_path / "inspect" / "golden_task.py").read_text(encoding="utf-8")
    assert "from goldcase.interchange.inspect_scorer import goldcase_scorer" in task
    assert "json_dataset(str(Path(__file__).with_name('golden.jsonl')))" in task
    assert "def golden() -> Task:" in task
    compile(task, "golden_task.py", "exec")  # valid Python, whatever the patterns hold


def test_openai_evals_samples(repo: Path) -> None:
    lines = [json.loads(x) for x in export(repo, "--format", "openai-evals").splitlines()]
    assert [line["ideal"] for line in lines] == ["14 days", "I don't know."]
    system, user = lines[1]["input"]
    assert system["role"] == "system" and "reply exactly: I don't know." in system["content"]
    assert user == {"role": "user", "content": "What is the name of the chief executive?"}


@pytest.mark.parametrize("fmt", ["jsonl", "promptfoo", "inspect", "openai-evals"])
def test_a_private_set_is_not_exported_without_allow_private(repo: Path, fmt: str) -> None:
    (repo / "goldcase.toml").write_text("private = true\n", encoding="utf-8")
    refused = run_cli("export", "--repo", repo, "--format", fmt)
    assert refused.exit_code == 2
    assert refused.stdout == ""
    assert "this set is private" in refused.stderr
    allowed = run_cli("export", "--repo", repo, "--format", fmt, "--allow-private")
    assert allowed.exit_code == 0
    assert "How many days" in allowed.stdout


def test_broken_case_files_stop_the_export(repo: Path) -> None:
    (repo / "cases/golden/bad.yaml").write_text("id: bad\n", encoding="utf-8")
    result = run_cli("export", "--repo", repo, "--format", "jsonl")
    assert result.exit_code == 2
    assert "do not pass the schema, first cases/golden/bad.yaml" in result.stderr


@pytest.mark.parametrize(
    ("question", "holds"),
    [
        ("file://pw/pwn.js", "starts with 'file://'"),
        ("file://pw/pwn.py", "starts with 'file://'"),
        ("file:///etc/passwd", "starts with 'file://'"),
        ("package:child_process:exec", "starts with 'package:'"),
        ("what is {{ 7*7 }} today", "holds '{{'"),
        ("x {{ range.constructor('return process.pid')() }} y", "holds '{{'"),
        ("{% for i in [1, 2] %}L{% endfor %}", "holds '{%'"),
        ("a {# comment #} b", "holds '{#'"),
        ("what about {{question}}", "holds '{{'"),
    ],
)
def test_a_question_promptfoo_would_not_send_as_written_is_refused(
    repo: Path, tmp_path: Path, question: str, holds: str
) -> None:
    """promptfoo reads a var starting with file:// as a file to load (and runs a .js or .py
    one), one starting with package: as a module to call, and renders one holding a Nunjucks
    tag ({{ 7*7 }} became 49, and range.constructor reaches JavaScript's Function): a case's
    question would run code when the export is evaluated."""
    (repo / "pw").mkdir()
    (repo / "pw/pwn.js").write_text("require('fs').writeFileSync('ran', '')\n", encoding="utf-8")
    (repo / "cases/golden/una-007.yaml").write_text(
        f"id: una-007\nquestion: {json.dumps(question)}\nanswerable: false\n", encoding="utf-8"
    )
    out = tmp_path / "pf.yaml"
    result = run_cli("export", "--repo", repo, "--format", "promptfoo", "--out", out)
    assert result.exit_code == 2
    assert f"cases/golden/una-007.yaml: the question {holds}, which promptfoo" in result.stderr
    assert not out.exists()
    assert run_cli("export", "--repo", repo, "--format", "jsonl").exit_code == 0
