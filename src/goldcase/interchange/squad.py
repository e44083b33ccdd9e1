"""Import SQuAD 1.1 / 2.0 JSON (and SQuAD-shaped sets such as COVID-QA).

- Each paragraph's ``context`` becomes a corpus document: ``<title>-<nnn>.txt`` (the article
  title and the paragraph's number), or ``<document_id>.txt`` when the paragraph names one.
- Each question becomes a case: ``id`` from the question id (sanitised), ``slice`` from the
  article title (sanitised; the file's name when there is no title), ``expected_answer`` from
  the first reference answer, and ``expect.contains`` holding every distinct reference answer as
  alternatives when annotators gave several.
- The support quote is the sentence holding the answer: ``answer_start`` says where, and when
  it is wrong (the answer text is not at that offset) the occurrence nearest to it is used. An
  answer that spans sentences gets every sentence it touches. A sentence ends at . ! ? before
  white space, or at a blank line; line breaks inside it are written as spaces (a quote matches
  across any run of white space).
- ``is_impossible: true`` becomes ``answerable: false`` with the tag ``unanswerable``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from msgspec import Struct

from goldcase import progress
from goldcase.errors import GoldcaseError
from goldcase.interchange.build import ImportedSet, Names, cut, safe_name
from goldcase.jsonmemory import refuse_costly
from goldcase.safeio import read_regular
from goldcase.sentences import Sentences
from goldcase.text import clip


def read_squad(path: Path) -> ImportedSet:
    data = _load(path)
    imported = ImportedSet("squad", str(path))
    taken = _Taken(Names(), Names())
    stem = safe_name(path.stem, "squad")
    with progress.task(f"reading {path.name}", len(data)) as advance:
        for a_index, article in enumerate(progress.each(advance, data, 1)):
            _article(imported, path, a_index, article, stem, taken)
    return imported


class _Taken(Struct, frozen=True):
    """The names handed out: case ids, and corpus document stems."""

    ids: Names
    documents: Names


def _article(
    imported: ImportedSet, path: Path, a_index: int, article: Any, stem: str, taken: _Taken
) -> None:
    if not isinstance(article, dict):
        raise GoldcaseError(f"{path}: data[{a_index}] is not an object")
    title = article.get("title")
    slice_name = safe_name(title, stem) if title else stem
    if title and cut(title):
        imported.notes.append(
            f"article {a_index}: its title {clip(str(title), 60)!r} ({len(str(title))} "
            f"characters) is cut to {slice_name!r} in slice and document names"
        )
    for p_index, paragraph in enumerate(_listed(article.get("paragraphs"))):
        _paragraph(imported, paragraph, slice_name, p_index, taken)


def _listed(value: Any) -> list[Any]:
    """A JSON list, or nothing: ``"paragraphs": true`` has no paragraphs to read."""
    return value if isinstance(value, list) else []


def _load(path: Path) -> list[Any]:
    try:
        body = read_regular(path, 1024**3)
        refuse_costly(body, str(path), "split its articles into several files and import each")
        raw = json.loads(body.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(f"{path}: cannot read it: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise GoldcaseError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from exc
    except ValueError as exc:  # an integer of more digits than Python converts
        raise GoldcaseError(f"{path}: not JSON: {exc}") from None
    except RecursionError:
        raise GoldcaseError(f"{path}: JSON nested too deeply to be SQuAD") from None
    data = raw.get("data") if isinstance(raw, dict) else None
    if not isinstance(data, list):
        raise GoldcaseError(f"{path}: not SQuAD JSON: expected an object with a 'data' list")
    return data


class _Paragraph(Struct, frozen=True):
    doc: str
    context: str
    sentences: Sentences
    slice_name: str


def _paragraph(
    imported: ImportedSet, paragraph: Any, slice_name: str, index: int, taken: _Taken
) -> None:
    if not isinstance(paragraph, dict) or not isinstance(paragraph.get("context"), str):
        imported.notes.append(f"{slice_name} paragraph {index}: no context; skipped")
        return
    context: str = paragraph["context"]
    doc_id = paragraph.get("document_id")
    stem = safe_name(doc_id, "doc") if doc_id is not None else f"{slice_name}-{index + 1:03d}"
    doc = taken.documents.unique(stem) + ".txt"
    imported.documents[doc] = context
    where = _Paragraph(doc, context, Sentences(context), slice_name)
    for qa in _listed(paragraph.get("qas")):
        case = _case(qa, where, imported, taken.ids)
        if case is not None:
            imported.cases.append(case)


def _case(qa: Any, where: _Paragraph, imported: ImportedSet, ids: Names) -> dict[str, Any] | None:
    if not isinstance(qa, dict) or not str(qa.get("question") or "").strip():
        imported.notes.append(f"{where.doc}: a question with no text; skipped")
        return None
    qid = qa.get("id")
    answers = [a for a in _listed(qa.get("answers")) if isinstance(a, dict) and a.get("text")]
    if qa.get("is_impossible") or not answers:
        fields: dict[str, Any] | None = {"answerable": False, "tags": ["unanswerable"]}
    else:
        fields = _answered(answers, where)
    if fields is None:
        imported.notes.append(
            f"question {qid}: the answer {answers[0]['text']!r} is not in its context; skipped"
        )
        return None
    case_id = ids.unique(safe_name(qid, "q"))
    if cut(qid):
        imported.notes.append(f"question {clip(str(qid), 60)}: its id is cut to {case_id!r}")
    return {
        "id": case_id,
        "question": str(qa["question"]).strip(),
        **fields,
        "slice": where.slice_name,
        "source": "hand-written",
        "notes": f"imported from {Path(imported.origin).name}, question {qid}",
    }


def _answered(answers: list[dict[str, Any]], where: _Paragraph) -> dict[str, Any] | None:
    """An answerable case's fields: the first answer, its sentence, every distinct answer."""
    text = str(answers[0]["text"])
    start = locate(where.context, text, answers[0].get("answer_start"))
    if start is None:
        return None
    fields: dict[str, Any] = {
        "answerable": True,
        "expected_answer": text.strip(),
        "support": [{"doc": where.doc, "quote": where.sentences.around(start, start + len(text))}],
    }
    alternatives = list(dict.fromkeys(str(a["text"]).strip() for a in answers))
    if len(alternatives) > 1:
        fields["expect"] = {"contains": [alternatives]}
    return fields


def locate(context: str, text: str, hint: Any) -> int | None:
    """Where ``text`` is in ``context``: at ``hint`` when it is right there, else the
    occurrence nearest to ``hint``."""
    if isinstance(hint, int) and context[hint : hint + len(text)] == text:
        return hint
    starts = [m.start() for m in re.finditer(re.escape(text), context)]
    if not starts:
        return None
    target = hint if isinstance(hint, int) else 0
    return min(starts, key=lambda s: (abs(s - target), s))
