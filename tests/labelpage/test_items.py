"""The files the page works on (goldcase.labelpage.items): which files are items, their state,
and where a labeller's sample must be."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from goldcase.errors import GoldcaseError
from goldcase.labelpage.items import Source, keys, read, source_for, state, summary
from kit import write
from labelpage.kit import build, context


def test_items_are_the_yaml_files_of_the_folder(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yml", ".hidden.yaml", ".a.yaml.tmp", "notes.txt", "two words.yaml"):
        write(tmp_path, f"inbox/{name}", "id: x\n")
    (tmp_path / "inbox" / "folder.yaml").mkdir()
    assert keys(Source("drafts", tmp_path / "inbox")) == ["a", "b", "folder"]
    assert keys(Source("drafts", tmp_path / "nothing")) == []


@pytest.mark.parametrize(
    ("mode", "data", "expected"),
    [
        ("drafts", None, "unreadable"),
        ("drafts", {"answerable": None, "slice": None}, "blank"),
        ("drafts", {"answerable": False}, "started"),
        ("drafts", {"slice": "returns"}, "started"),
        ("drafts", {"expected_answer": "14 days"}, "started"),
        ("drafts", {"answerable": True, "slice": " "}, "started"),
        ("drafts", {"answerable": False, "slice": "general"}, "labelled"),
        ("labels", {"answerable": None}, "blank"),
        ("labels", {"answerable": False}, "done"),
    ],
)
def test_state(mode: Any, data: dict[str, Any] | None, expected: str) -> None:
    assert state(Source(mode, Path("x")), data) == expected


def test_a_folder_read_as_an_item_is_a_clear_error(tmp_path: Path) -> None:
    root = build(tmp_path / "repo")
    (root / "cases" / "inbox" / "tr-folder.yaml").mkdir()
    ctx = context(root)
    source = source_for(ctx, None)
    with pytest.raises(GoldcaseError, match=r"cases/inbox/tr-folder\.yaml: cannot read it"):
        read(ctx, source, "tr-folder")
    assert summary(ctx, source, "tr-folder")["state"] == "unreadable"


def test_a_fifo_is_never_waited_on(tmp_path: Path) -> None:
    root = build(tmp_path / "repo")
    os.mkfifo(root / "cases" / "inbox" / "tr-fifo.yaml")
    ctx = context(root)
    with pytest.raises(GoldcaseError, match="not a regular file"):
        read(ctx, source_for(ctx, None), "tr-fifo")


def test_a_file_over_the_cap_is_not_read(tmp_path: Path) -> None:
    root = build(tmp_path / "repo")
    write(root, "cases/inbox/tr-big.yaml", "id: tr-big\nnotes: " + "x" * (1024 * 1024) + "\n")
    ctx = context(root)
    with pytest.raises(GoldcaseError, match="more than 1,048,576"):
        read(ctx, source_for(ctx, None), "tr-big")


def test_a_labellers_folder(tmp_path: Path) -> None:
    root = build(tmp_path / "repo")
    write(root, "labels/second/ret-001.yaml", "id: ret-001\nanswerable:\n")
    source = source_for(context(root), "second")
    assert (source.mode, source.labeller, source.folder) == (
        "labels",
        "second",
        root / "labels" / "second",
    )


def test_a_labellers_folder_linked_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    """The page listed the stems of the YAML files wherever the link led (each then refused
    as outside): the names of a stranger's choice of the labeller's own folders."""
    outside = tmp_path / "outside"
    write(outside, "prod-cluster.yaml", "id: x\n")
    root = build(tmp_path / "repo")
    (root / "labels").mkdir()
    os.symlink(outside, root / "labels" / "second")
    with pytest.raises(
        GoldcaseError, match="labels/second is a link that leads outside the repository"
    ):
        source_for(context(root), "second")


@pytest.mark.parametrize("link", ["labels/second", "labels"])
def test_a_labellers_folder_linked_inside_the_repository_is_refused(
    tmp_path: Path, link: str
) -> None:
    """``labels/second`` (or ``labels``) committed as a link to the golden cases: the page
    would list the case files as label files and write a labeller's answers into them."""
    root = build(tmp_path / "repo")
    if link == "labels":
        os.symlink("cases", root / "labels")
        (root / "cases" / "second").symlink_to("golden")
    else:
        (root / "labels").mkdir()
        os.symlink("../cases/golden", root / "labels" / "second")
    with pytest.raises(GoldcaseError, match=r"labels/second is a link \(to .*cases.*\); label"):
        source_for(context(root), "second")
