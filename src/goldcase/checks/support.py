"""GC2xx: every support quote appears verbatim in the corpus document it names.

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
"""

from __future__ import annotations

import difflib
import hashlib
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ahocorasick

from goldcase.cache import findings_from, findings_to
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
}


@dataclass(frozen=True, slots=True)
class _Quote:
    case: Case
    index: int
    doc: str
    folded: str


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    corpus = ctx.corpus
    yield from _corpus_findings(corpus)
    state = _corpus_state(corpus)
    pending: list[tuple[Case, str]] = []
    for case in case_set.parsed:
        key = f"{state}:{case.path}:{case.digest}"
        cached = findings_from(ctx.cache.get(NAME, key))
        if cached is not None:
            yield from cached
        else:
            pending.append((case, key))
    fresh = _check_cases([case for case, _ in pending], ctx)
    for case, key in pending:
        ctx.cache.put(NAME, key, findings_to(fresh.get(case.path, [])))
        yield from fresh.get(case.path, [])


def _corpus_state(corpus: Corpus) -> str:
    """What a cached result depends on besides the case: the documents and the links."""
    extra = f"{sorted(corpus.escaping)}{sorted(corpus.duplicates)}"
    return hashlib.blake2b(f"{corpus.digest}{extra}".encode(), digest_size=12).hexdigest()


def _check_cases(cases: list[Case], ctx: Context) -> dict[str, list[Finding]]:
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
    found = locate_quotes([q.folded for q in quotes], corpus)
    for item in quotes:
        out[item.case.path].extend(_judge(ctx, item, found.get(item.folded, set()), corpus))
    return out


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
