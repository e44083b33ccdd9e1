"""The plain git hooks (``goldcase git-hooks --install``, ``goldcase init --git-hooks``), for
teams without the pre-commit framework.

They are installed where ``pre-commit install`` puts its own: the hooks folder of the
repository's git directory (``git rev-parse --git-path hooks``, shared by its worktrees),
which no clone, branch or pull request carries. A hook kept in the work tree and enabled with
``core.hooksPath`` (what goldcase did before) runs whatever the checked-out commit holds: a
pull request that edits it runs its code on the reviewer's next ``git commit``. For the same
reason the hooks run only the ``goldcase`` on PATH, or the interpreter that installed them
(recorded here, as pre-commit records ``sys.executable``), and refuse either when PATH found
it by a relative path, or when it is, or leads through links to, a file of the work tree that
git does not ignore (the hook follows every link and judges each step by its real path), or
an ignored file of an environment in the work tree in which git tracks any file (a branch
writes its files into ignored folders: the interpreter a script runs, a ``.pth`` file). The
``PYTHONPATH`` entries a branch can fill (empty, relative, in the work tree) are dropped, and
so are ``PYTHONHOME``, ``PYTHONUSERBASE`` and ``PYTHONPYCACHEPREFIX`` when they name such a
folder (and a ``PYTHONPLATLIBDIR`` that is a path, not a folder's name).

An existing hook goldcase did not write is never replaced; goldcase's own are rewritten (an
upgrade, or a reinstall that changes nothing) while they guard the same set: one clone's hooks
guard one golden set, so they are never repointed at another set of the repository.
"""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

from msgspec import Struct

from goldcase import __version__, gitview
from goldcase.errors import GoldcaseError
from goldcase.project import install_command
from goldcase.writer import atomic_write_bytes

HOOK_NAMES = ("pre-commit", "pre-merge-commit", "pre-push")
# The line that marks a hook as goldcase's: only such a hook is ever rewritten.
MARKER = "# goldcase-git-hook: installed by goldcase git-hooks --install"
HOOKS_PATH = "core.hooksPath"

_PURPOSE = {
    "pre-commit": (
        "brings golden.version and golden.lock up to date and adds them to this commit when\n"
        "# the golden set or corpus changed (goldcase lock --stage), then checks the staged\n"
        "# case files (goldcase check --staged); only findings refuse the commit.",
        "commit",
    ),
    "pre-merge-commit": (
        "when both branches bumped golden.version to the same value, raises it to the\n"
        "# one the merge driver's golden.lock records and adds it to the merge commit.",
        "merge",
    ),
    "pre-push": (
        "refuses the push when golden.version and golden.lock do not match the golden\n"
        "# set and corpus in the work tree (goldcase lock --check).",
        "push",
    ),
}

_ACTION = {
    "pre-commit": """\
# The staged files (added, copied, modified, renamed), one argument each: spaces are safe.
# goldcase check --staged reports on them when they are all case files and the commit
# removes none; anything else staged (a corpus document, a prompt file, the config) or a case
# removed can break a case nobody touched, and then it checks the whole set.
set --
while IFS= read -r path; do
    [ -n "$path" ] && set -- "$@" "$path"
done <<EOF_STAGED
$(git -c core.quotePath=false diff --cached --name-only --relative --diff-filter=ACMR)
EOF_STAGED

status=0
# --stage adds the rewritten files to this commit; it exits 1 only when it could not do that
# safely (a file of the set on disk but not in this commit: it says which).
run_goldcase lock --stage || status=1
# "--": a staged file named like an option (--help) is a file name, not that option
run_goldcase check --staged -- "$@" || status=1
exit "$status"
""",
    "pre-merge-commit": "run_goldcase lock --stage\n",
    "pre-push": "run_goldcase lock --check\n",
}

_TEMPLATE = """\
#!/bin/sh
# goldcase {name} hook (plain git, no pre-commit framework needed): it
# {purpose}
{marker} {version}
# It lives in this clone's git directory, which no clone, branch or pull request carries, and
# runs the goldcase on PATH, else the one installed for the interpreter below; never a file
# the repository tracks. Reinstall: goldcase git-hooks --install. Bypass once: git {verb}
# --no-verify
set -u
hook={name}
# The golden set's folder, from the top of the work tree (where git runs its hooks).
set_folder={folder}
# The Python goldcase was installed for when these hooks were installed.
python={python}

refuse() {{
    echo "goldcase $hook hook: $1" >&2
    exit 1
}}

# Refuse the file $1 (an absolute path) when it is, or leads to, a file of the work tree that
# git does not ignore: tracked (a branch, so a stranger's, decides what it holds), untracked,
# or in a submodule. Every link on the way is followed, a folder's (a PATH entry that leads
# into the work tree) and the file's, and each step is judged by its real path. An ignored
# file (a virtual environment in .venv) is the user's own: checking out a branch that
# tracks it makes it tracked, and refused. $2: what to do instead. git runs hooks at the top
# of the work tree.
top=$(pwd -P)
unset CDPATH
# True when git tracks no file in the environment the ignored file $1 belongs to (the folder
# above its bin/, a virtual environment's; else its own folder). git writes a branch's files
# into an ignored folder, and replaces ignored files there: a branch that adds the interpreter
# a script runs, or a .pth file Python runs at start, changes no byte of goldcase's own file.
untouched() {{
    env=${{1%/*}}
    case $env in */bin) env=${{env%/bin}} ;; esac
    git --literal-pathspecs ls-files --error-unmatch -- "$env" >/dev/null 2>&1
    [ $? -eq 1 ]
}}
guard() {{
    step=$1
    hops=0
    while :; do
        dir=${{step%/*}}
        real=$(cd -P "${{dir:-/}}" 2>/dev/null && pwd -P) ||
            refuse "refusing $1: its folder ${{dir:-/}} cannot be entered; $2"
        real=${{real%/}}/${{step##*/}}
        case $real in
            "$top"/*)
                git check-ignore -q -- "$real" 2>/dev/null ||
                    refuse "refusing $1: it is or leads to $real, a file in this repository's \\
work tree that git does not ignore, which a branch can change or put there; $2"
                untouched "$real" ||
                    refuse "refusing $1: it is or leads to $real, in $env, a folder of this \\
repository's work tree in which git tracks a file: a branch can put files there (the \\
interpreter a script runs, a .pth file Python runs); $2" ;;
        esac
        [ -L "$real" ] || return 0
        hops=$((hops + 1))
        [ "$hops" -le 40 ] || refuse "refusing $1: more than 40 links lead on from it; $2"
        target=$(readlink -- "$real") || refuse "refusing $1: the link $real cannot be read; $2"
        case $target in
            /*) step=$target ;;
            *) step=${{real%/*}}/$target ;;
        esac
    done
}}

# True when $1 is an absolute path outside the work tree, the links on its way followed.
outside() {{
    case $1 in /*) ;; *) return 1 ;; esac
    if [ -d "$1" ]; then
        at=$(cd -P "$1" 2>/dev/null && pwd -P) || return 1
    else
        [ -L "$1" ] && return 1
        at=$(cd -P "${{1%/*}}/" 2>/dev/null && pwd -P) || return 1
    fi
    case ${{at%/}}/ in "$top"/*) return 1 ;; esac
}}

# PYTHONPATH's folders are searched before the installed goldcase's: an empty or relative
# entry is the folder the hook runs in, and one in the work tree a folder a branch fills (its
# goldcase/ imported instead). Only absolute entries outside the work tree are kept.
pythonpath=
set -f
IFS=:
for entry in ${{PYTHONPATH-}}; do
    outside "$entry" && pythonpath=${{pythonpath:+$pythonpath:}}$entry
done
unset IFS
set +f
if [ -n "$pythonpath" ]; then export PYTHONPATH="$pythonpath"; else unset PYTHONPATH; fi
# PYTHONHOME is where Python reads its standard library from, and PYTHONUSERBASE holds the
# user site, whose packages and .pth files Python takes at start: relative (the folder the
# hook runs in) or in the work tree, a branch fills them. Kept only outside the work tree.
# PYTHONHOME may be prefix:exec_prefix (Python splits it at the first colon; exec_prefix
# holds lib-dynload, searched before site-packages): both halves are held to the rule.
home=${{PYTHONHOME-}}
outside "${{home%%:*}}" && outside "${{home#*:}}" || unset PYTHONHOME
outside "${{PYTHONUSERBASE-}}" || unset PYTHONUSERBASE
# PYTHONPYCACHEPREFIX is where Python reads compiled modules from instead of each __pycache__
# (a file compiled with an unchecked hash is never compared with its source): held to the
# same rule. PYTHONPLATLIBDIR names a folder under the prefix; as an absolute path it is
# where the standard library is read from: a value that is a path is dropped.
outside "${{PYTHONPYCACHEPREFIX-}}" || unset PYTHONPYCACHEPREFIX
case ${{PYTHONPLATLIBDIR-}} in */*) unset PYTHONPLATLIBDIR ;; esac

if found=$(command -v goldcase 2>/dev/null); then
    case $found in
        /*) ;;
        *) refuse "refusing $found: PATH finds goldcase by a relative path, where the repository \\
can put a file; put goldcase's folder on PATH as an absolute path" ;;
    esac
    guard "$found" "install goldcase outside the repository"
    run_goldcase() {{ "$found" "$@"; }}
elif [ -n "$python" ] && [ -x "$python" ]; then
    guard "$python" "install goldcase outside the repository and run goldcase git-hooks --install"
    # -P: the folder the hook runs in is not put on sys.path (a goldcase/ folder there is not
    # imported in place of the installed goldcase).
    run_goldcase() {{ "$python" -P -m goldcase "$@"; }}
else
    echo "goldcase $hook hook: goldcase is not on PATH (and the Python that installed" >&2
    echo "these hooks is gone); install it ({install}," >&2
    echo "or activate the environment it is in) or {verb} with --no-verify to skip the check" >&2
    exit 1
fi

cd "./$set_folder" || exit 2

{action}"""


class Installed(Struct, frozen=True):
    folder: Path  # where the hooks were written
    written: list[str]  # hook names written or rewritten
    unchanged: list[str]  # goldcase's hooks already as they would be written
    legacy_removed: str | None  # the core.hooksPath of an older install, now unset


def hook_text(name: str, folder: str, python: str | None) -> str:
    """The plain git hook ``name`` for the golden set at ``folder`` (relative to the top of
    the work tree), falling back to ``python -m goldcase`` when goldcase is not on PATH."""
    purpose, verb = _PURPOSE[name]
    return _TEMPLATE.format(
        name=name,
        purpose=purpose,
        verb=verb,
        marker=MARKER,
        version=__version__,
        folder=shlex.quote(folder),
        python=shlex.quote(python or ""),
        install=install_command(),
        action=_ACTION[name],
    )


def is_goldcase_hook(path: Path) -> bool:
    """A regular file holding goldcase's marker line (a link is never goldcase's)."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(root: Path, python: str | None = None) -> Installed:
    """Install the plain hooks for the golden set at ``root`` in its repository's git
    directory. ``python`` is the interpreter the hooks fall back to (default: this one).
    Nothing is written when a hook goldcase did not write is in the way or core.hooksPath
    sends git elsewhere; an older goldcase's core.hooksPath (the set's tracked ``hooks/``) is
    unset."""
    root = root.resolve()
    top = gitview.top_level(root)
    if top is None:
        raise GoldcaseError(f"{root} is not inside a git work tree; run git init first")
    folder, legacy = _plan(root, top)
    if legacy is not None:
        gitview.unset_local_config(root, HOOKS_PATH)
    set_folder = _set_folder(root, top)
    written, unchanged = [], []
    for name in HOOK_NAMES:
        text = hook_text(name, set_folder, _interpreter(python)).encode("utf-8")
        path = folder / name
        if path.is_file() and path.read_bytes() == text and path.stat().st_mode & 0o111:
            unchanged.append(name)
            continue
        atomic_write_bytes(path, text)
        path.chmod(0o755)
        written.append(name)
    return Installed(folder, written, unchanged, legacy)


def describe(made: Installed) -> list[str]:
    """What :func:`install` did, a line each."""
    lines = []
    if made.legacy_removed is not None:
        lines.append(
            f"unset core.hooksPath ({made.legacy_removed}): git no longer runs the hooks "
            "tracked in the repository; that folder is unused now (git rm -r it)"
        )
    lines += [f"installed {made.folder / name}" for name in made.written]
    lines += [f"{made.folder / name} is up to date" for name in made.unchanged]
    return lines


def preflight(root: Path) -> None:
    """Raise what :func:`install` would raise, writing nothing (``init`` asks before it
    writes its files). A folder outside any repository has nothing in the way."""
    root = root.resolve()
    top = gitview.top_level(root)
    if top is not None:
        _plan(root, top)


def _plan(root: Path, top: Path) -> tuple[Path, str | None]:
    """(the hooks folder, the core.hooksPath of an older install to unset), or the reason
    nothing may be written."""
    if not root.is_relative_to(top):
        raise GoldcaseError(f"{root} is not inside the git work tree at {top}")
    legacy = legacy_hooks_path(root, top)
    folder = gitview.hooks_folder(root)
    foreign = [name for name in HOOK_NAMES if _foreign(folder / name)]
    if foreign:
        raise GoldcaseError(_foreign_message(folder, foreign))
    mine = _set_folder(root, top)
    others = {name: guarded_set(folder / name) for name in HOOK_NAMES}
    elsewhere = {name: other for name, other in others.items() if other not in (None, mine)}
    if elsewhere:
        raise GoldcaseError(_other_set_message(folder, elsewhere, mine))
    return folder, legacy


def _set_folder(root: Path, top: Path) -> str:
    """The golden set's folder as its hooks record it: relative to the top of the work tree."""
    return root.relative_to(top).as_posix()


_SET_LINE = "set_folder="


def guarded_set(path: Path) -> str | None:
    """The set folder goldcase's hook at ``path`` records (its ``set_folder=`` line); None for
    a hook that is not goldcase's or records none (an older goldcase's: rewritten freely)."""
    if not is_goldcase_hook(path):
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    at = text.find(f"\n{_SET_LINE}")
    return None if at < 0 else _shell_word(text[at + 1 + len(_SET_LINE) :])


def _shell_word(text: str) -> str | None:
    """The one shell word ``text`` starts with, up to the end of its line, as the shell reads
    it: quoted, it may run on over lines (a folder's name with a newline), so it is read from
    the text, not from its first line. None when there is none, or more than one."""
    stream = io.StringIO(text)
    lexer = shlex.shlex(stream, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        value = lexer.get_token()
    except ValueError:  # a quote never closed
        return None
    remaining = stream.read()
    ended = text[: len(text) - len(remaining)].endswith("\n") or not remaining
    return value if value and not text[:1].isspace() and ended else None


def _the_set(folder: str) -> str:
    """A golden set of the repository, named by its recorded folder."""
    return "the set at the top of the work tree" if folder == "." else f"the set in {folder}"


def _other_set_message(folder: Path, elsewhere: dict[str, str], mine: str) -> str:
    """Why goldcase's hooks for one set are not repointed at another of the repository."""
    paths = [str(folder / name) for name in elsewhere]
    other, here = _the_set(sorted(set(elsewhere.values()))[0]), _the_set(mine)
    return (
        f"{', '.join(paths)}: goldcase's hooks there guard {other}, and one clone's plain "
        f"hooks guard one set: installing them for {here} would leave {other} unguarded, so "
        f"nothing was written; to guard {here} instead, remove them (rm "
        f"{' '.join(map(shlex.quote, paths))}) and run goldcase git-hooks --install again, or "
        'call goldcase for both sets from a hook of your own (see docs/hooks.md, "Two golden '
        'sets in one repository")'
    )


def _interpreter(python: str | None) -> str | None:
    chosen = python if python is not None else sys.executable
    return chosen if chosen and Path(chosen).is_absolute() else None


def _foreign(path: Path) -> bool:
    return (path.exists() or path.is_symlink()) and not is_goldcase_hook(path)


def _foreign_message(folder: Path, names: list[str]) -> str:
    first = folder / names[0]
    return (
        f"{', '.join(str(folder / name) for name in names)}: a hook goldcase did not write is "
        "there, and goldcase never replaces one; move it away (mv "
        f"{shlex.quote(str(first))} {shlex.quote(str(first))}.local) and run goldcase "
        "git-hooks --install again, or call goldcase from your hook (see docs/hooks.md)"
    )


def legacy_hooks_path(root: Path, top: Path) -> str | None:
    """The core.hooksPath an older ``goldcase init --git-hooks`` set (the set's own tracked
    ``hooks/`` folder, in the repository's local config), to be unset; None when core.hooksPath
    is not set. Any other core.hooksPath is refused: git would run the hooks there, never the
    ones installed in the git directory."""
    entries = gitview.config_entries(root, HOOKS_PATH)
    if not entries:
        return None
    legacy = (root / "hooks").resolve()
    if all(
        scope == "local" and (top / Path(value).expanduser()).resolve() == legacy
        for scope, value in entries
    ):
        return entries[-1][1]
    scope, value = entries[-1]
    raise GoldcaseError(
        f"core.hooksPath is set to {value} (in the {scope} git config): git runs the hooks in "
        "that folder, never the ones goldcase installs in the git directory; unset it (git "
        f"config --{scope} --unset core.hooksPath) and run goldcase git-hooks --install again, "
        "or call goldcase from the hooks you keep there (see docs/hooks.md)"
    )


def legacy_warning(root: Path) -> str | None:
    """A warning when git runs the set's tracked ``hooks/`` (an older goldcase's
    core.hooksPath): ``goldcase lock --stage``, which those hooks run, says how to move. None
    otherwise, or when git cannot tell."""
    try:
        entries = gitview.config_entries(root, HOOKS_PATH)
        top = gitview.top_level(root) if entries else None
        if top is None or legacy_hooks_path(root.resolve(), top) is None:
            return None
    except GoldcaseError:  # another core.hooksPath: the user's own choice, not goldcase's
        return None
    return (
        f"warning: core.hooksPath = {entries[-1][1]} makes git run hooks this repository "
        "tracks, which a pull request can change; move goldcase's into the git directory: "
        "goldcase git-hooks --install (docs/hooks.md)"
    )


def status(root: Path) -> list[tuple[str, str]]:
    """Each plain hook's state in the repository holding ``root``: ``installed`` (goldcase's,
    for this set), ``installed for the set in FOLDER`` (goldcase's, for another set of the
    repository), ``missing``, ``not goldcase's``; and ``core.hooksPath`` with its value when
    one is set (git then runs none of them)."""
    top = gitview.top_level(root)
    if top is None:
        raise GoldcaseError(f"{root} is not inside a git work tree; run git init first")
    folder = gitview.hooks_folder(root)
    root = root.resolve()
    mine = _set_folder(root, top) if root.is_relative_to(top) else None
    states = [(name, _state(folder / name, mine)) for name in HOOK_NAMES]
    entries = gitview.config_entries(root, HOOKS_PATH)
    if entries:
        states.append((HOOKS_PATH, entries[-1][1]))
    return states


def _state(path: Path, mine: str | None) -> str:
    """One hook's state for the set at ``mine`` (its folder; None when not known)."""
    if not is_goldcase_hook(path):
        return "not goldcase's" if _foreign(path) else "missing"
    other = guarded_set(path)
    if other is not None and mine is not None and other != mine:
        return f"installed for {_the_set(other)}"
    return "installed"
