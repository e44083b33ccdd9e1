"""Keep ``golden.version`` and ``golden.lock`` in step with the golden set and the corpus.

``verify`` compares the files on disk with the lock (the GC4xx findings, shared by
``goldcase check`` and ``goldcase lock --check``); ``update`` rewrites the lock and bumps the
version when the set or the corpus changed. ``update`` holds an exclusive ``flock`` on the
repository's folder from the moment it reads until it has written both files, so two runs
at once are serialised: the second sees the first one's lock and has nothing left to do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

from goldcase import gitview
from goldcase.cache import Cache
from goldcase.config import Config
from goldcase.context import Context
from goldcase.engine import CASE_SUFFIXES, load_case_set
from goldcase.errors import GoldcaseError
from goldcase.loader import case_hash
from goldcase.model import Case, CaseSet, Finding
from goldcase.output import plain
from goldcase.repolock import serialised
from goldcase.safeio import (
    Outside,
    TooLarge,
    inside,
    read_inside,
    shown_path,
    stat_signature,
)
from goldcase.text import clip
from goldcase.versioning import lockfile
from goldcase.versioning.lockfile import Changes, Lock, LockError
from goldcase.versioning.merge import merge_versions
from goldcase.versioning.version import (
    conflict_sides,
    highest,
    next_version,
    read_version,
    read_version_text,
    version_key,
)
from goldcase.writer import atomic_write_text


class OnDisk(Struct, frozen=True):
    """golden.version and golden.lock as found."""

    version: str | None
    version_problem: str | None
    lock: Lock | None
    lock_text: str | None  # None: no golden.lock
    lock_problem: LockError | None
    settled: tuple[str, str] | None = None  # a conflicted golden.version: (sides, resolution)
    lock_signature: list[int] | None = None  # golden.lock's stat signature, taken before its bytes


def read_on_disk(config: Config, cache: Cache | None = None) -> OnDisk:
    """golden.version and golden.lock; with ``cache``, as ``read_lock`` reads the lock."""
    version, version_problem, settled = None, None, None
    try:
        version = read_version(config)
    except GoldcaseError as exc:
        version_problem = exc.message
        settled = _settle_conflict(config)
        if settled is not None:
            version_problem = (
                f"golden.version holds merge-conflict markers ({settled[0]}); "
                f"run goldcase lock to settle it at {settled[1]}"
            )
    text, lock, problem, signature = read_lock(config, cache)
    return OnDisk(version, version_problem, lock, text, problem, settled, signature)


def read_lock(
    config: Config, cache: Cache | None = None
) -> tuple[str | None, Lock | None, LockError | None, list[int] | None]:
    """golden.lock's text (None: no lock), the lock read from it, or why it cannot be, and
    the file's stat signature taken before its bytes were read. With ``cache``, the lock a
    run parsed from this very file (``Cache.known``: the same stat signature, older than the
    cache) is taken instead of parsing it again: parsing and checking a lock of 10,000 cases
    is the larger part of reading it."""
    text, lock, problem, signature = None, None, None, None
    if config.lock_file.exists():
        try:
            signature = stat_signature(config.lock_file)  # before the bytes
            # inside the repository: a link to a file elsewhere is never read into a message
            lock_name = config.lock_file.name
            text = read_inside(config.root, lock_name, lockfile.MAX_LOCK_BYTES).decode("utf-8")
            known = cache.known(_LOCKS, _LOCK_KEY, signature) if cache is not None else None
            lock = _lock_from(known) or lockfile.parse(text)
        except TooLarge as exc:
            text = ""
            problem = LockError(
                f"golden.lock holds {exc.size:,} bytes, more than the {exc.limit:,} a lock may take"
            )
        except (OSError, UnicodeDecodeError) as exc:
            text = text if text is not None else ""
            problem = LockError(f"golden.lock cannot be read: {exc}")
        except LockError as exc:
            problem = exc
    return text, lock, problem, signature


def _settle_conflict(config: Config) -> tuple[str, str] | None:
    """A golden.version left with conflict markers, resolved by the merge driver's rule."""
    try:
        sides = conflict_sides(read_version_text(config))
    except (OSError, UnicodeDecodeError):
        return None
    if sides is None:
        return None
    base, ours, theirs = sides
    if ours is None or theirs is None:
        return None
    try:
        return f"{ours} and {theirs}", merge_versions(base, ours, theirs)
    except GoldcaseError:
        return None


def verify(ctx: Context, case_set: CaseSet, refusing: str | None = None) -> list[Finding]:
    """The GC4xx findings: does the lock describe the set and corpus on disk? A run focused
    on case files (``check FILE``, a hook) gets their GC401 only: every other finding lands
    on golden.lock, golden.version or a corpus document, which it does not report.
    ``refusing`` ("checked"): raise instead of reporting a locked file git holds but the disk
    does not show (``refuse_unseen_files``)."""
    focus = _case_focus(ctx)
    if focus is not None:
        return list(_focused_findings(ctx, case_set, focus))
    config = ctx.config
    signature = stat_signature(config.lock_file)  # before the bytes
    disk = read_on_disk(config, ctx.cache)
    if disk.lock is not None and ctx.cache.known(_LOCKS, _LOCK_KEY, signature) is None:
        _remember_lock(ctx, signature, disk.lock)  # for the focused runs that follow
    lock_rel, version_rel = ctx.rel(config.lock_file), ctx.rel(config.version_file)
    findings: list[Finding] = []
    if disk.version_problem is not None:
        findings.append(_error(version_rel, "GC405", disk.version_problem))
    if disk.lock_text is None:
        why = "golden.lock is missing: nothing pins the set's version to its content"
        return [*findings, _error(lock_rel, "GC402", f"{why}; run goldcase lock")]
    if disk.lock is None:
        problem = disk.lock_problem or LockError("golden.lock cannot be read")
        message = f"{problem.message}; run goldcase lock to rewrite it"
        return [*findings, _error(lock_rel, "GC404", message, problem.line, problem.col)]
    findings += _content_findings(ctx, case_set, disk.lock, disk.lock_text, lock_rel, refusing)
    if disk.version_problem is None and disk.version != disk.lock.version:
        found = "is missing" if disk.version is None else f"says {disk.version!r}"
        message = f"golden.version {found} but golden.lock records {disk.lock.version!r}"
        findings.append(_error(version_rel, "GC405", f"{message}; run goldcase lock"))
    return findings


def _case_focus(ctx: Context) -> frozenset[str] | None:
    """The focus when it names files under the cases folder only (no corpus document, lock
    or version file), and findings about the whole set go elsewhere; else None."""
    focus, config = ctx.focus, ctx.config
    own = {ctx.rel(config.lock_file), ctx.rel(config.version_file)}
    if focus is None or ctx.set_path in own or focus & own:
        return None
    cases, corpus = (
        f"{ctx.rel(top).rstrip('/')}/" for top in (config.cases_dir, config.corpus_dir)
    )
    if not all(p.startswith(cases) and not p.startswith(corpus) for p in focus):
        return None
    return focus


def _focused_findings(ctx: Context, case_set: CaseSet, focus: frozenset[str]) -> Iterator[Finding]:
    """GC401 for the focused golden cases, as a whole run words it: the lock's entry for
    each of their ids against the hash of the case that holds it (the last of two that share
    an id, as in ``golden_hashes``). A lock that is missing or cannot be read gives none (its
    GC402 / GC404 is on golden.lock)."""
    lock = _known_lock(ctx)
    if lock is None:
        return
    golden = case_set.golden
    ids = {case.id for case in golden if case.path in focus}
    if not ids:
        return
    mine = [case for case in golden if case.id in ids]
    hashes = case_set_hashes(ctx, case_set, mine)
    paths = {case.id: case.path for case in mine}
    why = f"since golden.lock (version {lock.version}); run goldcase lock to bump golden.version"
    for case_id, value in hashes.items():
        known = lock.cases.get(case_id)
        if known != value:
            word = "added" if known is None else "changed"
            yield _error(paths[case_id], "GC401", f"golden case {case_id} {word} {why}")


_LOCKS = "lock"
_LOCK_KEY = "golden.lock"  # one lock a repository (the cache's folder is the repository's)
_RENDERED = "golden.lock as rendered"  # True: the file at this signature is render's text


def _known_lock(ctx: Context) -> Lock | None:
    """golden.lock as ``read_lock`` reads it (None: missing or unusable), from the cache
    while the file is as it was when it was read (``Cache.known``): parsing and checking a
    lock of 10,000 cases costs a check of one case file more than the rest of this family."""
    path = ctx.config.lock_file
    signature = stat_signature(path)  # before the bytes
    known = _lock_from(ctx.cache.known(_LOCKS, _LOCK_KEY, signature))
    if known is not None:
        return known
    lock = read_lock(ctx.config)[1]
    if lock is not None:
        _remember_lock(ctx, signature, lock)
    return lock


def _remember_lock(ctx: Context, signature: list[int] | None, lock: Lock) -> None:
    ctx.cache.record(_LOCKS, _LOCK_KEY, signature, _lock_value(lock))


def _lock_value(lock: Lock) -> list[object]:
    """A lock as cache data (``_lock_from`` reads it back)."""
    return [lock.version, lock.set_digest, lock.corpus_digest, lock.cases, lock.corpus]


def _lock_from(value: object) -> Lock | None:
    """A lock read back from the cache; None for anything of another shape."""
    if type(value) is not list or len(value) != 5:
        return None
    version, set_digest, corpus_digest, cases, corpus = value
    if not all(type(v) is str for v in (version, set_digest, corpus_digest)):
        return None
    for table in (cases, corpus):
        if type(table) is not dict or not all(
            type(k) is str and type(v) is str for k, v in table.items()
        ):
            return None
    return Lock(version, set_digest, corpus_digest, cases, corpus)


def _error(path: str, code: str, message: str, line: int = 1, col: int = 1) -> Finding:
    return Finding(path, line, col, code, "error", message)


def _content_findings(
    ctx: Context, case_set: CaseSet, lock: Lock, text: str, lock_rel: str, refusing: str | None
) -> Iterator[Finding]:
    # The tables are compared, not the digests: the lock's own were checked as it was read.
    why = f"since golden.lock (version {lock.version}); run goldcase lock to bump golden.version"
    cases = lockfile.compare(lock.cases, golden_hashes(ctx, case_set))
    paths = {c.id: c.path for c in case_set.golden} if cases.added or cases.changed else {}
    for word, names in (("added", cases.added), ("changed", cases.changed)):
        for case_id in names:
            yield _error(paths[case_id], "GC401", f"golden case {case_id} {word} {why}")
    docs = lockfile.compare(lock.corpus, ctx.corpus.doc_digests())
    if refusing is None:
        unseen = _unseen(ctx.config, cases.removed, docs.removed)
    else:  # what ``_unseen`` would explain is refused
        unseen = {}
        if cases.removed or docs.removed:
            refuse_unseen_files(ctx.config, golden_links(case_set), refusing, missing=True)
    for case_id in cases.removed:
        line, col = lockfile.entry_position(text, "cases", case_id)
        message = unseen.get(case_id) or (
            f"golden case {case_id} removed (or moved out of the golden set) {why}"
        )
        yield _error(lock_rel, "GC401", message, line, col)
    for word, names in (("added", docs.added), ("changed", docs.changed)):
        for rel in names:
            yield _error(rel, "GC403", f"corpus document {word} {why}")
    for rel in docs.removed:
        line, col = lockfile.entry_position(text, "corpus", rel)
        message = unseen.get(rel) or f"corpus document {rel} removed {why}"
        yield _error(lock_rel, "GC403", message, line, col)


def _unseen(config: Config, case_ids: list[str], docs: list[str]) -> dict[str, str]:
    """For each locked golden case (by id) and corpus document (by path) missing from the
    disk while git holds its file, why it is not read: a file git skips in the work tree (a
    sparse checkout) or one marked assume-unchanged and deleted is not a removal (the commit
    keeps it), and ``goldcase lock`` would refuse to drop it. Git is asked only when
    something is missing."""
    if not (case_ids or docs):
        return {}
    found = gitview.unseen_in_work_tree(config.root, _covered(config), missing=True)
    ids, wanted = set(case_ids), set(docs)
    out: dict[str, str] = {}
    for rel, (where, fix) in _reasons(found):
        path = Path(rel)
        if rel in wanted:
            key, what = rel, f"corpus document {shown_path(rel)}"
        elif path.stem in ids and path.suffix in CASE_SUFFIXES:
            key, what = path.stem, f"golden case {path.stem} ({shown_path(rel)})"
        else:
            continue
        out[key] = (
            f"{what} is in git's index but {where}, so it was not checked against "
            f"golden.lock; {fix}"
        )
    return out


def _reasons(found: gitview.Unseen | None) -> Iterator[tuple[str, tuple[str, str]]]:
    """Each file git holds and the disk does not show, with where it is and what to do
    (``_WHY``)."""
    if found is not None:
        yield from ((rel, _WHY["skipped"]) for rel in found.skipped)
        yield from ((rel, _WHY["assumed"]) for rel in found.assumed)


class Outcome(Struct, frozen=True):
    """What ``update`` did."""

    old_version: str | None
    version: str
    cases: Changes  # what changed in golden.lock, when anything was written (else none)
    corpus: Changes
    wrote: tuple[str, ...]  # the files rewritten, relative to the root
    note: str  # why, in a few words
    base_problem: str | None = None  # the base's golden.lock does not parse (``Base.problem``)


def lock_repository(
    ctx: Context,
    imported: Sequence[str] = (),
    read: Callable[[], object] = lambda: None,
    *,
    refuse_skipped: bool = False,
) -> tuple[Outcome, CaseSet]:
    """``goldcase lock``: read the set and rewrite what needs it, serialised by ``flock``;
    what it did, and the set it read (unchanged: the lock is not a case file). ``imported``:
    the check families run next on that set (``load_case_set``). ``read`` is called once the
    golden cases and the corpus are read, before the lock is computed (``staging`` asks git
    then whether the commit holds them as they were read). ``refuse_skipped``: raise, writing
    nothing, when git skips a file the lock covers in the work tree (``--stage`` asks that
    question with its others, and refuses to stage instead)."""
    with serialised(ctx.config), gitview.BaseAsked(ctx.root) as asked:
        case_set = load_case_set(ctx, imported=imported)
        ctx.corpus  # noqa: B018 (read now: what ``read`` is told has been read)
        read()
        outcome = update(ctx, case_set, refuse_skipped=refuse_skipped, asked=asked)
    ctx.cache.save()
    return outcome, case_set


def check_repository(ctx: Context) -> tuple[list[Finding], int]:
    """``goldcase lock --check``: the GC4xx findings and the number of case files read; when
    the files agree with each other, whether the version follows the base too."""
    with serialised(ctx.config, shared=True, required=False):
        case_set = load_case_set(ctx)
        refuse_unseen_files(ctx.config, golden_links(case_set), "checked")
        findings = sorted(verify(ctx, case_set, refusing="checked"))
        if not findings:
            findings = _base_findings(ctx, case_set)
    ctx.cache.save()
    return findings, len(case_set.files)


def _base_findings(ctx: Context, case_set: CaseSet) -> list[Finding]:
    """GC405 when the set differs from what the base pins but the version has not moved past
    the base's (a branch that changed the set without a bump; see "once per branch"). A
    refusal when the lock on disk, which agrees with the disk, drops a file the base pins
    that git still holds (``refuse_unseen_files``)."""
    config = ctx.config
    disk = read_on_disk(config, ctx.cache)
    base = find_base(ctx, disk)
    if base.lock is None or disk.lock is None or disk.version is None:
        return []
    if _drops(base.lock, disk.lock):
        refuse_unseen_files(config, golden_links(case_set), "checked", missing=True)
    if disk.lock.same_content(base.lock):
        return []
    if version_key(disk.version) > version_key(base.lock.version):
        return []
    message = (
        f"golden.version is {disk.version!r}, but the set or corpus differs from what "
        f"golden.lock pins at {base.how} (version {base.lock.version}); run goldcase lock to "
        f"move it to {next_version(base.lock.version)}"
    )
    return [_error(ctx.rel(config.version_file), "GC405", message)]


def gaps_asked(config: Config) -> gitview.Pending:
    """Which files the lock covers that the commit being made does not hold as they are on
    disk (``gitview.asked_uncommittable``), asked of git without waiting: ``staging`` starts
    it once the set and corpus are read (an edit after the question and before the read
    would go unseen), and git answers while the lock is computed and written."""
    return gitview.asked_uncommittable(config.root, _covered(config))


def _covered(config: Config) -> list[str]:
    """The folders the lock covers, as git is asked about them."""
    golden = f"{Path(config.cases).as_posix().rstrip('/')}/golden"
    return [_where(config, golden), _where(config, config.corpus)]


def unstageable(config: Config, links: list[str], asked: gitview.Pending | None) -> str | None:
    """Why the files ``goldcase lock`` wrote must not be added to the commit being made
    (``--stage``): a file the lock covers is on disk but not in that commit. ``links``: the
    golden case files that are links, whose targets git is asked about too. ``asked``: the
    question ``gaps_asked`` started, when it did (not used when there are links, whose
    targets it did not name)."""
    folders = _covered(config)
    targets = _link_targets(config, links)
    if asked is None or targets:
        asked = gitview.asked_uncommittable(config.root, [*folders, *targets])
    with asked:
        gaps = gitview.gaps_of(asked)
    if gaps is None:  # outside a work tree, or git cannot read it: ask which, once
        if gitview.top_level(config.root) is None:
            return "not in a git work tree: add the files to your commit yourself"
        raise GoldcaseError(
            f"git ls-files failed in {config.root}: cannot tell whether the commit holds "
            "the golden set and corpus on disk, so golden.version and golden.lock were not "
            "staged; run git status to see why"
        )
    return _refusal(gaps, targets, folders[0])


def _where(config: Config, folder: str) -> str:
    """The folder git is asked about: where it leads when it is a link to a folder of the
    repository (git does not look behind a link, and would not see a file untracked there)."""
    root = config.root.resolve()
    try:
        return (root / folder).resolve().relative_to(root).as_posix()
    except (OSError, ValueError):  # a loop, or a link out of the repository: as it is named
        return folder


def _refusal(gaps: gitview.Gaps, targets: dict[str, str], golden: str) -> str | None:
    """Why the lock must not be staged: a file it pins that the commit does not hold as the
    disk shows it."""
    missing = _named(gaps.changed, targets, golden)
    if missing:
        linked = any(rel in targets for rel in gaps.changed)
        which = " (for a link, the file it leads to)" if linked else ""
        return (
            f"not staged: {_listed(missing)} on disk but not in this commit (untracked, "
            "ignored, or changed since it was staged), and golden.lock would pin it; add it to "
            f"the commit{which}, or move it out of the folder"
        )
    for kind in ("skipped", "assumed"):
        unseen = _named(getattr(gaps, kind), targets, golden)
        if unseen:
            where, fix = _WHY[kind]
            return (
                f"not staged: {_listed(unseen)} in this commit but {where}, so golden.lock, "
                f"built from the disk, would not pin the set this commit holds; {fix}"
            )
    return None


_SKIPPED = "(left out by a sparse checkout, or marked skip-worktree)"
_WIDEN = (
    "widen the sparse checkout to the golden cases and the corpus (git sparse-checkout add "
    "FOLDER, or git sparse-checkout disable), or clear the mark (git update-index "
    "--no-skip-worktree FILE)"
)
_RESTORE = (
    "clear the mark and restore the file (git update-index --no-assume-unchanged FILE, then "
    "git checkout -- FILE), or delete it from the index too (git rm FILE)"
)
# Where a file git holds is, for the disk, and what to do about it.
_WHY = {
    "skipped": (f"not in the work tree {_SKIPPED}", _WIDEN),
    "assumed": ("not on disk (marked assume-unchanged, so git does not see it deleted)", _RESTORE),
}
_UNSEEN = {
    "written": "golden.lock, built from the disk, would not pin the set a commit holds",
    "checked": "the disk does not show the set a commit holds",
}


def refuse_unseen_files(
    config: Config, links: list[str], doing: str, *, missing: bool = False, skipped: bool = True
) -> None:
    """Raise when git holds a file the lock covers (a golden case, what a linked one leads
    to, a corpus document) that the disk does not show as a commit holds it: skipped in the
    work tree, or marked assume-unchanged and deleted. The disk, which ``goldcase lock`` and
    ``lock --check`` read, is then not the set a commit holds. ``doing``: "written" or
    "checked". ``missing``: a lock pins a file the disk lacks (git is asked whatever the
    index's header says, ``gitview.unseen_in_work_tree``). ``skipped``: False to pass over
    skipped files (``--stage`` names them as it refuses to stage). Outside a git work tree,
    nothing is unseen."""
    folders = _covered(config)
    targets = _link_targets(config, links)
    found = gitview.unseen_in_work_tree(config.root, [*folders, *targets], missing=missing)
    if found is None:
        if gitview.top_level(config.root) is None:
            return
        raise GoldcaseError(
            f"git ls-files failed in {config.root}: cannot tell whether git skips a golden "
            f"case or corpus document in the work tree, so golden.lock was not {doing}; run "
            "git status to see why"
        )
    for kind in ("skipped", "assumed") if skipped else ("assumed",):
        unseen = _named(getattr(found, kind), targets, folders[0])
        if unseen:
            where, fix = _WHY[kind]
            raise GoldcaseError(
                f"golden.lock not {doing}: {_listed(unseen)} in git's index but {where}, so "
                f"{_UNSEEN[doing]}; {fix}"
            )


def golden_links(case_set: CaseSet) -> list[str]:
    """The golden case files (those the lock pins) that are links."""
    if not case_set.links:
        return []
    links = set(case_set.links)
    return [case.path for case in case_set.golden if case.path in links]


def _named(found: list[str], targets: dict[str, str], golden: str) -> list[str]:
    """The files of ``found`` the lock covers, a link's target named with its link."""
    return [
        f"{targets[rel]} (a link to {rel})" if rel in targets else rel
        for rel in found
        if rel in targets or _locked_file(rel, golden)
    ]


def _listed(names: list[str]) -> str:
    """The first five names (a byte of a name that is not UTF-8, and a control character,
    escaped, as findings show it), and how many more, with the verb that agrees: "a.yaml
    is", "a.yaml, b.yaml are"."""
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    shown = (plain(shown_path(name)) for name in names[:5])
    return ", ".join(shown) + more + (" is" if len(names) == 1 else " are")


def _link_targets(config: Config, links: list[str]) -> dict[str, str]:
    """Where each linked case file leads (relative to the root) -> the link. git, asked
    about a link, says whether the commit holds the link, never whether it holds what the
    link leads to, which is what the lock pins. A link out of the repository is left out:
    its case is not read (GC113), so not locked."""
    root = os.path.realpath(config.root)
    out: dict[str, str] = {}
    for rel in links:
        try:
            real = inside(config.root, rel)
        except Outside:
            continue
        out[os.path.relpath(real, root).replace(os.sep, "/")] = rel
    return out


def _locked_file(rel: str, golden: str) -> bool:
    """Whether a file is one the lock covers: a case file of the golden folder, or any corpus
    document (hidden files and folders are never read)."""
    if any(part.startswith(".") for part in Path(rel).parts):
        return False
    if rel.endswith("/"):  # a repository nested in the folder: git names it, not its files
        return True
    return not rel.startswith(f"{golden}/") or rel.endswith(CASE_SUFFIXES)


_HASHES = "case-hashes"


def golden_hashes(ctx: Context, case_set: CaseSet) -> dict[str, str]:
    """Each golden case's hash, from the cache when the file's bytes (and goldcase) are the
    ones it was computed for."""
    return case_set_hashes(ctx, case_set, case_set.golden)


def case_set_hashes(ctx: Context, case_set: CaseSet, cases: list[Case]) -> dict[str, str]:
    """``golden_hashes`` for some of the set's ``cases``: id -> case hash."""
    out: dict[str, str] = {}
    digests: dict[str, str] | None = None
    for case in cases:
        if case.hash:  # computed when the file was parsed
            out[case.id] = case.hash
            continue
        if digests is None:
            digests = {f.path: f.digest for f in case_set.files}
        key = digests.get(case.path, "")
        value = ctx.cache.get(_HASHES, key)
        if not isinstance(value, str):
            value = case_hash(case.data)
            ctx.cache.put(_HASHES, key, value)
        out[case.id] = value
    return out


def update(
    ctx: Context,
    case_set: CaseSet,
    *,
    refuse_skipped: bool = False,
    asked: gitview.BaseAsked | None = None,
) -> Outcome:
    """Bring golden.lock (and golden.version when the set or corpus changed) up to date.
    Writing nothing, refuse a lock that would drop a file git holds and the disk does not
    show (``refuse_unseen_files``; one git skips in the work tree: always with
    ``refuse_skipped``, else ``--stage`` refuses to stage). ``asked``: the base's questions,
    asked of git while the set was read (``find_base``)."""
    config = ctx.config
    if ctx.corpus.unnamed:  # a document golden.lock could not pin by its name
        raise GoldcaseError(
            f"{ctx.corpus.unnamed[0]}: the document's name is not UTF-8, so golden.lock "
            "cannot name it; rename it"
        )
    disk = read_on_disk(config, ctx.cache)
    if disk.version_problem is not None and disk.settled is None:
        raise GoldcaseError(f"{disk.version_problem}")
    hashes = golden_hashes(ctx, case_set)
    probe = lockfile.current_lock(disk.version or "1", case_set, ctx.corpus, hashes)
    old = disk.lock
    base = find_base(ctx, disk, asked) if disk.settled is None else Base(None, "", in_git=False)
    missing = _drops(old, probe) or _drops(base.lock, probe)
    if missing or refuse_skipped:
        links = golden_links(case_set)
        refuse_unseen_files(config, links, "written", missing=missing, skipped=refuse_skipped)
    if disk.settled is not None:
        version, note = disk.settled[1], "settled the merge conflict in golden.version"
    else:
        version, note = _decide(disk, probe, base)
    new = replace(probe, version=version)
    wrote = _write(ctx, disk, new)
    empty = Changes([], [], [])
    before = disk.settled[0] if disk.settled is not None else disk.version
    if before is None or before == version:
        before = old.version if old is not None else disk.version
    return Outcome(
        old_version=before,
        version=version,
        cases=lockfile.compare(old.cases, new.cases) if wrote and old is not None else empty,
        corpus=lockfile.compare(old.corpus, new.corpus) if wrote and old is not None else empty,
        wrote=wrote,
        note=note,
        base_problem=base.problem,
    )


def _drops(pinned: Lock | None, lock: Lock) -> bool:
    """Whether ``lock`` leaves out a golden case or corpus document ``pinned`` holds."""
    if pinned is None:
        return False
    return not (
        pinned.cases.keys() <= lock.cases.keys() and pinned.corpus.keys() <= lock.corpus.keys()
    )


class Base(Struct, frozen=True):
    """What the version follows: golden.lock as committed where the branch started."""

    lock: Lock | None  # None: nothing committed there yet (or no base at all)
    how: str  # "merge base of HEAD and main", "HEAD"
    in_git: bool
    # a lock committed there that does not parse: why, in words ("golden.lock at 1a2b3c4d5e6f
    # (HEAD) is not JSON: …"); the version then follows no base
    problem: str | None = None


def find_base(ctx: Context, disk: OnDisk, asked: gitview.BaseAsked | None = None) -> Base:
    """The base of the branch being worked on (``gitview.default_base``: the merge base of
    HEAD and the main branch, HEAD when there is none) and the lock it committed. ``disk``
    is golden.lock as read from disk: most commits start from the lock their base holds,
    and the same text need not be parsed (and its digests checked) twice. ``asked``: git's
    first two questions, started for ``ctx.root`` before the set was read."""
    where = gitview.work_tree(ctx.root, asked)
    if where is None:
        return Base(None, "", in_git=False)
    top, head = where
    if head is None:
        return Base(None, "", in_git=True)  # no commits yet
    sha, how = gitview.base_of(ctx.root, head, asked) or (head, "HEAD")
    how = how if how == "HEAD" else f"the {how}"
    try:
        lock, problem = _lock_at(ctx, top, sha, disk)
    except TooLarge as exc:
        # Taken for no lock at the base, it would move the version by another rule, unseen.
        raise GoldcaseError(
            f"golden.lock at {sha[:12]} ({how}) holds {exc.size:,} bytes, more than the "
            f"{exc.limit:,} a lock may take, so the version cannot follow it; where it was "
            "committed, remove it (git rm golden.lock, then git commit --no-verify: the hooks "
            "read it too), run goldcase lock and commit; a branch then merges or rebases onto "
            "that commit"
        ) from None
    if problem is not None:
        why = clip(problem.removeprefix("golden.lock").lstrip(": "), 200)  # may quote a key
        return Base(None, how, in_git=True, problem=f"golden.lock at {sha[:12]} ({how}) {why}")
    return Base(lock, how, in_git=True)


_BASE_LOCKS = "base-lock"


def _lock_at(ctx: Context, top: Path, sha: str, disk: OnDisk) -> tuple[Lock | None, str | None]:
    """golden.lock as committed at ``sha`` (None: none there, or one that does not parse),
    and why none parses there (None: it parses, or there is none). A commit's files never
    change, so the lock read at the base is kept in the cache with the base's sha: every
    commit of a branch measures its set against the same base, read and checked once. One
    entry a lock path in the work tree (the cache folder may be shared), the last base's: a
    lock of 10,000 cases takes a megabyte. ``TooLarge`` for a lock over the bytes one may
    take (``lockfile.MAX_LOCK_BYTES``), as on disk."""
    path = ctx.config.lock_file
    try:
        inside = (path.parent.resolve() / path.name).relative_to(top).as_posix()
    except ValueError:  # the lock is not in this work tree: nothing to key it by
        inside = None
    if inside is not None:
        entry = ctx.cache.get(_BASE_LOCKS, inside)
        if type(entry) is list and len(entry) == 2 and entry[0] == sha:
            known = _lock_from(entry[1])
            if known is not None:
                return known, None
    text = gitview.text_at(path, sha, lockfile.MAX_LOCK_BYTES, known=disk.lock_text)
    problem: LockError | None = None
    if text is not None and text == disk.lock_text:
        lock, problem = disk.lock, disk.lock_problem  # what parsing the same text gave
    else:
        try:
            lock = lockfile.parse(text) if text is not None else None
        except LockError as exc:
            lock, problem = None, exc
    if lock is not None and inside is not None:
        ctx.cache.put(_BASE_LOCKS, inside, [sha, _lock_value(lock)])
    if text is None:  # none there, or no file: a link, a folder (one more git, rarely asked)
        kind = gitview.kind_at(path, sha)
        return None, None if kind is None else f"is {kind}, not a file"
    return lock, None if lock is not None or problem is None else str(problem)


def _decide(disk: OnDisk, probe: Lock, base: Base) -> tuple[str, str]:
    """The version the new lock records, and why (docs/version.md, "The rules")."""
    old = disk.lock
    if old is None and disk.lock_text is None and base.lock is None:
        return disk.version or "1", "first lock"
    if old is not None and old.same_content(probe) and not _behind(disk, probe, base):
        if disk.version is None:
            return old.version, "restored from golden.lock"
        if version_key(disk.version) < version_key(old.version):
            return old.version, "raised to the version golden.lock records; it never goes back"
        return disk.version, "set and corpus unchanged"
    if base.lock is not None:
        return _from_base(disk, probe, base.lock, base.how)
    if base.in_git and old is not None:
        # Never committed: no report can name this version yet, so the first commit keeps it.
        kept = highest(disk.version, old.version) or old.version
        return kept, "not committed yet: the first commit makes this version"
    return _bumped(disk)


def _behind(disk: OnDisk, probe: Lock, base: Base) -> bool:
    """Whether the version on disk does not move past the base's while the set differs from
    what the base pins: it would name two sets."""
    if base.lock is None or base.lock.same_content(probe):
        return False
    mine = disk.version or (disk.lock.version if disk.lock is not None else None)
    return mine is None or version_key(mine) <= version_key(base.lock.version)


def _from_base(disk: OnDisk, probe: Lock, pinned: Lock, how: str) -> tuple[str, str]:
    """Once per branch: the base's version for the set the base pins (a bump taken back),
    the next one for any other set. A higher version already there (set by hand, or by the
    merge driver) is kept: apart from a bump taken back, a version never goes back."""
    if pinned.same_content(probe):
        moved = disk.version not in (None, pinned.version)
        why = "the bump is taken back" if moved else "no bump"
        return pinned.version, f"the set and corpus are what golden.lock pins at {how}; {why}"
    target = next_version(pinned.version)
    recorded = disk.lock.version if disk.lock is not None else None
    chosen = highest(target, disk.version, recorded) or target
    if chosen != target and version_key(chosen) > version_key(target):
        return chosen, f"kept: above {target}, the version after {how}'s"
    return target, f"set or corpus changed since {how}, version {pinned.version}"


def _bumped(disk: OnDisk) -> tuple[str, str]:
    """Outside git (and for an unreadable lock with no base): every change is a bump, once
    between two locks."""
    old = disk.lock
    lock_version = old.version if old is not None else None
    mine = disk.version
    if (
        mine is not None
        and lock_version is not None
        and mine != lock_version
        and version_key(mine) > version_key(lock_version)
    ):
        return mine, "already bumped since golden.lock was written"
    base = highest(mine, lock_version)
    if base is None:
        return "1", "first version"
    reason = "set or corpus changed" if old is not None else "golden.lock was unreadable"
    return next_version(base), reason


def _write(ctx: Context, disk: OnDisk, new: Lock) -> tuple[str, ...]:
    """Write golden.version and golden.lock where they differ from ``new``. A lock equal to
    the one on disk, whose text is known (by its stat signature) to be what ``render``
    writes, is not rendered again to be compared: 5 ms for 10,000 cases, on every commit."""
    config = ctx.config
    wrote: list[str] = []
    if disk.version != new.version:
        atomic_write_text(config.version_file, f"{new.version}\n")
        wrote.append(ctx.rel(config.version_file))
    if disk.lock == new and ctx.cache.known(_LOCKS, _RENDERED, disk.lock_signature) is True:
        return tuple(wrote)
    text = lockfile.render(new)
    if disk.lock_text != text:
        atomic_write_text(config.lock_file, text)
        wrote.append(ctx.rel(config.lock_file))
        signature = stat_signature(config.lock_file)  # the file just renamed into place
    else:  # the text read is as rendered: vouched for by the stat taken before it was read,
        signature = disk.lock_signature  # not by one now (the file may have changed since)
    ctx.cache.record(_LOCKS, _RENDERED, signature, True)  # the next run need not render
    return tuple(wrote)


def describe(outcome: Outcome) -> list[str]:
    """What ``goldcase lock`` tells the user, each line through ``plain``: the versions (the
    set's, the base lock's), the notes quoting them and the corpus documents' names are
    anyone's text in a cloned set, shown with their control characters escaped."""
    note = [] if outcome.base_problem is None else [_base_note(outcome.base_problem)]
    if not outcome.wrote:
        lines = [f"golden.lock is up to date (version {outcome.version})", *note]
        return [plain(line) for line in lines]
    lines = []
    if outcome.old_version != outcome.version:
        before = outcome.old_version if outcome.old_version is not None else "(none)"
        lines.append(f"golden.version: {before} -> {outcome.version} ({outcome.note})")
    else:
        lines.append(f"golden.version: {outcome.version} ({outcome.note})")
    if outcome.cases:
        lines.append(f"golden cases: {outcome.cases.describe()}")
    if outcome.corpus:
        lines.append(f"corpus documents: {outcome.corpus.describe()}")
    files = " ".join(outcome.wrote)
    them = "them" if len(outcome.wrote) > 1 else "it"
    lines.append(f"wrote {' and '.join(outcome.wrote)}; add {them} to the commit: git add {files}")
    return [plain(line) for line in [*lines, *note]]


def _base_note(problem: str) -> str:
    """The base's golden.lock does not parse: what the version follows instead, and the way
    out (taken for no lock there, the version moved by another rule without a word)."""
    return (
        f"note: {problem}, so the version follows no base: a golden.lock that parses, "
        "committed there (goldcase lock, then commit), mends it"
    )
