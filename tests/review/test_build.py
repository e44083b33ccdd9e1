"""goldcase review on real git histories: the Markdown a pull request gets, text, JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.review import build
from kit import DATA, run_cli

EXPECTED = DATA / "review"
QUIET = "\n".join(
    f'GC{n} = "off"' for n in (401, 402, 403, 404, 405, 501, 502, 503, 504, 506, 508, 510, 511, 603)
)
CONFIG = f"# only the case files' own findings matter in these tests\n[severity]\n{QUIET}\n"

RET_001 = """\
id: ret-001
question: How many days does a customer have to request a credit for a damaged delivery?
answerable: true
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
expect:
  contains: ['14']
slice: returns
"""
RET_002 = """\
id: ret-002
question: How long are unused items returnable?
answerable: true
expected_answer: 30 days
support:
  - doc: returns-policy.md
    quote: Unused items may be returned within 30 days of delivery.
slice: returns
"""
UNA_001 = """\
id: una-001
question: Who founded the company?
answerable: false
slice: returns
"""
RET_003 = """\
id: ret-003
question: How long do I have to return a sale item?
answerable: true
expected_answer: 14 days
support:
  - doc: delivery.md
    quote: Orders over £50 ship free.
slice: returns
"""
RET_004 = """\
id: ret-004
question: How long is an undelivered parcel kept at the depot?
answerable: true
expected_answer: 7 days
support:
  - doc: delivery.md
    quote: Parcels we could not deliver are held at the depot for 7 days.
slice: returns
"""


def git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_COMMITTER_NAME="Test Committer",
        GIT_COMMITTER_EMAIL="c@example.com",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
        GIT_CONFIG_NOSYSTEM="1",
        HOME=str(root.parent),
    )
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """main: four cases and version 1; the working tree on branch ``feature`` changes ret-001's
    expectations, breaks ret-002's quote, removes una-001, moves ret-003 from dev to golden,
    adds ret-004 and bumps the version to 2."""
    root = tmp_path / "set"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    shutil.copytree(DATA / "corpus", root / "corpus")
    write(
        root,
        {
            "goldcase.toml": CONFIG,
            "golden.version": "1\n",
            "cases/golden/ret-001.yaml": RET_001,
            "cases/golden/ret-002.yaml": RET_002,
            "cases/golden/una-001.yaml": UNA_001,
            "cases/dev/ret-003.yaml": RET_003,
        },
    )
    commit(root, "base set")
    git(root, "checkout", "-q", "-b", "feature")
    write(
        root,
        {
            "golden.version": "2\n",
            "cases/golden/ret-001.yaml": RET_001.replace(
                "  contains: ['14']\n",
                "  contains: [['14', fourteen]]\n  not_contains: [30 days]\n",
            ),
            "cases/golden/ret-002.yaml": RET_002.replace("within 30 days of", "within 31 days of"),
            "cases/golden/ret-003.yaml": RET_003.replace(
                "Orders over £50 ship free.",
                "Items bought in a sale can be returned within 14 days.",
            ),
            "cases/golden/ret-004.yaml": RET_004,
        },
    )
    (root / "cases/golden/una-001.yaml").unlink()
    (root / "cases/dev/ret-003.yaml").unlink()
    return root


def expected(name: str, root: Path) -> str:
    text = (EXPECTED / name).read_text(encoding="utf-8")
    return text.replace("{main}", git(root, "rev-parse", "--short=7", "main"))


def test_markdown_review_of_a_branch_matches_the_hand_written_comment(history: Path) -> None:
    result = run_cli("review", "--repo", history, "--base", "main")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected("branch.expected.md", history)


def test_text_review_says_the_same_in_lines(history: Path) -> None:
    result = run_cli("review", "--repo", history, "--base", "main", "--format", "text")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    main = git(history, "rev-parse", "--short=7", "main")
    assert lines[:3] == [
        f"goldcase review: base main ({main}), head the working tree",
        "golden.version: 1 -> 2",
        "5 cases: 1 added, 2 changed, 1 moved, 1 removed; 1 error, 2 warnings on them.",
    ]
    assert "changed ret-001 (golden) cases/golden/ret-001.yaml" in lines
    assert '  expect.contains: ["14"] -> [["14", "fourteen"]]' in lines
    assert (
        "  returns-policy.md:5: Damaged deliveries »A customer has 14 days from delivery to "
        "request a credit« for a damaged delivery. Photographs of the damage help us decide "
        "quickly."
    ) in lines
    assert (
        "moved ret-003 (dev → golden) cases/dev/ret-003.yaml -> cases/golden/ret-003.yaml" in lines
    )


def test_text_review_escapes_the_versions_it_quotes(history: Path) -> None:
    """golden.version is a line of the pull request's own: a terminal escape in it is shown
    escaped, not sent to the terminal."""
    write(history, {"golden.version": "\x1b]0;pwned\x072\n"})
    result = run_cli("review", "--repo", history, "--base", "main", "--format", "text")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == "golden.version: 1 -> \\x1b]0;pwned\\x072"
    assert "\x1b" not in result.stdout


def test_json_review(history: Path) -> None:
    result = run_cli("review", "--repo", history, "--base", "main", "--format", "json")
    data = json.loads(result.stdout)
    assert data["golden_version"] == {"old": "1", "new": "2", "moved": True}
    assert data["counts"] == {"added": 1, "changed": 2, "moved": 1, "removed": 1}
    by_id = {c["id"]: c for c in data["cases"]}
    assert by_id["ret-002"]["changes"] == [
        {
            "field": "support[0].quote",
            "old": "Unused items may be returned within 30 days of delivery.",
            "new": "Unused items may be returned within 31 days of delivery.",
        }
    ]
    # the broken quote says 31 days: GC208 says the answer's 30 days is in no quote now
    assert [f["code"] for f in by_id["ret-002"]["findings"]] == ["GC208", "GC202"]
    assert by_id["ret-003"]["support"][0] == {
        "doc": "delivery.md",
        "quote": "Items bought in a sale can be returned within 14 days.",
        "found": True,
        "line": 4,
        "before": "Orders over £50 ship free.",
        "lead": "",
        "tail": "",
        "after": "Parcels we could not deliver are held at the depot for 7 days.",
    }


def test_head_ref_is_checked_from_its_own_files(history: Path) -> None:
    commit(history, "feature work")
    (history / "cases/golden/ret-004.yaml").unlink()  # the working tree no longer matters
    result = run_cli(
        "review", "--repo", history, "--base", "main", "--head", "feature", "--format", "json"
    )
    data = json.loads(result.stdout)
    assert data["head"]["ref"] == "feature"
    assert data["counts"]["added"] == 1
    by_id = {c["id"]: c for c in data["cases"]}
    # the broken quote says 31 days: GC208 says the answer's 30 days is in no quote now
    assert [f["code"] for f in by_id["ret-002"]["findings"]] == ["GC208", "GC202"]


def test_default_base_is_the_merge_base_with_main(history: Path) -> None:
    commit(history, "feature work")
    git(history, "checkout", "-q", "main")
    write(history, {"cases/golden/ret-009.yaml": RET_004.replace("ret-004", "ret-009")})
    commit(history, "main moves on")
    git(history, "checkout", "-q", "feature")
    result = run_cli("review", "--repo", history, "--format", "json")
    data = json.loads(result.stdout)
    first = git(history, "rev-parse", "main~1")
    assert data["base"] == {"ref": None, "sha": first, "how": "merge base of HEAD and main"}
    assert "ret-009" not in {c["id"] for c in data["cases"]}  # main's own change is not ours


def test_nothing_changed(history: Path) -> None:
    commit(history, "feature work")
    result = run_cli("review", "--repo", history, "--base", "HEAD")
    assert "No case was added, changed, moved or removed." in result.stdout
    assert "golden.version did not move (`2`)." in result.stdout


def test_golden_change_without_a_version_move_is_pointed_out(history: Path) -> None:
    (history / "golden.version").write_text("1\n", encoding="utf-8")
    result = run_cli("review", "--repo", history, "--base", "main")
    assert (
        "golden.version did not move (`1`). **The golden set changed: run `goldcase lock` "
        "to bump it.**"
    ) in result.stdout


def test_fifty_changed_cases_read_as_a_table_then_collapsed_details(history: Path) -> None:
    write(
        history,
        {
            f"cases/golden/ret-{n:03d}.yaml": RET_004.replace("ret-004", f"ret-{n:03d}")
            for n in range(100, 150)
        },
    )
    out = run_cli("review", "--repo", history, "--base", "main").stdout
    rows = [line for line in out.splitlines() if line.startswith("| `ret-1")]
    assert len(rows) == 50
    assert out.count("<details>") == 55 and out.count("</details>") == 55
    assert out.index("| case | split |") < out.index("<details>")
    assert len(out) < 60_000


def test_a_comment_too_long_for_github_is_cut_at_a_whole_case(history: Path) -> None:
    from goldcase.config import load_config
    from goldcase.context import Context
    from goldcase.review.build import review
    from goldcase.review.render import markdown

    text = markdown(review(Context(load_config(history)), "main"), limit=2_000)
    assert text.count("<details>") == text.count("</details>") < 5
    assert text.rstrip().endswith("run `goldcase review` locally to see them.")


def test_outside_a_git_repository_it_cannot_run(make_repo: Callable[..., Path]) -> None:
    root = make_repo({})
    result = run_cli("review", "--repo", root, "--base", "main")
    assert result.exit_code == 2
    assert "is not inside a git repository" in result.stderr


def test_out_appends_to_a_step_summary(history: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    result = run_cli("review", "--repo", history, "--base", "main", "--out", summary)
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + result.stdout


def test_out_that_is_a_link_is_refused(history: Path, tmp_path: Path) -> None:
    """``--out`` is read, then written whole: a ``summary.md`` a branch committed as a link to
    a file outside the repository had that file's text copied into the work tree."""
    outside = tmp_path / "credentials"
    outside.write_text("secret\n", encoding="utf-8")
    link = history / "summary.md"
    link.symlink_to(outside)
    result = run_cli("review", "--repo", history, "--base", "main", "--out", link)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {link}: is a link (to {outside}); goldcase review writes the file itself, "
        "never through a link: remove the link, or name another file with --out\n"
    )
    assert link.is_symlink() and outside.read_text(encoding="utf-8") == "secret\n"


def test_head_ref_that_is_the_working_tree_gives_the_same_review(history: Path) -> None:
    commit(history, "feature work")
    by_ref = run_cli(
        "review", "--repo", history, "--base", "main", "--head", "HEAD", "--format", "json"
    )
    on_disk = run_cli("review", "--repo", history, "--base", "main", "--format", "json")
    ref_cases = json.loads(by_ref.stdout)["cases"]
    assert ref_cases == json.loads(on_disk.stdout)["cases"]
    codes = [f["code"] for c in ref_cases for f in c["findings"]]
    assert codes == ["GC208", "GC202", "GC205"]


def test_probes_are_shown_with_their_verdicts(history: Path) -> None:
    probed = RET_004 + (
        "expect:\n  contains: [[7 days, seven days]]\n"
        "probes:\n  pass: [Seven days at the depot., A week.]\n  fail: [14 days.]\n"
    )
    write(history, {"cases/golden/ret-004.yaml": probed})
    text = run_cli("review", "--repo", history, "--format", "text").stdout.splitlines()
    start = text.index("added ret-004 (golden) cases/golden/ret-004.yaml")
    shown = [line for line in text[start:] if line.startswith(("  pass-probe", "  fail-probe"))]
    assert shown == [
        '  pass-probe "Seven days at the depot.": passes (holds)',
        '  pass-probe "A week.": fails contains (does NOT hold)',
        '  fail-probe "14 days.": fails contains (holds)',
    ]
    assert "cases/golden/ret-004.yaml:12:36: GC601 pass-probe 'A week.'" in "\n".join(text)
    report = json.loads(run_cli("review", "--repo", history, "--format", "json").stdout)
    case = next(c for c in report["cases"] if c["id"] == "ret-004")
    assert case["probes"] == [
        {"kind": "pass", "answer": "Seven days at the depot.", "failed": [], "holds": True},
        {"kind": "pass", "answer": "A week.", "failed": ["contains"], "holds": False},
        {"kind": "fail", "answer": "14 days.", "failed": ["contains"], "holds": True},
    ]
    markdown = run_cli("review", "--repo", history).stdout
    assert "| pass | `A week.` | fails contains (does NOT hold) |" in markdown


def _review_limited(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``goldcase review --format json`` in a process that may map at most 2 GiB."""
    import resource
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))

    return subprocess.run(
        [sys.executable, "-m", "goldcase", "review", "--base", "main", "--format", "json", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
    )


@pytest.mark.parametrize("kind", ["fifo", "link out", "3 GiB"])
def test_a_case_file_the_checks_refuse_is_reviewed_with_their_finding(
    history: Path, tmp_path: Path, kind: str
) -> None:
    """The review read every case file of the work tree whole and unguarded: a FIFO or a link
    out of the repository (GC113 for the checks) ended in ``internal error``, and a 3 GiB
    file (GC112) was read into memory (a branch commits it as a few compressed kilobytes)."""
    path = history / "cases" / "golden" / "big-001.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link out":
        (tmp_path / "elsewhere.yaml").write_text(RET_004.replace("ret-004", "big-001"))
        path.symlink_to(tmp_path / "elsewhere.yaml")
    else:
        with path.open("wb") as fh:
            fh.truncate(3 * 1024**3)  # sparse: no disk taken
    result = _review_limited(history)
    assert result.returncode == 0, result.stderr
    added = {c["id"]: c for c in json.loads(result.stdout)["cases"]}["big-001"]
    assert added["status"] == "added"
    assert [f["code"] for f in added["findings"]] == ["GC112" if kind == "3 GiB" else "GC113"]


def test_a_committed_file_too_large_to_read_is_refused_naming_it(history: Path) -> None:
    """A commit's files are read from git: a blob of 3 GiB (a few compressed kilobytes in the
    repository) was read whole. One byte over the bound is refused by its size alone."""
    big = history / "cases" / "golden" / "big-001.yaml"
    with big.open("wb") as fh:
        fh.truncate(64 * 1024**2 + 1)
    commit(history, "a big case file")
    big.unlink()
    result = _review_limited(history, "--head", "HEAD")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: cases/golden/big-001.yaml at HEAD ({git(history, 'rev-parse', 'HEAD')[:7]}): "
        "67,108,865 bytes, more than the 67,108,864 goldcase reads of a file of the set; "
        "goldcase check says what is wrong with it\n"
    )


def test_each_document_is_split_into_sentences_once_for_all_quotes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each quote of each changed case split its whole document into sentences again, and
    folded its white space again: 50 cases of 20 quotes in a 240 kB document read it a
    thousand times. Now once."""
    text = "A sentence. " * 20_000
    support = [{"doc": "a.md", "quote": "A sentence."}] * 20
    cases = {
        f"c{i}": (f"cases/golden/c{i}.yaml", "golden", {"id": f"c{i}", "support": support})
        for i in range(50)
    }
    split: list[int] = []

    class Counting(build.Sentences):
        def __init__(self, text: str) -> None:
            split.append(len(text))
            super().__init__(text)

    monkeypatch.setattr(build, "Sentences", Counting)
    changes = build.compare(build.State({}, {}, "1"), build.State(cases, {"a.md": text}, "1"))
    assert len(changes) == 50
    assert all(q.found is not None for c in changes for q in c.quotes)
    assert split == [len(text)]
