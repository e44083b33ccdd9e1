"""Plain data: a case, a set of cases, a finding. No I/O here."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any, Literal

from msgspec import Struct, field

Severity = Literal["error", "warning"]
Split = Literal["golden", "dev"]
# Where a case file lives: a split of the set, or ``inbox`` for drafts (cases/inbox/: cases in
# the making, never scored, never golden, never locked).
Folder = Literal["golden", "dev", "inbox"]
INBOX: Folder = "inbox"


class Finding(Struct, frozen=True, order=True):
    """One problem at one place. ``path`` is relative to the repository root, POSIX style."""

    path: str
    line: int
    col: int
    code: str
    severity: Severity
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


class Support(Struct, frozen=True):
    doc: str
    quote: str


class Case(Struct):
    """A case that passed the schema. ``data`` is the mapping exactly as loaded."""

    path: str
    split: Folder
    data: Mapping[str, Any]
    digest: str = ""  # of the file's bytes: a cache key for checks that read one case
    hash: str = ""  # digest.case_hash of ``data`` when computed at parse time ("" when not)

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def question(self) -> str:
        return str(self.data["question"])

    @property
    def answerable(self) -> bool:
        return bool(self.data.get("answerable", True))

    @property
    def expected_answer(self) -> str | None:
        value = self.data.get("expected_answer")
        return None if value is None else str(value)

    @property
    def support(self) -> list[Support]:
        return [Support(str(s["doc"]), str(s["quote"])) for s in self.data.get("support") or ()]

    @property
    def support_count(self) -> int:
        """``len(support)``, without building the list."""
        return len(self.data.get("support") or ())

    def quote(self, at: int) -> str:
        """``support[at].quote``, without building the list: set-wide rules read one quote of
        each of thousands of cases."""
        return str((self.data.get("support") or ())[at]["quote"])

    @property
    def expect(self) -> Mapping[str, Any]:
        return self.data.get("expect") or {}

    @property
    def slice(self) -> str:
        return str(self.data.get("slice") or "default")

    @property
    def tags(self) -> list[str]:
        return [str(t) for t in self.data.get("tags") or ()]

    @property
    def source(self) -> str | None:
        value = self.data.get("source")
        return None if value is None else str(value)

    @property
    def derived_from(self) -> str | None:
        value = self.data.get("derived_from")
        return None if value is None else str(value)

    @property
    def false_premise(self) -> bool:
        return "false_premise" in self.tags


class CaseFile(Struct):
    """One file under ``cases/`` as read: its bytes' digest, the mapping (when it parsed), and
    the findings about the file itself (syntax, encoding, schema, id)."""

    path: str
    split: Folder | None
    digest: str
    data: dict[str, Any] | None
    findings: list[Finding] = field(default_factory=list)
    hash: str = ""  # digest.case_hash of ``data``, computed once when the file is parsed
    # The bytes, kept only for a file parsed in this run (never cached), so a check that reads
    # the text of new files does not read them from disk a second time.
    raw: bytes | None = None

    @property
    def valid(self) -> bool:
        if self.data is None:
            return False
        return not self.findings or all(f.severity != "error" for f in self.findings)


class CaseSet(Struct, dict=True):
    """Every case file under ``cases/``; ``cases`` holds the golden and dev ones that passed
    the schema, ``drafts`` the drafts in ``cases/inbox/`` that passed the draft schema. Built
    once and not changed after: the splits are taken apart once, when it is made (kept
    beside the fields, not among them: two sets of the same files are equal)."""

    files: list[CaseFile]
    cases: list[Case] = field(default_factory=list)
    drafts: list[Case] = field(default_factory=list)
    # The case files that are symbolic links (paths as in ``files``): the lock pins what a
    # link leads to, which the commit holding the link may not hold (goldcase lock --stage).
    links: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._parsed: list[Case] | None = None
        self._by_id: dict[str, Case] | None = None
        if not self.cases and not self.drafts:
            cases, drafts = self.cases, self.drafts
            for f in self.files:
                if f.data is not None and f.split is not None and f.valid:
                    made = Case(f.path, f.split, f.data, f.digest, f.hash)
                    (drafts if f.split == INBOX else cases).append(made)
        self._golden = [c for c in self.cases if c.split == "golden"]
        self._dev = [c for c in self.cases if c.split == "dev"]

    @property
    def parsed(self) -> list[Case]:
        """Every golden or dev case that parsed to a mapping, schema errors or not: checks
        that can say something useful about a half-valid case (quotes, say) read these
        defensively. Drafts are not among them. Built once; a valid case is the same object
        as in ``cases``."""
        if self._parsed is None:
            made = {id(c.data): c for c in self.cases}
            self._parsed = [
                made.get(id(f.data)) or Case(f.path, f.split, f.data, f.digest, f.hash)
                for f in self.files
                if f.data is not None
                and f.split is not None
                and f.split != INBOX
                and isinstance(f.data.get("id"), str)
            ]
        return self._parsed

    def parsed_at(self, paths: Collection[str]) -> list[Case]:
        """``parsed``, of the files at ``paths`` only (a focused run's), without building it
        for the whole set."""
        if self._parsed is not None:
            return [c for c in self._parsed if c.path in paths]
        made = {id(c.data): c for c in self.cases if c.path in paths}
        return [
            made.get(id(f.data)) or Case(f.path, f.split, f.data, f.digest, f.hash)
            for f in self.files
            if f.path in paths
            and f.data is not None
            and f.split is not None
            and f.split != INBOX
            and isinstance(f.data.get("id"), str)
        ]

    def split(self, name: Folder) -> list[Case]:
        """The cases of one split, in a list of the caller's own."""
        if name == INBOX:
            return list(self.drafts)
        return list(self._golden if name == "golden" else self._dev)

    @property
    def golden(self) -> list[Case]:
        return self.split("golden")

    @property
    def dev(self) -> list[Case]:
        return self.split("dev")

    def by_id(self) -> dict[str, Case]:
        """Each case by its id (the last of two that share one), in a dict of the caller's own."""
        if self._by_id is None:
            self._by_id = {c.id: c for c in self.cases}
        return dict(self._by_id)

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)


def count_severities(findings: Iterable[Finding]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for f in findings:
        if f.severity == "error":
            errors += 1
        else:
            warnings += 1
    return errors, warnings
