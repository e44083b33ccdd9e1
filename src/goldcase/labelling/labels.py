"""Second-labeller label files: ``labels/<labeller>/<id>.yaml``.

A label file carries the same ``answerable``, ``expected_answer`` and ``expect`` fields as the
case with that id, filled in by a second person who has not seen the case file. ``question``
is there for the labeller to read and is not compared; ``notes`` is free text. A label whose
``answerable`` is still blank is pending: not compared, not a finding.

Every label file is read through ``goldcase.loader`` and validated here; anything wrong with
one (YAML, unknown keys, wrong types, an id that names no case) is a GC509 finding, never a
crash.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from msgspec import Struct, field

from goldcase.config import LABELS as LABELS  # the folder; also imported from here
from goldcase.errors import GoldcaseError
from goldcase.loader import Locator, parse_case
from goldcase.model import Case, Finding
from goldcase.safeio import is_inside, is_named, read_inside, shown_path
from goldcase.schemas import validator
from goldcase.scoring.expect import DEFAULT_CHECK
from goldcase.scoring.outcomes import text_failures
from goldcase.scoring.split import rank_key
from goldcase.text import clip, normalise_answer
from goldcase.writer import atomic_write_text

CODE = "GC509"
_KEYS = ("id", "question", "answerable", "expected_answer", "expect", "notes")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")


class Label(Struct, frozen=True):
    path: str
    labeller: str
    case_id: str
    answerable: bool | None
    expected_answer: str | None
    expect: Mapping[str, Any] | None

    @property
    def pending(self) -> bool:
        return self.answerable is None


class LabelSet(Struct):
    labels: list[Label] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def labellers(self) -> list[str]:
        return sorted({label.labeller for label in self.labels})


def label_paths(root: Path) -> list[str]:
    """Every ``*.yaml`` / ``*.yml`` file under ``labels/``, and every link to a folder there,
    relative to the root, sorted."""
    files, links = _listed(root)
    return sorted([*files, *links])


def _listed(root: Path) -> tuple[list[str], list[str]]:
    """The label files under ``labels/``, and the links to folders there (a labeller's folder,
    or a name a label file would have): not followed, as the labelling page refuses them (one
    leading out would have files outside the repository read as labels), and reported."""
    top = root / LABELS
    if not top.is_dir():
        return [], []
    files, links = [], []
    for dirpath, dirnames, filenames in os.walk(top):
        folder = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if name.endswith((".yaml", ".yml")) and not name.startswith("."):
                files.append((folder / name).relative_to(root).as_posix())
        # os.walk lists a link to a folder among the folders and does not enter it
        links += [
            (folder / d).relative_to(root).as_posix() for d in dirnames if (folder / d).is_symlink()
        ]
    return sorted(files), sorted(links)


def load_labels(root: Path, case_ids: Iterable[str], labeller: str | None = None) -> LabelSet:
    """Read and validate every label file (of one labeller, when given); a link to a folder
    where label files would be is a finding, not passed over."""
    known = set(case_ids)
    result = LabelSet()
    files, links = _listed(root)
    for rel in files:
        parts = rel.split("/")
        if labeller is not None and (len(parts) != 3 or parts[1] != labeller):
            continue
        raw = _read(root, rel) if is_named(rel) else None  # else not read: said, by name
        label, findings = read_label(rel, raw, known)
        result.findings.extend(findings)
        if label is not None:
            result.labels.append(label)
    for rel in links:
        if labeller is None or rel.split("/")[1] == labeller:
            result.findings.append(_finding(shown_path(rel), (1, 1), _LINKED))
    return result


MAX_LABEL_BYTES = 1024 * 1024  # a label file is a few hundred bytes


def _read(root: Path, rel: str) -> bytes | None:
    """The label file's bytes: inside the repository (a link out is not followed), capped."""
    try:
        return read_inside(root, rel, MAX_LABEL_BYTES)
    except OSError:
        return None


def _finding(path: str, where: tuple[int, int], message: str) -> Finding:
    return Finding(path, where[0], where[1], CODE, "error", message)


_MISPLACED = (
    "label files live in labels/<labeller>/<id>.yaml; move this file into a labeller's folder"
)
_UNREADABLE = (
    "cannot read the label file (permissions, not a regular file, over a megabyte, or a link "
    "that leads outside the repository)"
)
_LINKED = (
    "a link to a folder, which goldcase does not follow, so no label file behind it is read; "
    "label files live in labels/<labeller>/<id>.yaml, folders and files of their own: replace "
    "the link with what it leads to"
)
_UNNAMED = (
    "the label file's path is not UTF-8, so no report can name it (shown with the byte "
    "escaped): rename the file or its labeller's folder"
)


def read_label(rel: str, raw: bytes | None, known: set[str]) -> tuple[Label | None, list[Finding]]:
    """One label file: the label (None when it cannot be used) and what is wrong with it."""
    if not is_named(rel):  # the file's or the labeller's name: no report could hold it
        return None, [_finding(shown_path(rel), (1, 1), _UNNAMED)]
    parts = rel.split("/")
    if len(parts) != 3 or not _NAME.match(parts[1]):
        return None, [_finding(rel, (1, 1), _MISPLACED)]
    if raw is None:
        return None, [_finding(rel, (1, 1), _UNREADABLE)]
    data, parse_findings = parse_case(rel, raw)
    if parse_findings or data is None:
        return None, [
            _finding(rel, (f.line, f.col), f"label file: {f.message}") for f in parse_findings
        ]
    if not isinstance(data, dict):
        message = (
            "a label file should be a mapping with id, answerable and expected_answer, "
            f"got {type(data).__name__}"
        )
        return None, [_finding(rel, (1, 1), message)]
    findings = list(_problems(rel, raw, data, known))
    if findings:
        return None, findings
    expect = data.get("expect") or None
    label = Label(
        rel, parts[1], data["id"], data.get("answerable"), data.get("expected_answer"), expect
    )
    return label, []


def _problems(rel: str, raw: bytes, data: dict[str, Any], known: set[str]) -> Iterator[Finding]:
    locator = Locator(raw)
    for key in data:
        if key not in _KEYS:
            yield _finding(
                rel,
                locator.key([key]),
                f"unknown key {key!r} in a label file; known keys: {', '.join(_KEYS)}",
            )
    yield from _id_problems(rel, data, known, locator)
    yield from _value_problems(rel, data, locator)


def _id_problems(
    rel: str, data: dict[str, Any], known: set[str], locator: Locator
) -> Iterator[Finding]:
    case_id, stem = data.get("id"), PurePosixPath(rel).stem
    if not isinstance(case_id, str):
        yield _finding(
            rel,
            locator.key(["id"]) if "id" in data else (1, 1),
            f"a label file needs id: {stem} (the case it labels)",
        )
    elif case_id != stem:
        yield _finding(
            rel, locator.value(["id"]), f"id {case_id!r} differs from the file name {stem!r}"
        )
    elif case_id not in known:
        yield _finding(
            rel,
            locator.value(["id"]),
            f"no case has id {case_id!r}; delete the label or restore the case",
        )


def _value_problems(rel: str, data: dict[str, Any], locator: Locator) -> Iterator[Finding]:
    answerable, answer = data.get("answerable"), data.get("expected_answer")
    if answerable is not None and not isinstance(answerable, bool):
        yield _finding(
            rel,
            locator.value(["answerable"]),
            f"answerable should be true or false (or blank while pending), "
            f"got {clip(repr(answerable), 40)}",
        )
    if answer is not None and (not isinstance(answer, str) or not answer.strip()):
        yield _finding(
            rel,
            locator.value(["expected_answer"]),
            "expected_answer should be a short text (put it in quotes), "
            f"got {clip(repr(answer), 40)}",
        )
    elif answerable is True and answer is None:
        yield _finding(
            rel,
            locator.key(["answerable"]),
            "answerable is true but expected_answer is blank; write the answer",
        )
    elif answerable is False and answer is not None:
        yield _finding(
            rel,
            locator.key(["expected_answer"]),
            "expected_answer should be blank when answerable is false",
        )
    for where, message in _expect_problems(data.get("expect")):
        yield _finding(rel, locator.value(where), message)


def _expect_problems(expect: Any) -> Iterator[tuple[list[str | int], str]]:
    if expect is None:
        return
    pseudo = {"id": "label", "question": "label", "answerable": False, "expect": expect}
    for error in validator("case.schema.json").iter_errors(pseudo):
        where = list(error.absolute_path)
        yield where, f"{'.'.join(str(w) for w in where)}: {clip(error.message, 120)}"


# -- comparing a label with its case ------------------------------------------------------------


def _canon(value: Any) -> Any:
    if isinstance(value, str):
        return normalise_answer(value)
    if isinstance(value, Mapping):
        return {str(k): _canon(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_canon(v) for v in value), key=repr)
    return value


def answer_failures(case: Case, label: Label) -> list[str] | None:
    """The checks the label's expected answer fails when graded as a system's answer on this
    case ([] when it passes); None when either says unanswerable.

    Equal normalised answers agree. Otherwise the label's answer must carry what the case
    asks of any right answer: its text checks (``lead``, ``contains``, ``not_contains``) when
    the case declares one, else the case's normalised expected answer as a run of whole words.
    So "24 months" agrees with "24 months from purchase" when the case only asks for "24
    months", and a bare "yes" does not when the case also asks for "7 days"."""
    if not case.answerable or not label.answerable:
        return None
    answer = label.expected_answer or ""
    if normalise_answer(case.expected_answer or "") == normalise_answer(answer):
        return []
    return list(text_failures(case, answer))


def answers_agree(case: Case, label: Label) -> bool | None:
    """Whether the label's expected answer passes the case (see ``answer_failures``); None
    when either says unanswerable."""
    failures = answer_failures(case, label)
    return None if failures is None else not failures


def differences(case: Case, label: Label) -> list[str]:
    """The fields on which a finished label disagrees with its case ([] when it agrees)."""
    if label.pending:
        return []
    out: list[str] = []
    if label.answerable != case.answerable:
        out.append("answerable")
    elif answers_agree(case, label) is False:
        out.append("expected_answer")
    if label.expect is not None and _canon(label.expect) != _canon(dict(case.expect)):
        out.append("expect")
    return out


def describe(case: Case, label: Label, fields: list[str]) -> str:
    """``answerable: case true, label false`` style, for messages and reports."""
    parts = []
    for name in fields:
        if name == "answerable":
            parts.append(
                f"answerable: case {_yaml(case.answerable)}, label {_yaml(label.answerable)}"
            )
        elif name == "expected_answer":
            parts.append(
                f"expected_answer: case {clip(repr(case.expected_answer), 40)}, "
                f"label {clip(repr(label.expected_answer), 40)} ({_why(case, label)})"
            )
        else:
            parts.append("expect differs")
    return "; ".join(parts)


def _why(case: Case, label: Label) -> str:
    failed = answer_failures(case, label) or []
    if failed == [DEFAULT_CHECK]:
        return "the case's answer is not in the label's"
    return "the label's answer fails the case's " + ", ".join(failed)


def _yaml(value: bool | None) -> str:
    return "blank" if value is None else str(value).lower()


# -- drawing a sample to label ------------------------------------------------------------------


def stratum(case: Case) -> tuple[str, str]:
    return ("answerable" if case.answerable else "unanswerable", case.slice)


def allocate(sizes: Mapping[tuple[str, str], int], n: int) -> dict[tuple[str, str], int]:
    """How many items each stratum gets: one each while ``n`` allows, the rest in proportion to
    what is left of each stratum (largest remainder; ties by stratum name)."""
    strata = sorted(sizes)
    if n >= sum(sizes.values()):
        return dict(sizes)
    quota = dict.fromkeys(strata, 0)
    for s in strata[:n]:
        quota[s] = 1
    left = n - sum(quota.values())
    spare = {s: sizes[s] - quota[s] for s in strata}
    total = sum(spare.values())
    if left <= 0 or total == 0:
        return quota
    shares = {s: left * spare[s] / total for s in strata}
    for s in strata:
        quota[s] += int(shares[s])
    order = sorted(strata, key=lambda s: (-(shares[s] - int(shares[s])), s))
    for s in order[: n - sum(quota.values())]:
        quota[s] += 1
    return quota


def draw_sample(cases: list[Case], n: int, seed: str) -> list[Case]:
    """A stratified sample (answerable x slice), chosen by keyed hash rank within each stratum."""
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        groups.setdefault(stratum(case), []).append(case)
    quota = allocate({s: len(g) for s, g in groups.items()}, n)
    chosen: list[Case] = []
    for s, group in groups.items():
        ranked = sorted(group, key=lambda c: rank_key(c.id, seed))
        chosen.extend(ranked[: quota[s]])
    return sorted(chosen, key=lambda c: c.id)


def blank_label(case: Case, seed: str) -> str:
    """The text of a blank label file for ``case``."""
    question = json.dumps(case.question, ensure_ascii=False)
    return (
        f"# Second label for case {case.id} (sample seed {seed}).\n"
        "# Answer from the corpus documents, without opening the case file. Fill in the\n"
        "# fields below, then run: goldcase agreement\n"
        f"id: {case.id}\n"
        f"question: {question}  # to read; not compared\n"
        "# true when the corpus answers the question; false when the right answer is to abstain\n"
        "answerable:\n"
        "# the short answer (a number, a date, a name, a short phrase); blank when unanswerable\n"
        "expected_answer:\n"
        "# optional: partial checks as in a case's expect block (contains, not_contains, lead)\n"
        "expect:\n"
    )


def labeller_folder(root: Path, labeller: str, refused: str) -> Path:
    """``labels/<labeller>``, refused (``refused`` says what that means for the command) when
    it, or ``labels``, is a link: one leading out would have files read or written outside
    the repository, and one leading inside (to ``cases/golden``) would have case files
    listed, edited and written as label files."""
    folder = root / LABELS / labeller
    real = Path(os.path.realpath(root)) / LABELS / labeller
    if os.path.lexists(folder) and Path(os.path.realpath(folder)) != real:
        where = "outside the repository" if not is_inside(root, folder.relative_to(root)) else ""
        raise GoldcaseError(
            f"{LABELS}/{labeller} is a link{' that leads ' + where if where else ''} (to "
            f"{os.path.realpath(folder)}); label files live in a folder of their own, "
            f"{refused}: replace the link with a folder"
        )
    return folder


def write_sample(root: Path, cases: list[Case], labeller: str, seed: str) -> list[Path]:
    """Write one blank label file per case; refuse (and write nothing) if any exists."""
    if not _NAME.match(labeller):
        raise GoldcaseError(
            f"labeller name {labeller!r} may hold only letters, digits, '.', '_' "
            "and '-', and must start with a letter or digit"
        )
    folder = labeller_folder(root, labeller, "nothing written")
    targets = [folder / f"{case.id}.yaml" for case in cases]
    existing = [t for t in targets if t.exists() or t.with_suffix(".yml").exists()]
    if existing:
        names = ", ".join(t.relative_to(root).as_posix() for t in existing[:5])
        more = f" and {len(existing) - 5} more" if len(existing) > 5 else ""
        raise GoldcaseError(
            f"label files exist already: {names}{more}; nothing written "
            "(use another --labeller or --seed, or delete them)"
        )
    for case, target in zip(cases, targets, strict=True):
        atomic_write_text(target, blank_label(case, seed))
    return targets
