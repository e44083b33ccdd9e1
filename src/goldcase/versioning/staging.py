"""Bring golden.version and golden.lock in step with the set, and add them to the commit
being made (``goldcase lock --stage``, and ``goldcase check --lock`` for the one-process
hook): a commit that changes the set goes through in one attempt."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
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


@contextlib.contextmanager
def locked(
    ctx: Context,
    *,
    stage: bool,
    refresh: Callable[[Path], list[str]],
    imported: Sequence[str] = (),
    touched: Sequence[str] | None = None,
) -> Iterator[Locked]:
    """Recompute golden.lock and move golden.version when the set or corpus changed; with
    ``stage``, add the rewritten files to the commit being made. ``refresh`` rewrites the
    repository's copies of goldcase's schemas after an upgrade (the command passes
    ``authoring.editor_schema.refresh_copies``) and names the files it wrote. ``imported``:
    the check families run next on the set it reads (``check --lock``). ``touched``: the
    files the commit stages, when known.

    git's two steps run beside goldcase's own work, on the other core: the question of what
    the commit holds while the lock is computed and written (asked once the set is read,
    when a file ``touched`` may change the lock, or none are known), and ``git add`` while
    the block runs (``check --lock`` checks the set meanwhile). Leaving the block waits for
    ``git add``, and raises if it failed."""
    early = stage and _may_change_lock(ctx, touched)
    with contextlib.ExitStack() as beside:
        asked: list[gitview.Pending] = []

        def ask() -> None:
            if early:
                asked.append(beside.enter_context(locking.gaps_asked(ctx.config)))

        outcome, case_set = locking.lock_repository(ctx, imported, ask, refuse_skipped=not stage)
        lines = locking.describe(outcome)
        written = list(outcome.wrote)
        refreshed = refresh(ctx.root)
        if refreshed:
            written.extend(refreshed)
            lines.append(
                f"wrote {' and '.join(refreshed)} (the installed goldcase's schemas); add to "
                f"the commit: git add {' '.join(refreshed)}"
            )
        if not written or not stage:
            yield Locked(lines, 1 if written else 0, case_set)
            return
        links = locking.golden_links(case_set)
        problem = locking.unstageable(ctx.config, links, asked[0] if asked else None)
    if problem is not None:
        yield Locked([*lines, problem], 1, case_set)
        return
    kept = [line for line in lines if not line.startswith("wrote ")]
    with gitview.staging_started(ctx.root, written) as adding:
        if gitview.in_merge_hook():  # git merge does not take what its hook stages: stop
            note = (
                "git merge does not take files a hook stages: complete it with git commit --no-edit"
            )
            yield Locked([*kept, f"staged {' and '.join(written)}; {note}"], 1, case_set)
        else:
            yield Locked([*kept, f"staged {' and '.join(written)} in this commit"], 0, case_set)
        gitview.staged(adding, ctx.root, written)


def _may_change_lock(ctx: Context, touched: Sequence[str] | None) -> bool:
    """Whether the commit staging ``touched`` may change what golden.lock pins: a golden
    case or a corpus document among them, or files not known. A commit of dev cases alone
    asks git only once the lock turns out to need rewriting (a lock left stale before)."""
    if touched is None:
        return True
    golden = f"{Path(ctx.config.cases).as_posix().rstrip('/')}/golden/"
    corpus = f"{Path(ctx.config.corpus).as_posix().rstrip('/')}/"
    return any(rel.startswith((golden, corpus)) for rel in touched)
