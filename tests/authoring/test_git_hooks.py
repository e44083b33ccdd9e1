"""goldcase git-hooks: the plain git hooks live in the git directory, and nothing a repository
or a pull request holds decides what they run (docs/hooks.md, "Plain git hooks"). Every test
is a real repository and a real ``git commit`` firing the installed hook."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from goldcase.authoring.git_hooks import install
from kit import (
    BIN,
    GOLDCASE,
    REPO_ROOT,
    case_text,
    commit,
    git,
    git_set,
    golden_set,
    read_version,
    run,
    write,
)

HOOKS = ("pre-commit", "pre-merge-commit", "pre-push")
MARKER_LINE = "# goldcase-git-hook: installed by goldcase git-hooks --install"
SYSTEM_PATH = "/usr/bin:/bin"


def plant(root: Path, marker: Path) -> None:
    """What a stranger commits to run code on a reviewer's machine: the hooks an older goldcase
    kept in hooks/, a .venv/bin/goldcase, a bin/goldcase, and a goldcase package that
    ``python -m goldcase`` would import from the folder it runs in."""
    shell = f"#!/bin/sh\necho ran >> '{marker}'\nexit 0\n"
    for rel in [*(f"hooks/{name}" for name in HOOKS), ".venv/bin/goldcase", "bin/goldcase"]:
        write(root, rel, shell).chmod(0o755)
    write(root, "goldcase/__init__.py", "")
    write(root, "goldcase/__main__.py", f"open({str(marker)!r}, 'a').write('ran')\n")


def attempt(root: Path, message: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Stage everything and commit, the hooks on (what a user does)."""
    git(root, "add", "-A")
    return run(["git", "commit", "-q", "--no-gpg-sign", "-m", message], root, False, **env)


def add_case(root: Path, message: str = "add ret-003", **env: str) -> None:
    """A commit that adds a golden case goes through, the hook moving the version."""
    before = int(read_version(root))
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    done = attempt(root, message, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(root, "show", "HEAD:golden.version").stdout == f"{before + 1}\n"


def hostile_clone(tmp_path: Path, marker: Path) -> Path:
    origin = git_set(tmp_path / "origin")
    plant(origin, marker)
    commit(origin, "helpful tooling")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    return tmp_path / "clone"


def test_install_writes_into_the_git_directory_and_sets_no_hooks_path(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    done = run([GOLDCASE, "git-hooks", "--install"], root)
    for name in HOOKS:
        hook = root / ".git" / "hooks" / name
        assert f"installed {hook}\n" in done.stdout
        assert MARKER_LINE in hook.read_text()
        assert os.access(hook, os.X_OK)
    assert git(root, "config", "core.hooksPath", check=False).returncode == 1
    assert git(root, "status", "--porcelain").stdout == ""  # nothing in the work tree
    add_case(root)


def test_a_cloned_repository_runs_none_of_its_own_code(tmp_path: Path) -> None:
    """Clone a stranger's set, install the hooks, commit: with goldcase on PATH, and with only
    the recorded Python (whose ``-m goldcase`` must not import the clone's goldcase/)."""
    marker = tmp_path / "marker"
    clone = hostile_clone(tmp_path, marker)
    run([GOLDCASE, "git-hooks", "--install"], clone)
    add_case(clone, "on PATH")
    write(clone, "corpus/shipping.md", "# Shipping\n\nParcels leave within two days.\n")
    done = attempt(clone, "recorded Python", PATH=SYSTEM_PATH)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(clone, "show", "HEAD:corpus/shipping.md").returncode == 0
    assert "golden.lock" in git(clone, "show", "--name-only", "HEAD").stdout  # goldcase ran
    assert not marker.exists()


@pytest.mark.parametrize(
    ("entry", "refused"),
    [
        pytest.param("{clone}/.venv/bin", "{clone}/.venv/bin/goldcase", id="tracked-venv"),
        pytest.param("bin", "bin/goldcase", id="relative-entry"),
    ],
)
def test_a_goldcase_the_repository_supplies_on_path_is_refused(
    tmp_path: Path, entry: str, refused: str
) -> None:
    """The clone's own .venv activated (its bin first on PATH), or a relative entry on PATH:
    the hook finds the stranger's goldcase first, refuses it and runs nothing."""
    marker = tmp_path / "marker"
    clone = hostile_clone(tmp_path, marker)
    run([GOLDCASE, "git-hooks", "--install"], clone)
    write(clone, "cases/golden/ret-003.yaml", case_text("ret-003"))
    path = f"{entry.format(clone=clone)}:{BIN}:{SYSTEM_PATH}"
    done = attempt(clone, "x", PATH=path)
    assert done.returncode == 1
    assert f"goldcase pre-commit hook: refusing {refused.format(clone=clone)}" in done.stderr
    assert git(clone, "rev-list", "--count", "HEAD").stdout == "2\n"
    assert not marker.exists()


def test_a_pull_request_that_adds_hooks_runs_nothing(tmp_path: Path) -> None:
    """A stranger's branch holds hooks/ (and the rest); the reviewer checks it out and
    commits: goldcase's hook runs (the version moves), theirs does not."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    git(root, "checkout", "-q", "-b", "pull-request")
    plant(root, marker)
    commit(root, "helpful tooling")  # the stranger's commit
    add_case(root, "review fix")
    assert not marker.exists()


def test_an_older_install_moves_with_one_command(tmp_path: Path) -> None:
    """A set made by an older goldcase: hooks/ tracked and core.hooksPath=hooks, and a pull
    request edited hooks/pre-commit. ``goldcase git-hooks`` reports it (exit 1);
    ``--install`` unsets core.hooksPath, says so, and the next commit runs goldcase's hook."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    plant(root, marker)
    commit(root, "hooks")
    git(root, "config", "core.hooksPath", "hooks")
    shown = run([GOLDCASE, "git-hooks"], root, check=False)
    assert shown.returncode == 1
    assert "core.hooksPath: hooks\n" in shown.stdout
    moved = run([GOLDCASE, "git-hooks", "--install"], root)
    assert moved.stdout.startswith("unset core.hooksPath (hooks)")
    assert git(root, "config", "core.hooksPath", check=False).returncode == 1
    add_case(root)
    assert not marker.exists()
    assert run([GOLDCASE, "git-hooks"], root).stdout == (
        "pre-commit: installed\npre-merge-commit: installed\npre-push: installed\n"
    )


def test_a_hook_goldcase_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    own = write(root, ".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n")
    refused = run([GOLDCASE, "git-hooks", "--install"], root, check=False)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: {own}: a hook goldcase did not write is there, and goldcase never replaces "
        f"one; move it away (mv {own} {own}.local) and run goldcase git-hooks --install again, "
        "or call goldcase from your hook (see docs/hooks.md)\n"
    )
    assert own.read_text() == "#!/bin/sh\nexit 0\n"
    assert not (root / ".git" / "hooks" / "pre-push").exists()  # nothing at all written
    shown = run([GOLDCASE, "git-hooks"], root, check=False)
    assert (shown.returncode, shown.stdout.splitlines()[0]) == (1, "pre-commit: not goldcase's")


def test_init_git_hooks_writes_nothing_when_a_hook_is_in_the_way(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".git/hooks/pre-push", "#!/bin/sh\nexit 0\n")
    refused = run([GOLDCASE, "init", "--git-hooks"], root, check=False)
    assert refused.returncode == 2
    assert "pre-push: a hook goldcase did not write is there" in refused.stderr
    assert sorted(path.name for path in root.iterdir()) == [".git"]
    assert git(root, "config", "merge.goldcase.driver", check=False).returncode == 1


def test_installing_again_is_idempotent_and_upgrades_goldcase_hooks(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    hooks = root / ".git" / "hooks"
    first = {name: (hooks / name).read_bytes() for name in HOOKS}
    again = run([GOLDCASE, "git-hooks", "--install"], root)
    assert again.stdout == "".join(f"{hooks / name} is up to date\n" for name in HOOKS)
    assert {name: (hooks / name).read_bytes() for name in HOOKS} == first
    old = f"#!/bin/sh\n{MARKER_LINE} 0.0.1\nexit 0\n"  # an older goldcase's hook
    (hooks / "pre-push").write_text(old)
    upgraded = run([GOLDCASE, "git-hooks", "--install"], root)
    assert f"installed {hooks / 'pre-push'}\n" in upgraded.stdout
    assert (hooks / "pre-push").read_bytes() == first["pre-push"]


@pytest.mark.parametrize("scope", ["local", "global"])
def test_another_core_hooks_path_is_refused(tmp_path: Path, scope: str) -> None:
    """git would run the hooks in core.hooksPath and never the installed ones: refused,
    naming where it is set, nothing written."""
    root = git_set(tmp_path / "set")
    config = tmp_path / "gitconfig"
    config.write_text("")
    if scope == "local":
        git(root, "config", "core.hooksPath", ".husky")
    else:
        config.write_text("[core]\n\thooksPath = ~/githooks\n")
    refused = run(
        [GOLDCASE, "git-hooks", "--install"], root, check=False, GIT_CONFIG_GLOBAL=str(config)
    )
    assert refused.returncode == 2
    value = ".husky" if scope == "local" else "~/githooks"
    assert f"error: core.hooksPath is set to {value} (in the {scope} git config)" in refused.stderr
    assert f"git config --{scope} --unset core.hooksPath" in refused.stderr
    assert not (root / ".git" / "hooks" / "pre-commit").exists()


def test_a_linked_worktree_installs_into_the_shared_git_directory(tmp_path: Path) -> None:
    root = git_set(tmp_path / "set")
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", str(linked), "-b", "feature")
    run([GOLDCASE, "git-hooks", "--install"], linked)
    assert MARKER_LINE in (root / ".git" / "hooks" / "pre-commit").read_text()
    add_case(linked)


def test_the_hook_says_when_goldcase_is_missing(tmp_path: Path) -> None:
    """Not on PATH, and the Python recorded at install time gone: the message of the docs."""
    root = git_set(tmp_path / "set")
    install(root, python=str(tmp_path / "gone" / "python"))
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    refused = attempt(root, "x", PATH=SYSTEM_PATH)
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        "goldcase pre-commit hook: goldcase is not on PATH (and the Python that installed\n"
        "these hooks is gone); install it (python -m pip install 'goldcase @ git+"
    )
    assert "or commit with --no-verify to skip the check\n" in refused.stderr


@pytest.mark.parametrize("hooks_path", [None, "hooks"])
def test_lock_stage_warns_while_git_runs_the_tracked_hooks(
    tmp_path: Path, hooks_path: str | None
) -> None:
    """The hooks an older goldcase wrote run ``goldcase lock --stage``: it says how to move
    while core.hooksPath names the set's tracked hooks/, and nothing otherwise."""
    root = git_set(tmp_path / "set")
    if hooks_path is not None:
        git(root, "config", "core.hooksPath", hooks_path)
    done = run([GOLDCASE, "lock", "--stage"], root)
    warning = (
        "warning: core.hooksPath = hooks makes git run hooks this repository tracks, which a "
        "pull request can change; move goldcase's into the git directory: goldcase git-hooks "
        "--install (docs/hooks.md)\n"
    )
    assert done.stderr == (warning if hooks_path else "")


def test_an_older_install_in_a_sub_folder_moves_too(tmp_path: Path) -> None:
    """An older init in a sub-folder set core.hooksPath to the sub-folder's hooks/."""
    mono = tmp_path / "mono"
    root = golden_set(mono / "sets" / "one")
    git(mono, "init", "-q", "-b", "main")
    git(mono, "config", "core.hooksPath", "sets/one/hooks")
    moved = run([GOLDCASE, "git-hooks", "--install", "--repo", root], mono)
    assert moved.stdout.startswith("unset core.hooksPath (sets/one/hooks)")
    assert MARKER_LINE in (mono / ".git" / "hooks" / "pre-commit").read_text()
    assert "\nset_folder=sets/one\n" in (mono / ".git" / "hooks" / "pre-commit").read_text()


def two_sets(tmp_path: Path) -> tuple[Path, Path, Path]:
    """One repository holding two golden sets, each in a folder of its own, committed."""
    top = tmp_path / "evals"
    first, second = golden_set(top / "support"), golden_set(top / "search")
    git(top, "init", "-q", "-b", "main")
    for folder in (first, second):
        run([GOLDCASE, "lock"], folder, check=False)
    commit(top, "two golden sets")
    return top, first, second


def test_installing_for_a_second_set_refuses_and_keeps_the_first_guarded(
    tmp_path: Path,
) -> None:
    """The hooks record one set's folder: installing for the other would repoint them, and
    the first set would no longer be guarded."""
    top, first, second = two_sets(tmp_path)
    run([GOLDCASE, "git-hooks", "--install"], first)
    hooks = top / ".git" / "hooks"
    before = {name: (hooks / name).read_bytes() for name in HOOKS}
    refused = run([GOLDCASE, "git-hooks", "--install"], second, check=False)
    assert refused.returncode == 2
    assert refused.stdout == ""
    names = ", ".join(str(hooks / name) for name in HOOKS)
    removal = " ".join(str(hooks / name) for name in HOOKS)
    assert refused.stderr == (
        f"error: {names}: goldcase's hooks there guard the set in support, and one clone's "
        "plain hooks guard one set: installing them for the set in search would leave the "
        "set in support unguarded, so nothing was written; to guard the set in search "
        f"instead, remove them (rm {removal}) and run goldcase git-hooks --install again, or "
        "call goldcase "
        'for both sets from a hook of your own (see docs/hooks.md, "Two golden sets in one '
        'repository")\n'
    )
    assert {name: (hooks / name).read_bytes() for name in HOOKS} == before
    status = run([GOLDCASE, "git-hooks"], second, check=False)
    assert status.returncode == 1
    assert status.stdout == "".join(f"{name}: installed for the set in support\n" for name in HOOKS)
    assert run([GOLDCASE, "git-hooks"], first).stdout == "".join(
        f"{name}: installed\n" for name in HOOKS
    )
    # The first set is still guarded: its hook moves its version in the commit.
    write(first, "cases/golden/ret-003.yaml", case_text("ret-003"))
    done = attempt(top, "add a case to support")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(top, "show", "HEAD:support/golden.version").stdout == "2\n"


def test_init_git_hooks_for_a_second_set_writes_nothing(tmp_path: Path) -> None:
    top, first, _ = two_sets(tmp_path)
    run([GOLDCASE, "git-hooks", "--install"], first)
    third = top / "triage"
    third.mkdir()
    refused = run([GOLDCASE, "init", "--git-hooks"], third, check=False)
    assert refused.returncode == 2
    assert "goldcase's hooks there guard the set in support" in refused.stderr
    assert list(third.iterdir()) == []


def test_installing_for_the_set_at_the_top_names_it(tmp_path: Path) -> None:
    """A set at the top of the work tree and one in a sub-folder."""
    root = git_set(tmp_path / "set")
    nested = golden_set(root / "extra")
    run([GOLDCASE, "git-hooks", "--install"], root)
    refused = run([GOLDCASE, "git-hooks", "--install"], nested, check=False)
    assert refused.returncode == 2
    assert (
        "goldcase's hooks there guard the set at the top of the work tree, and one clone's "
        "plain hooks guard one set: installing them for the set in extra would leave the set "
        "at the top of the work tree unguarded"
    ) in refused.stderr


# --- a goldcase reached through a link into the work tree ---

REFUSED_IN_TREE = (
    "a file in this repository's work tree that git does not ignore, which a branch can "
    "change or put there"
)


def linked_entries(tmp_path: Path, clone: Path, shape: str) -> tuple[str, Path]:
    """A PATH entry outside the clone that reaches its tracked bin/goldcase through a link:
    (the entry, the goldcase the hook finds there)."""
    outside = tmp_path / "x"
    outside.mkdir()
    if shape == "linked-folder":  # /tmp/x/bin -> <clone>/bin
        (outside / "bin").symlink_to(clone / "bin")
        return f"{outside}/bin", outside / "bin" / "goldcase"
    if shape == "linked-file":  # /tmp/x/goldcase -> <clone>/bin/goldcase
        (outside / "goldcase").symlink_to(clone / "bin" / "goldcase")
        return str(outside), outside / "goldcase"
    # a chain: /tmp/x/goldcase -> ../y/goldcase, /tmp/y -> <clone>/bin (a relative link)
    (tmp_path / "y").symlink_to(clone / "bin")
    (outside / "goldcase").symlink_to("../y/goldcase")
    return str(outside), outside / "goldcase"


@pytest.mark.parametrize("shape", ["linked-folder", "linked-file", "chain"])
def test_a_tracked_goldcase_reached_through_a_link_is_refused(tmp_path: Path, shape: str) -> None:
    marker = tmp_path / "marker"
    clone = hostile_clone(tmp_path, marker)
    run([GOLDCASE, "git-hooks", "--install"], clone)
    entry, found = linked_entries(tmp_path, clone, shape)
    write(clone, "cases/golden/ret-003.yaml", case_text("ret-003"))
    done = attempt(clone, "x", PATH=f"{entry}:{BIN}:{SYSTEM_PATH}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        f"goldcase pre-commit hook: refusing {found}: it is or leads to {clone}/bin/goldcase, "
        f"{REFUSED_IN_TREE}; install goldcase outside the repository\n"
    )
    assert git(clone, "rev-list", "--count", "HEAD").stdout == "2\n"
    assert not marker.exists()


def test_the_recorded_python_reached_through_a_link_is_refused(tmp_path: Path) -> None:
    """goldcase not on PATH: the hook falls back to the Python recorded at install time, which
    leads through a link to a file the clone tracks."""
    marker = tmp_path / "marker"
    clone = hostile_clone(tmp_path, marker)
    write(clone, "bin/python", f"#!/bin/sh\necho ran >> '{marker}'\n").chmod(0o755)
    commit(clone, "a python of the repository's")
    (tmp_path / "x").symlink_to(clone / "bin")
    install(clone, python=str(tmp_path / "x" / "python"))
    write(clone, "cases/golden/ret-003.yaml", case_text("ret-003"))
    done = attempt(clone, "x", PATH=SYSTEM_PATH)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        f"goldcase pre-commit hook: refusing {tmp_path}/x/python: it is or leads to "
        f"{clone}/bin/python, {REFUSED_IN_TREE}; install goldcase outside the repository and "
        "run goldcase git-hooks --install\n"
    )
    assert not marker.exists()


def test_an_untracked_goldcase_in_the_work_tree_is_refused(tmp_path: Path) -> None:
    """Not ignored and not tracked (yet): nothing tells it from a file a branch put there."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    write(root, "tools/goldcase", f"#!/bin/sh\necho ran >> '{marker}'\n").chmod(0o755)
    (tmp_path / "x").symlink_to(root / "tools")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    git(root, "add", "cases")
    done = run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "x"],
        root,
        False,
        PATH=f"{tmp_path}/x:{BIN}:{SYSTEM_PATH}",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"refusing {tmp_path}/x/goldcase: it is or leads to {root}/tools/goldcase" in done.stderr
    assert not marker.exists()


def test_an_ignored_environment_in_the_work_tree_is_run(tmp_path: Path) -> None:
    """The usual set-up: a virtual environment in .venv, which git ignores (its own
    .gitignore says *), activated. Its goldcase runs; the commit goes through."""
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    write(root, ".venv/.gitignore", "*\n")
    write(root, ".venv/bin/goldcase", f'#!/bin/sh\nexec {GOLDCASE} "$@"\n').chmod(0o755)
    add_case(root, PATH=f"{root}/.venv/bin:{SYSTEM_PATH}")


def test_a_goldcase_hook_whose_set_line_cannot_be_read_is_rewritten(tmp_path: Path) -> None:
    """A hook of goldcase's hand-edited so that its set_folder= line no longer parses names no
    set: it is rewritten as an older goldcase's would be, for the set installing it."""
    top, first, _ = two_sets(tmp_path)
    hooks = top / ".git" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        (hooks / name).write_text(f"#!/bin/sh\n{MARKER_LINE} 0.0.1\nset_folder='search\n")
    done = run([GOLDCASE, "git-hooks", "--install"], first)
    assert done.stdout == "".join(f"installed {hooks / name}\n" for name in HOOKS)
    assert run([GOLDCASE, "git-hooks"], first).stdout == "".join(
        f"{name}: installed\n" for name in HOOKS
    )


def test_a_branch_that_adds_a_file_to_an_ignored_environment_runs_nothing(
    tmp_path: Path,
) -> None:
    """git writes a branch's files into an ignored folder and replaces ignored files there: a
    pull request that commits .venv/bin/python (the interpreter the environment's goldcase
    script runs) needs no change to .venv/bin/goldcase itself. Once git tracks a file in the
    environment, its goldcase is refused."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    write(root, ".venv/.gitignore", "*\n")
    write(root, ".venv/bin/python", f'#!/bin/sh\nexec {GOLDCASE} "$@"\n').chmod(0o755)
    write(root, ".venv/bin/goldcase", f'#!/bin/sh\nexec {root}/.venv/bin/python "$@"\n').chmod(
        0o755
    )
    git(tmp_path, "clone", "-q", str(root), "fork")
    fork = tmp_path / "fork"
    write(fork, ".venv/bin/python", f"#!/bin/sh\necho ran >> '{marker}'\n").chmod(0o755)
    git(fork, "add", "-f", ".venv/bin/python")
    commit(fork, "helpful tooling")
    git(root, "fetch", "-q", str(fork), "HEAD:pr")
    git(root, "checkout", "-q", "pr")
    write(root, "cases/golden/ret-003.yaml", case_text("ret-003"))
    done = attempt(root, "review", PATH=f"{root}/.venv/bin:{SYSTEM_PATH}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"refusing {root}/.venv/bin/goldcase: it is or leads to" in done.stderr
    assert f"{root}/.venv, a folder of this repository's work tree in which git tracks" in (
        done.stderr.replace("\\\n", "")
    )
    assert not marker.exists()


@pytest.mark.parametrize("name", ["line\nbreak", "it's", "sp ace"])
def test_a_set_whose_folder_needs_quoting_keeps_its_hooks(tmp_path: Path, name: str) -> None:
    """The hooks of a set whose folder's name the hook must quote (across two lines, for a
    newline) still name that set: installing for another set refuses."""
    top = tmp_path / "evals"
    first, second = golden_set(top / name), golden_set(top / "search")
    git(top, "init", "-q", "-b", "main")
    commit(top, "two golden sets")
    run([GOLDCASE, "git-hooks", "--install"], first)
    hooks = top / ".git" / "hooks"
    before = {hook: (hooks / hook).read_bytes() for hook in HOOKS}
    refused = run([GOLDCASE, "git-hooks", "--install"], second, check=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"goldcase's hooks there guard the set in {name}, and" in refused.stderr
    assert {hook: (hooks / hook).read_bytes() for hook in HOOKS} == before


@pytest.mark.parametrize("entry", [".", "", "{root}", "{root}/sub/.."])
def test_a_pythonpath_entry_in_the_work_tree_imports_nothing_from_it(
    tmp_path: Path, entry: str
) -> None:
    """PYTHONPATH's folders come before the installed goldcase's: an entry that is the folder
    the hook runs in (".", or an empty one, as `export PYTHONPATH=$PYTHONPATH:/x` leaves)
    or a folder of the work tree would import a branch's goldcase/ instead. The hook drops
    them and keeps the others; the commit goes through with the installed goldcase."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    (root / "sub").mkdir()
    write(root, "goldcase/__init__.py", f"open({str(marker)!r}, 'a').write('ran')\n")
    git(root, "add", "goldcase")
    kept = os.environ.get("PYTHONPATH", "")
    pythonpath = os.pathsep.join([entry.format(root=root), *([kept] if kept else [])])
    add_case(root, PYTHONPATH=pythonpath)
    assert not marker.exists()


STDLIB = f"lib/python{sys.version_info.major}.{sys.version_info.minor}"


def planted_module(marker: Path) -> str:
    """Python that appends to ``marker``, run so early (the codecs Python loads first) that
    only built-in modules are there to do it."""
    return (
        "import posix\n"
        f"fd = posix.open({str(marker)!r}, posix.O_WRONLY | posix.O_CREAT | posix.O_APPEND)\n"
        "posix.write(fd, b'ran')\n"
    )


@pytest.mark.parametrize("home", ["home", "./home", "{root}/home"])
def test_a_pythonhome_in_the_work_tree_runs_nothing_from_it(tmp_path: Path, home: str) -> None:
    """PYTHONHOME is where Python reads its standard library: relative (the folder the hook
    runs in) or in the work tree, a branch's encodings/ would run before goldcase. The hook
    unsets it; the commit goes through with the installed goldcase."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    write(root, f"home/{STDLIB}/encodings/__init__.py", planted_module(marker))
    add_case(root, PYTHONHOME=home.format(root=root))
    assert not marker.exists()


def user_site_python() -> str:
    """An interpreter with a user site (a virtual environment has none): the one this
    environment was made from."""
    base = str(getattr(sys, "_base_executable", "") or sys.executable)
    probe = [base, "-c", "import site, sys; sys.exit(site.ENABLE_USER_SITE is not True)"]
    if subprocess.run(probe, env={}, check=False).returncode != 0:
        pytest.skip(f"{base} has no user site")
    return base


def places(name: str) -> list[Any]:
    """A folder ``name`` given to Python relative, in the work tree and outside it, and
    whether what a branch planted there runs (only outside: the user's own folder)."""
    return [
        pytest.param(name, False, id="relative"),
        pytest.param(f"{{root}}/{name}", False, id="in-the-work-tree"),
        pytest.param(f"{{outside}}/{name}", True, id="outside-kept"),
    ]


@pytest.mark.parametrize(("userbase", "runs"), places("userbase"))
def test_a_pythonuserbase_in_the_work_tree_runs_nothing_from_it(
    tmp_path: Path, userbase: str, runs: bool
) -> None:
    """PYTHONUSERBASE holds the user site, whose .pth files (and packages) Python takes at
    start: relative or in the work tree, a branch fills it. The hook unsets it, and keeps
    one outside the work tree (the user's own, whose .pth runs as it would anywhere). The
    hook runs the recorded Python, one with a user site, goldcase found on PYTHONPATH."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    install(root, python=user_site_python())
    outside = tmp_path / "outside"
    pth = f"userbase/{STDLIB}/site-packages/planted.pth"
    for folder in (root, outside):
        write(folder, pth, planted_module(marker).replace("\n", "; ") + "\n")
    site_packages = sysconfig.get_paths()["purelib"]
    add_case(
        root,
        PATH=SYSTEM_PATH,
        PYTHONPATH=f"{REPO_ROOT / 'src'}:{site_packages}",
        PYTHONUSERBASE=userbase.format(root=root, outside=outside),
    )
    assert marker.exists() is runs


@pytest.mark.parametrize("exec_prefix", ["home", "{root}/home"])
def test_a_pythonhome_exec_prefix_in_the_work_tree_runs_nothing_from_it(
    tmp_path: Path, exec_prefix: str
) -> None:
    """docs/hooks.md: PYTHONHOME relative or leading into the work tree is unset. Set as
    ``prefix:exec_prefix``, its second half is where Python finds lib-dynload, searched
    before site-packages: with the standard library's prefix outside and that half relative
    or in the work tree, a branch's math.py (or another extension module the standard
    library imports, whichever this build does not have built in) or goldcase/ would run."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    for planted in ("math.py", "_json.py", "_datetime.py", "zlib.py", "goldcase/__init__.py"):
        write(root, f"home/{STDLIB}/lib-dynload/{planted}", planted_module(marker))
    home = f"{sys.base_prefix}:{exec_prefix.format(root=root)}"
    add_case(root, PYTHONHOME=home)
    assert not marker.exists()


@pytest.mark.parametrize(("prefix", "runs"), places("pyc"))
def test_a_pycache_prefix_in_the_work_tree_runs_nothing_from_it(
    tmp_path: Path, prefix: str, runs: bool
) -> None:
    """docs/hooks.md: PYTHONPYCACHEPREFIX is where Python reads compiled modules instead of
    each __pycache__, and one compiled with an unchecked hash is never compared with its
    source. Relative or in the work tree, a branch's compiled goldcase/__init__ would run;
    the hook unsets it, and keeps one outside the work tree (where the same file runs, which
    shows the planted file is the one Python would read)."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    source = run([str(Path(GOLDCASE).parent / "python"), "-c", _GOLDCASE_FILE], root)
    init = Path(source.stdout.strip())
    outside = tmp_path / "outside"
    planted = planted_module(marker) + "exec(compile(open(__file__).read(), __file__, 'exec'))\n"
    for folder in (root, outside):
        folder.mkdir(exist_ok=True)
        staged = folder / "planted.py"
        staged.write_text(planted, encoding="utf-8")
        compiled = (
            folder
            / "pyc"
            / init.parent.relative_to("/")
            / Path(importlib.util.cache_from_source(str(init))).name
        )
        compiled.parent.mkdir(parents=True, exist_ok=True)
        py_compile.compile(
            str(staged),
            cfile=str(compiled),
            dfile=str(init),
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        staged.unlink()
    add_case(root, PYTHONPYCACHEPREFIX=prefix.format(root=root, outside=outside))
    assert marker.exists() is runs


_GOLDCASE_FILE = "import goldcase; print(goldcase.__file__)"


def test_a_platlibdir_that_is_a_path_runs_nothing_from_it(tmp_path: Path) -> None:
    """docs/hooks.md: PYTHONPLATLIBDIR names a folder under the prefix (lib, lib64); set to
    an absolute path, Python joins it to the prefix as that path alone and reads its
    standard library there, so a path of the work tree would run a branch's encodings/.
    The hook unsets a value that is a path."""
    marker = tmp_path / "marker"
    root = git_set(tmp_path / "set")
    run([GOLDCASE, "git-hooks", "--install"], root)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    write(root, f"plat/{version}/encodings/__init__.py", planted_module(marker))
    add_case(root, PYTHONPLATLIBDIR=f"{root}/plat")
    assert not marker.exists()
