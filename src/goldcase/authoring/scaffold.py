"""``goldcase init``: a new golden-set repository with everything the workflow needs.

Writes the folders, a config, one golden case whose quote verifies against one corpus document,
golden.version (``1``) and its golden.lock, a ``.pre-commit-config.yaml`` that uses goldcase's
hooks, ``.gitattributes`` and the git config for the merge driver, a ``.gitignore`` and a README
stub. Nothing is overwritten: when any of the files exists, nothing at all is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from goldcase import __version__, gitview
from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.errors import GoldcaseError
from goldcase.gitview import top_level
from goldcase.versioning.locking import lock_repository
from goldcase.writer import atomic_write_text

HOOKS_URL = "https://github.com/goldcase/goldcase"
MERGE_DRIVER = "goldcase merge-driver %O %A %B %P"
HOOK_NAMES = ("pre-commit", "pre-merge-commit", "pre-push")

EXAMPLE_CASE = """\
id: ret-001
question: How many days does a customer have to request a credit for a damaged delivery?
answerable: true
expected_answer: 14 days
support:
  - doc: returns-policy.md
    quote: A customer has 14 days from delivery to request a credit
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

PRE_COMMIT_CONFIG = f"""\
# goldcase's hooks, fetched by URL. `rev` pins the goldcase release (a tag or a commit sha);
# replace it with the release you use, and let `pre-commit autoupdate` move it later.
# goldcase-version runs first: when the golden set or corpus changed it bumps golden.version,
# rewrites golden.lock and fails once, so that you add both files and commit again. It also
# runs before a merge commit, to settle golden.version after goldcase's merge driver.
default_install_hook_types: [pre-commit, pre-merge-commit]
repos:
  - repo: {HOOKS_URL}
    rev: v{__version__}
    hooks:
      - id: goldcase-version
      - id: goldcase-check
"""

GITATTRIBUTES = """\
# golden.version and golden.lock merge with goldcase's merge driver, never by hand
# (git config merge.goldcase.driver "goldcase merge-driver %O %A %B %P").
golden.version merge=goldcase
golden.lock merge=goldcase
"""

GITIGNORE = ".goldcase-cache/\n"

README = """\
# Golden set

An evaluation golden set kept with [goldcase](https://github.com/goldcase/goldcase).

- `cases/golden/`: the held-out cases every report is scored on; `cases/dev/`: cases you may
  read, tune against and take few-shot examples from.
- `corpus/`: the documents every support quote must appear in, verbatim.
- `golden.version` and `golden.lock`: bumped and rewritten by `goldcase lock` (the
  goldcase-version hook does it on commit) whenever the golden set or the corpus changes.

Set up a clone: `pip install goldcase pre-commit && pre-commit install &&
goldcase merge-driver --install`. Check the set: `goldcase check`.
"""


@dataclass(frozen=True, slots=True)
class Scaffold:
    root: Path
    written: list[str]
    git_initialised: bool


def files(git_hooks: bool) -> dict[str, str]:
    """Every file ``init`` writes, by path relative to the new repository."""
    out = {
        "goldcase.toml": CONFIG,
        "golden.version": "1\n",
        ".pre-commit-config.yaml": PRE_COMMIT_CONFIG,
        ".gitattributes": GITATTRIBUTES,
        ".gitignore": GITIGNORE,
        "README.md": README,
        "cases/golden/ret-001.yaml": EXAMPLE_CASE,
        "cases/dev/.gitkeep": "",
        "corpus/returns-policy.md": EXAMPLE_DOCUMENT,
        "prompts/.gitkeep": "",
    }
    if git_hooks:
        for name in HOOK_NAMES:
            out[f"hooks/{name}"] = hook_text(name)
    return out


def hook_text(name: str) -> str:
    """The plain git hook ``name`` as shipped (in the wheel, or the source tree's hooks/)."""
    packaged = Path(str(resources.files("goldcase"))) / "hooks" / name
    source_tree = Path(__file__).resolve().parents[3] / "hooks" / name
    for path in (packaged, source_tree):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise GoldcaseError(f"goldcase's git hook {name} is missing; reinstall goldcase")


def init_repository(root: Path, *, git_hooks: bool = False) -> Scaffold:
    """Scaffold a golden-set repository in ``root`` (created when missing)."""
    root = root.resolve()
    if root.exists() and not root.is_dir():
        raise GoldcaseError(f"{root} exists and is not a folder")
    wanted = files(git_hooks)
    present = [rel for rel in [*wanted, "golden.lock"] if (root / rel).exists()]
    if present:
        raise GoldcaseError(
            f"{root} already holds {', '.join(sorted(present))}; goldcase init "
            "never overwrites a file: move them away or pick another folder"
        )
    for rel, text in wanted.items():
        atomic_write_text(root / rel, text)
    for name in HOOK_NAMES if git_hooks else ():
        (root / "hooks" / name).chmod(0o755)
    _write_lock(root)
    initialised = gitview.top_level(root) is None
    if initialised:
        gitview.init_repository(root)
    install_merge_driver(root)
    if git_hooks:
        gitview.set_config(root, "core.hooksPath", _hooks_path(root))
    return Scaffold(root, sorted([*wanted, "golden.lock"]), initialised)


def _write_lock(root: Path) -> None:
    lock_repository(Context(load_config(root), Cache(None)))


def _hooks_path(root: Path) -> str:
    """core.hooksPath is read relative to the work tree's top: ``hooks`` unless the golden set
    lives in a sub-folder of a larger repository."""
    top = top_level(root) or root
    return (root / "hooks").relative_to(top).as_posix()


def install_merge_driver(path: Path) -> Path:
    """Set ``merge.goldcase.driver`` (and its name) in the repository holding ``path``."""
    top = gitview.top_level(path)
    if top is None:
        raise GoldcaseError(f"{path} is not inside a git work tree; run git init first")
    gitview.set_config(path, "merge.goldcase.name", "goldcase: golden.version and golden.lock")
    gitview.set_config(path, "merge.goldcase.driver", MERGE_DRIVER)
    return top
