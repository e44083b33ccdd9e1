"""GC1xx: each case file is well-formed YAML that matches ``schema/case.schema.json``.

Passes::

    id: ret-014                       # in cases/golden/ret-014.yaml
    question: how long do i have to ask for a credit
    expected_answer: 14 days
    support:
      - doc: returns-policy.md
        quote: A customer has 14 days from delivery to request a credit

Fails (``GC107 unknown key 'not_contain'; did you mean 'not_contains'?``)::

    expect:
      not_contain: ["30 days"]

| code | what |
|---|---|
| GC101 | YAML syntax error (line and column of the problem) |
| GC102 | duplicate key in a mapping |
| GC103 | anchor or alias |
| GC104 | custom tag |
| GC105 | more than one YAML document in the file |
| GC106 | not UTF-8, a byte-order mark, or a NUL byte (binary file) |
| GC107 | schema violation, at the offending key or value |
| GC108 | ``id`` is not the file's name without ``.yaml`` |
| GC109 | the same id in two files under ``cases/`` |
| GC110 | empty file |
| GC111 | merge-conflict markers |
| GC112 | file too large to be a case (over 1 MiB) |
| GC113 | cannot be read (permissions, not a regular file) |
| GC114 | a case file outside ``cases/golden/`` and ``cases/dev/`` |

Each file's own findings (all but GC109) are made once, when the engine parses the file
(``goldcase.loader.load_case_file``), and cached with it; this family reports them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from goldcase.model import Finding, Severity
from goldcase.text import clip

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "schema"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC101": ("error", "YAML syntax error"),
    "GC102": ("error", "duplicate key"),
    "GC103": ("error", "anchor or alias"),
    "GC104": ("error", "custom tag"),
    "GC105": ("error", "more than one YAML document"),
    "GC106": ("error", "not UTF-8, byte-order mark, or binary"),
    "GC107": ("error", "schema violation"),
    "GC108": ("error", "id differs from the file name"),
    "GC109": ("error", "one id in two files"),
    "GC110": ("error", "empty file"),
    "GC111": ("error", "merge-conflict markers"),
    "GC112": ("error", "file too large"),
    "GC113": ("error", "file cannot be read"),
    "GC114": ("error", "case file outside cases/golden and cases/dev"),
}


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    for case_file in case_set.files:
        yield from case_file.findings
    yield from _duplicate_ids(case_set)


OTHERS_SHOWN = 3  # files a GC109 names beside its own; the rest are counted


def _duplicate_ids(case_set: CaseSet) -> Iterator[Finding]:
    """GC109 on every file that shares an id, each naming the first ``OTHERS_SHOWN`` others
    and counting the rest (10,000 files of one id would be 10,000 lines of 10,000 names)."""
    first: dict[str, str] = {}  # id -> the first file that has it
    shared: dict[str, list[str]] = {}  # id -> every file that has it, when two or more do
    for case_file in case_set.files:
        data = case_file.data
        case_id = None if data is None else data.get("id")
        if isinstance(case_id, str):
            path = first.setdefault(case_id, case_file.path)
            if path != case_file.path:
                shared.setdefault(case_id, [path]).append(case_file.path)
    for case_id, paths in shared.items():
        for path in paths:
            shown = [p for p in paths[: OTHERS_SHOWN + 1] if p != path][:OTHERS_SHOWN]
            more = len(paths) - 1 - len(shown)
            others = ", ".join(shown) + (f" and {more:,} more files" if more else "")
            yield Finding(
                path,
                1,
                1,
                "GC109",
                "error",
                f"id {clip(repr(case_id))} is also used by {others}; ids are unique across cases/",
            )
