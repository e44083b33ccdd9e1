"""GC2xx: every support quote appears verbatim in the corpus document it names, and holds the
figures the expected answer states.

A quote matches after two foldings only: Unicode NFC, and any run of white space matches any
other run (documents wrap lines). Case, curly versus straight quotes and dashes must match.

Passes (``corpus/returns-policy.md`` holds the sentence)::

    support:
      - doc: returns-policy.md
        quote: A customer has 14 days from delivery to request a credit

Fails (``GC202 quote not found verbatim in returns-policy.md; closest passage (line 12):
"…14 days from delivery to request a refund" — differs at "credit" / "refund"``)::

    support:
      - doc: returns-policy.md
        quote: A customer has 14 days from delivery to request a credit

| code | severity | what |
|---|---|---|
| GC201 | error | the named document is not in ``corpus/`` |
| GC202 | error | the quote is not in the document (closest passage, line, first difference) |
| GC203 | error | the doc is not a plain basename, or it escapes ``corpus/`` (``..``, a symlink) |
| GC204 | error | the quote is only in another document than the one named (named in the message) |
| GC205 | warning | the quote is in several documents: the support is ambiguous |
| GC206 | error | the named document cannot be searched (binary, not UTF-8, unreadable) |
| GC207 | error | two corpus documents share a basename |
| GC208 | warning | a figure in ``expected_answer`` or ``contains`` that no support quote holds |

GC208 reads numbers, amounts, durations, times and dates as values (``goldcase.figures``):
"14-day" holds 14, "fourteen" is 14, "one hour" is "60 minutes", "2 pm" is "14:00". It
passes ``expected_answer: 14 days`` against the quote "a 14-day free trial", and warns on
``expected_answer: yes, 30 days`` against the same quote (``GC208 expected_answer states "30
days", which no support quote holds (they state "14-day")``). An unanswerable case, or one
without quotes, has nothing to compare. An answer worked out from its quotes (a price less a
discount: £249.00 less 15% is £211.65) states a figure no quote holds by design: tag the case
``calculated`` and GC208 leaves it alone.
"""

from __future__ import annotations

import difflib
import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import ahocorasick
from msgspec import Struct

from goldcase.cache import findings_from, findings_to
from goldcase.figures import Figure, Quoted, figures, held
from goldcase.loader import Locator
from goldcase.model import Case, Finding, Severity
from goldcase.quotes import not_found
from goldcase.text import clip, fold_quote

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.corpus import Corpus
    from goldcase.model import CaseSet

NAME = "support"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC201": ("error", "support document not in corpus/"),
    "GC202": ("error", "quote not found verbatim"),
    "GC203": ("error", "document path not a plain basename or escapes corpus/"),
    "GC204": ("error", "quote found only in another document"),
    "GC205": ("warning", "quote found in several documents"),
    "GC206": ("error", "document cannot be searched"),
    "GC207": ("error", "two corpus documents share a basename"),
    "GC208": ("warning", "a figure in the expected answer that no support quote holds"),
}


CALCULATED = "calculated"  # a case whose answer is worked out from its quotes (GC208)


class _Quote(Struct, frozen=True):
    case: Case
    index: int
    doc: str
    folded: str


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    corpus = ctx.corpus
    yield from _corpus_findings(corpus)
    state = _corpus_state(corpus)
    pending: list[tuple[Case, str]] = []
    for case in case_set.parsed if ctx.focus is None else case_set.parsed_at(ctx.focus):
        key = f"{state}:{case.path}:{case.digest}"
        cached = findings_from(ctx.cache.get(NAME, key))
        if cached is not None:
            yield from cached
        else:
            pending.append((case, key))
    fresh = _check_cases([case for case, _ in pending], ctx, state)
    for case, key in pending:
        ctx.cache.put(NAME, key, findings_to(fresh.get(case.path, [])))
        yield from fresh.get(case.path, [])


def _corpus_state(corpus: Corpus) -> str:
    """What a cached result depends on besides the case: the documents and the links (the
    code is in the cache folder's name)."""
    extra = f"{sorted(corpus.escaping)}{sorted(corpus.duplicates)}"
    return hashlib.blake2b(f"{corpus.digest}{extra}".encode(), digest_size=12).hexdigest()


def _check_cases(cases: list[Case], ctx: Context, state: str) -> dict[str, list[Finding]]:
    corpus = ctx.corpus
    out: dict[str, list[Finding]] = defaultdict(list)
    quotes: list[_Quote] = []
    for case in cases:
        for index, doc, quote in _entries(case):
            problem = _doc_problem(doc, corpus)
            if problem is not None:
                code, message = problem
                out[case.path].append(_at(ctx, case, [*_path(index), "doc"], code, message))
            else:
                quotes.append(_Quote(case, index, doc, fold_quote(quote)))
    found = _places([q.folded for q in quotes], ctx, state)
    for item in quotes:
        out[item.case.path].extend(_judge(ctx, item, found.get(item.folded, set()), corpus))
    for case in cases:
        out[case.path].extend(_figure_findings(ctx, case))
    return out


def prepare(ctx: Context) -> Callable[[CaseSet], dict[str, list[Finding]]]:
    """Each case's GC208 findings (they depend on the case alone), for a cold check's parse
    workers (``checks``)."""
    return lambda case_set: {
        case.path: list(_consistency(ctx, case))
        for case in case_set.parsed
        if ctx.wanted(case.path)
    }


def _figure_findings(ctx: Context, case: Case) -> list[Finding]:
    ready: list[Finding] | None = ctx.ahead(NAME, case.path)
    return list(_consistency(ctx, case)) if ready is None else ready


def _consistency(ctx: Context, case: Case) -> Iterator[Finding]:
    """GC208: each figure the answer states is one some support quote holds."""
    quotes = [quote for _, _, quote in _entries(case)]
    if not quotes or CALCULATED in case.tags:
        return
    quoted: list[Figure] | None = None
    holds = Quoted(())
    for key_path, text in _stated(case):
        stated = [f for f in _figures(text) if not f.implied]
        if not stated:
            continue
        if quoted is None:  # the quotes' figures, read once the answer states one
            quoted = [f for quote in quotes for f in _figures(quote)]
            holds = Quoted(quoted)
        missing = [f for f in stated if not held(f, holds)]
        if missing:
            states = " and ".join(f'"{clip(f.text, 40)}"' for f in missing)
            shown = [f'"{clip(f.text, 40)}"' for f in quoted if not f.implied][:3]
            they = f"they state {', '.join(shown)}" if shown else "they state no figure"
            yield _at(
                ctx,
                case,
                key_path,
                "GC208",
                f"{_name(key_path)} states {states}, which no support quote holds ({they}); "
                "correct it, or quote the passage that states it",
            )


@lru_cache(maxsize=1 << 12)
def _figures(text: str) -> tuple[Figure, ...]:
    """``figures(text)``, once per text: an expected answer is often a contains entry too."""
    return tuple(figures(text))


def _stated(case: Case) -> Iterator[tuple[list[str | int], str]]:
    """The answer's texts a figure must be quoted for: ``expected_answer`` and every
    ``contains`` entry (each option of a list entry)."""
    answer = case.data.get("expected_answer")
    if isinstance(answer, str):
        yield ["expected_answer"], answer
    expect = case.data.get("expect")
    contains = expect.get("contains") if isinstance(expect, dict) else None
    for i, entry in enumerate(contains if isinstance(contains, list) else ()):
        if isinstance(entry, str):
            yield ["expect", "contains", i], entry
        elif isinstance(entry, list):
            for j, option in enumerate(entry):
                if isinstance(option, str):
                    yield ["expect", "contains", i, j], option


def _name(key_path: list[str | int]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in key_path).lstrip(".")


def _entries(case: Case) -> Iterator[tuple[int, str, str]]:
    """Well-formed support entries, read defensively: the schema check reports the rest."""
    support = case.data.get("support")
    if not isinstance(support, list):
        return
    for index, entry in enumerate(support):
        if isinstance(entry, dict):
            doc, quote = entry.get("doc"), entry.get("quote")
            if isinstance(doc, str) and isinstance(quote, str) and doc and quote.strip():
                yield index, doc, quote


def _path(index: int) -> list[str | int]:
    return ["support", index]


def _corpus_findings(corpus: Corpus) -> Iterator[Finding]:
    for rel in corpus.unnamed:
        message = "the document's name is not UTF-8, so no case or lock can name it: rename it"
        yield Finding(rel, 1, 1, "GC206", "error", message)
    for name, rels in sorted(corpus.duplicates.items()):
        for rel in rels[1:]:
            yield Finding(
                rel,
                1,
                1,
                "GC207",
                "error",
                f"basename {name!r} is also {rels[0]}; support names documents by "
                "basename, so basenames must be unique",
            )


def _doc_problem(doc: str, corpus: Corpus) -> tuple[str, str] | None:
    if doc in (".", "..") or "/" in doc or "\\" in doc or doc != doc.strip():
        return "GC203", (
            f"doc {clip(repr(doc), 60)} is not a plain basename; name the document "
            "as it is in corpus/, e.g. returns-policy.md"
        )
    if doc in corpus.escaping:
        return "GC203", f"doc {doc!r} is a link that leads outside corpus/; copy the document in"
    document = corpus.documents.get(doc)
    if document is None:
        close = difflib.get_close_matches(doc, list(corpus.documents), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return "GC201", f"document {doc!r} is not in corpus/{hint}"
    if document.problem is not None:
        return "GC206", f"document {doc!r} cannot be searched: {document.problem}"
    return None


_PLACES = "support-places"


def _places(folded_quotes: list[str], ctx: Context, state: str) -> dict[str, set[str]]:
    """For each folded quote, the documents that hold it: from the cache for a quote looked
    for before in the same corpus (``state``), so a case edited elsewhere than its quotes
    folds no document; one pass over the corpus for the others. One entry per corpus holds
    every quote's places: a run reads it whole, so it keeps the places of the quotes it did
    not judge (an entry a quote would drop out of the cache at the first run without it)."""
    cached = ctx.cache.get(_PLACES, state)
    table: dict[str, list[str]] = cached if type(cached) is dict else {}
    found: dict[str, set[str]] = {}
    todo: dict[str, str] = {}
    for quote in set(folded_quotes):
        key = hashlib.blake2b(quote.encode(), digest_size=16).hexdigest()
        docs = table.get(key)
        if type(docs) is list and all(type(doc) is str for doc in docs):
            found[quote] = set(docs)
        else:
            todo[quote] = key
    located = locate_quotes(list(todo), ctx.corpus)
    for quote, key in todo.items():
        found[quote] = located.get(quote, set())
        table[key] = sorted(found[quote])
    if todo:
        ctx.cache.put(_PLACES, state, table)
    return found


def locate_quotes(folded_quotes: list[str], corpus: Corpus) -> dict[str, set[str]]:
    """For each folded quote, the documents whose folded text contains it (one Aho-Corasick
    pass over the corpus, whatever the number of quotes)."""
    wanted = {q for q in folded_quotes if q}
    found: dict[str, set[str]] = defaultdict(set)
    if not wanted:
        return found
    automaton = ahocorasick.Automaton()
    for quote in wanted:
        automaton.add_word(quote, quote)
    automaton.make_automaton()
    for name, document in corpus.documents.items():
        if document.problem is None:
            for _end, quote in automaton.iter(document.folded):
                found[quote].add(name)
    return found


def _judge(ctx: Context, quote: _Quote, docs: set[str], corpus: Corpus) -> Iterator[Finding]:
    where = [*_path(quote.index), "quote"]
    if quote.doc in docs:
        others = sorted(docs - {quote.doc})
        if others:
            yield _at(
                ctx,
                quote.case,
                where,
                "GC205",
                "quote is also in "
                f"{', '.join(others[:3])}{' …' if len(others) > 3 else ''}; "
                "quote a longer passage that only the named document holds",
            )
    elif docs:
        yield _at(
            ctx,
            quote.case,
            where,
            "GC204",
            f"quote is not in {quote.doc} but is in {', '.join(sorted(docs))}; "
            f"set doc: {sorted(docs)[0]}",
        )
    else:
        message = not_found(quote.doc, quote.folded, corpus.documents[quote.doc])
        yield _at(ctx, quote.case, where, "GC202", message)


def _at(ctx: Context, case: Case, key_path: list[str | int], code: str, message: str) -> Finding:
    line, col = Locator(ctx.read_bytes(case.path)).value(key_path)
    return Finding(case.path, line, col, code, CODES[code][0], message)
