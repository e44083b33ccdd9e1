"""GC507, GC509: a second labeller's labels agree with the golden set, or say why not.

A second person labels a sample of golden cases (``labels/<labeller>/<id>.yaml``, drawn by
``goldcase label sample``; see docs/agreement.md). Where a finished label disagrees with its
case (answerable or not, or the expected answer), the case needs a ``resolution:``: the rule
that decides it, written down. A case in a slice listed in ``ambiguous_slices`` is not reported
on, so it needs none.

Passes (the label and the case agree)::

    # cases/golden/ret-014.yaml             # labels/second/ret-014.yaml
    id: ret-014                              id: ret-014
    answerable: true                         answerable: true
    expected_answer: 14 days                 expected_answer: 14 days

Fails (``GC507 labeller 'second' disagrees (answerable: case true, label false;
labels/second/ret-014.yaml); write the rule that decides it in resolution:, or move the case
to an ambiguous slice``, at the case's ``answerable`` key)::

    # labels/second/ret-014.yaml
    id: ret-014
    answerable: false

| code | severity | what |
|---|---|---|
| GC507 | error | a second labeller's label disagrees with the case, which has no resolution |
| GC509 | error | a label file under ``labels/`` is malformed (YAML, keys, types, unknown id) |
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from goldcase.labelling import labels as labelfiles
from goldcase.model import Finding, Severity

if TYPE_CHECKING:
    from goldcase.context import Context
    from goldcase.model import CaseSet

NAME = "labelling"
CODES: Mapping[str, tuple[Severity, str]] = {
    "GC507": ("error", "unresolved labeller disagreement"),
    "GC509": ("error", "malformed label file"),
}


def check(case_set: CaseSet, ctx: Context) -> Iterator[Finding]:
    if not labelfiles.label_paths(ctx.root):
        return  # no second labeller: the set's ids are not gathered for nothing
    by_id = case_set.by_id()
    known = {
        str(f.data["id"]) for f in case_set.files if f.data and isinstance(f.data.get("id"), str)
    }
    label_set = labelfiles.load_labels(ctx.root, known)
    yield from label_set.findings
    ambiguous = set(ctx.config.ambiguous_slices)
    for label in label_set.labels:
        case = by_id.get(label.case_id)
        if case is None or case.data.get("resolution") or case.slice in ambiguous:
            continue
        fields = labelfiles.differences(case, label)
        if fields:
            line, col = ctx.locate(case.path, [fields[0]], key=True)
            yield Finding(
                case.path,
                line,
                col,
                "GC507",
                "error",
                f"labeller {label.labeller!r} disagrees "
                f"({labelfiles.describe(case, label, fields)}; {label.path}); write the "
                "rule that decides it in resolution:, or move the case to an "
                "ambiguous slice",
            )
