"""goldcase.interchange.build: the names an import hands out (docs/import.md)."""

from __future__ import annotations

import json
from pathlib import Path

from goldcase.interchange.build import Names
from goldcase.interchange.squad import read_squad


class CountingSet(set[str]):
    """A set that counts the lookups made of it."""

    lookups = 0

    def __contains__(self, item: object) -> bool:
        CountingSet.lookups += 1
        return super().__contains__(item)


def test_a_repeated_name_gets_the_next_free_number_letter_case_aside() -> None:
    """docs/import.md: a repeated id gets -2, -3, ...; names are told apart as a
    case-insensitive disk tells them apart."""
    names = Names()
    got = [names.unique(n) for n in ("q", "q", "Q", "q-3", "q")]
    assert got == ["q", "q-2", "Q-3", "q-3-2", "q-4"]
    assert "Q-2" in names and "q-5" not in names


def test_a_suffix_stays_last() -> None:
    names = Names()
    names.add("c1-context.txt")
    assert names.unique("c1-context", ".txt") == "c1-context-2.txt"
    assert names.unique("C1-CONTEXT", ".txt") == "C1-CONTEXT-3.txt"


def test_handing_out_one_name_many_times_looks_up_each_candidate_once() -> None:
    """An input whose every question carries the same id: each name costs one lookup of
    what is taken, not one for every name handed out before it."""
    names = Names()
    names._taken = CountingSet()
    CountingSet.lookups = 0
    handed = [names.unique("same") for _ in range(2000)]
    assert len(set(handed)) == 2000
    assert CountingSet.lookups <= 2 * 2000


def test_a_squad_file_of_one_id_and_one_document_id_imports_every_question(
    tmp_path: Path,
) -> None:
    """Every paragraph names the same document and every question the same id: each gets
    its own numbered name (docs/import.md), as many as there are."""
    paragraphs = [
        {
            "document_id": "doc",
            "context": f"Refunds take {n} days.",
            "qas": [{"id": "q", "question": "How long?", "answers": [{"text": f"{n} days"}]}],
        }
        for n in range(1, 3001)
    ]
    source = tmp_path / "squad.json"
    source.write_text(json.dumps({"data": [{"title": "t", "paragraphs": paragraphs}]}))
    imported = read_squad(source)
    assert [c["id"] for c in imported.cases[:3]] == ["q", "q-2", "q-3"]
    assert len({c["id"] for c in imported.cases}) == 3000
    assert list(imported.documents)[:3] == ["doc.txt", "doc-2.txt", "doc-3.txt"]
    assert len(imported.documents) == 3000
    assert imported.documents["doc-3000.txt"] == "Refunds take 3000 days."
