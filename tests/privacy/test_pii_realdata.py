"""The personal-data detectors on public QA text nobody here wrote (../shared/realdata).

SQuAD 2.0 dev (Wikipedia paragraphs and crowd questions) holds no contact details: any hit
there is a false positive. COVID-QA's contexts are whole research papers, whose headers carry
the authors' contact details: the hits expected below were read off the papers' text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from goldcase.privacy import pii
from kit import REALDATA

SQUAD = REALDATA / "squad2-dev-cs224n" / "dev-v2.0.json"
COVID = REALDATA / "covid-qa" / "200423_covidQA.json"

pytestmark = pytest.mark.realdata


def texts(path: Path) -> Iterator[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            yield paragraph["context"]
            for qa in paragraph["qas"]:
                yield qa["question"]


@pytest.mark.skipif(not SQUAD.is_file(), reason="../shared/realdata is absent")
def test_squad_questions_and_contexts_have_no_hits() -> None:
    hits = [(m.kind, m.value) for text in texts(SQUAD) for m in pii.find(text)]
    assert hits == []


# Contact lines in the papers: a Pfizer author's address and email, a journal's reprints
# address, a Chengdu lab's telephone, fax and email, two Imperial College emails, and an AFIP
# fax number and email.
COVID_CONTACTS = {
    ("address", "500 Arcola Rd"),
    ("email", "david.swerdlow@pfizer.com"),
    ("email", "reprints@futuremedicine.com"),
    ("phone", "(+86)28 85423680"),
    ("phone", "(+86)28 85582944"),
    ("email", "songlab_radiology@163.com"),
    ("email", "s.bhatt@imperial.ac.uk"),
    ("phone", "301-295-9507"),
    ("email", "taubenberger@afip.osd.mil"),
}


@pytest.mark.skipif(not COVID.is_file(), reason="../shared/realdata is absent")
def test_covid_qa_hits_are_the_papers_contact_details() -> None:
    hits = {(m.kind, m.value) for text in texts(COVID) for m in pii.find(text)}
    assert hits == COVID_CONTACTS
