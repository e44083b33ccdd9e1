"""goldcase fmt: canonical key order and quoting, comments kept, files that do not parse left
alone, --check, and the pre-commit fixer convention (exit 1 when a file changed)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from goldcase import repolock
from goldcase.authoring.formatting import dump_canonical, format_text, misread
from goldcase.config import load_config
from goldcase.labelpage.edits import Conflict, write_if_unchanged
from goldcase.loader import file_digest, parse_case
from goldcase.repolock import serialised
from kit import REPO_ROOT, run_cli

Maker = Callable[..., Path]

MESSY = """\
# yaml-language-server: $schema=../../schema/case.schema.json
question: "How many days do I have to ask for a credit?"   # as the customer wrote it
id: ret-001
support:
  - quote: 'A customer has 14 days from delivery to request a credit'
    doc: "returns-policy.md"
expected_answer: "14 days"
tags: ["numeric", policy]
expect:
  lead: 'yes'
  contains: ["14", [fourteen, '14']]
  not_contains: ['30 days']
# why it exists
notes: "Reason: a customer asked"
"""
# Written by hand from docs/fmt.md's key order: id, question, answerable, expected_answer,
# support (doc, quote), expect (contains, not_contains, lead, …), slice, tags, source, …,
# notes. Quotes stay where the author wrote them (they mark where an any-of alternative
# starts and ends), and comments stay with their keys.
CANONICAL = """\
# yaml-language-server: $schema=../../schema/case.schema.json
id: ret-001
question: "How many days do I have to ask for a credit?"   # as the customer wrote it
expected_answer: "14 days"
support:
  - doc: "returns-policy.md"
    quote: 'A customer has 14 days from delivery to request a credit'
expect:
  contains: ["14", [fourteen, '14']]
  not_contains: ['30 days']
  lead: 'yes'
tags: ["numeric", policy]
# why it exists
notes: "Reason: a customer asked"
"""


def test_format_text_orders_keys_and_keeps_the_authors_quotes() -> None:
    assert format_text(MESSY) == CANONICAL


def test_format_is_idempotent() -> None:
    assert format_text(CANONICAL) == CANONICAL


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("14", True),
        ("yes", True),
        ("off", True),
        ("2026-01-01", True),
        ("1_000", True),
        ("null", True),
        ("1:20", True),
        ("3.5", True),
        ("14 days", False),
        ("yesterday", False),
        ("§ 21-1003(m)", False),
    ],
)
def test_misread_follows_yaml_1_1(text: str, quoted: bool) -> None:
    assert misread(text) is quoted


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ('notes: "a, b"\n', 'notes: "a, b"\n'),  # the author's quotes stay
        ('tags: ["a, b", c]\n', 'tags: ["a, b", c]\n'),
        ("notes: 'say \"hi\": now'\n", "notes: 'say \"hi\": now'\n"),
        ("quote: '| Call recordings | 90 days |'\n", "quote: '| Call recordings | 90 days |'\n"),
        ("contains: [[30 days, thirty days]]\n", "contains: [[30 days, thirty days]]\n"),
        (
            'contains: [["2 business days", "two business days"]]\n',
            'contains: [["2 business days", "two business days"]]\n',
        ),
        ("answerable: yes\n", "answerable: true\n"),  # read as YAML 1.1, as libyaml reads it
        ("lead: 'no'\n", "lead: 'no'\n"),
    ],
)
def test_quoting(text: str, canonical: str) -> None:
    assert format_text(text) == canonical


def test_long_strings_are_not_folded() -> None:
    quote = "word " * 40
    text = f"id: a\nquestion: {quote.strip()}\n"
    assert format_text(text) == text


def test_check_lists_files_and_changes_nothing(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/ret-001.yaml": MESSY,
            "cases/golden/ret-002.yaml": CANONICAL.replace("ret-001", "ret-002"),
        }
    )
    result = run_cli("fmt", "--repo", root, "--check")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "would reformat cases/golden/ret-001.yaml",
        "1 file would be reformatted, 1 unchanged",
    ]
    assert (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == MESSY


def test_fmt_rewrites_then_has_nothing_left(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-001.yaml": MESSY})
    first = run_cli("fmt", "--repo", root)
    assert first.exit_code == 1  # a fixer that changed a file fails, as pre-commit expects
    assert first.stdout.splitlines()[0] == "reformatted cases/golden/ret-001.yaml"
    assert (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == CANONICAL
    second = run_cli("fmt", "--repo", root)
    assert (second.exit_code, second.stdout) == (0, "0 files reformatted, 1 unchanged\n")
    check = run_cli("check", "--repo", root, "--select", "schema", "--select", "support")
    assert check.exit_code == 0, check.stdout


def test_a_file_that_does_not_parse_is_reported_and_left_alone(make_repo: Maker) -> None:
    broken = "id: ret-001\nquestion: a\nquestion: b\n"
    root = make_repo({"cases/golden/ret-001.yaml": broken})
    result = run_cli("fmt", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "cases/golden/ret-001.yaml:3:1: GC102 duplicate key 'question'; keep one "
        "(file left as it is)"
    )
    assert (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == broken


def test_paths_limit_the_files(make_repo: Maker) -> None:
    root = make_repo(
        {
            "cases/golden/ret-001.yaml": MESSY,
            "cases/dev/ret-002.yaml": MESSY.replace("ret-001", "ret-002"),
        }
    )
    result = run_cli("fmt", "--repo", root, root / "cases/dev")
    assert result.stdout.splitlines()[0] == "reformatted cases/dev/ret-002.yaml"
    assert (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == MESSY


def test_a_path_that_does_not_exist_cannot_run(make_repo: Maker) -> None:
    root = make_repo({})
    result = run_cli("fmt", "--repo", root, root / "cases/golden/nope.yaml")
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr


@pytest.mark.slow
def test_the_fmt_hook_fixes_a_commit_through_real_pre_commit(
    make_repo: Maker, tmp_path: Path
) -> None:
    """The manifest's goldcase-fmt hook (entry, files, pass_filenames as shipped), run by the
    real pre-commit as a local hook on this environment's goldcase: the first commit is refused
    with the file fixed, the second goes through."""
    manifest = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in manifest if h["id"] == "goldcase-fmt")
    root = make_repo({"cases/golden/ret-001.yaml": MESSY})
    local = {
        "id": hook["id"],
        "name": hook["name"],
        "entry": hook["entry"],
        "language": "system",
        "files": hook["files"],
        "pass_filenames": hook["pass_filenames"],
    }
    (root / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}), encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="A",
        GIT_AUTHOR_EMAIL="a@example.com",
        GIT_COMMITTER_NAME="C",
        GIT_COMMITTER_EMAIL="c@example.com",
        PRE_COMMIT_HOME=str(tmp_path / "home"),
        PATH=f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
    )

    def sh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, check=False)

    sh("git", "init", "-q", "-b", "main")
    assert sh(str(Path(sys.executable).parent / "pre-commit"), "install").returncode == 0
    sh("git", "add", "-A")
    refused = sh("git", "commit", "--no-gpg-sign", "-m", "add ret-001")
    assert refused.returncode == 1
    shown = refused.stdout + refused.stderr  # git shows the hook's output on stderr
    assert "files were modified by this hook" in shown
    assert "reformatted cases/golden/ret-001.yaml" in shown
    assert (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == CANONICAL
    sh("git", "add", "-A")
    accepted = sh("git", "commit", "--no-gpg-sign", "-m", "add ret-001")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("---\nid: a\n", "id: a\n"),
        ("# kept\n---\nid: a\n", "# kept\nid: a\n"),
        ("--- # kept\nid: a\n", "# kept\nid: a\n"),
        ("%YAML 1.1\n---\nid: a\n", "id: a\n"),
        ("id: a\n...\n", "id: a\n"),
        ("id: a\r\nquestion: q\r\n", "id: a\nquestion: q\n"),
    ],
)
def test_document_markers_and_line_ends(text: str, canonical: str) -> None:
    assert format_text(text) == canonical


def test_the_sample_set_is_canonical_and_kept_so() -> None:
    """``make run``'s check step and this repository's pre-commit config run ``fmt --check``,
    and the sample set passes it."""
    result = run_cli("fmt", "--check", "--repo", REPO_ROOT)
    assert result.exit_code == 0, result.stdout
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    run_target = makefile.split("\nrun: ", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/goldcase fmt --check\n" in run_target
    config = yaml.safe_load((REPO_ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [
        hook["entry"] for repo in config["repos"] for hook in repo["hooks"] if "entry" in hook
    ]
    assert "goldcase fmt --check" in entries


@pytest.mark.parametrize(
    "value",
    [
        "line one\x1b[2J\nline two",
        "a\u2028b\nc",
        "a\x85b\nc",
        "bell\x07\nnbsp\xa0 end",
        "a\ufeff\nb",
    ],
)
def test_multi_line_text_with_control_characters_is_written_as_escapes(value: str) -> None:
    """A literal block cannot hold control characters (YAML refuses them) and reads a line or
    paragraph separator as a line break: such text is written double-quoted, with escapes."""
    written = dump_canonical({"question": value}, ())
    data, problems = parse_case("x.yaml", written.encode("utf-8"))
    assert problems == []
    assert data == {"question": value}


def test_a_case_file_linked_outside_the_repository_is_neither_read_nor_copied_in(
    tmp_path: Path,
) -> None:
    """A branch can commit ``cases/golden/x.yaml`` as a link to a file anywhere: fmt reads
    case files as check does, only inside the repository, so the file outside is never read
    and never copied into the repository in the link's place."""
    from kit import case_text, git_set, goldcase

    repo = git_set(tmp_path / "repo")
    outside = tmp_path / "outside.yaml"
    outside.write_text(case_text("ret-003").replace("question: ", "question:   "), encoding="utf-8")
    before = outside.read_bytes()
    link = repo / "cases" / "golden" / "ret-003.yaml"
    link.symlink_to(outside)
    result = goldcase(repo, "fmt")
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "cases/golden/ret-003.yaml:1:1: GC113 a link that leads outside the repository; case "
        "files live inside it (file left as it is)"
    ) in result.stdout
    assert "reformatted cases/golden/ret-003.yaml" not in result.stdout
    assert link.is_symlink() and outside.read_bytes() == before


def test_a_case_file_linked_inside_the_repository_stays_a_link(tmp_path: Path) -> None:
    """A link that stays inside the repository is read as check reads it; fmt rewrites the
    file it leads to and leaves the link a link (docs/fmt.md)."""
    from kit import case_text, git_set, goldcase

    repo = git_set(tmp_path / "repo")
    target = repo / "shared" / "ret-003.yaml"
    target.parent.mkdir()
    target.write_text(case_text("ret-003").replace("question: ", "question:   "), encoding="utf-8")
    link = repo / "cases" / "golden" / "ret-003.yaml"
    link.symlink_to(Path("..", "..", "shared", "ret-003.yaml"))
    result = goldcase(repo, "fmt")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "reformatted cases/golden/ret-003.yaml" in result.stdout
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text(encoding="utf-8") == case_text("ret-003")
    assert goldcase(repo, "fmt", "--check").returncode == 0


def _git_repo(root: Path) -> Path:
    """``root`` as a git repository holding its files, as a golden set is kept."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com")
    env.update(GIT_COMMITTER_NAME="C", GIT_COMMITTER_EMAIL="c@example.com")
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "the set"],
    ):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return root


def _fmt(root: Path, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "goldcase", "fmt", *args]
    return subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True)


def test_fmt_waits_for_the_lock_a_save_holds(make_repo: Maker) -> None:
    """A save of the labelling page holds the repository's lock from reading a case file to
    writing it (docs/label.md); fmt waits for it (docs/fmt.md) and then formats the file as
    saved. Without the lock fmt rewrote the file in the middle of the save."""
    root = _git_repo(make_repo({"cases/golden/ret-001.yaml": MESSY}))
    path = root / "cases/golden/ret-001.yaml"
    with serialised(load_config(root)):  # a save: read the file, then write it
        saved = path.read_text(encoding="utf-8").replace("a customer asked", "asked twice")
        fmt = _fmt(root)
        with contextlib.suppress(subprocess.TimeoutExpired):
            fmt.wait(timeout=5)  # an unguarded fmt is done by then
        running, during = fmt.poll() is None, path.read_text(encoding="utf-8")
        path.write_text(saved, encoding="utf-8")
    out, _ = fmt.communicate(timeout=120)
    assert (running, during) == (True, MESSY)
    assert fmt.returncode == 1, out
    assert out.splitlines() == [
        "reformatted cases/golden/ret-001.yaml",
        "1 file reformatted, 0 unchanged",
    ]
    assert path.read_text(encoding="utf-8") == CANONICAL.replace("a customer asked", "asked twice")


@pytest.mark.slow
def test_a_page_save_made_while_fmt_formats_the_file_is_kept_or_refused(make_repo: Maker) -> None:
    """The labelling page's own save (``write_if_unchanged``) made while fmt is between reading a
    file and writing it back (a large file keeps it there for seconds): fmt read the file, the
    save was written and answered, then fmt wrote the file as it had read it, and the save was
    lost. A save is written or refused (docs/label.md), never lost: refused here, since fmt
    changed the file the page loaded, or written before fmt reads it and kept."""
    large = "question: How long do refunds take?\nid: ret-002\nanswerable: true\n"
    large += "notes: as asked\ntags:\n" + "".join(f"  - t{i}\n" for i in range(40_000))
    files = {"cases/golden/ret-001.yaml": MESSY, "cases/golden/ret-002.yaml": large}
    root = _git_repo(make_repo(files))
    first, second = (root / rel for rel in files)
    loaded = file_digest(second.read_bytes())  # the page loaded the file before fmt ran
    fmt = _fmt(root)
    deadline = time.monotonic() + 60
    while first.read_text(encoding="utf-8") == MESSY and time.monotonic() < deadline:
        time.sleep(0.01)  # fmt works through the files in order: the large one is next
    time.sleep(0.2)
    try:
        write_if_unchanged(
            load_config(root), second, loaded, lambda t: t.replace("as asked", "SAVED")
        )
        refused = False
    except Conflict:
        refused = True
    out, _ = fmt.communicate(timeout=120)
    assert fmt.returncode == 1, out
    text = second.read_text(encoding="utf-8")
    assert text.startswith("id: ret-002\nquestion: How long do refunds take?\n")
    assert ("notes: as asked" if refused else "notes: SAVED") in text


def test_fmt_check_writes_nothing_and_takes_no_lock(make_repo: Maker) -> None:
    root = make_repo({"cases/golden/ret-001.yaml": MESSY})
    with serialised(load_config(root)):
        result = run_cli("fmt", "--check", "--repo", root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "would reformat cases/golden/ret-001.yaml"


def test_fmt_stops_when_the_lock_is_held_past_the_bound(
    make_repo: Maker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock held past the bound (60 s; 1 s here) stops fmt with an error naming the
    repository's folder and what to do (docs/fmt.md); the file is left as it was."""
    root = make_repo({"cases/golden/ret-001.yaml": MESSY})
    monkeypatch.setattr(repolock, "LOCK_WAIT_SECONDS", 1.0)
    with serialised(load_config(root)):
        result = run_cli("fmt", "--repo", root)
    assert result.exit_code == 2
    assert result.stderr == (
        "error: another goldcase command (lock, promote, fmt, scrub, a save of label serve) "
        f"has held the lock on {root} for 1 s; wait for it to finish, then run this again\n"
    )
    assert (root / "cases/golden/ret-001.yaml").read_text(encoding="utf-8") == MESSY
