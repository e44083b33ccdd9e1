"""Import a promptfoo config: one case per entry of ``tests:``.

- The question is the var named ``question``, ``query``, ``input`` or ``prompt`` (the first one
  set), else the only plain-text var.
- A var whose value is ``file://path`` (or a list of them) names a context document: it is
  copied into the corpus. An inline text var other than the question becomes a document too.
- Assertions: ``equals`` gives ``expected_answer``; ``contains`` / ``icontains`` give
  ``expect.contains``; ``contains-any`` / ``icontains-any`` a list entry of it (any one);
  ``contains-all`` / ``icontains-all`` one entry each; ``not-contains`` / ``not-icontains``
  give ``expect.not_contains``; ``starts-with`` gives ``expect.lead``; goldcase's grader
  (``$ref: "#/assertionTemplates/goldcase"``) whose config accepts an abstention or a
  correction, or what earlier exports wrote (the ``abstains`` template, the ``llm-rubric``
  text), gives ``answerable: false``.
- Claims (the values of ``factuality`` and ``context-recall``) must be supported by the context:
  each sentence of a claim becomes a support quote on the document that holds it, or on the
  closest document when none does, so that ``goldcase check`` reports it (GC202, with the
  closest passage). An unsupported claim is a finding, never a silent case.
- Without ``equals`` or ``contains``, the expected answer is the first claim.
- Other assertion types (model-graded relevance, javascript, …) have no goldcase equivalent:
  they are named in the case's notes and in the import's output.
- A question that asks for one unit ("how many weeks") whose expected answer gives a number in
  another ("4 months") gets a note.
- ``metadata`` written by ``goldcase export --format promptfoo`` (id, slice, tags,
  expected_answer, support) is read back, so an exported set imports to the same cases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from rapidfuzz import fuzz

from goldcase.errors import GoldcaseError
from goldcase.interchange.build import ImportedSet, Names, safe_name
from goldcase.interchange.export import GRADER_REF, UNANSWERABLE_RUBRIC
from goldcase.loader import YamlTooLarge, load_data
from goldcase.safeio import Outside, read_inside, read_regular_text
from goldcase.text import fold_quote

QUESTION_VARS = ("question", "query", "input", "prompt")
# the abstention templates of earlier exports
ABSTENTION_REFS = ("#/assertionTemplates/abstains", "#/assertionTemplates/answers")
CLAIMS = ("factuality", "context-recall")
MAX_CONFIG_BYTES = 64 * 1024 * 1024
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024  # as a corpus document
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# The word of an earlier export's lead regex: letters as two-letter classes ([yY]), anything
# else escaped or plain. Each piece has one reading (a "[" opens a class, a "\\" an escape), so
# a failing pattern costs its length: with "[" also readable as a plain character, forty
# classes before a wrong ending took 2^40 tries.
_LEAD = re.compile(r"^\^\\W\*((?:\[(.)(.)\]|\\.|[^\[\\])+?)\(\?!\[\\w\]\)$")


def read_promptfoo(path: Path) -> ImportedSet:
    try:
        documents = load_data(read_regular_text(path, MAX_CONFIG_BYTES))
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(f"{path}: cannot read it: {exc}") from exc
    except YamlTooLarge as exc:
        raise GoldcaseError(f"{path}: the config {exc}; write it out plainly") from exc
    except (yaml.YAMLError, RecursionError) as exc:
        raise GoldcaseError(f"{path}: not YAML: {str(exc).splitlines()[0]}") from exc
    config = documents[0] if len(documents) == 1 else None
    tests = config.get("tests") if isinstance(config, dict) else None
    if not isinstance(config, dict) or not isinstance(tests, list):
        raise GoldcaseError(
            f"{path}: expected a promptfoo config with a 'tests:' list "
            "(tests read from another file are not supported)"
        )
    found = config.get("defaultTest")
    default: dict[str, Any] = found if isinstance(found, dict) else {}
    imported = ImportedSet("promptfoo", str(path))
    ids = Names()
    names = Names()  # the documents' names: one disk may not tell them apart by letter case
    for index, test in enumerate(tests, start=1):
        if isinstance(test, dict):
            case = _test(path.parent, _merged(default, test), index, imported, (ids, names))
            if case is not None:
                imported.cases.append(case)
        else:
            imported.notes.append(f"tests[{index}] is not a mapping; skipped")
    return imported


def _merged(default: dict[str, Any], test: dict[str, Any]) -> dict[str, Any]:
    return {
        **test,
        "vars": {**_mapping(default.get("vars")), **_mapping(test.get("vars"))},
        "assert": [*_listing(default.get("assert")), *_listing(test.get("assert"))],
    }


def _mapping(value: Any) -> dict[str, Any]:
    """``vars`` as a mapping; a hand edit gone wrong (``vars: x``) holds no vars."""
    return value if isinstance(value, dict) else {}


def _listing(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _test(
    folder: Path,
    test: dict[str, Any],
    index: int,
    imported: ImportedSet,
    taken: tuple[Names, Names],
) -> dict[str, Any] | None:
    ids, names = taken
    meta: dict[str, Any] = test["metadata"] if isinstance(test.get("metadata"), dict) else {}
    name = meta.get("id") or test.get("description") or f"pf-{index:03d}"
    case_id = ids.unique(safe_name(name, f"pf-{index:03d}"))
    question_var, question = _question(test["vars"])
    if question is None:
        imported.notes.append(f"{case_id}: no question var ({', '.join(QUESTION_VARS)}); skipped")
        return None
    docs = _documents(folder, test["vars"], question_var, case_id, imported, names)
    case: dict[str, Any] = {"id": case_id, "question": question}
    if _exported(meta):
        _metadata(case, meta)
    else:
        _assertions(case, test["assert"], docs, imported)
    _unit_mismatch(case, imported)
    return _finish(case)


def _exported(meta: dict[str, Any]) -> bool:
    """Was this test written by ``goldcase export``? Then its metadata holds the case."""
    return isinstance(meta.get("id"), str) and isinstance(meta.get("answerable"), bool)


def _question(variables: dict[str, Any]) -> tuple[str | None, str | None]:
    for name in QUESTION_VARS:
        if isinstance(variables.get(name), str):
            return name, variables[name]
    texts = [
        (k, v) for k, v in variables.items() if isinstance(v, str) and not v.startswith("file://")
    ]
    return texts[0] if len(texts) == 1 else (None, None)


def _documents(
    folder: Path,
    variables: dict[str, Any],
    question_var: str | None,
    case_id: str,
    imported: ImportedSet,
    taken: Names,
) -> list[str]:
    names: list[str] = []
    for var, value in variables.items():
        if var == question_var:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.startswith("file://"):
                names.append(_copy(folder, item[len("file://") :], imported, taken))
            elif isinstance(item, str) and item.strip():
                # several contexts of one variable, or variables whose names make one stem
                doc = taken.unique(f"{case_id}-{safe_name(var, 'context')}", ".txt")
                imported.documents[doc] = item
                names.append(doc)
    return names


def _copy(folder: Path, reference: str, imported: ImportedSet, taken: Names) -> str:
    """Copy the context document a ``file://`` reference names: a relative path inside the
    config's own folder, a regular file, at most ``MAX_DOCUMENT_BYTES``."""
    where = f"the config's folder {folder}"
    try:
        text = read_inside(folder, reference, MAX_DOCUMENT_BYTES, where).decode("utf-8")
    except Outside:
        raise GoldcaseError(
            f"file://{reference}: a context document must be a relative path inside {where}"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise GoldcaseError(
            f"file://{reference}: cannot read the context document: {detail}"
        ) from exc
    name = Path(reference).name
    if name in taken and imported.documents.get(name) != text:
        raise GoldcaseError(
            f"two context documents are named {name} (letter case aside); basenames must be "
            "unique in a corpus"
        )
    taken.add(name)
    imported.documents[name] = text
    return name


def _assertions(
    case: dict[str, Any], asserts: list[Any], docs: list[str], imported: ImportedSet
) -> None:
    expect: dict[str, Any] = {}
    claims: list[str] = []
    skipped: list[str] = []
    for item in asserts:
        template = item.get("$ref") if isinstance(item, dict) else None
        if template == GRADER_REF:  # goldcase's own grader: its config says what passes
            if _grader_accepts(item) in ("abstention", "correction"):
                case["answerable"] = False
            continue
        if template in ABSTENTION_REFS:
            if template == ABSTENTION_REFS[0]:
                case["answerable"] = False
            continue
        kind = str(item.get("type", "")) if isinstance(item, dict) else ""
        value = item.get("value") if isinstance(item, dict) else None
        if not _apply(case, expect, claims, kind, value):
            skipped.append(kind or "(no type)")
    if expect:
        case["expect"] = expect
    if claims and case.get("answerable", True):
        case["support"] = [_support(s, docs, imported) for c in claims for s in _sentences(c)]
        case.setdefault("expected_answer", claims[0])
    if skipped:
        note = f"not imported (no goldcase equivalent): {', '.join(dict.fromkeys(skipped))}"
        case["notes"] = note
        imported.notes.append(f"{case['id']}: {note}")


def _grader_accepts(item: dict[str, Any]) -> Any:
    config = item.get("config")
    return config.get("accepts") if isinstance(config, dict) else None


def _apply(
    case: dict[str, Any], expect: dict[str, Any], claims: list[str], kind: str, value: Any
) -> bool:
    base = kind.removeprefix("i") if kind.startswith("icontains") else kind
    text = value if isinstance(value, str) else None
    items = [str(v) for v in value] if isinstance(value, list) else None
    if base == "equals" and text is not None:
        case["expected_answer"] = text
    elif base in ("contains", "contains-all") and (text is not None or items):
        expect.setdefault("contains", []).extend([text] if text is not None else items or [])
    elif base == "contains-any" and items:
        expect.setdefault("contains", []).append(items)
    elif kind in ("not-contains", "not-icontains") and text is not None:
        expect.setdefault("not_contains", []).append(text)
    elif kind == "starts-with" and text is not None:
        expect["lead"] = text.split()[0].lower() if text.split() else text
    elif kind == "regex" and text is not None and lead_of(text) is not None:
        expect["lead"] = lead_of(text)
    elif kind == "llm-rubric" and text == UNANSWERABLE_RUBRIC:
        case["answerable"] = False
    elif kind in CLAIMS and text is not None:
        claims.append(text)
    else:
        return False
    return True


def lead_of(pattern: str) -> str | None:
    """The word of a pattern made by ``export.lead_pattern``; None for any other regex."""
    match = _LEAD.match(pattern)
    if match is None:
        return None
    word = re.sub(r"\[(.)(.)\]", r"\1", match[1])
    return re.sub(r"\\(.)", r"\1", word)


def _sentences(claim: str) -> Iterator[str]:
    for part in _SENTENCE.split(claim.strip()):
        if part.strip():
            yield part.strip()


def _support(sentence: str, docs: list[str], imported: ImportedSet) -> dict[str, str]:
    """The sentence as a quote on the document that holds it, or on the closest one (the
    support check then reports where it differs)."""
    folded = fold_quote(sentence)
    for doc in docs:
        if folded in fold_quote(imported.documents[doc]):
            return {"doc": doc, "quote": sentence}
    if not docs:
        imported.notes.append(f"claim {sentence!r} has no context document to be checked against")
        return {"doc": "(no context document)", "quote": sentence}

    best = max(docs, key=lambda d: fuzz.partial_ratio(folded, fold_quote(imported.documents[d])))
    return {"doc": best, "quote": sentence}


def _metadata(case: dict[str, Any], meta: dict[str, Any]) -> None:
    case["answerable"] = meta["answerable"]
    for key in ("expected_answer", "support", "expect", "slice", "tags"):
        if key in meta and meta[key] not in (None, [], {}):
            case[key] = meta[key]
    if case.get("slice") == "default":  # the slice of a case that names none
        case.pop("slice")


def _finish(case: dict[str, Any]) -> dict[str, Any]:
    if case.get("answerable") is False:
        case.pop("expected_answer", None)
        case.pop("support", None)
    else:
        case["answerable"] = True
        case.setdefault("support", [])
    return case


_ASKS_UNIT = re.compile(r"\bhow (?:many|much) ([a-z]+)", re.IGNORECASE)
_NUMBER_UNIT = re.compile(r"\b\d[\d,.]*\s+([a-z]+)", re.IGNORECASE)
# the start of a question or expected answer the unit note reads: the note is a hint, and the
# search backtracks over each run of digits and commas from every digit in it
_UNIT_TEXT = 1000


def _unit_mismatch(case: dict[str, Any], imported: ImportedSet) -> None:
    """A question that asks for one unit ("how many weeks") whose expected answer gives a number
    in another ("4 months") is worth a second look: say so."""
    asked = _ASKS_UNIT.search(str(case.get("question", ""))[:_UNIT_TEXT])
    given = _NUMBER_UNIT.search(str(case.get("expected_answer", ""))[:_UNIT_TEXT])
    if asked and given and _singular(asked[1]) != _singular(given[1]):
        imported.notes.append(
            f"{case['id']}: the question asks for {asked[1].lower()}, the expected answer "
            f"gives {given[0]!r}; check that they agree"
        )


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
