"""Where the repository is and what its ``goldcase.toml`` (or ``[tool.goldcase]``) says.

Every key has a default, so an empty or missing config file is a valid one. Unknown keys are
errors: a typo in the config must not silently switch a check off.
"""

from __future__ import annotations

import os
import re
import tomllib
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from goldcase.errors import GoldcaseError
from goldcase.patterns import MAX_PROGRAM, program_size, refusal
from goldcase.safeio import GIT_FOLDER, Outside, is_inside, not_a_file, read_inside
from goldcase.text import clip

LABELS = "labels"  # second labellers' files (labelling.labels reads them)

CONFIG_NAME = "goldcase.toml"
SEVERITIES = ("error", "warning", "off")


class SliceConfig(Struct, frozen=True):
    floor: int | None = None  # None: the set-wide default floor
    traffic: float | None = None  # share of production traffic, 0..1


class SplitConfig(Struct, frozen=True):
    seed: int = 0
    fraction: float = 0.4
    by_time: bool = False  # GC513: golden cases asked after every dev case


class LeakageConfig(Struct, frozen=True):
    fewshot: tuple[str, ...] = ("prompts/**",)
    near_threshold: float = 0.7  # word Jaccard; chosen on SQuAD/XQuAD/COVID-QA, docs/leakage.md
    num_perm: int = 128
    shingle: int = 1  # word sets: a one-word edit of a ten-word question keeps Jaccard 0.8
    ngram: int = 13


class CompositionConfig(Struct, frozen=True):
    slice_floor: int = 20
    synthetic_cap: float = 0.2
    unanswerable_floor: float = 0.25
    answer_max_words: int = 12


# The fields of a trace (docs/triage.md), each with the default name it has in a trace log.
TRACE_FIELDS = ("question", "answer", "time", "failed_check", "cap_hit", "thumbs_down", "id")


class TriageConfig(Struct, frozen=True):
    n: int = 50  # drafts a run draws
    failed_share: float = 0.8  # of them, the share drawn from flagged traces
    seconds_per_item: int = 60  # the first pass: read a trace and label it
    seconds_per_disagreement: int = 150  # the second pass: each expected disagreement
    pass_rate: float = 0.9  # the prompt's pass rate on random traffic
    # trace field -> its name in the log (a dotted path reaches into nested objects)
    fields: Mapping[str, str] = field(default_factory=lambda: {f: f for f in TRACE_FIELDS})


# An answer given as text abstains when one of these matches it (case-insensitive, searched
# anywhere): ``goldcase run`` for a response without an outcome, ``score --from`` for
# promptfoo and Inspect outputs, and the exported promptfoo and Inspect graders.
ABSTAIN_PATTERNS = (
    r"^\W*(?:sorry\W+)?i (?:do not|don't|don’t|dont) know\b",
    r"\b(?:can ?not|can't|can’t|am unable to|am not able to) answer\b",
    r"\b(?:documents?|sources?|context) (?:do not|does not|don't|doesn't|don’t|doesn’t) "
    r"(?:say|mention|contain|cover|state)\b",
)


class RunConfig(Struct, frozen=True):
    abstain_patterns: tuple[str, ...] = ABSTAIN_PATTERNS


class Config(Struct, frozen=True):
    root: Path
    source: Path | None = None  # the file the config came from, if any
    cases: str = "cases"
    corpus: str = "corpus"
    prompts: str = "prompts"
    private: bool = False
    ambiguous_slices: tuple[str, ...] = ()
    slices: Mapping[str, SliceConfig] = field(default_factory=dict)
    split: SplitConfig = SplitConfig()
    leakage: LeakageConfig = LeakageConfig()
    composition: CompositionConfig = CompositionConfig()
    triage: TriageConfig = TriageConfig()
    run: RunConfig = RunConfig()
    severity: Mapping[str, str] = field(default_factory=dict)  # code -> error|warning|off

    @property
    def cases_dir(self) -> Path:
        return self.root / self.cases

    @property
    def inbox_dir(self) -> Path:
        """Drafts: cases in the making (goldcase triage writes them, goldcase promote moves
        them into the set)."""
        return self.cases_dir / "inbox"

    @property
    def corpus_dir(self) -> Path:
        return self.root / self.corpus

    @property
    def prompts_dir(self) -> Path:
        return self.root / self.prompts

    @property
    def version_file(self) -> Path:
        return self.root / "golden.version"

    @property
    def lock_file(self) -> Path:
        return self.root / "golden.lock"

    def slice_floor(self, name: str) -> int:
        own = self.slices.get(name)
        if own is not None and own.floor is not None:
            return own.floor
        return self.composition.slice_floor


def find_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` that holds a golden set."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if os.path.lexists(folder / CONFIG_NAME) or _has_tool_table(folder / "pyproject.toml"):
            return folder
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / "golden.version").is_file():
            return folder
    if (start / "cases").is_dir():
        return start
    raise GoldcaseError(
        f"no golden-set repository at or above {start}: run goldcase init, or pass --repo DIR"
    )


def _has_tool_table(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        return _tool_table(path) is not None
    except GoldcaseError:
        return False


def _tool_table(path: Path) -> Any:
    """``[tool.goldcase]`` of a pyproject.toml, or None; a ``tool`` that is not a table (a
    hand edit gone wrong) has no goldcase table."""
    tool = _read_toml(path).get("tool")
    return tool.get("goldcase") if isinstance(tool, dict) else None


MAX_CONFIG_BYTES = 16 * 1024 * 1024


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        # through the guarded reader: a config that is a FIFO, a device or a link out of the
        # repository is refused, not waited on
        return tomllib.loads(read_inside(path.parent, path.name, MAX_CONFIG_BYTES).decode())
    except OSError as exc:
        if isinstance(exc, Outside):
            why, fix = exc.strerror, "replace the link with the file itself"
        else:
            why = not_a_file(path) or exc.strerror or str(exc)
            fix = "make it a TOML file" + (
                ", or remove it to take the defaults" if path.name == CONFIG_NAME else ""
            )
        raise GoldcaseError(f"{path}: cannot read the config: {why}; {fix}") from None
    except UnicodeDecodeError as exc:
        raise GoldcaseError(f"{path}: cannot read the config: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise GoldcaseError(f"{path}: invalid TOML: {exc}") from exc
    except RecursionError:  # tomllib reads nested arrays and inline tables by recursion
        raise GoldcaseError(
            f"{path}: invalid TOML: nested too deeply (arrays or inline tables inside one another)"
        ) from None
    except ValueError:  # int() refuses over 4,300 digits, an error tomllib lets through
        raise GoldcaseError(
            f"{path}: invalid TOML: a number of more than 4,300 digits; no setting takes one"
        ) from None


def load_config(root: Path) -> Config:
    """Read ``goldcase.toml`` or ``[tool.goldcase]`` in pyproject.toml under ``root``."""
    root = root.resolve()
    if not root.is_dir():
        raise GoldcaseError(f"{root} is not a folder")
    return _confined(_load(root))


def _load(root: Path) -> Config:
    # there, whatever it is: a FIFO, a folder or a broken link in its place is an error, not
    # the defaults taken silently (another split, seed and threshold than the team's)
    own = root / CONFIG_NAME
    if os.path.lexists(own):
        return _parse(root, own, _read_toml(own))
    pyproject = root / "pyproject.toml"
    if os.path.lexists(pyproject):
        table = _tool_table(pyproject)
        if table is not None:
            if not isinstance(table, dict):
                raise GoldcaseError(
                    f"{pyproject.name}: [tool.goldcase] should be a table, "
                    f"got {type(table).__name__}"
                )
            return _parse(root, pyproject, table)
    return Config(root=root)


def _confined(config: Config) -> Config:
    """``config``, once every folder goldcase reads or writes in is found inside the
    repository. git commits a link to a folder as a link: a ``corpus`` leading to
    ``../../.aws`` would have its files read (and a passage of one shown beside a quote not
    found), a ``cases/inbox`` leading anywhere would have drafts written there."""
    root = config.root
    cases = config.cases_dir
    for folder in (
        cases,
        *(cases / split for split in ("golden", "dev", "inbox")),
        config.corpus_dir,
        config.prompts_dir,
        root / LABELS,
    ):
        if os.path.lexists(folder) and not is_inside(root, folder.relative_to(root)):
            rel = folder.relative_to(root).as_posix()
            real = os.path.realpath(folder)
            under = real.startswith(os.path.join(os.path.realpath(root), ""))
            where = "into git's own folder" if under else "outside the repository"
            raise GoldcaseError(
                f"{rel} is a link that leads {where} (to {real}); goldcase reads and writes "
                f"only inside it: replace the link with the folder itself"
            )
    return config


_TOP = {
    "cases": str,
    "corpus": str,
    "prompts": str,
    "private": bool,
    "ambiguous_slices": list,
    "slices": dict,
    "split": dict,
    "leakage": dict,
    "composition": dict,
    "triage": dict,
    "run": dict,
    "severity": dict,
}


def _parse(root: Path, source: Path, raw: Mapping[str, Any]) -> Config:
    where = source.name if source.name == CONFIG_NAME else f"{source.name} [tool.goldcase]"
    _check_keys(raw, _TOP, where)
    for key in ("cases", "corpus", "prompts"):
        if key in raw:
            _check_relative(raw[key], f"{where}: {key}")
    severity = dict(raw.get("severity", {}))
    for code, level in severity.items():
        if level not in SEVERITIES:
            raise GoldcaseError(
                f"{where}: severity.{_shown(code)} is {_quoted(level)}; expected one of "
                f"{', '.join(SEVERITIES)}"
            )
    config = Config(
        root=root,
        source=source,
        cases=raw.get("cases", "cases"),
        corpus=raw.get("corpus", "corpus"),
        prompts=raw.get("prompts", "prompts"),
        private=raw.get("private", False),
        ambiguous_slices=tuple(
            _strings(raw.get("ambiguous_slices", []), where, "ambiguous_slices")
        ),
        slices=_slices(raw.get("slices", {}), where),
        split=_section(SplitConfig, raw.get("split", {}), where, "split"),
        leakage=_section(LeakageConfig, raw.get("leakage", {}), where, "leakage"),
        composition=_section(CompositionConfig, raw.get("composition", {}), where, "composition"),
        triage=_triage(raw.get("triage", {}), where),
        run=_section(RunConfig, raw.get("run", {}), where, "run"),
        severity=severity,
    )
    _check_values(config, where)
    return config


# (low, high, low is allowed): a value of the right type can still make no sense (num_perm 0
# stops the near-duplicate index, fewshot "../**" walks the whole disk).
_RANGES: dict[str, tuple[float, float, bool]] = {
    "split.fraction": (0.0, 1.0, False),
    "leakage.near_threshold": (0.0, 1.0, False),
    "leakage.num_perm": (1, 4096, True),
    "leakage.shingle": (1, 100, True),
    "leakage.ngram": (1, 1000, True),
    "composition.slice_floor": (0, 10**9, True),
    "composition.synthetic_cap": (0.0, 1.0, True),
    "composition.unanswerable_floor": (0.0, 1.0, True),
    "composition.answer_max_words": (1, 10**6, True),
    "triage.n": (1, 100_000, True),
    "triage.failed_share": (0.0, 1.0, True),
    "triage.seconds_per_item": (1, 86_400, True),
    "triage.seconds_per_disagreement": (0, 86_400, True),
    "triage.pass_rate": (0.0, 1.0, True),
}


def _check_values(config: Config, where: str) -> None:
    for name, (low, high, closed) in _RANGES.items():
        section, key = name.split(".")
        value = getattr(getattr(config, section), key)
        if not (low <= value <= high and (closed or value != low)):  # NaN fails too
            bound = "from" if closed else "above"
            raise GoldcaseError(
                f"{where}: {name} is {_quoted(value)}; expected a value {bound} {low} up to {high}"
            )
    for pattern in config.leakage.fewshot:
        if not isinstance(pattern, str) or not pattern:
            raise GoldcaseError(f"{where}: leakage.fewshot should be a list of glob patterns")
        _check_relative(pattern, f"{where}: leakage.fewshot")
    _check_patterns(config.run.abstain_patterns, f"{where}: run.abstain_patterns")
    for name, table in config.slices.items():
        if table.floor is not None and table.floor < 0:
            raise GoldcaseError(f"{where}: slices.{_shown(name)}.floor should be 0 or more")


# Constructs Python reads and JavaScript does not (or reads otherwise): the patterns also go,
# as written, into the promptfoo export's assertions.
_PYTHON_ONLY = re.compile(r"\(\?P|\(\?#|\(\?[aiLmsux-]+[:)]|\\[AZ]")


_REPEAT_BRACES = re.compile(r"\{(\d+)(,(\d*))?\}")


def nested_repeat(pattern: str) -> bool:
    """True when a repeated group holds a repeat or an alternation (``(a+)+``, ``(a|aa)*``,
    ``(\\w+\\s?){2,}``): the shape on which a backtracking engine, Python's and
    JavaScript's alike, can take time exponential in the text's length."""
    holds: list[bool] = []  # per open group: it holds a repeat or an alternation
    closed = False  # the atom just read is a group that holds one
    i = 0
    while i < len(pattern):
        char, step = pattern[i], 1
        if char in "*+?{":
            braces = _REPEAT_BRACES.match(pattern, i) if char == "{" else None
            if char == "{" and braces is None:
                closed = False  # a literal brace
            else:
                step = braces.end() - i if braces else 1
                if closed and _repeats(char, braces):
                    return True
                if holds:
                    holds[-1] = True
                step += pattern[i + step : i + step + 1] == "?"  # lazy
                closed = False
        elif char == "(":
            holds.append(False)
            step = _group_prefix(pattern, i)
            closed = False
        elif char == ")" and holds:
            closed = holds.pop()
            if closed and holds:
                holds[-1] = True
        else:
            if char == "|" and holds:
                holds[-1] = True
            step = _atom_length(pattern, i)
            closed = False
        i += step
    return False


def _repeats(char: str, braces: re.Match[str] | None) -> bool:
    if braces is None:
        return char != "?"
    high = braces[3] if braces[2] else braces[1]
    return high == "" or int(high) > 1


def _group_prefix(pattern: str, i: int) -> int:
    """The length of ``(``, ``(?:``, ``(?=``, ``(?<=``, ``(?<name>``, …"""
    if pattern[i + 1 : i + 2] != "?":
        return 1
    rest = pattern[i + 2 : i + 4]
    if rest[:1] in (":", "=", "!"):
        return 3
    if rest in ("<=", "<!"):
        return 4
    end = pattern.find(">", i)
    return end - i + 1 if rest[:1] == "<" and end > 0 else 2


def _atom_length(pattern: str, i: int) -> int:
    """An escape's two characters, a character class's whole length, else one."""
    if pattern[i] == "\\":
        return 2
    if pattern[i] != "[":
        return 1
    j = i + 1 + (pattern[i + 1 : i + 2] == "^")
    j += pattern[j : j + 1] == "]"
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j - i + 1


def _check_patterns(patterns: tuple[str, ...], where: str) -> None:
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern:
            raise GoldcaseError(f"{where} should be a list of non-empty regular expressions")
        _check_pattern(pattern, where)
    size = program_size(patterns)
    if size > MAX_PROGRAM:
        raise GoldcaseError(
            f"{where}: the patterns compile to {size} RE2 instructions, over {MAX_PROGRAM} (at "
            "worst the time to search an answer is its length times this size); shorten them, "
            "lower their repeat counts ([a-z]{30} counts its class 30 times) or drop one"
        )


def _check_pattern(pattern: str, where: str) -> None:
    try:
        with warnings.catch_warnings():
            # "possible nested set" ([[, --, && in a class): syntax each engine reads its way
            warnings.simplefilter("error", FutureWarning)
            re.compile(pattern)
        read_otherwise = _PYTHON_ONLY.search(pattern) is not None or _read_otherwise(pattern)
    except FutureWarning:
        read_otherwise = True
    except re.error as exc:
        message = f"{where}: {_quoted(pattern)} is not a regular expression: {exc}"
        raise GoldcaseError(message) from None
    if nested_repeat(pattern):
        raise GoldcaseError(
            f"{where}: {_quoted(pattern)} repeats a group that itself repeats or alternates "
            "((a+)+, (a|aa)*): on some answers matching it takes exponential time; repeat "
            "a character class instead ([ab]+)"
        )
    if read_otherwise:
        raise GoldcaseError(
            f"{where}: {_quoted(pattern)} uses syntax JavaScript reads otherwise ((?P, (?#, inline "
            "flags, \\A, \\Z, \\a, a class that starts with ] or holds [ or [:alpha:]); write "
            "it in the syntax both share (matching is already case-insensitive; \\] and \\[ "
            "for brackets)"
        )
    reason = refusal((pattern,))
    if reason is not None:
        raise GoldcaseError(
            f"{where}: {_quoted(pattern)} cannot be searched in time linear in the answer (RE2: "
            f"{reason}); write it without backreferences (\\1) or lookarounds ((?=, (?!, "
            "(?<=, (?<!), a \\u escape as the character itself, repeat counts up to 1000"
        )


def _read_otherwise(pattern: str) -> bool:
    """True when ``pattern`` holds a class or an escape RE2 (or Python) and JavaScript read
    differently: ``\\a`` (a bell, or the letter a), a class that starts with ``]`` (a
    bracket, or an empty class), a POSIX class ``[[:alpha:]]`` (letters, or the characters
    ``[:ahlp``)."""
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":
            step = _atom_length(pattern, i)
            body = pattern[i + 1 : i + step]
            if body.startswith(("]", "^]")) or _POSIX_CLASS.search(body) or _bell(body):
                return True
        else:
            step = 2 if pattern[i] == "\\" else 1
            if pattern[i : i + 2] == "\\a":
                return True
        i += step
    return False


def _bell(text: str) -> bool:
    escape = text.find("\\")
    while escape >= 0:
        if text[escape + 1 : escape + 2] == "a":
            return True
        escape = text.find("\\", escape + 2)
    return False


_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")


def _check_keys(raw: Mapping[str, Any], known: Mapping[str, type], where: str) -> None:
    for key, value in raw.items():
        if key not in known:
            raise GoldcaseError(
                f"{where}: unknown key {_quoted(key)}; known keys: {', '.join(sorted(known))}"
            )
        expected = known[key]
        ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            raise GoldcaseError(
                f"{where}: {key} should be {expected.__name__}, got {type(value).__name__}"
            )


def _check_relative(value: str, where: str) -> None:
    path = Path(value)
    if path.is_absolute() or ".." in path.parts:
        raise GoldcaseError(f"{where} must be a folder inside the repository, got {_quoted(value)}")
    if GIT_FOLDER in (part.casefold() for part in path.parts):
        raise GoldcaseError(
            f"{where} = {_quoted(value)} is in git's own folder, which holds the clone's config "
            "(and its credentials), never the repository's files: name a folder of the repository"
        )


def _strings(value: list[Any], where: str, key: str) -> list[str]:
    if not all(isinstance(v, str) for v in value):
        raise GoldcaseError(f"{where}: {key} should be a list of strings")
    return list(value)


def _slices(raw: Mapping[str, Any], where: str) -> dict[str, SliceConfig]:
    out: dict[str, SliceConfig] = {}
    for name, table in raw.items():
        if not isinstance(table, dict):
            raise GoldcaseError(f"{where}: slices.{_shown(name)} should be a table")
        out[name] = _section(SliceConfig, table, where, f"slices.{_shown(name)}")
        traffic = out[name].traffic
        if traffic is not None and not 0 <= traffic <= 1:
            raise GoldcaseError(f"{where}: slices.{_shown(name)}.traffic should be between 0 and 1")
    return out


_FIELD_PATH = re.compile(r"^[^.\s]+(?:\.[^.\s]+)*$")


def _triage(raw: Mapping[str, Any], where: str) -> TriageConfig:
    """``[triage]``, with its ``[triage.fields]`` table: where each trace field is in a log."""
    rest = {k: v for k, v in raw.items() if k != "fields"}
    config: TriageConfig = _section(TriageConfig, rest, where, "triage")
    given = raw.get("fields", {})
    if not isinstance(given, dict):
        raise GoldcaseError(f"{where}: triage.fields should be a table")
    names = dict(config.fields)
    for key, value in given.items():
        if key not in TRACE_FIELDS:
            raise GoldcaseError(
                f"{where} [triage.fields]: unknown key {_quoted(key)}; known keys: "
                f"{', '.join(TRACE_FIELDS)}"
            )
        if not isinstance(value, str) or not _FIELD_PATH.match(value):
            raise GoldcaseError(
                f"{where}: triage.fields.{key} should be a field name or a dotted path "
                f"(inputs.question), got {_quoted(value)}"
            )
        names[key] = value
    return replace(config, fields=names)


def _section(cls: type[Any], raw: Mapping[str, Any], where: str, name: str) -> Any:
    known: dict[str, type] = {}
    for key in cls.__struct_fields__:
        annotation = str(cls.__annotations__[key])  # as written: the module's annotations are text
        if "tuple" in annotation:
            known[key] = list
        elif "bool" in annotation:
            known[key] = bool
        elif "float" in annotation:
            known[key] = float
        elif "int" in annotation:
            known[key] = int
        else:
            known[key] = str
    _check_keys(raw, known, f"{where} [{name}]")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    return cls(**values)


def _quoted(value: Any) -> str:
    """A value from the config as a message quotes it: its repr, cut at 80 characters (a
    number of 400 digits, a key of a megabyte)."""
    return clip(repr(value))


def _shown(name: Any) -> str:
    """A name from the config (a table's key) inside a dotted path, cut at 40 characters."""
    return clip(str(name), 40)
