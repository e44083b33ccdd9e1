"""Reading a results file (JSONL) and validating every line before anything is scored.

Each non-blank line is one JSON object that must match ``schema/results.schema.json``. Lines
are checked by the schema compiled into a Python function (``schemacheck``), because
jsonschema is too slow for 100,000 lines; a line it refuses is handed to jsonschema for the
message. Problems are collected, not raised one by one, so a user
sees all of them (up to ``MAX_SHOWN``) in one go; bad lines past the first ``MAX_SHOWN`` are
counted, not explained or kept. A file whose decoding could take more memory than
``jsonmemory.BUDGET`` is refused before it is decoded.
"""

from __future__ import annotations

import difflib
import heapq
import itertools
import json
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec
from msgspec import Struct

from goldcase.aside import aside, can_fork
from goldcase.errors import GoldcaseError
from goldcase.jsonmemory import BUDGET, WORST_EXPANSION, refuse_costly
from goldcase.safeio import line_too_long, longest_line, read_named
from goldcase.schemacheck import checker
from goldcase.schemas import path_name, validator
from goldcase.text import HALF_SURROGATE, HALF_SURROGATE_ESCAPE, clip, half_surrogate

SCHEMA = "results.schema.json"
MAX_SHOWN = 20


def valid_line(data: Any) -> bool:
    """True exactly when a line matches the schema: the schema file is the one definition.
    Compiled when first asked (``schemacheck.checker`` keeps it), not on import: ``check``
    imports this module through the labels and reads no result line."""
    return checker(SCHEMA)(data)


class Problem(Struct, frozen=True):
    """One reason a results file (or the set it is scored against) cannot be scored."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class Unlisted(Problem, frozen=True):
    """The bad lines of a file past its first ``MAX_SHOWN``: ``count`` of them, the first on
    ``line``; counted, neither explained nor kept (a file of a million broken lines must not
    be held as a million messages)."""

    count: int


def _weight(problem: Problem) -> int:
    return problem.count if isinstance(problem, Unlisted) else 1


class InvalidInput(GoldcaseError):
    """Validation failed: every problem is listed (at most ``MAX_SHOWN``), nothing is scored."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        shown = [str(p) for p in self.problems[:MAX_SHOWN]]
        total = sum(map(_weight, self.problems))
        hidden = total - sum(map(_weight, self.problems[:MAX_SHOWN]))
        if hidden:
            shown.append(
                f"{hidden:,} more error{'s' if hidden > 1 else ''} not shown "
                f"({total:,} in all); nothing was scored"
            )
        # the CLI prefixes the first line with "error: "; the others get it here
        super().__init__("\nerror: ".join(shown))


# Everything of a result line that the checks read (``expect.Checks.failed``): the answer,
# scope and fact, and each citation's id and text. Two lines equal in these fail the same
# checks, whatever their confidence, trial, latency or trace.
Answered = tuple[Any, Any, Any, tuple[tuple[Any, Any], ...] | None]


def answered(data: Mapping[str, Any]) -> Answered:
    """The part of a result line its checks read, as a key (see ``Answered``)."""
    cited = data.get("citations")
    return (
        data.get("answer"),
        data.get("scope"),
        data.get("fact"),
        None if not cited else tuple([(c.get("id"), c.get("text")) for c in cited]),
    )


class Result:
    """One valid result line: its 1-based line number, the object as read, and what grading
    reads of it. A plain slotted class, not a dataclass: a run has 100,000 of them and their
    construction shows.

    What grading reads is taken here, in file order, while the line's objects are still in
    the processor's cache: grading visits the lines case by case, which in a shuffled or
    trial-by-trial file is all over memory, and reading the same fields there took six
    times as long (0.18 s against 0.03 s for 52,000 answers)."""

    __slots__ = ("answered", "confidence", "data", "id", "line", "outcome", "traced", "trial")

    def __init__(
        self, line: int, data: Mapping[str, Any], shared: dict[Answered, Answered] | None = None
    ) -> None:
        self.line = line
        self.data = data
        self.id: str = data["id"]
        trial = data.get("trial")
        self.trial: int | None = None if trial is None else int(trial)
        self.outcome: str = data["outcome"]
        confidence = data.get("confidence")
        self.confidence: float | None = None if confidence is None else float(confidence)
        # the key the case's trials share a check under (``CaseGrader.verdicts``), answers
        # only; one object for equal keys of a file (``shared``), whose parts grading then
        # finds in the processor's cache rather than all over memory
        key = answered(data) if self.outcome == "answer" else None
        if key is not None and shared is not None:
            key = shared.setdefault(key, key)
        self.answered: Answered | None = key
        # looked up while the line is at hand, so the report need not visit every line again
        self.traced: bool = "retrieved" in data or "context" in data or "tool_calls" in data

    def __repr__(self) -> str:
        return f"Result(line={self.line}, data={self.data!r})"


def read_raw(path: Path, name: str) -> bytes:
    """The results file's bytes; a missing or unreadable file, or one with a line past
    ``MAX_LINE_BYTES`` (whose parse would take many times its size), is a ``GoldcaseError``."""
    raw = read_named(path, name, "the results file (JSONL)")
    too_long = longest_line(raw)
    if too_long is not None:
        raise line_too_long(name, *too_long)
    return raw


def parse_results(raw: bytes, name: str) -> tuple[list[Result], list[Problem]]:
    """Every valid line and every problem, repeated lines included (by line number)."""
    results, problems = parse_lines(raw, name)
    repeated = index_results(results, name)[1]
    return results, sorted(problems + repeated, key=lambda p: p.line)


class Ahead(Protocol):
    """Work on result lines before they are known to be valid (see ``parse_lines``)."""

    def unchecked(self, lines: list[Result], until: Callable[[], bool]) -> None:
        """Work on ``lines`` until ``until()`` (the child's answer is in)."""

    def dropped(self) -> None:
        """Those lines will not be kept: let go of them and of the work on them."""


def parse_lines(
    raw: bytes,
    name: str,
    meanwhile: Callable[[], object] | None = None,
    ahead: Ahead | None = None,
) -> tuple[list[Result], list[Problem]]:
    """Every line that is a valid result on its own, and a problem for every other line (the
    first ``MAX_SHOWN``, then one ``Unlisted``); a ``GoldcaseError`` before anything is
    decoded when that could take more memory than goldcase allows (``jsonmemory``).
    ``meanwhile``: the caller's own work (``score`` reads the set's view), done here first,
    while a forked child checks the lines of a large file (``_checked_aside``). Without it
    nothing is forked: ``goldcase run`` reads its ``--out`` file back beside the system
    under test, which may run threads of its own (a fork copies only the calling thread, and
    a lock another one holds would stay held in the child). ``ahead``: work on the lines
    before they are known to be valid, while the child checks them: ``unchecked`` is called
    with the lines built unchecked and a function that says when the child has answered
    (``score`` grades them). The list it is given is the one returned exactly when those
    lines are the ones kept (and its work can count); any other answer returns other lists,
    and ``dropped`` is called first, before the file is read again."""
    refuse_costly(raw, name, TOO_COSTLY)
    # An escaped surrogate may be half a pair, which JSON decodes and no file can hold: such a
    # file is read line by line, where a lone one is a problem of its line.
    halved = HALF_SURROGATE_ESCAPE.search(raw) is not None
    whole = None
    if meanwhile is not None and not halved and _worth_a_child(raw):
        verdict = _checked_aside(raw, meanwhile, ahead)
        if isinstance(verdict, list):
            return verdict, []
        if verdict is None:  # no answer: read and checked here, as without a child
            whole = _decode_whole(raw)
    else:
        if meanwhile is not None:
            meanwhile()
        whole = None if halved else _decode_whole(raw)
    if whole is not None:  # the common case: every line one object, no blank lines
        valid_one = checker(SCHEMA)  # the compiled function itself: called once a line
        shared: dict[Answered, Answered] = {}
        valid = [Result(n, d, shared) for n, d in enumerate(whole, 1) if valid_one(d)]
        if len(valid) == len(whole):
            return valid, []
        # read again line by line: two copies of the objects (the shared keys hold their
        # answers) would be the peak
        del whole, valid, shared
    text, problem = _decode(raw, name)
    if problem is not None:
        return [], [problem]
    return _parse_each(text, name)


# A file this large has its lines checked by a forked child (``_checked_aside``); a smaller one
# is checked in a few milliseconds, about what a fork costs. A larger one than
# ``CHECK_ASIDE_TO`` is checked here: the child decodes the file too, and two decodings of
# a file that size stay within goldcase's one memory budget at the worst expansion.
CHECK_ASIDE_FROM = 256 * 1024
CHECK_ASIDE_TO = BUDGET // (2 * WORST_EXPANSION)  # 32 MiB
_VALID = b"valid"
# the child's answer when a line is not valid: the file is then read line by line at once
_INVALID = b"invalid"


def _worth_a_child(raw: bytes) -> bool:
    return CHECK_ASIDE_FROM <= len(raw) <= CHECK_ASIDE_TO and can_fork()


def _checked_aside(
    raw: bytes, meanwhile: Callable[[], object], ahead: Ahead | None = None
) -> list[Result] | bytes | None:
    """The lines of a file read whole, checked by a forked child (``aside``) while this
    process does ``meanwhile`` and builds a ``Result`` of each line unchecked: on two cores
    the schema's check (a fifth of a score of 10,000 x 10) costs no time. The child runs
    the same reading and the same check (``_all_valid``), on the same bytes, as this process
    would: its "valid" is the answer this process would have reached, and then the lines
    built here are the ones it would have kept (and the caller's ``ahead`` work on them,
    done until the answer is in, counts). ``_INVALID`` when a line is not valid (the
    file is then read line by line, by the caller, as without a child); None when the child
    gave no answer, or a line makes no ``Result`` (read and checked here)."""
    verdict = aside(lambda: _VALID if _all_valid(raw) else _INVALID)
    try:
        meanwhile()
        guessed = _unchecked(raw)
        if guessed is not None and ahead is not None:
            ahead.unchecked(guessed, verdict.ready)
    except BaseException:  # an error or a Ctrl-C: the answer is not wanted, nor waited for
        verdict.cancel()
        raise
    answer = verdict()
    if answer == _VALID:
        return guessed
    if ahead is not None:  # the lines are read again: the work on these must not double the peak
        ahead.dropped()
    return _INVALID if answer == _INVALID else None


def _all_valid(raw: bytes) -> bool:
    """Whether the file reads whole (``_decode_whole``) and every line matches the schema:
    what ``parse_lines`` asks before it keeps every line of a file read whole."""
    whole = _decode_whole(raw)
    return whole is not None and all(map(checker(SCHEMA), whole))


def _unchecked(raw: bytes) -> list[Result] | None:
    """A ``Result`` of each line of the file read whole, no line checked (and no key found
    lost: ``_all_valid`` proves both); None when the file does not read whole or a line
    makes no ``Result``: a valid line always makes one, so whatever building it raises (a
    line that is a list, citations that are not objects, a confidence no number can be made
    of), that line is not valid."""
    whole = _decode_array(raw)
    if whole is None:
        return None
    shared: dict[Answered, Answered] = {}
    try:
        return [Result(n, d, shared) for n, d in enumerate(whole, 1)]
    except Exception:  # a line the schema refuses: the child says so
        return None


TOO_COSTLY = (
    "split the results file and score the parts, or score fewer samples (a long answer costs "
    "little; many small values, objects and lists on a line cost much)"
)


def _decode_whole(raw: bytes) -> list[Any] | None:
    """The file as one JSON array, a comma before each newline: one call into msgspec's C
    decoder, and no list of line strings. None when that is not the same as reading line by
    line: a blank line, a line that is not one complete value, or two values on one line
    (which would shift every later line's number) all make it fail or miscount; a value
    cannot run over two lines, since a newline stays in the text, where a string may not
    hold it and a comma may not stand before it inside a value. So does a byte that is not
    UTF-8 (``_decode`` says where), a number the line-by-line reader takes otherwise (NaN,
    out of range), a key given twice on a line (``_keys_lost``), and a line nested nearly
    as deep as the line-by-line reader allows: the array sits inside ``_MARGIN`` more, so a
    line near that limit is always judged by that reader, whatever the other lines hold.
    The bytes are decoded as they are: two copies of the text in memory, not four."""
    objects = _decode_array(raw)
    return None if objects is None or _keys_lost(raw, objects) else objects


def _decode_array(raw: bytes) -> list[Any] | None:
    """``_decode_whole`` but for its keys: the lines as msgspec reads them, a key given twice
    keeping its last value."""
    start = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    end = len(raw)
    while end > start and raw[end - 1] == 0x0A:  # the trailing newlines, as rstrip("\n")
        end -= 1
    if end == start or raw.startswith(b"\n", start) or raw.find(b"\n\n", start, end) >= 0:
        return None
    newlines = raw.count(b"\n", start, end)
    body = memoryview(raw.replace(b"\n", b",\n"))[start : end + newlines]
    joined = b"".join((_OPEN, body, _CLOSE))
    del body
    try:
        objects = _WHOLE.decode(joined)
    except (msgspec.DecodeError, RecursionError):
        return None
    del joined  # let go before the keys are counted: the peak of a large file
    for _ in range(_MARGIN):
        if not isinstance(objects, list) or len(objects) != 1:
            return None
        objects = objects[0]
    if not isinstance(objects, list) or len(objects) != newlines + 1:
        return None
    return objects


# Arrays around the file's: msgspec reads a few levels deeper than the line-by-line decoder
# (997 against 995 from one call), which reads each line from two calls further down.
_MARGIN = 16
_OPEN, _CLOSE = b"[" * (_MARGIN + 1), b"]" * (_MARGIN + 1)


def _keys_lost(raw: bytes, objects: list[Any]) -> bool:
    """True when decoding may have dropped a key given twice in one object, which msgspec
    does silently (the last one kept) and ``_DECODER`` refuses, naming it. Outside its
    strings, a JSON text holds a colon for each key and nowhere else; inside them, each colon
    decodes to one colon, and only ``\\u003a`` makes one from other bytes. So, when no string
    spells it so, the file's colons are its keys and its strings' colons, and the objects,
    encoded again, hold as many exactly when no key was lost: a lost key takes its colon, and
    its value's, with it."""
    if raw.find(b"\\u003a") >= 0 or raw.find(b"\\u003A") >= 0:
        return True
    try:
        encoded = _ENCODER.encode(objects)
    except RecursionError:  # the line-by-line reader says which line, and why
        return True
    return raw.count(b":") != encoded.count(b":")


def _parse_each(text: str, name: str) -> tuple[list[Result], list[Problem]]:
    """Line by line: blank lines skipped, and a problem for each of the first ``MAX_SHOWN``
    lines that are not valid; the rest counted in one ``Unlisted``."""
    results: list[Result] = []
    shared: dict[Answered, Answered] = {}
    problems: list[Problem] = []
    unlisted, first_unlisted = 0, 0
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        data = _decode_one(line)
        halved = HALF_SURROGATE_ESCAPE.search(line.encode()) and half_surrogate(data)
        if not halved and valid_line(data):
            results.append(Result(number, data, shared))
            continue
        data = None  # a bad line is decoded again for its message: one copy at a time
        if len(problems) >= MAX_SHOWN:
            unlisted, first_unlisted = unlisted + 1, first_unlisted or number
        else:
            message = HALF_SURROGATE if halved else _line_problem(line)
            problems.append(Problem(name, number, message))
    if unlisted:
        more = f"and {unlisted:,} more lines from here on that are not valid results"
        problems.append(Unlisted(name, first_unlisted, more, unlisted))
    return results, problems


def _decode_one(line: str) -> Any:
    try:
        return _DECODER.decode(line)
    except (ValueError, RecursionError):
        return None


def _decode(raw: bytes, name: str) -> tuple[str, Problem | None]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return "", Problem(
            name, line, f"byte 0x{raw[exc.start]:02x} is not UTF-8; write the results file as UTF-8"
        )


class _DuplicateKey(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)
# the whole file at once: twice the speed of ``_DECODER``, whose hook is called for every
# object; what it reads otherwise, it refuses (``_decode_whole``)
_WHOLE = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()


def _line_problem(line: str) -> str:
    """Why a line the schema's predicate refused is not a valid result."""
    try:
        data = _DECODER.decode(line)
    except _DuplicateKey as exc:
        return f"field {clip(repr(str(exc)))} appears twice on the line; keep one"
    except json.JSONDecodeError as exc:
        return (
            f"malformed JSON at column {exc.colno}: {exc.msg}; "
            "each line must be one complete JSON object"
        )
    except (ValueError, RecursionError) as exc:
        return f"malformed JSON: {exc}; each line must be one complete JSON object"
    if not isinstance(data, dict):
        kinds: dict[type, str] = {list: "a list", str: "a string", bool: "true or false"}
        kind = kinds.get(type(data), "null" if data is None else "a number")
        return f"line holds {kind}, not an object; write one JSON object per line"
    try:
        return explain(data)
    except RecursionError:  # decoded, but too deep for jsonschema to walk (meta is free-form)
        return NESTED_TOO_DEEPLY


NESTED_TOO_DEEPLY = (
    "values nested too deeply to check against results.schema.json; nest meta's values "
    "fewer levels deep"
)


def index_results(
    results: Sequence[Result], name: str
) -> tuple[dict[str, list[Result]], list[Problem]]:
    """Result lines by case id (in file order), and the lines that repeat a case (or one
    trial of it) or mix lines with and without a trial number: the first ``MAX_SHOWN`` of
    them by line, the rest counted in one ``Unlisted``. Repeated lines are left out."""
    by_id: dict[str, list[Result]] = {}
    for result in results:
        lines = by_id.get(result.id)
        if lines is None:
            by_id[result.id] = [result]
        else:
            lines.append(result)
    repeats: list[_Repeat] = []
    count = 0
    for case_id, lines in by_id.items():
        if len(lines) > 1 and not _distinct_trials(lines):
            by_id[case_id], dropped, left_out = _drop_repeats(lines)
            count += left_out
            # the first MAX_SHOWN + 1 by line, so the first one counted is known
            repeats = heapq.nsmallest(MAX_SHOWN + 1, itertools.chain(repeats, dropped))
    problems = [Problem(name, repeat[0], _repeat_problem(*repeat[1:])) for repeat in repeats]
    if count > MAX_SHOWN:
        del problems[MAX_SHOWN:]
        rest = count - MAX_SHOWN
        more = f"and {rest:,} more lines from here on that repeat a case or one of its trials"
        problems.append(Unlisted(name, repeats[MAX_SHOWN][0], more, rest))
    return by_id, problems


_TRIAL = operator.attrgetter("trial")

# a line left out: its number, the line, and the earlier line it repeats (the case's first
# line when it mixes lines with and without a trial number); lines are unique, so tuples
# compare on the number alone
_Repeat = tuple[int, Result, Result, bool]


def _distinct_trials(lines: Sequence[Result]) -> bool:
    trials = set(map(_TRIAL, lines))
    return None not in trials and len(trials) == len(lines)


def _drop_repeats(lines: Sequence[Result]) -> tuple[list[Result], list[_Repeat], int]:
    """The lines kept (the first of each trial, all with or all without a trial number, as
    the case's first line), the first ``MAX_SHOWN`` + 1 left out (in file order: the only
    ones the case can have among the file's first), and how many were left out: one
    look-up a line, however many trials, and a million repeats not held."""
    first = lines[0]
    numbered = first.trial is not None
    seen: dict[int | None, Result] = {first.trial: first}
    kept: list[Result] = [first]
    dropped: list[_Repeat] = []
    left_out = 0
    for result in itertools.islice(lines, 1, None):
        trial = result.trial
        earlier = seen.get(trial)
        if earlier is None and (trial is not None) == numbered:
            seen[trial] = result
            kept.append(result)
            continue
        left_out += 1
        if left_out > MAX_SHOWN + 1:
            continue
        if earlier is None:
            dropped.append((result.line, result, first, False))
        else:
            dropped.append((result.line, result, earlier, True))
    return kept, dropped, left_out


def _repeat_problem(result: Result, earlier: Result, same_trial: bool) -> str:
    trial = result.trial
    if same_trial:
        numbered = "" if trial is None else f" trial {clip(str(trial))}"
        what = f"case {clip(repr(result.id))}{numbered}"
        fix = (
            "keep one line per case, or number repeated runs with trial"
            if trial is None
            else "give each trial of a case its own number"
        )
        return f"second result for {what} (first on line {earlier.line}); {fix}"
    return (
        f"case {clip(repr(result.id))} has lines with and without trial (line {earlier.line}); "
        "give every line of a repeated case a trial number"
    )


# --- messages for lines the schema's predicate refused -------------------------------------


def explain(data: Mapping[str, Any]) -> str:
    """One message for everything wrong with a line, from the schema's own errors (the first
    ``MAX_ERRORS`` of them, and at most ``MAX_MESSAGES`` messages: a line of ten thousand
    unknown fields is not ten thousand messages)."""
    first = itertools.islice(validator(SCHEMA).iter_errors(data), MAX_ERRORS)
    errors = sorted(first, key=lambda e: list(e.absolute_path))
    messages: list[str] = []
    for error in errors:
        for message in _messages(error):
            if message not in messages:
                messages.append(message)
            if len(messages) == MAX_MESSAGES:
                return "; ".join(messages) + "; and more"
    if not messages:  # pragma: no cover - a NaN, which jsonschema takes for a number
        return "does not match results.schema.json"
    return "; ".join(messages)


MAX_ERRORS = 100
MAX_MESSAGES = 10

_TYPE_NAMES = {
    "string": "a string",
    "array": "a list",
    "object": "an object",
    "integer": "a whole number",
    "number": "a number",
    "null": "null",
}


def _messages(error: Any) -> Iterator[str]:
    path = list(error.absolute_path)
    name = path_name(path, "the line")
    kind = error.validator
    if kind == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in known:
                yield _unknown_field(str(key), known, top=not path)
    elif kind == "required":
        for key in error.validator_value:
            if key not in error.instance:
                yield f"missing field {key!r}" + ("" if not path else f" in {name}")
    elif kind == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        yield f"{name} is {clip(json.dumps(error.instance), 40)}; expected one of {allowed}"
    elif kind == "type":
        wanted = error.validator_value
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        expected = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
        yield f"{name} should be {expected}, got {clip(json.dumps(error.instance), 40)}"
    elif kind in ("minimum", "maximum") and name == "confidence":
        yield f"confidence is {clip(str(error.instance))}; expected a number from 0 to 1"
    elif kind == "minimum":
        yield f"{name} is {clip(str(error.instance))}; expected at least {error.validator_value}"
    elif kind == "minLength":
        yield f"{name} is empty"
    elif kind == "anyOf" and not path:
        yield "an answer needs 'answer' (the text shown) or 'fact' (a structured key)"
    elif kind == "minProperties":
        yield f"{name} is empty; a citation needs an id or a text"
    elif kind == "oneOf":
        yield f"{name} should be {{doc, text}} or {{doc, start, end}}"
    else:
        yield f"{name}: {clip(error.message, 100)}"


def _unknown_field(key: str, known: list[str], *, top: bool) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"known fields: {', '.join(known)}"
    extra = " (fields of your own go under meta)" if top else ""
    return f"unknown field {clip(repr(key))}; {hint}{extra}"
