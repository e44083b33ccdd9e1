"""GC505 (the privacy family): severity by source, positions, values over several lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.engine import run_checks
from kit import cache_folder, run_cli

Repo = Callable[..., Path]


def brief(root: Path) -> list[tuple[str, int, int, str, str]]:
    ctx = Context(load_config(root), Cache(None))
    return [
        (f.path, f.line, f.col, f.code, f.severity) for f in run_checks(ctx, ["privacy"]).findings
    ]


def test_hand_written_case_gives_a_warning(make_repo: Repo) -> None:
    root = make_repo(
        {
            "cases/dev/d1.yaml": "id: d1\nquestion: is jo@example.com on file\n"
            "answerable: false\nsource: hand-written\n"
        }
    )
    assert brief(root) == [("cases/dev/d1.yaml", 2, 14, "GC505", "warning")]


def test_case_without_source_gives_a_warning(make_repo: Repo) -> None:
    root = make_repo(
        {"cases/golden/g1.yaml": "id: g1\nquestion: ring 020 7946 0958\nanswerable: false\n"}
    )
    assert brief(root) == [("cases/golden/g1.yaml", 2, 16, "GC505", "warning")]


def test_transcript_value_over_two_lines_is_reported_at_the_value(make_repo: Repo) -> None:
    text = (
        "id: g1\nquestion: where is my parcel\nanswerable: false\nsource: transcript\n"
        "notes: >\n  she gave +44 20\n  7946 0958 twice\n"
    )
    root = make_repo({"cases/golden/g1.yaml": text})
    assert brief(root) == [("cases/golden/g1.yaml", 5, 8, "GC505", "error")]


def test_message_names_the_kind_but_not_the_value(make_repo: Repo) -> None:
    root = make_repo(
        {
            "cases/golden/g1.yaml": "id: g1\nquestion: card 4111 1111 1111 1111\n"
            "answerable: false\nsource: transcript\n"
        }
    )
    result = run_cli("check", "--repo", root, "--select", "privacy")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first == (
        "cases/golden/g1.yaml:2:16: GC505 a payment card number in a transcript case; "
        "redact it: goldcase scrub cases/golden/g1.yaml"
    )
    assert "4111" not in result.stdout


def test_cached_run_gives_the_same_findings(make_repo: Repo) -> None:
    root = make_repo(
        {
            "cases/golden/g1.yaml": "id: g1\nquestion: mail jo@example.com\n"
            "answerable: false\nsource: transcript\n"
        }
    )
    first = run_cli("check", "--repo", root, "--select", "privacy")
    second = run_cli("check", "--repo", root, "--select", "privacy")
    assert (cache_folder(root) / "privacy.msgpack").is_file()
    assert first.stdout == second.stdout
    assert first.stdout.startswith("cases/golden/g1.yaml:2:16: GC505 an email address")


def test_contact_details_the_corpus_publishes_are_not_reported(make_repo: Repo) -> None:
    root = make_repo(
        {
            "cases/golden/g1.yaml": "id: g1\nquestion: what address do i write to\n"
            "answerable: false\nsource: transcript\n"
            "notes: the policy gives returns@example.com; mine is jo@example.com\n",
        }
    )
    (root / "corpus" / "contact.md").write_text(
        "# Contact\n\nWrite to returns@example.com with your order number.\n", encoding="utf-8"
    )
    # only the customer's own address is reported (column of "jo@", line 5)
    assert brief(root) == [("cases/golden/g1.yaml", 5, 54, "GC505", "error")]
