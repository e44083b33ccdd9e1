"""Two ``goldcase label serve`` on one repository (docs/label.md, "Saving"): a save never
silently overwrites another's. Each save compares the file with what its page loaded and
writes under the repository's lock, so of two saves made from the same loaded file at once,
one is written and the other is refused (409) whatever their interleaving."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from goldcase.labelpage.server import LabelServer
from labelpage.kit import ABSENT, build, serving
from labelpage.test_server import TOKEN, api

ROUNDS = 12


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[LabelServer, LabelServer]]:
    """Two servers, each with its own page state and its own in-process lock, as two
    processes have; the same labels folder."""
    root = build(tmp_path / "repo")
    with ExitStack() as stack:
        first = stack.enter_context(serving(root, token=TOKEN))
        second = stack.enter_context(serving(root, token=TOKEN))
        yield first, second


def save_together(
    servers: tuple[LabelServer, LabelServer], key: str, seen: str, notes: tuple[str, str]
) -> list[tuple[int, dict[str, Any]]]:
    start = threading.Barrier(2)
    out: list[tuple[int, dict[str, Any]]] = [(0, {}), (0, {})]

    def one(k: int) -> None:
        start.wait()
        out[k] = api(servers[k], "save", {"key": key, "hash": seen, "fields": fields(notes[k])})

    threads = [threading.Thread(target=one, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out


def fields(note: str) -> dict[str, Any]:
    return {"answerable": False, "slice": "returns", "labelled_by": "ana", "notes": note}


def test_of_two_saves_from_one_loaded_file_one_is_written(
    two: tuple[LabelServer, LabelServer],
) -> None:
    _, state = api(two[0], "state")
    key = state["items"][0]["key"]
    for round_ in range(ROUNDS):
        _, view = api(two[0], "item", {"key": key})
        notes = (f"first server, round {round_}", f"second server, round {round_}")
        answers = save_together(two, key, view["hash"], notes)
        assert sorted(status for status, _ in answers) == [200, 409], (round_, answers)
        won = next(k for k, (status, _) in enumerate(answers) if status == 200)
        _, now = api(two[1 - won], "item", {"key": key})
        assert now["hash"] == answers[won][1]["item"]["hash"]
        assert notes[won] in str(now), now


def test_a_save_made_while_another_server_promotes_is_not_lost(
    two: tuple[LabelServer, LabelServer], tmp_path: Path
) -> None:
    """One server saves a labelled draft while the other promotes it: the save lands in the
    draft before the promotion reads it (and the case holds it), or the promotion goes first
    and the save is refused. Before, the promotion read the draft, the save was written (200),
    and the promotion then removed the draft with the save in it."""
    _, state = api(two[0], "state")
    key = next(i["key"] for i in state["items"] if i["question"] == ABSENT)
    _, view = api(two[0], "item", {"key": key})
    labelled = {"answerable": False, "slice": "general", "tags": ["unanswerable"]}
    status, saved = api(two[0], "save", {"key": key, "hash": view["hash"], "fields": labelled})
    assert status == 200, saved
    start = threading.Barrier(2)
    out: dict[str, tuple[int, dict[str, Any]]] = {}

    def saving() -> None:
        start.wait()
        body = {"key": key, "hash": saved["item"]["hash"], "fields": {**labelled, "notes": "mine"}}
        out["save"] = api(two[0], "save", body)

    def promoting() -> None:
        start.wait()
        out["promote"] = api(two[1], "promote", {"keys": [key], "to": "dev"})

    threads = [threading.Thread(target=saving), threading.Thread(target=promoting)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    status, promoted = out["promote"]
    assert status == 200 and promoted["refused"] == [], promoted
    [moved] = promoted["promoted"]
    case = (tmp_path / "repo" / moved["case"]).read_text(encoding="utf-8")
    if out["save"][0] == 200:
        assert "notes: mine" in case, (out["save"], case)
    else:
        assert "notes: mine" not in case
        assert out["save"][0] in (400, 404, 409), out["save"]
