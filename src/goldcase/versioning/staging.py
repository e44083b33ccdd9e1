"""Bring golden.version and golden.lock in step with the set, and add them to the commit
being made (``goldcase lock --stage``, and ``goldcase check --lock`` for the one-process
hook): a commit that changes the set goes through in one attempt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from msgspec import Struct

from goldcase import gitview
from goldcase.context import Context
from goldcase.model import CaseSet
from goldcase.versioning import locking


class Locked(Struct, frozen=True):
    """What locking did: the lines to tell the user, the exit status (0 nothing to change,
    or the files rewritten and staged; 1 rewritten and to be added by hand, or staged in a
    merge that must be completed), and the set it read."""

    lines: list[str]
    status: int
    case_set: CaseSet


def lock(
    ctx: Context,
    *,
    stage: bool,
    refresh: Callable[[Path], list[str]],
    imported: Sequence[str] = (),
) -> Locked:
    """Recompute golden.lock and move golden.version when the set or corpus changed; with
    ``stage``, add the rewritten files to the commit being made. ``refresh`` rewrites the
    repository's copies of goldcase's schemas after an upgrade (the command passes
    ``authoring.editor_schema.refresh_copies``) and names the files it wrote. ``imported``:
    the check families run next on the set it reads (``check --lock``)."""
    outcome, case_set = locking.lock_repository(ctx, imported)
    lines = locking.describe(outcome)
    written = list(outcome.wrote)
    refreshed = refresh(ctx.root)
    if refreshed:
        written.extend(refreshed)
        lines.append(
            f"wrote {' and '.join(refreshed)} (the installed goldcase's schemas); add to the "
            f"commit: git add {' '.join(refreshed)}"
        )
    if not written:
        return Locked(lines, 0, case_set)
    if not stage:
        return Locked(lines, 1, case_set)
    problem = locking.stage_written(ctx.config, written, _golden_links(case_set))
    if problem is not None:
        return Locked([*lines, problem], 1, case_set)
    kept = [line for line in lines if not line.startswith("wrote ")]
    if gitview.in_merge_hook():  # git merge does not take what its hook stages: stop once
        note = "git merge does not take files a hook stages: complete it with git commit --no-edit"
        return Locked([*kept, f"staged {' and '.join(written)}; {note}"], 1, case_set)
    return Locked([*kept, f"staged {' and '.join(written)} in this commit"], 0, case_set)


def _golden_links(case_set: CaseSet) -> list[str]:
    """The golden case files (those the lock pins) that are links."""
    if not case_set.links:
        return []
    links = set(case_set.links)
    return [case.path for case in case_set.golden if case.path in links]
