"""GC507 and GC509 (the labelling family), from small repositories built in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checks.kit import Repo, brief, family_findings
from composition.kit import case, healthy
from goldcase.model import Finding
from kit import run_cli


def findings(root: Path) -> list[Finding]:
    return family_findings(root, "labelling")


def label(root: Path, labeller: str, case_id: str, body: str) -> Path:
    path = root / "labels" / labeller / f"{case_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"id: {case_id}\n{body}", encoding="utf-8")
    return path


def test_gc507_disagreement_on_answerable(make_repo: Repo) -> None:
    root = make_repo(healthy())
    label(root, "lee", "r10", "answerable: false\n")
    found = findings(root)
    # r10 has no answerable key (true by default): the finding is at 1:1
    assert brief(found) == [("cases/golden/r10.yaml", 1, 1, "GC507", "error")]
    assert found[0].message == (
        "labeller 'lee' disagrees (answerable: case true, label false; labels/lee/r10.yaml); "
        "write the rule that decides it in resolution:, or move the case to an ambiguous slice"
    )


def test_gc507_disagreement_on_the_normalised_answer(make_repo: Repo) -> None:
    root = make_repo(healthy())
    label(root, "lee", "r10", "answerable: true\nexpected_answer: 'The 14 Days.'\n")
    label(root, "lee", "r11", "answerable: true\nexpected_answer: 30 days\n")
    found = findings(root)
    # "The 14 Days." normalises to "14 days": agreement; "30 days" does not
    assert brief(found) == [("cases/golden/r11.yaml", 3, 1, "GC507", "error")]
    assert "expected_answer: case '14 days', label '30 days'" in found[0].message


def test_gc507_disagreement_on_expect(make_repo: Repo) -> None:
    files = healthy()
    files["cases/golden/r10.yaml"] = case("r10", extra='expect:\n  contains: ["14"]')
    root = make_repo(files)
    label(
        root,
        "lee",
        "r10",
        "answerable: true\nexpected_answer: 14 days\nexpect:\n  contains: ['14']\n",
    )
    label(
        root, "lee", "r11", "answerable: true\nexpected_answer: 14 days\nexpect:\n  lead: 'yes'\n"
    )
    assert brief(findings(root)) == [("cases/golden/r11.yaml", 1, 1, "GC507", "error")]


def test_gc507_resolution_or_ambiguous_slice_silences_it(make_repo: Repo) -> None:
    files = healthy()
    files["cases/golden/r10.yaml"] = case(
        "r10",
        extra="resolution:\n  rule: a credit request counts from delivery, not from dispatch\n"
        "  decided_by: returns-lead",
    )
    files["cases/golden/z1.yaml"] = case("z1", slice_name="unclear", answerable=False)
    root = make_repo(files)
    (root / "goldcase.toml").write_text('ambiguous_slices = ["unclear"]\n', "utf-8")
    label(root, "lee", "r10", "answerable: false\n")
    label(root, "lee", "z1", "answerable: true\nexpected_answer: 14 days\n")
    assert findings(root) == []


def test_pending_labels_are_not_compared(make_repo: Repo) -> None:
    root = make_repo(healthy())
    label(root, "lee", "r10", "question: x\nanswerable:\nexpected_answer:\nexpect:\n")
    assert findings(root) == []


@pytest.mark.parametrize("rel", ["labels/lee", "labels/lee/r10.yaml"])
def test_gc509_a_link_to_a_folder_among_the_labels(
    make_repo: Repo, tmp_path: Path, rel: str
) -> None:
    """Not followed (one leading out would have files elsewhere read as labels), and said."""
    root = make_repo(healthy())
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "r10.yaml").write_text("id: r10\nanswerable: false\n")
    (root / rel).symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    found = findings(root)
    assert brief(found) == [(rel, 1, 1, "GC509", "error")]
    assert found[0].message.startswith("a link to a folder, which goldcase does not follow")


@pytest.mark.parametrize(
    ("rel", "text", "expected"),
    [
        ("labels/lee/r10.yaml", "id: r10\nanswerable: [\n", (3, 1, "label file: YAML syntax")),
        ("labels/lee/r10.yaml", "id: r10\nanswerd: true\n", (2, 1, "unknown key 'answerd'")),
        (
            "labels/lee/r10.yaml",
            "id: r10\nanswerable: maybe\n",
            (2, 13, "answerable should be true or false"),
        ),
        (
            "labels/lee/r10.yaml",
            "id: r11\nanswerable: true\nexpected_answer: x\n",
            (1, 5, "id 'r11' differs from the file name 'r10'"),
        ),
        ("labels/lee/nope.yaml", "id: nope\nanswerable: false\n", (1, 5, "no case has id 'nope'")),
        (
            "labels/lee/r10.yaml",
            "id: r10\nanswerable: true\n",
            (2, 1, "answerable is true but expected_answer is blank"),
        ),
        (
            "labels/lee/r10.yaml",
            "id: r10\nanswerable: false\nexpected_answer: 14 days\n",
            (3, 1, "expected_answer should be blank when answerable is false"),
        ),
        (
            "labels/lee/r10.yaml",
            "id: r10\nanswerable: true\nexpected_answer: 14\n",
            (3, 18, "expected_answer should be a short text"),
        ),
        (
            "labels/lee/r10.yaml",
            "id: r10\nanswerable: true\nexpected_answer: x\nexpect:\n  lead: 3\n",
            (5, 9, "expect.lead"),
        ),
        ("labels/lee/r10.yaml", "- a list\n", (1, 1, "should be a mapping")),
        ("labels/r10.yaml", "id: r10\n", (1, 1, "labels/<labeller>/<id>.yaml")),
        (
            "labels/lee/r10.yaml",
            "id: r10\nanswerable: true\nanswerable: false\n",
            (3, 1, "duplicate key"),
        ),
    ],
)
def test_gc509_malformed_label_files(
    make_repo: Repo, rel: str, text: str, expected: tuple[int, int, str]
) -> None:
    root = make_repo(healthy())
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    found = findings(root)
    assert brief(found) == [(rel, expected[0], expected[1], "GC509", "error")]
    assert expected[2] in found[0].message


def test_gc509_binary_label_file(make_repo: Repo) -> None:
    root = make_repo(healthy())
    path = root / "labels" / "lee" / "r10.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"id: r10\n\xff\xfe\n")
    assert [f.code for f in findings(root)] == ["GC509"]


def test_check_command_reports_labelling_with_exit_status(make_repo: Repo) -> None:
    files = healthy()
    root = make_repo(files)
    label(root, "lee", "r10", "answerable: false\n")
    result = run_cli("check", "--repo", root, "--select", "labelling")
    assert result.exit_code == 1
    assert result.stdout.startswith("cases/golden/r10.yaml:1:1: GC507 labeller 'lee' disagrees")


def test_gc509_a_fifo_is_not_read(make_repo: Repo) -> None:
    root = make_repo(healthy())
    (root / "labels" / "lee").mkdir(parents=True)
    os.mkfifo(root / "labels" / "lee" / "r10.yaml")
    found = findings(root)
    assert brief(found) == [("labels/lee/r10.yaml", 1, 1, "GC509", "error")]
    assert "not a regular file" in found[0].message
