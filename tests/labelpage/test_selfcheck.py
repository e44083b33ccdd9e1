"""``goldcase label serve --check`` (goldcase.labelpage.selfcheck and the command): the page
served once, asked as a browser and an intruder would, and stopped."""

from __future__ import annotations

import socket
from pathlib import Path

from goldcase.labelpage.selfcheck import self_check
from kit import run_cli
from labelpage.kit import app, build

ANSWERS = [
    ("the address with the token", "303  sets the cookie, drops the token"),
    ("the page, with the cookie", "200  default-src 'none'"),
    ("the API, with the cookie", "200  3 drafts in cases/inbox/"),
    ("the page without the token", "403  refused"),
    ("the API without the token", "403  refused"),
    ("another Host name (DNS rebinding)", "421  refused"),
    ("a body over 1,048,576 bytes", "413  refused unread"),
    ("a body that is not JSON", "415  refused"),
]


def test_self_check(tmp_path: Path) -> None:
    lines, ok = self_check(app(build(tmp_path / "repo")))
    assert ok
    assert lines[0].startswith("served the labelling page on http://127.0.0.1:")
    assert [line.split() for line in lines[1:-1]] == [
        f"{what}  {answer}".split() for what, answer in ANSWERS
    ]
    assert lines[-1] == "stopped"


def test_the_command(tmp_path: Path) -> None:
    root = build(tmp_path / "repo")
    result = run_cli("label", "serve", "--repo", root, "--check")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "the API, with the cookie" in result.stdout and "3 drafts" in result.stdout
    made = run_cli("label", "sample", "--repo", root, "--n", "2", "--seed", "s")
    assert made.exit_code == 0
    labels = run_cli("label", "serve", "--repo", root, "--labeller", "second", "--check")
    assert labels.exit_code == 0
    assert "2 label files of 'second', 0 finished" in labels.stdout


def test_a_labeller_with_no_sample(tmp_path: Path) -> None:
    result = run_cli("label", "serve", "--repo", build(tmp_path / "repo"), "--labeller", "x")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: no label files under labels/x/: draw the sample first with goldcase label "
        "sample --labeller x --seed S\n"
    )


def test_a_port_in_use(tmp_path: Path) -> None:
    root = build(tmp_path / "repo")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("label", "serve", "--repo", root, "--port", str(port))
    assert result.exit_code == 2
    assert f"error: cannot listen on 127.0.0.1:{port}:" in result.stderr
    assert "pass --port 0 to take any free port" in result.stderr


def test_the_help_names_the_options(tmp_path: Path) -> None:
    result = run_cli("label", "serve", "--help")
    assert result.exit_code == 0
    for option in ("--labeller", "--port", "--check", "--repo"):
        assert option in result.stdout
