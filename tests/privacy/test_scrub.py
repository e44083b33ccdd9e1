"""goldcase scrub: redactions in place, comments and layout kept, consent asked."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from goldcase.config import load_config
from goldcase.labelpage.edits import write_if_unchanged
from goldcase.loader import file_digest, parse_case
from goldcase.repolock import serialised
from kit import run_cli

CASE = """\
# yaml-language-server: $schema=../../schema/case.schema.json
# transcript 2024-03-01; caller asked to be rung on 020 7946 0958
id: t1
question: 'parcel to 12 Acacia Avenue never came, mail me at jo.bloggs@example.co.uk'
answerable: false     # the corpus has no tracking data
source: transcript
notes: card 4111 1111 1111 1111 was charged twice   # keep this note
"""

REDACTED = """\
# yaml-language-server: $schema=../../schema/case.schema.json
# transcript 2024-03-01; caller asked to be rung on [PHONE]
id: t1
question: 'parcel to [ADDRESS] never came, mail me at [EMAIL]'
answerable: false     # the corpus has no tracking data
source: transcript
notes: card [CARD] was charged twice   # keep this note
"""


@pytest.fixture
def case_file(tmp_path: Path) -> Path:
    path = tmp_path / "t1.yaml"
    path.write_text(CASE, encoding="utf-8")
    return path


def test_yes_applies_in_place_keeping_comments_and_layout(case_file: Path) -> None:
    result = run_cli("scrub", "--yes", case_file)
    assert result.exit_code == 1  # a fixer changed a file
    assert case_file.read_text("utf-8") == REDACTED
    assert "-notes: card 4111 1111 1111 1111 was charged twice   # keep this note" in result.stdout
    assert "+notes: card [CARD] was charged twice   # keep this note" in result.stdout
    assert result.stdout.rstrip().endswith("redacted 1 file; review and commit them")
    assert run_cli("scrub", case_file).exit_code == 0


def test_without_a_terminal_and_without_yes_nothing_changes(case_file: Path) -> None:
    result = run_cli("scrub", case_file)
    assert result.exit_code == 1
    assert case_file.read_text("utf-8") == CASE
    assert result.stdout.startswith(f"--- a/{case_file.as_posix()}\n+++ b/{case_file.as_posix()}\n")
    assert "not applied to 1 file: no terminal to ask; rerun with --yes" in result.stderr


def test_value_at_the_start_of_a_plain_scalar_is_quoted(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("id: a  # note\nexpected_answer: 020 7946 0958\n", encoding="utf-8")
    assert run_cli("scrub", "--yes", path).exit_code == 1
    text = path.read_text("utf-8")
    assert text == "id: a  # note\nexpected_answer: '[PHONE]'\n"
    assert parse_case("a.yaml", text.encode())[0] == {"id": "a", "expected_answer": "[PHONE]"}


def test_value_folded_over_lines_goes_through_the_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(
        "# ring 07700 900123\nid: b\nnotes: >\n  she gave +44 20\n  7946 0958 twice\n"
        "source: transcript  # real traffic\n",
        encoding="utf-8",
    )
    assert run_cli("scrub", "--yes", path).exit_code == 1
    text = path.read_text("utf-8")
    data = parse_case("b.yaml", text.encode())[0]
    assert data == {"id": "b", "notes": "she gave [PHONE] twice\n", "source": "transcript"}
    assert text.startswith("# ring [PHONE]\n")
    assert "source: transcript  # real traffic\n" in text


def test_folder_and_nothing_to_redact(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "c.yaml").write_text("id: c\nquestion: how long\n", encoding="utf-8")
    result = run_cli("scrub", tmp_path / "cases")
    assert result.exit_code == 0
    assert result.stdout == "nothing to redact in 1 file\n"


def test_a_file_that_does_not_parse_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("id: [\nquestion: jo@example.com\n", encoding="utf-8")
    result = run_cli("scrub", "--yes", path)
    assert result.exit_code == 2
    assert "cannot scrub a file that does not parse" in result.stderr
    assert "jo@example.com" in path.read_text("utf-8")


def test_missing_path(tmp_path: Path) -> None:
    result = run_cli("scrub", tmp_path / "nope.yaml")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")


def _scrub_on_a_terminal(
    path: Path, answer: bytes, meanwhile: Callable[[], None] = lambda: None
) -> tuple[int, str]:
    """Run scrub on a terminal, call ``meanwhile`` at its question, answer it; the exit
    status and what the terminal showed."""
    main, secondary = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "goldcase", "scrub", str(path)],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        close_fds=True,
    )
    os.close(secondary)
    output = b""
    while b"apply these redactions" not in output:
        ready, _, _ = select.select([main], [], [], 30)
        if not ready:  # pragma: no cover - only when the prompt never comes
            proc.kill()
            raise AssertionError(f"no prompt; output so far: {output!r}")
        output += os.read(main, 4096)
    meanwhile()
    os.write(main, answer)
    code = proc.wait(timeout=30)
    while select.select([main], [], [], 0)[0]:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        output += chunk
    os.close(main)
    return code, output.decode("utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize(("answer", "applied"), [(b"y\n", True), (b"n\n", False)])
def test_on_a_terminal_it_asks(case_file: Path, answer: bytes, applied: bool) -> None:
    assert _scrub_on_a_terminal(case_file, answer)[0] == 1
    assert case_file.read_text("utf-8") == (REDACTED if applied else CASE)


def test_contact_details_the_corpus_publishes_are_kept(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            "cases/golden/h1.yaml": "id: h1\nquestion: what is the helpline, mine is 07700 900123\n"
            "expected_answer: 0808 157 0420\n",
            "corpus/contact.md": "# Contact\n\nCall 0808 157 0420 from 8am to 8pm.\n",
        }
    )
    result = run_cli("scrub", "--yes", root / "cases")
    assert result.exit_code == 1
    assert (root / "cases" / "golden" / "h1.yaml").read_text("utf-8") == (
        "id: h1\nquestion: what is the helpline, mine is [PHONE]\nexpected_answer: 0808 157 0420\n"
    )


def test_a_link_under_a_folder_that_leads_out_of_it_is_refused(tmp_path: Path) -> None:
    """``scrub cases/`` on a branch that committed ``cases/dev/zz.yaml`` as a link to a file
    elsewhere: the file outside is neither shown nor copied into the folder in the link's
    place; nothing is written."""
    from kit import goldcase

    outside = tmp_path / "outside.yaml"
    outside.write_text(
        "id: x-001\nquestion: call me on alice@example.com\nanswerable: false\n", encoding="utf-8"
    )
    folder = tmp_path / "repo" / "cases" / "dev"
    folder.mkdir(parents=True)
    (folder / "zz.yaml").symlink_to(outside)
    result = goldcase(tmp_path / "repo", "scrub", "cases", "--yes")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: cases/dev/zz.yaml: a link that leads outside cases")
    assert "alice@example.com" not in result.stdout + result.stderr
    assert (folder / "zz.yaml").is_symlink()
    assert "alice@example.com" in outside.read_text(encoding="utf-8")


def test_a_link_inside_the_folder_stays_a_link(tmp_path: Path) -> None:
    """A link that stays inside the folder is scrubbed as the file it leads to: that file
    gets the redacted text, and the link stays a link (docs/personal-data.md)."""
    from kit import goldcase

    folder = tmp_path / "repo" / "cases" / "dev"
    folder.mkdir(parents=True)
    target = folder / "real.yaml"
    target.write_text(
        "id: x-001\nquestion: call me on alice@example.com\nanswerable: false\n", encoding="utf-8"
    )
    (folder / "zz.yaml").symlink_to("real.yaml")
    result = goldcase(tmp_path / "repo", "scrub", "cases/dev/zz.yaml", "--yes")
    assert result.returncode in (0, 1), result.stdout + result.stderr
    assert (folder / "zz.yaml").is_symlink()
    assert "alice@example.com" not in target.read_text(encoding="utf-8")
    assert "[EMAIL]" in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("linked", "named"),
    [("cases/dev/zz.yaml", "cases/dev/zz.yaml"), ("cases/dev/linked", "cases/dev/linked/x.yaml")],
    ids=["the-file-a-link", "its-folder-a-link"],
)
def test_a_named_file_that_resolves_out_of_the_repository_is_refused(
    tmp_path: Path, linked: str, named: str
) -> None:
    """Named on its own, a case file that is a link leading out of the repository, or that
    sits in a linked folder leading out, is refused (exit 2): scrub would show the file it
    resolves to and rewrite it."""
    from kit import goldcase

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    text = "id: x-001\nquestion: call me on alice@example.com\nanswerable: false\n"
    (outside / "x.yaml").write_text(text, encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "cases" / "dev").mkdir(parents=True)
    (repo / "goldcase.toml").write_text("", encoding="utf-8")
    target = outside / "x.yaml" if linked == named else outside
    (repo / linked).symlink_to(target)
    result = goldcase(repo, "scrub", named, "--yes")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"error: {named}: a link that leads outside ")
    assert "alice@example.com" not in result.stdout + result.stderr
    assert (outside / "x.yaml").read_text(encoding="utf-8") == text
    assert (repo / linked).is_symlink()


def test_a_refused_name_holding_a_line_break_is_printed_escaped(tmp_path: Path) -> None:
    """A branch's file named with a line break, linked out of the repository: the refusal
    names it on one line, its control characters escaped, as every message names a file."""
    from kit import goldcase

    outside = tmp_path / "outside.yaml"
    outside.write_text("id: x-001\nquestion: q\nanswerable: false\n", encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "cases" / "dev").mkdir(parents=True)
    (repo / "goldcase.toml").write_text("", encoding="utf-8")
    (repo / "cases" / "dev" / "a\nb.yaml").symlink_to(outside)
    result = goldcase(repo, "scrub", "cases/dev/a\nb.yaml", "--yes")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: cases/dev/a\\nb.yaml: a link that leads outside ")
    assert result.stderr.count("\n") == 1


def test_a_save_made_while_the_question_is_asked_is_not_overwritten(
    make_repo: Callable[..., Path],
) -> None:
    """The diff may be read for minutes before the answer; a save of the labelling page made
    meanwhile (its own ``write_if_unchanged``, under the repository's lock) was overwritten
    with the text the diff was made from. The file is left as saved, and scrub says so
    (docs/personal-data.md)."""
    root = make_repo({"cases/golden/t1.yaml": CASE})
    path = root / "cases" / "golden" / "t1.yaml"
    loaded = file_digest(path.read_bytes())

    def saved(text: str) -> str:
        return text.replace("source: transcript", "source: transcript, checked")

    def save() -> None:
        write_if_unchanged(load_config(root), path, loaded, saved)

    code, shown = _scrub_on_a_terminal(path, b"y\n", meanwhile=save)
    assert code == 1
    assert path.read_text("utf-8") == CASE.replace("transcript\n", "transcript, checked\n")
    assert shown.splitlines()[-1] == (
        f"{path.as_posix()}: changed since the diff above was made; nothing written to it: "
        f"rerun goldcase scrub {path.as_posix()}"
    )


def test_yes_waits_for_the_lock_a_save_holds(make_repo: Callable[..., Path]) -> None:
    """A save of the labelling page holds the repository's lock from reading the file to
    writing it; scrub writes its redactions only once the save is done, and only to a file
    the save left as the diff saw it."""
    root = make_repo({"cases/golden/t1.yaml": CASE, "cases/golden/t2.yaml": CASE})
    first, second = (root / "cases" / "golden" / name for name in ("t1.yaml", "t2.yaml"))
    command = [sys.executable, "-m", "goldcase", "scrub", "--yes", "cases"]
    with serialised(load_config(root)):  # a save of t2: read it, then write it
        scrub = subprocess.Popen(
            command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        with contextlib.suppress(subprocess.TimeoutExpired):
            scrub.wait(timeout=5)  # an unguarded scrub is done by then
        running, during = scrub.poll() is None, first.read_text("utf-8")
        second.write_text(CASE.replace("id: t1", "id: t2"), encoding="utf-8")
    out, err = scrub.communicate(timeout=120)
    assert (running, during) == (True, CASE)
    assert scrub.returncode == 1
    assert first.read_text("utf-8") == REDACTED
    assert second.read_text("utf-8") == CASE.replace("id: t1", "id: t2")
    assert err == (
        "cases/golden/t2.yaml: changed since the diff above was made; nothing written to it: "
        "rerun goldcase scrub cases/golden/t2.yaml\n"
    )
    assert out.splitlines()[-1] == "redacted 1 file; review and commit them"
