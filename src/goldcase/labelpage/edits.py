"""What the page sends, read as hostile input, and written into a draft, a label file or a case.

Each form is checked field by field (types, lengths, names) before anything is written; an
unknown field is refused. A quote is never taken as text from the page: the page sends a
document's name and two offsets, and the quote is cut from the document here
(``documents.cut``). The one exception is a quote the file already holds, sent back unchanged
(a quote typed by hand in an editor, which the checks then judge).

Files are rewritten through ruamel's round trip (``authoring.formatting.rewrite``): the keys
in the canonical order, the labeller's own comments kept; the template's hint for a field
(``# expect: ...``) goes once the page fills that field. A save names the digest of the file
it loaded, and a file that changed meanwhile (another tab, an editor) is never overwritten:
``Conflict``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from goldcase.authoring.formatting import rewrite, to_round_trip
from goldcase.authoring.new import HINTS
from goldcase.config import Config
from goldcase.corpus import Corpus
from goldcase.errors import GoldcaseError
from goldcase.labelpage.documents import cut, locate, shown
from goldcase.labelpage.items import MAX_FILE
from goldcase.loader import file_digest
from goldcase.repolock import serialised
from goldcase.safeio import read_regular
from goldcase.traffic.drafts import SUPPORT_HINT
from goldcase.writer import atomic_write_text

MAX_TEXT = 5000  # notes, a probe, a rule
MAX_SHORT = 500  # an answer, one option of a check
MAX_ITEMS = 50  # quotes, options, probes, tags
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_PREMISE = re.compile(r'^False premise: (?P<doc>[^\s"]+) says "')
FALSE_PREMISE = "false_premise"


class Conflict(GoldcaseError):
    """The file changed since the page loaded it."""


class FormError(GoldcaseError):
    """What the page sent is not a form this module writes."""


# -- fields ---------------------------------------------------------------------------------


def _text(value: Any, name: str, limit: int = MAX_SHORT) -> str | None:
    """A text field: None when blank, white space at the ends trimmed."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise FormError(f"{name} should be a text, got {type(value).__name__}")
    value = value.strip()
    if len(value) > limit:
        raise FormError(f"{name} is {len(value):,} characters; at most {limit:,}")
    if "\x00" in value:
        raise FormError(f"{name} holds a NUL character")
    return value or None


def _texts(value: Any, name: str, limit: int = MAX_SHORT) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise FormError(f"{name} should be a list of at most {MAX_ITEMS} texts")
    out = [_text(item, name, limit) for item in value]
    return list(dict.fromkeys(item for item in out if item is not None))


def _name(value: Any, name: str) -> str | None:
    text = _text(value, name, 128)
    if text is not None and not _NAME.match(text):
        raise FormError(
            f"{name} {text[:40]!r} may hold only letters, digits, '.', '_' and '-' "
            "(no spaces), and starts with a letter or digit"
        )
    return text


def _flag(value: Any, name: str, blank: bool = True) -> bool | None:
    if value is None and blank:
        return None
    if not isinstance(value, bool):
        raise FormError(f"{name} should be true or false")
    return value


def _fields(data: Any, known: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise FormError("the form should be an object")
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise FormError(f"unknown field {str(unknown[0])[:40]!r}; known: {', '.join(known)}")
    return data


def expect_block(value: Any) -> dict[str, Any]:
    """``{contains: [[option, ...], ...], not_contains: [...], lead: ...}`` as a case's
    ``expect`` block: a row with one option becomes a plain entry, blank parts are left out."""
    data = _fields(value if value is not None else {}, ("contains", "not_contains", "lead"))
    rows = data.get("contains") or []
    if not isinstance(rows, list) or len(rows) > MAX_ITEMS:
        raise FormError(f"contains should be a list of at most {MAX_ITEMS} rows")
    contains: list[Any] = []
    for row in rows:
        options = _texts(row if isinstance(row, list) else [row], "a contains entry")
        if options:
            contains.append(options[0] if len(options) == 1 else options)
    out: dict[str, Any] = {}
    if contains:
        out["contains"] = contains
    not_contains = _texts(data.get("not_contains"), "not_contains")
    if not_contains:
        out["not_contains"] = not_contains
    lead = _text(data.get("lead"), "lead", 40)
    if lead is not None:
        out["lead"] = lead
    return out


def probe_block(value: Any) -> dict[str, list[str]]:
    data = _fields(value if value is not None else {}, ("pass", "fail"))
    out = {}
    for kind in ("pass", "fail"):
        answers = _texts(data.get(kind), f"a {kind} probe", MAX_TEXT)
        if answers:
            out[kind] = answers
    return out


# -- quotes ---------------------------------------------------------------------------------


def quote_of(entry: Any, corpus: Corpus, kept: set[tuple[str, str]]) -> tuple[str, str]:
    """(document, quote) for one quote the page sends: cut from the document at its offsets,
    or one the file holds already, sent back as it was."""
    data = _fields(entry, ("doc", "start", "end", "digest", "quote"))
    doc = data.get("doc")
    if "start" in data or "end" in data:
        found = cut(shown(corpus, doc), data.get("start"), data.get("end"), data.get("digest"))
        return found.doc, found.quote
    pair = (doc, data.get("quote"))
    if pair not in kept:
        raise FormError(
            "a new quote is selected in its document, not typed: open the document and "
            "select the passage"
        )
    return str(pair[0]), str(pair[1])


def _held(support: Any) -> set[tuple[str, str]]:
    out = set()
    for entry in support if isinstance(support, list) else []:
        if isinstance(entry, dict):
            out.add((str(entry.get("doc")), str(entry.get("quote"))))
    return out


def premise_note(doc: str, quote: str, rest: str | None) -> str:
    """The notes of a false premise name the document that contradicts it and what it says
    (the sample set's habit, and what the retrieval report looks for: docs/traces.md)."""
    stop = "" if quote.endswith((".", "!", "?")) else "."
    note = f'False premise: {doc} says "{quote}"{stop}'
    return f"{note} {rest}" if rest else note


def split_premise(notes: Any, corpus: Corpus) -> tuple[dict[str, Any] | None, str | None]:
    """A false premise's passage (placed in its document when it is there) and the rest of
    the notes; (None, notes) when the notes do not start with one."""
    if not isinstance(notes, str):
        return None, None
    match = _PREMISE.match(notes)
    if match is None:
        return None, notes
    first = None
    for end in (m.start() for m in re.finditer('"', notes[match.end() :])):
        quote = notes[match.end() : match.end() + end]
        rest = notes[match.end() + end + 1 :].removeprefix(".").strip() or None
        placed = locate(corpus, match["doc"], quote)
        if placed["found"]:
            return placed, rest
        first = first or (placed, rest)
    return first if first is not None else (None, notes)


# -- a draft --------------------------------------------------------------------------------

DRAFT_FIELDS = (
    "answerable",
    "false_premise",
    "expected_answer",
    "support",
    "premise",
    "expect",
    "probes",
    "slice",
    "tags",
    "labelled_by",
    "notes",
)


class DraftForm(Struct):
    answerable: bool | None
    false_premise: bool = False
    expected_answer: str | None = None
    support: list[tuple[str, str]] = field(default_factory=list)
    premise: tuple[str, str] | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    probes: dict[str, list[str]] = field(default_factory=dict)
    slice: str | None = None
    tags: list[str] = field(default_factory=list)
    labelled_by: str | None = None
    notes: str | None = None


def draft_form(value: Any, corpus: Corpus, current: Mapping[str, Any]) -> DraftForm:
    """The page's draft form, checked; ``current`` is the draft as it is on disk."""
    data = _fields(value, DRAFT_FIELDS)
    support = data.get("support")
    support = [] if support is None else support
    if not isinstance(support, list) or len(support) > MAX_ITEMS:
        raise FormError(f"support should be a list of at most {MAX_ITEMS} quotes")
    kept = _held(current.get("support"))
    placed, _ = split_premise(current.get("notes"), corpus)
    premise = data.get("premise")
    held_premise = {(placed["doc"], placed["quote"])} if placed else set()
    form = DraftForm(
        answerable=_flag(data.get("answerable"), "answerable"),
        false_premise=bool(_flag(data.get("false_premise", False), "false_premise", False)),
        expected_answer=_text(data.get("expected_answer"), "expected_answer"),
        support=list(dict.fromkeys(quote_of(e, corpus, kept) for e in support)),
        premise=None if premise is None else quote_of(premise, corpus, held_premise),
        expect=expect_block(data.get("expect")),
        probes=probe_block(data.get("probes")),
        slice=_name(data.get("slice"), "slice"),
        tags=[t for t in _texts(data.get("tags"), "tags", 128) if _name(t, "a tag")],
        labelled_by=_text(data.get("labelled_by"), "labelled_by", 128),
        notes=_text(data.get("notes"), "notes", MAX_TEXT),
    )
    if form.answerable is not False:
        form.false_premise = False
    tags = [t for t in form.tags if t != FALSE_PREMISE]
    form.tags = [*tags, FALSE_PREMISE] if form.false_premise else tags
    return form


def _put(root: Any, key: str, value: Any, *, drop: bool = False) -> None:
    """Set ``key``; a blank value leaves the key blank (``slice:``) or, with ``drop``, takes
    out a key the template does not write blank (``expect``, ``probes``, ``tags``)."""
    if value is None or value == [] or value == {}:
        if key in root:
            if drop:
                del root[key]
            else:
                root[key] = None
        return
    root[key] = to_round_trip(value) if isinstance(value, (list, dict)) else value


def _drop_hints(root: Any, filled: set[str]) -> None:
    """Take out the template's commented hint lines of the fields now filled in."""
    lines = {line for key in filled for line in HINTS.get(key, ())}
    if "support" in filled:
        lines.update(SUPPORT_HINT)
    for entry in root.ca.items.values():
        if len(entry) > 1 and isinstance(entry[1], list):
            entry[1][:] = [t for t in entry[1] if t.value.rstrip("\n") not in lines]


def draft_text(text: str, form: DraftForm) -> str:
    """The draft's text with the form written into it."""
    answers = form.answerable is not False
    notes = form.notes
    if form.false_premise and form.premise is not None:
        notes = premise_note(*form.premise, form.notes)
    values: dict[str, Any] = {
        "answerable": form.answerable,
        "expected_answer": form.expected_answer if answers else None,
        "support": [{"doc": d, "quote": q} for d, q in form.support] if answers else None,
        "expect": form.expect,
        "probes": form.probes,
        "slice": form.slice,
        "tags": form.tags,
        "labelled_by": form.labelled_by,
        "notes": notes,
    }

    def edit(root: Any) -> None:
        for key, value in values.items():
            _put(root, key, value, drop=key in ("expect", "probes", "tags"))
        _drop_hints(root, {k for k, v in values.items() if v not in (None, [], {})})

    return rewrite(text, edit)


# -- a label file ---------------------------------------------------------------------------

LABEL_FIELDS = ("answerable", "expected_answer", "expect", "notes")


def label_text(text: str, value: Any) -> str:
    """The label file's text with the second labeller's form written into it."""
    data = _fields(value, LABEL_FIELDS)
    answerable = _flag(data.get("answerable"), "answerable")
    answer = _text(data.get("expected_answer"), "expected_answer")
    values = {
        "answerable": answerable,
        "expected_answer": answer if answerable is not False else None,
        "expect": expect_block(data.get("expect")),
        "notes": _text(data.get("notes"), "notes", MAX_TEXT),
    }
    return rewrite(text, lambda root: _edit_all(root, values))


def _edit_all(root: Any, values: dict[str, Any]) -> None:
    for key, value in values.items():
        _put(root, key, value)


def resolution_text(text: str, rule: Any, decided_by: Any) -> str:
    """The case's text with ``resolution: {rule, decided_by}`` (docs/agreement.md)."""
    written = _text(rule, "the rule", MAX_TEXT)
    who = _text(decided_by, "decided_by", 128)
    if written is None or who is None:
        raise FormError("a resolution needs the rule that decides it and who decided it")
    return rewrite(
        text, lambda root: _put(root, "resolution", {"rule": written, "decided_by": who})
    )


# -- writing --------------------------------------------------------------------------------


def write_if_unchanged(config: Config, path: Path, seen: Any, make: Callable[[str], str]) -> bytes:
    """Write ``make(current text)`` over ``path`` only when its bytes are still the ones the
    page loaded (digest ``seen``); the bytes written. The comparison and the write hold the
    repository's lock (``serialised``, as ``goldcase lock`` does): two servers on one folder
    saving the same file at once both compared it with what they loaded, both found it
    unchanged, and the second write silently replaced the first."""
    with serialised(config):
        return _write_if_unchanged(path, seen, make)


def _write_if_unchanged(path: Path, seen: Any, make: Callable[[str], str]) -> bytes:
    try:
        raw = read_regular(path, MAX_FILE, follow=False)
    except OSError as exc:
        raise GoldcaseError(f"{path.name}: cannot read it: {exc.strerror or exc}") from None
    if not isinstance(seen, str) or file_digest(raw) != seen:
        raise Conflict(
            f"{path.name} changed since this page loaded it (another tab, or an editor, "
            "saved it); nothing was written. Load the saved version to see it; what you "
            "typed here is still in this tab until you do"
        )
    new = make(raw.decode("utf-8")).encode("utf-8")
    atomic_write_text(path, new.decode("utf-8"))
    return new
