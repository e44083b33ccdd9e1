"""``goldcase init``: a new golden-set repository with everything the workflow needs.

Writes the folders, a config, the case schema editors read, a ``.pre-commit-config.yaml`` that
runs goldcase's hooks, ``.gitattributes`` and the git config for the merge driver, a
``.gitignore`` and a README stub. Nothing is overwritten: when any of the files exists, nothing
at all is written. No case is written unless ``--example`` asks for one, and no golden.version
or golden.lock: versioning starts with the first commit (the goldcase hook, or ``goldcase
lock``, writes version 1), so a new set is not already on version 2 when it is first
used.

The hooks come in two forms. ``url`` (the default) names goldcase's repository at the installed
release's tag, and pre-commit installs goldcase from it in an environment of its own. ``local``
writes the same hooks as ``repo: local`` entries with ``language: system``, calling the
``goldcase`` installed in the environment the commit runs in: nothing is fetched, for teams
that install goldcase themselves or work offline. Both are built from goldcase's own hook
manifest (``.pre-commit-hooks.yaml``, shipped in the package), so they cannot drift from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from msgspec import Struct

from goldcase import gitview
from goldcase.authoring import git_hooks
from goldcase.authoring.editor_schema import copies, modeline
from goldcase.errors import GoldcaseError
from goldcase.project import REPOSITORY, install_command, release_tag, shipped
from goldcase.writer import atomic_write_bytes

# ``--`` ends the options: %P is a path in the repository, and one that starts with ``-`` (a
# folder named ``--help``) would otherwise be read as an option.
MERGE_DRIVER = "goldcase merge-driver -- %O %A %B %P"
HOOK_FORMS = ("url", "local")
# The hooks init puts in .pre-commit-config.yaml: the one that locks and checks in one process
# (goldcase-version then goldcase-check, the set loaded once).
SCAFFOLD_HOOKS = ("goldcase",)
MANIFEST = ".pre-commit-hooks.yaml"
_MANIFEST_PACKAGED = "pre-commit-hooks.yaml"  # where the wheel carries it (no leading dot)

EXAMPLE_CASE_PATH = "cases/golden/ret-001.yaml"
EXAMPLE_CASE = """\
id: ret-001
question: How many days does a customer have to request a credit for a damaged delivery?
answerable: true
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
expect:
  contains: [["14 days", "fourteen days"]]
slice: returns
tags: [numeric, policy]
source: hand-written
notes: An example case; replace it with questions your users really ask.
"""

EXAMPLE_DOCUMENT = """\
# Returns policy

A customer has 14 days from delivery to request a credit for a damaged delivery.
Credits are paid back to the original payment method within five working days.
"""

CONFIG = """\
# goldcase configuration. Every key is optional; the defaults are shown commented out.
# cases = "cases"        # cases/golden/<id>.yaml (held out, scored), cases/dev/<id>.yaml
# corpus = "corpus"      # the documents support quotes come from
# prompts = "prompts"    # prompt files whose few-shot examples are checked for leakage
# private = false        # true when the corpus is private: the set is never exported

# [composition]
# slice_floor = 20       # cases a reported slice needs
# unanswerable_floor = 0.25
"""

_URL_HEADER = """\
# goldcase's hooks, fetched from goldcase's repository: pre-commit installs goldcase at `rev`
# (the release that wrote this file) in an environment of its own. `pre-commit autoupdate`
# moves `rev` to a newer release. Offline, or with goldcase installed by hand: goldcase init
# --hooks local writes the same hooks as `repo: local` entries that fetch nothing.
"""

_LOCAL_HEADER = """\
# goldcase's hooks, run by the goldcase installed in the environment you commit from
# (`repo: local`, `language: system`): nothing is fetched. Install goldcase in that environment
# and activate it (or put its bin folder on PATH) before committing; see the README.
"""

_ORDER_NOTE = """\
# The goldcase hook first does what goldcase-version does: when the golden set or corpus
# changed it writes golden.version and golden.lock and adds both to the commit being made (the
# version moves once per branch). Then it runs every check on the staged case files, in the
# same process. It also runs before a merge commit, to settle golden.version after goldcase's
# merge driver.
default_install_hook_types: [pre-commit, pre-merge-commit]
"""

GITATTRIBUTES = """\
# golden.version and golden.lock merge with goldcase's merge driver, never by hand
# (git config merge.goldcase.driver "goldcase merge-driver -- %O %A %B %P").
golden.version merge=goldcase
golden.lock merge=goldcase
"""

GITIGNORE = ".goldcase-cache/\n"

_README = """\
# Golden set

An evaluation golden set kept with [goldcase]({repository}).

- `cases/golden/`: the held-out cases every report is scored on; `cases/dev/`: cases you may
  read, tune against and take few-shot examples from. `goldcase new` writes a case.
- `corpus/`: the documents every support quote must appear in, verbatim.
- `golden.version` and `golden.lock`: written by `goldcase lock` (the goldcase hook does it on
  commit) whenever the golden set or the corpus changes; the first commit makes version 1.
- `schema/`: the schemas each case file's and draft's first line names, for editors.

Set up a clone:

    {install}
    python -m pip install pre-commit
    pre-commit install
    goldcase merge-driver --install

Without the pre-commit framework, `goldcase git-hooks --install` instead of the two pre-commit
lines: it installs plain git hooks into this clone's `.git/hooks/`.

Check the set: `goldcase check`. Score a run: `goldcase score results.jsonl`.
"""


def readme() -> str:
    return _README.format(repository=REPOSITORY, install=install_command())


class Options(Struct, frozen=True):
    """What ``goldcase init`` was asked for."""

    hooks: str = "url"  # url | local: the .pre-commit-config.yaml form
    git_hooks: bool = False  # also the plain git hooks, in the git directory
    example: bool = False  # one example case and the document its quote is in


class Scaffold(Struct, frozen=True):
    root: Path
    written: list[str]
    git_initialised: bool
    hooks: git_hooks.Installed | None = None  # the plain git hooks, when asked for


def files(options: Options, root: Path) -> dict[str, bytes]:
    """Every file ``init`` writes, by path relative to the new repository."""
    text = {
        "goldcase.toml": CONFIG,
        ".pre-commit-config.yaml": pre_commit_config(options.hooks),
        ".gitattributes": GITATTRIBUTES,
        ".gitignore": GITIGNORE,
        "README.md": readme(),
        "cases/golden/.gitkeep": "",
        "cases/dev/.gitkeep": "",
        "corpus/.gitkeep": "",
        "prompts/.gitkeep": "",
    }
    if options.example:
        line = modeline(root / EXAMPLE_CASE_PATH, root)
        text[EXAMPLE_CASE_PATH] = f"{line}\n{EXAMPLE_CASE}"
        text["corpus/returns-policy.md"] = EXAMPLE_DOCUMENT
    out = {rel: value.encode("utf-8") for rel, value in text.items()}
    out.update(copies())
    return out


def pre_commit_config(form: str) -> str:
    """The .pre-commit-config.yaml that runs goldcase's hooks, by URL or from this
    environment's goldcase (``local``)."""
    if form not in HOOK_FORMS:
        raise GoldcaseError(f"unknown hooks form {form!r}; choose url or local")
    if form == "url":
        hooks = "".join(f"      - id: {hook_id}\n" for hook_id in SCAFFOLD_HOOKS)
        repo = f"  - repo: {REPOSITORY}\n    rev: {release_tag()}\n    hooks:\n{hooks}"
        return f"{_URL_HEADER}{_ORDER_NOTE}repos:\n{repo}"
    lines: list[str] = []
    for hook_id in SCAFFOLD_HOOKS:
        for number, (key, value) in enumerate(local_hook(hook_id).items()):
            lines.append(f"{'      - ' if number == 0 else '        '}{key}: {_flow(value)}\n")
    indented = "".join(lines)
    return f"{_LOCAL_HEADER}{_ORDER_NOTE}repos:\n  - repo: local\n    hooks:\n{indented}"


def _flow(value: Any) -> str:
    """A manifest value on one line: a list in flow style, a scalar as YAML writes it."""
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    text: str = yaml.safe_dump(value, width=1 << 16)
    return text.removesuffix("\n").removesuffix("\n...")


def local_hook(hook_id: str) -> dict[str, Any]:
    """The manifest's hook ``hook_id`` as a ``repo: local`` entry: the same command, files and
    stages, run by the goldcase on PATH (``language: system``)."""
    for hook in hook_manifest():
        if hook.get("id") == hook_id:
            entry = {key: value for key, value in hook.items() if key != "description"}
            entry["language"] = "system"
            return entry
    raise GoldcaseError(f"goldcase's hook manifest has no {hook_id}; reinstall goldcase")


def hook_manifest() -> list[dict[str, Any]]:
    """goldcase's .pre-commit-hooks.yaml (in the wheel, or at the source tree's top)."""
    path = shipped(_MANIFEST_PACKAGED, MANIFEST)
    if path is not None and path.is_file():
        hooks = yaml.safe_load(path.read_text(encoding="utf-8"))
        return [hook for hook in hooks if isinstance(hook, dict)]
    raise GoldcaseError(f"goldcase's hook manifest {MANIFEST} is missing; reinstall goldcase")


def init_repository(root: Path, options: Options | None = None) -> Scaffold:
    """Scaffold a golden-set repository in ``root`` (created when missing)."""
    options = options or Options()
    root = root.resolve()
    if root.exists() and not root.is_dir():
        raise GoldcaseError(f"{root} exists and is not a folder")
    wanted = files(options, root)
    present = [rel for rel in [*wanted, *_NOT_YET] if (root / rel).exists()]
    if present:
        raise GoldcaseError(
            f"{root} already holds {', '.join(sorted(present))}; goldcase init "
            "never overwrites a file: move them away or pick another folder"
        )
    if options.git_hooks:
        git_hooks.preflight(root)  # a hook of the user's in the way: write nothing at all
    for rel, data in wanted.items():
        atomic_write_bytes(root / rel, data)
    initialised = gitview.top_level(root) is None
    if initialised:
        gitview.init_repository(root)
    install_merge_driver(root)
    hooks = git_hooks.install(root) if options.git_hooks else None
    return Scaffold(root, sorted(wanted), initialised, hooks)


# Not written by init, but a folder that holds them already has a golden set: init would
# start a second version history beside the first.
_NOT_YET = ("golden.version", "golden.lock")


def install_merge_driver(path: Path) -> Path:
    """Set ``merge.goldcase.driver`` (and its name) in the repository holding ``path``."""
    top = gitview.top_level(path)
    if top is None:
        raise GoldcaseError(f"{path} is not inside a git work tree; run git init first")
    gitview.set_config(path, "merge.goldcase.name", "goldcase: golden.version and golden.lock")
    gitview.set_config(path, "merge.goldcase.driver", MERGE_DRIVER)
    return top
