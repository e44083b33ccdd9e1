"""GC3xx: the golden set has not leaked into the dev set, the prompts, or itself.

Questions are compared after ``goldcase.text.normalise_input`` (Unicode NFKC, case-folded,
apostrophes and invisible characters dropped, other punctuation and symbols read as spaces,
white space folded), so a copy that differs in case, spacing, punctuation or Unicode form is
still the same question. Few-shot examples are read from the files matched by
``[leakage] fewshot`` (default ``prompts/**``); see ``goldcase.leakage.prompts`` for what counts
as an example. A finding names both ends (a case id, or a file and line) and shows a prefix of the
normalised question's sha256, never the other file's text. A pair is reported at both ends, so
a hook run on either file sees it.

Passes (a dev case and a golden case ask different things)::

    # cases/golden/ret-014.yaml                # cases/dev/dev-031.yaml
    question: How long do I have to return it?  question: Can I return a sale item?

Fails (``GC301 question equals the question of dev case dev-031 (sha256 5c1e0b9a4d2f); a
question is in the golden set or the dev set, never both``)::

    # cases/golden/ret-014.yaml                # cases/dev/dev-031.yaml
    question: How long do I have to return it?  question: how long do i have to return it

| code | severity | what |
|---|---|---|
| GC301 | error | a golden question equals a dev case's question or a few-shot example |
| GC302 | error | a golden question appears inside a prompt file (file and line) |
| GC303 | warning | near-duplicate questions: golden against dev, few-shot and golden |
| GC304 | error | two golden cases ask the same normalised question |
| GC305 | error | a synthetic case derived from a golden case, from an unknown id, or from nothing |
| GC306 | error | a prompt file cannot be read as text or does not parse as YAML / JSON |
| GC307 | error | a prompt file states a golden fact: a golden support quote, or a sentence of it |
| GC308 | warning | a dev case and a golden case share a support quote (or a sentence of one) |
| GC309 | warning | a draft in ``cases/inbox/`` asking what a case or draft asks, or nearly |

GC307 and GC308 compare facts, not questions: a few-shot answer that says "Saturday is not
available" teaches the answer of the golden case whose quote says it, whatever its question.
A quote and each of its sentences of four words or more are searched, normalised, on word
boundaries.

GC309 keeps the inbox from filling with questions the set holds already (``goldcase triage``
passes over them when it draws; a case promoted meanwhile, or a question edited by the
labeller, can make one): delete the draft, or reword it into a question of its own.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from goldcase.cache import findings_from, findings_to
from goldcase.leakage.neardup import NearConfig, near_pairs
from goldcase.leakage.prompts import ScannedPrompt, load_prompts
from goldcase.leakage.textmatch import PhraseIndex
from goldcase.loader import Locator
from goldcase.model import INBOX, Case, Finding, Severity
from goldcase.sentences import Sentences
from goldcase.text import normalise_input

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "leakage"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC301": ("error", "golden question equals a dev question or a few-shot example"),
    "GC302": ("error", "golden question inside a prompt file"),
    "GC303": ("warning", "near-duplicate questions"),
    "GC304": ("error", "two golden cases with the same question"),
    "GC305": ("error", "synthetic case not derived from a dev case"),
    "GC306": ("error", "prompt file cannot be read or parsed"),
    "GC307": ("error", "prompt file states a golden support quote"),
    "GC308": ("warning", "dev case shares a support quote with a golden case"),
    "GC309": ("warning", "draft that duplicates a case or another draft"),
}
MIN_SUBSTRING_WORDS = 4  # shorter golden questions (and quote sentences) are not searched


class End(NamedTuple):
    """One end of a pair: a case, or a line of a prompt file."""

    path: str
    line: int
    case: Case | None = None
    noun: str = "few-shot example"  # what a prompt-file end is

    def name(self) -> str:
        if self.case is None:
            return f"{self.path}:{self.line}"
        return f"{self.case.split} case {self.case.id}"


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    config = ctx.config
    prompts = load_prompts(ctx.root, config.leakage.fewshot, ctx.cache, exclude=config.cases)
    key = _inputs_key(case_set, prompts, ctx)
    known = findings_from(ctx.cache.get(_FINDINGS, key))
    if known is not None:
        yield from known  # the same files, prompts, config and code as last time
        return
    focus = _case_focus(case_set, ctx.focus)
    if focus is not None:  # a focused run finds the pairs of its own cases only
        key = f"{key}:{_focus_key(focus)}"
        known = findings_from(ctx.cache.get(_FINDINGS, key))
        if known is not None:
            yield from known  # the same files checked again (a hook after check FILE)
            return
    found = list(_check(case_set, prompts, ctx, focus))
    ctx.cache.put(_FINDINGS, key, findings_to(found))
    yield from found


def _focus_key(focus: frozenset[str]) -> str:
    return hashlib.blake2b("\x00".join(sorted(focus)).encode(), digest_size=16).hexdigest()


def _case_focus(case_set: CaseSet, focus: frozenset[str] | None) -> frozenset[str] | None:
    """The focus when it names case files only; None (every rule in full) when it names a
    prompt file too, whose findings may be with any golden case."""
    if focus is None or not focus <= {case.path for case in case_set.cases}:
        return None
    return focus


_FINDINGS = "leakage-findings"


def _inputs_key(case_set: CaseSet, prompts: list[ScannedPrompt], ctx: Context) -> str:
    """Everything the findings depend on: each case file's bytes (by digest), each prompt
    file's and the leakage config (the cache's folder is keyed by the code)."""
    h = hashlib.blake2b(f"{ctx.config.leakage!r}".encode(), digest_size=16)
    h.update("".join([f"\x00{f.path}\x01{f.digest}" for f in case_set.files]).encode())
    for prompt in prompts:
        h.update(f"\x02{prompt.path}\x01{prompt.digest}\x01{prompt.problem!r}".encode())
    return h.hexdigest()


def _check(
    case_set: CaseSet, prompts: list[ScannedPrompt], ctx: Context, focus: frozenset[str] | None
) -> Iterator[Finding]:
    """Every finding; with ``focus`` (``check PATHS``), every finding with an end in it: each
    rule then looks for the pairs of those cases only, the rest of the set still read."""
    places = _Places(ctx)
    golden, dev = case_set.golden, case_set.dev
    mine = [c for c in case_set.cases if focus is None or c.path in focus]
    norm = _questions(ctx, case_set.cases)
    asked = None if focus is None else {norm[case.path] for case in mine}
    yield from _unreadable([p for p in prompts if focus is None or p.path in focus])
    yield from _duplicates(golden, norm, places, mine, asked)
    leaked: set[tuple[str, str]] = set()
    for case, other, normalised in _exact(golden, dev, prompts, norm, asked):
        if focus is None or case.path in focus or other.path in focus:
            leaked.add((other.path, case.id))
            yield from _exact_pair(places, End(case.path, 1, case), other, normalised)
    yield from _inside(_split(mine, "golden"), prompts, norm, ctx, places, leaked)
    yield from _near(golden, dev, prompts, norm, ctx, places, leaked, focus)
    yield from _derived(case_set, places, mine)
    if focus is None:
        golden_facts = _facts_table(ctx, golden, "golden")
        yield from _stated(golden_facts, prompts, places)
        yield from _shared(golden_facts, _facts_table(ctx, dev, "dev"), places)
    else:
        own = _few_facts(_split(mine, "golden"))
        yield from _stated(own, prompts, places)
        yield from _shared_focused(case_set, own, _few_facts(_split(mine, "dev")), ctx, places)
    yield from _drafts(case_set, ctx, places)


def _split(cases: list[Case], split: str) -> list[Case]:
    return [case for case in cases if case.split == split]


_QUESTIONS = "leakage-questions"


def _questions(ctx: Context, cases: list[Case]) -> dict[str, str]:
    """Path -> the case's question as ``normalise_input`` folds it, kept in the cache by the
    question's text: a run folds only the questions it has not seen (one case, for a hook)."""
    questions = [case.question for case in cases]
    known: dict[str, str] = ctx.cache.take(_QUESTIONS, questions, dict[str, str])
    norm: dict[str, str] = {}
    for case, question in zip(cases, questions, strict=True):
        folded = known.get(question)
        if folded is None:
            folded = normalise_input(question)
            ctx.cache.put(_QUESTIONS, question, folded)
        norm[case.path] = folded
    return norm


class _Places:
    """Line and column of a case's keys, read only for a case that has a finding."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._locators: dict[str, Locator] = {}

    def at(self, case: Case, key: str) -> tuple[int, int]:
        locator = self._locators.get(case.path)
        if locator is None:
            try:
                raw = self._ctx.read_bytes(case.path)
            except OSError:
                return 1, 1
            quick = _top_level_value(raw, key)
            if quick is not None:
                return quick
            locator = self._locators[case.path] = Locator(raw)
        return locator.value([key])

    def located(self, case: Case, key_path: list[str | int], code: str, message: str) -> Finding:
        """A finding at a nested value of a case (a support quote)."""
        try:
            line, col = Locator(self._ctx.read_bytes(case.path)).value(key_path)
        except OSError:
            line, col = 1, 1
        return Finding(case.path, line, col, code, CODES[code][0], message)

    def finding(self, end: End, code: str, message: str, key: str = "question") -> Finding:
        line, col = self.at(end.case, key) if end.case is not None else (end.line, 1)
        return Finding(end.path, line, col, code, CODES[code][0], message)


def _top_level_value(raw: bytes, key: str) -> tuple[int, int] | None:
    """Where a top-level ``key: value`` value starts, when the key is written once, plainly
    at the start of a line (as case files are): no round-trip parse needed."""
    found = re.findall(rb"^" + re.escape(key.encode()) + rb":[ \t]+(?=\S)", raw, re.MULTILINE)
    if len(found) != 1:
        return None
    at = raw.find(b"\n" + found[0]) + 1 if not raw.startswith(found[0]) else 0
    line = raw.count(b"\n", 0, at) + 1
    return line, len(found[0]) + 1


def fingerprint(normalised: str) -> str:
    """The prefix of the normalised question's sha256 that findings show instead of text."""
    return hashlib.sha256(normalised.encode()).hexdigest()[:12]


def _unreadable(prompts: list[ScannedPrompt]) -> Iterator[Finding]:
    for prompt in prompts:
        if prompt.problem is not None:
            line, col, message = prompt.problem
            yield Finding(prompt.path, line, col, "GC306", "error", message)


def _duplicates(
    golden: list[Case],
    norm: Mapping[str, str],
    places: _Places,
    mine: list[Case],
    asked: set[str] | None,
) -> Iterator[Finding]:
    """GC304 on every golden case (of ``mine``, which ask ``asked``: None for all) whose
    normalised question another golden case shares."""
    groups: dict[str, list[Case]] = {}
    for case in golden:
        text = norm[case.path]
        if asked is None or text in asked:
            groups.setdefault(text, []).append(case)
    wanted = {id(case) for case in mine}
    for normalised, cases in groups.items():
        for case in cases if len(cases) > 1 else ():
            if id(case) not in wanted:
                continue
            ids = [c.id for c in cases if c is not case]
            others = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            yield places.finding(
                End(case.path, 1, case),
                "GC304",
                f"question equals the question of golden case {others} after normalisation "
                f"(sha256 {fingerprint(normalised)}); keep one: duplicates count twice in "
                "every rate",
            )


def _exact(
    golden: list[Case],
    dev: list[Case],
    prompts: list[ScannedPrompt],
    norm: Mapping[str, str],
    asked: set[str] | None = None,
) -> Iterator[tuple[Case, End, str]]:
    """GC301: (golden case, the dev case or few-shot example equal to it, normalised); with
    ``asked``, the pairs of those questions only (a focused run's)."""
    by_text: dict[str, list[Case]] = {}
    for case in golden:
        text = norm[case.path]
        if asked is None or text in asked:
            by_text.setdefault(text, []).append(case)
    for dev_case in dev:
        for case in by_text.get(norm[dev_case.path], ()):
            yield case, End(dev_case.path, 1, dev_case), norm[dev_case.path]
    for prompt in prompts:
        for normalised, line in prompt.examples:
            for case in by_text.get(normalised, ()):
                yield case, End(prompt.path, line), normalised


def _exact_pair(places: _Places, gold: End, other: End, normalised: str) -> Iterator[Finding]:
    """GC301 at both ends of one copy."""
    assert gold.case is not None
    digest = fingerprint(normalised)
    if other.case is None:
        verb, fix = "equals a few-shot example at", _FIXES["GC301"]
    else:
        verb, fix = "equals the question of", _FIXES["GC301-dev"]
    yield places.finding(gold, "GC301", f"question {verb} {other.name()} (sha256 {digest}); {fix}")
    back = other.noun if other.case is None else "question"
    yield places.finding(
        other,
        "GC301",
        f"{back} equals the question of golden case {gold.case.id} (sha256 {digest}); {fix}",
    )


_FIXES = {
    "GC301": "take few-shot examples from the dev set only",
    "GC301-dev": "a question is in the golden set or the dev set, never both",
    "GC303": "a reworded golden question is the golden question: reword it further, or move "
    "one of the two",
}


def _inside(
    golden: list[Case],
    prompts: list[ScannedPrompt],
    norm: Mapping[str, str],
    ctx: Context,
    places: _Places,
    leaked: set[tuple[str, str]],
) -> Iterator[Finding]:
    """GC302: a golden question (4 words or more) inside a prompt file's text, at every line
    it starts on; a file with a GC301 for that case is not repeated."""
    by_text: dict[str, list[Case]] = {}
    for case in golden:
        if norm[case.path].count(" ") + 1 >= MIN_SUBSTRING_WORDS:
            by_text.setdefault(norm[case.path], []).append(case)
    exact = set(leaked)
    for prompt in prompts:
        for text, lines in sorted(_lines_holding(prompt, by_text, ctx).items()):
            for case in by_text[text]:
                if (prompt.path, case.id) in exact:
                    continue
                leaked.add((prompt.path, case.id))
                for line in lines:
                    where = End(prompt.path, line)
                    yield from _inside_pair(places, case, where, fingerprint(text))


def _lines_holding(
    prompt: ScannedPrompt, by_text: Mapping[str, list[Case]], ctx: Context
) -> dict[str, list[int]]:
    """Normalised question -> the lines of ``prompt`` where it starts, for every question in
    ``by_text``. Kept per prompt file in the cache, so a run searches only for questions the
    file was not searched for yet (a new or reworded golden case)."""
    known = _lines_table(ctx.cache.get(_INSIDE, prompt.digest))
    todo = [text for text in by_text if not _is_lines(known.get(text))]
    if todo:
        words = set(prompt.text.text.split())
        index: PhraseIndex[str] = PhraseIndex(((text, text) for text in todo), words)
        found: dict[str, set[int]] = {text: set() for text in todo}
        for start, _end, texts in index.find(prompt.text.text):
            for text in texts:
                found[text].add(prompt.text.line_of(start))
        known.update((text, sorted(lines)) for text, lines in found.items())
    current = {text: known[text] for text in by_text}
    if ctx.focus is not None:  # the questions of a few cases: the others' lines are kept
        if todo:
            ctx.cache.put(_INSIDE, prompt.digest, known)
    elif todo or len(current) != len(known):
        ctx.cache.put(_INSIDE, prompt.digest, current)
    return {text: lines for text, lines in current.items() if lines}


_INSIDE = "leakage-inside"


def _lines_table(value: object) -> dict[str, list[int]]:
    """The cached table of lines per question, or an empty one when it is not a table. Each
    entry is checked when it is looked up (``_is_lines``): a focused run looks up a few of
    the golden set's thousands."""
    return dict(value) if type(value) is dict else {}


def _is_lines(value: object) -> bool:
    return type(value) is list and all(type(n) is int for n in value)


def _inside_pair(places: _Places, case: Case, where: End, digest: str) -> Iterator[Finding]:
    fix = "prompts must not carry golden questions; use a dev case instead"
    yield places.finding(
        End(case.path, 1, case),
        "GC302",
        f"question appears inside {where.name()} (sha256 {digest}); {fix}",
    )
    yield places.finding(
        where, "GC302", f"holds the question of golden case {case.id} (sha256 {digest}); {fix}"
    )


def _near(
    golden: list[Case],
    dev: list[Case],
    prompts: list[ScannedPrompt],
    norm: Mapping[str, str],
    ctx: Context,
    places: _Places,
    leaked: set[tuple[str, str]],
    focus: frozenset[str] | None = None,
) -> Iterator[Finding]:
    """GC303: questions whose word-shingle Jaccard with a golden question reaches the
    threshold. One finding per end, naming its closest match and how many others there are,
    so a templated set gives one line per case, not one per pair. A prompt file already
    reported for that golden case (GC301, GC302) is not repeated. With ``focus``, the pairs
    of the focused cases' questions only."""
    texts, golden_texts = _distinct(golden, dev, prompts, norm)
    marked, whole = golden_texts, None
    if focus is not None:  # a pair with no golden end is never reported: a whole run's do
        asked = {norm[c.path] for c in (*golden, *dev) if c.path in focus}
        marked, whole = [t in asked for t in texts], golden_texts
    cfg = ctx.config.leakage
    near = NearConfig(cfg.near_threshold, cfg.num_perm, cfg.shingle)
    confirmed = near_pairs(texts, marked, near, ctx.cache, whole)
    if not confirmed:
        return
    wanted = {texts[i] for i, _, _ in confirmed} | {texts[j] for _, j, _ in confirmed}
    owners = _owners(golden, dev, prompts, norm, wanted)
    partners: dict[tuple[str, int], tuple[End, list[tuple[float, str, End]]]] = {}
    for i, j, score in confirmed:
        for a in owners[texts[i]]:
            for b in owners[texts[j]]:
                if _reportable(a, b, leaked):
                    _add(partners, a, b, score)
                    _add(partners, b, a, score)
    for end, found in partners.values():
        if focus is None or end.path in focus:
            yield _near_finding(places, end, sorted(found, key=lambda f: (-f[0], f[1])))


def _distinct(
    golden: list[Case], dev: list[Case], prompts: list[ScannedPrompt], norm: Mapping[str, str]
) -> tuple[list[str], list[bool]]:
    """The distinct normalised questions, and which of them a golden case asks."""
    questions = [norm[c.path] for c in (*golden, *dev)]
    for prompt in prompts:
        questions.extend(prompt.normalised)
        questions.extend(text for text, _ in prompt.short_lines)
    texts = [t for t in dict.fromkeys(questions) if t]
    golden_texts = {norm[c.path] for c in golden}
    return texts, [t in golden_texts for t in texts]


def _owners(
    golden: list[Case],
    dev: list[Case],
    prompts: list[ScannedPrompt],
    norm: Mapping[str, str],
    wanted: set[str],
) -> dict[str, list[End]]:
    """Where each of the ``wanted`` normalised questions comes from."""
    owners: dict[str, list[End]] = {text: [] for text in wanted}
    for case in (*golden, *dev):
        if norm[case.path] in wanted:
            owners[norm[case.path]].append(End(case.path, 1, case))
    for prompt in prompts:
        for normalised, line in prompt.examples:
            if normalised in wanted:
                owners[normalised].append(End(prompt.path, line))
        for normalised, line in prompt.short_lines:
            if normalised in wanted:
                owners[normalised].append(End(prompt.path, line, None, "line"))
    return owners


def _is_golden(end: End) -> bool:
    return end.case is not None and end.case.split == "golden"


def _reportable(a: End, b: End, leaked: set[tuple[str, str]]) -> bool:
    if not (_is_golden(a) or _is_golden(b)):
        return False
    for gold, other in ((a, b), (b, a)):
        if _is_golden(gold) and other.case is None and gold.case is not None:
            return (other.path, gold.case.id) not in leaked
    return True


def _add(
    partners: dict[tuple[str, int], tuple[End, list[tuple[float, str, End]]]],
    end: End,
    other: End,
    score: float,
) -> None:
    entry = partners.setdefault((end.path, end.line), (end, []))
    entry[1].append((score, other.name(), other))


def _near_finding(places: _Places, end: End, found: list[tuple[float, str, End]]) -> Finding:
    score, _, best = found[0]
    subject = "question" if end.case is not None else end.noun
    gold_id = best.case.id if best.case is not None else ""
    target = best.name() if _is_golden(end) else f"the question of golden case {gold_id}"
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return places.finding(
        end,
        "GC303",
        f"{subject} is a near-duplicate of {target} (word Jaccard {score:.2f}){more}; "
        f"{_FIXES['GC303']}",
    )


def _drafts(case_set: CaseSet, ctx: Context, places: _Places) -> Iterator[Finding]:
    """GC309: a draft that asks what a case or another draft asks, exactly or nearly; one
    finding per draft, naming its closest match."""
    if not case_set.drafts:
        return
    matches = _draft_matches(case_set, ctx)
    for draft in case_set.drafts:
        found = sorted(matches.get(draft.path, ()), key=lambda m: (-m[0], m[2].id))
        if found:
            yield _draft_finding(places, draft, found)


_Match = tuple[float, bool, Case]  # (word Jaccard, exactly equal, the other case or draft)


def _draft_matches(case_set: CaseSet, ctx: Context) -> dict[str, list[_Match]]:
    by_text: dict[str, list[Case]] = {}
    for case in (*case_set.cases, *case_set.drafts):
        by_text.setdefault(normalise_input(case.question), []).append(case)
    matches: dict[str, list[_Match]] = {}
    for cases in by_text.values():
        for draft in (c for c in cases if c.split == INBOX):
            matches[draft.path] = [(1.0, True, o) for o in cases if o is not draft]
    texts = list(by_text)
    focus = [any(c.split == INBOX for c in by_text[t]) for t in texts]
    cfg = ctx.config.leakage
    near = NearConfig(cfg.near_threshold, cfg.num_perm, cfg.shingle)
    for i, j, score in near_pairs(texts, focus, near, ctx.cache):
        for a, b in ((texts[i], texts[j]), (texts[j], texts[i])):
            for draft in (c for c in by_text[a] if c.split == INBOX):
                matches[draft.path].extend((score, False, o) for o in by_text[b])
    return matches


def _draft_finding(places: _Places, draft: Case, found: list[_Match]) -> Finding:
    score, exact, other = found[0]
    name = f"draft {other.id}" if other.split == INBOX else f"{other.split} case {other.id}"
    how = "equals the question of" if exact else "is a near-duplicate of"
    similar = "" if exact else f" (word Jaccard {score:.2f})"
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return places.finding(
        End(draft.path, 1, draft),
        "GC309",
        f"draft question {how} {name}{similar}{more}; the set asks it already: delete the "
        "draft, or reword it into a question of its own",
    )


def _derived(case_set: CaseSet, places: _Places, mine: list[Case]) -> Iterator[Finding]:
    """GC305: a synthetic case (of ``mine``) must vary a dev case."""
    by_id: dict[str, Case] | None = None  # built for the first synthetic case
    for case in mine:
        if case.source != "synthetic":
            continue
        if by_id is None:
            by_id = case_set.by_id()
        origin = case.derived_from
        end = End(case.path, 1, case)
        if origin is None:
            message = "synthetic case without derived_from; name the dev case it varies"
            yield places.finding(end, "GC305", message, key="source")
            continue
        seed = by_id.get(origin)
        if seed is None:
            message = f"derived_from {origin!r} names no case under cases/; name the dev case"
        elif seed.split == "golden":
            message = (
                f"derived_from names golden case {origin}: a variation of a golden case is "
                "that case reworded; generate synthetic cases from dev cases only"
            )
        else:
            continue
        yield places.finding(end, "GC305", message, key="derived_from")


# --- GC307, GC308: facts, not questions -------------------------------------------------------


class Quoted(NamedTuple):
    """One support quote of one case."""

    path: str  # the case file: sorts like the findings
    at: int  # the quote's index in the case's support list
    case: Case

    @property
    def text(self) -> str:
        return self.case.quote(self.at)

    def key(self) -> tuple[str, int]:
        return self.path, self.at


def fact_units(quote: str) -> list[str]:
    """What of a support quote counts as its fact, normalised: the whole quote, each of its
    sentences of ``MIN_SUBSTRING_WORDS`` words or more, and each clause (a sentence's piece
    between commas, semicolons, colons or dashes) of ``MIN_CLAUSE_WORDS`` or more, so that a
    sentence copied with a clause dropped ("..., for any reason, including ...") still counts."""
    ends = Sentences(quote).ends
    sentences = [quote[a:b] for a, b in zip([0, *ends], [*ends, len(quote)], strict=True)]
    normalised: dict[str, str] = {}  # a one-sentence quote is its sentence and its clause
    units = [_normalised(piece, normalised) for piece in [quote, *sentences]]
    units = [u for u in units if u.count(" ") + 1 >= MIN_SUBSTRING_WORDS]
    clauses = (_normalised(c, normalised) for s in sentences for c in _CLAUSE_BREAK.split(s))
    units += [c for c in clauses if c.count(" ") + 1 >= MIN_CLAUSE_WORDS]
    return list(dict.fromkeys(units))


def _normalised(piece: str, known: dict[str, str]) -> str:
    found = known.get(piece)
    if found is None:
        found = known[piece] = normalise_input(piece)
    return found


MIN_CLAUSE_WORDS = 6  # a shorter run of a quote ("within 30 days") is common wording, not a copy
_CLAUSE_BREAK = re.compile(r"[,;:()\u2013\u2014]|\s-\s")


def _facts_of(ctx: Context | None, cases: list[Case]) -> dict[str, list[Quoted]]:
    """Normalised fact unit -> the quotes it comes from; each quote's units looked up in the
    cache of every quote's, or without ``ctx`` (a focused run's few cases) computed here."""
    facts: dict[str, list[Quoted]] = {}
    for case in cases:
        for at, support in enumerate(case.support):
            quote = support.quote
            units = fact_units(quote) if ctx is None else _units(ctx, quote, case.split)
            for unit in units:
                facts.setdefault(unit, []).append(Quoted(case.path, at, case))
    return facts


_UNITS = "leakage-units"


def _units(ctx: Context, quote: str, split: str) -> list[str]:
    """``fact_units(quote)``, kept in the cache by the quote's text: a changed case costs its
    own quotes' sentences, not every quote's."""
    return _folded(ctx, quote, split)[1:]


def _folded(ctx: Context, quote: str, split: str) -> list[str]:
    """The quote as ``normalise_input`` folds it, then its ``fact_units``: one cache entry by
    the quote's text, so that a rule that searches every quote folds none of them again. One
    namespace a split (of the case quoting it): a commit of a golden case reads the dev
    quotes' entries only."""
    namespace = f"{_UNITS}-{split}"
    cached = ctx.cache.get(namespace, quote)
    if _is_folded(cached):
        return cached
    folded = [normalise_input(quote), *fact_units(quote)]
    ctx.cache.put(namespace, quote, folded)
    return folded


def _is_folded(value: Any) -> bool:
    """Whether a cached value is a fold: the folded quote, then its units, each of words."""
    if type(value) is not list or not value or not all(type(unit) is str for unit in value):
        return False
    return all(unit.split() for unit in value[1:])


def _stated(
    facts: list[_Facts], prompts: list[ScannedPrompt], places: _Places
) -> Iterator[Finding]:
    """GC307: a golden quote, or a sentence of it, inside a prompt file's text."""
    words = {word for prompt in prompts for word in prompt.text.text.split()}
    index = _units_index(facts, words)
    for prompt in prompts:
        found: dict[tuple[str, int], tuple[Quoted, str, set[int]]] = {}
        for start, _end, units in index.find(prompt.text.text):
            for quoted, unit in _quotes_of(units):
                entry = found.setdefault(quoted.key(), (quoted, unit, set()))
                entry[2].add(prompt.text.line_of(start))
        for _, (quoted, unit, lines) in sorted(found.items()):
            yield from _stated_pair(places, quoted, prompt.path, sorted(lines), fingerprint(unit))


def _stated_pair(
    places: _Places, quoted: Quoted, path: str, lines: list[int], digest: str
) -> Iterator[Finding]:
    fix = "reword the example, or use one whose fact no golden case tests"
    yield places.located(
        quoted.case,
        ["support", quoted.at, "quote"],
        "GC307",
        f"support quote {quoted.at + 1} is stated in {path}:{lines[0]} (sha256 {digest}); a "
        f"prompt that states a golden fact scores that case by memory: {fix}",
    )
    for line in lines:
        yield places.finding(
            End(path, line),
            "GC307",
            f"states the fact of golden case {quoted.case.id} (its support quote "
            f"{quoted.at + 1}, sha256 {digest}); {fix}",
        )


def _shared(golden: list[_Facts], dev: list[_Facts], places: _Places) -> Iterator[Finding]:
    """GC308: a dev quote that holds a golden quote's fact unit, or the other way round."""
    pairs: dict[tuple[tuple[str, int], tuple[str, int]], tuple[Quoted, Quoted, str]] = {}
    for mine, theirs, unit in _holding(golden, dev):
        pairs.setdefault((mine.key(), theirs.key()), (mine, theirs, unit))
    for theirs, mine, unit in _holding(dev, golden):
        pairs.setdefault((mine.key(), theirs.key()), (mine, theirs, unit))
    for _, (mine, theirs, unit) in sorted(pairs.items()):
        yield from _shared_pair(places, mine, theirs, fingerprint(unit))


def _shared_focused(
    case_set: CaseSet, golden: list[_Facts], dev: list[_Facts], ctx: Context, places: _Places
) -> Iterator[Finding]:
    """GC308 for the focused cases (``golden`` and ``dev``: their facts): the other split's
    facts (from the cache while that split is unchanged) against theirs."""
    if golden[0].units:
        yield from _shared(golden, _facts_table(ctx, case_set.dev, "dev"), places)
    if dev[0].units:
        yield from _shared(_facts_table(ctx, case_set.golden, "golden"), dev, places)


class _Joined(NamedTuple):
    """Quotes folded and joined into one text, each padded by a space on both sides and
    followed by a NUL: one automaton pass finds every unit in every quote (no folded text
    holds a NUL, so no unit is found across two)."""

    text: str
    starts: list[int]  # where each quote's piece begins in ``text``
    owners: list[Quoted]  # whose quote each piece is


class _Facts(NamedTuple):
    """Some quotes' facts: each normalised fact unit with the places, among ``quotes``, of
    the quotes it comes from; a split's are a list of these (``_facts_table``'s parts)."""

    units: dict[str, list[int]]
    quotes: _Joined  # those quotes (each once), to search for another split's units


def _facts_from(units: Mapping[str, list[Quoted]], fold: Callable[[str], str]) -> _Facts:
    """``_facts_of``'s units by their quotes' places, each quote once (in the order the
    units name them), its text folded by ``fold``."""
    place: dict[tuple[str, int], int] = {}
    owners: list[Quoted] = []
    table: dict[str, list[int]] = {}
    for unit, quoted in units.items():
        at = []
        for one in quoted:
            key = one.key()
            if key not in place:
                place[key] = len(owners)
                owners.append(one)
            at.append(place[key])
        table[unit] = at
    starts, offset = [], 0
    folded = [fold(quoted.text) for quoted in owners]
    for text in folded:
        starts.append(offset)
        offset += len(text) + 3
    return _Facts(table, _Joined("".join([f" {text} \x00" for text in folded]), starts, owners))


def _few_facts(cases: list[Case]) -> list[_Facts]:
    """A focused run's own cases' facts, folded here: no cache of every quote decoded."""
    return [_facts_from(_facts_of(None, cases), normalise_input)]


def _units_index(
    facts: list[_Facts], words: set[str] | None
) -> PhraseIndex[tuple[str, list[Quoted], list[int]]]:
    """Every unit of ``facts`` (with ``words``, those all of whose words it holds), standing
    for (the unit, the quotes of its part, its places among them)."""
    entries = ((unit, part.quotes.owners, at) for part in facts for unit, at in part.units.items())
    return PhraseIndex(((entry[0], entry) for entry in entries), words)


def _quotes_of(
    found: tuple[tuple[str, list[Quoted], list[int]], ...],
) -> Iterator[tuple[Quoted, str]]:
    """(a quote, the unit) for every quote a match's units come from."""
    for unit, owners, places in found:
        for at in places:
            yield owners[at], unit


def _holding(units: list[_Facts], quotes: list[_Facts]) -> Iterator[tuple[Quoted, Quoted, str]]:
    """(a quote of ``quotes``, a quote of ``units``, the unit): every quote that holds a unit.
    A unit one of whose words no quote has cannot be in any: with many units (a split's),
    those are left out of the index, which costs a pass over every quote's words; a few (one
    changed case's) cost less to search for."""
    many = sum(len(part.units) for part in units) > _FEW_UNITS
    words = {word for part in quotes for word in part.quotes.text.split()} if many else None
    index = _units_index(units, words)
    if not index.size:
        return
    for part in quotes:
        joined = part.quotes
        for start, _end, found in index.find(joined.text, screen=False):
            quoted = joined.owners[bisect_right(joined.starts, start) - 1]
            for other, unit in _quotes_of(found):
                yield quoted, other, unit


_FACTS = "leakage-facts"
_FEW_UNITS = 64
_PARTS = 16  # a split's facts are kept in this many parts, by the case file's path


def _facts_table(ctx: Context, cases: list[Case], split: str) -> list[_Facts]:
    """``_facts_of(ctx, cases)`` (the cases of ``split``) and its quotes joined, kept in the
    cache: a commit that changes golden cases finds the dev set's facts there, and the other
    way round. One namespace a split, so that a commit of a golden case decodes the dev set's
    table only. The cases are kept in ``_PARTS`` parts by their path, each under the key of
    its own case files: a commit of a dev case after one of a golden case builds one part of
    the golden facts again, not all (9,000 quotes took about 0.1 s of that commit's 0.4 s).
    The parts are searched one by one, never merged: a unit's places are in its part. Parts
    no longer the set's are dropped from the cache once there are four (``take``'s ``only``)."""
    parts: list[list[Case]] = [[] for _ in range(_PARTS)]
    for case in cases:
        parts[zlib.crc32(case.path.encode()) % _PARTS].append(case)
    parts = [part for part in parts if part]
    keys = [_part_key(part) for part in parts]
    namespace = f"{_FACTS}-{split}"
    kept = ctx.cache.take(namespace, keys, _FACTS_SHAPE, only=True)  # no part left behind
    found = []
    for key, part in zip(keys, parts, strict=True):
        value = kept.get(key)
        facts = None if value is None else _facts_read(value, {case.path: case for case in part})
        if facts is None:
            facts = _facts_built(ctx, part, split)
            ctx.cache.put(namespace, key, _facts_stored(facts))
        found.append(facts)
    return found


def _part_key(cases: list[Case]) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update("".join([f"{case.path}\x00{case.digest}\x01" for case in cases]).encode())
    return h.hexdigest()


def _facts_built(ctx: Context, cases: list[Case], split: str) -> _Facts:
    return _facts_from(_facts_of(ctx, cases), lambda text: _folded(ctx, text, split)[0])


def _facts_stored(facts: _Facts) -> _Stored:
    """The facts as kept: the joined text, its quotes, and each unit's quotes by their place
    among them."""
    quotes = facts.quotes
    return (quotes.text, quotes.starts, [q.key() for q in quotes.owners], facts.units)


# The joined text, where each quote's piece starts, its quotes as (path, index), and each
# unit's quotes by their place among them: the types checked by the decoder, the rest by
# ``_facts_read``.
_Stored = tuple[str, list[int], list[tuple[str, int]], dict[str, list[int]]]
_FACTS_SHAPE = dict[str, _Stored]


def _facts_read(value: _Stored, by_path: Mapping[str, Case]) -> _Facts | None:
    """The cached facts, or None when they name a quote the set does not have."""
    text, starts, items, table = value
    owners = []
    for path, at in items:
        case = by_path.get(path)
        if case is None or not 0 <= at < case.support_count:
            return None
        owners.append(Quoted(path, at, case))
    if not _pieces_at(text, starts, len(owners)):
        return None
    places = table.values()  # a unit of no word (white space) is never found (PhraseIndex)
    if not all(places):
        return None
    if places and not 0 <= min(map(min, places)) <= max(map(max, places)) < len(owners):
        return None
    return _Facts(table, _Joined(text, starts, owners))


def _pieces_at(text: str, starts: list[int], count: int) -> bool:
    """Whether ``starts`` are where the ``count`` pieces of ``text`` begin (as ``_facts_from``
    makes them: each ends in a NUL, nothing after the last), so that every match maps back
    to the quote it is in."""
    if text.count("\x00") != count or len(starts) != count or (text and text[-1] != "\x00"):
        return False
    if count and starts[0] != 0:
        return False
    pairs = pairwise(starts)
    return all(last < at < len(text) and text[at - 1] == "\x00" for last, at in pairs)


def _shared_pair(places: _Places, mine: Quoted, theirs: Quoted, digest: str) -> Iterator[Finding]:
    fix = "a dev case that tests a golden fact lets prompt authors tune on it: test another fact"
    yield places.located(
        mine.case,
        ["support", mine.at, "quote"],
        "GC308",
        f"support quote {mine.at + 1} shares a sentence with support quote {theirs.at + 1} of "
        f"golden case {theirs.case.id} (sha256 {digest}); {fix}",
    )
    yield places.located(
        theirs.case,
        ["support", theirs.at, "quote"],
        "GC308",
        f"support quote {theirs.at + 1} shares a sentence with support quote {mine.at + 1} of "
        f"dev case {mine.case.id} (sha256 {digest}); {fix}",
    )
