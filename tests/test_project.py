"""One repository URL and install commands that resolve: every file that names goldcase's
repository names the one in ``goldcase.project``, and nothing suggests ``pip install goldcase``
(goldcase is installed from its repository or a wheel, not from a package index)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from goldcase import __version__
from goldcase.project import REPOSITORY, extra_hint, install_command, release_tag, requirement
from kit import REPO_ROOT

# Every text a user reads: the docs, the README, the code (messages, scaffolded files), the
# hook manifest, the action and the packaging metadata.
TEXTS = sorted(
    [
        REPO_ROOT / "README.md",
        REPO_ROOT / "CHANGELOG.md",
        REPO_ROOT / "pyproject.toml",
        REPO_ROOT / ".pre-commit-hooks.yaml",
        REPO_ROOT / ".pre-commit-config.yaml",
        *(REPO_ROOT / "docs").glob("*.md"),
        *(REPO_ROOT / "src").rglob("*.py"),
        *[REPO_ROOT / "action.yml"] * (REPO_ROOT / "action.yml").is_file(),
    ]
)
GITHUB_GOLDCASE = re.compile(r"github\.com/[\w.-]+/goldcase(?![\w-])|github\.com/goldcase[\w.-]*")
INSTALL_LINE = re.compile(r"pip3? install\b([^\n`]*)")


def shown(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


@pytest.mark.parametrize("path", TEXTS, ids=shown)
def test_every_repository_url_is_the_one(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for match in GITHUB_GOLDCASE.finditer(text):
        assert f"https://{match.group(0)}" == REPOSITORY, f"{shown(path)}: {match.group(0)}"


def bare_goldcase(arguments: str) -> bool:
    """Does an install line ask an index for goldcase itself (``goldcase``, ``goldcase==1``),
    rather than for a git URL, a wheel file, or an extra of the installed goldcase?"""
    tokens = re.findall(r"""'[^']*'|"[^"]*"|\S+""", arguments)
    for token in tokens:
        if token in _PROSE or token.startswith("#"):
            return False  # the install line's arguments end where the sentence goes on
        value = token.strip("'\"),;")
        if re.fullmatch(r"goldcase(==[\w.]+)?", value):
            return True
    return False


_PROSE = {"in", "or", "and", "to", "then", "for", "with", "from", "&&", "||", ";"}


@pytest.mark.parametrize("path", TEXTS, ids=shown)
def test_nothing_suggests_installing_goldcase_from_an_index(path: Path) -> None:
    for match in INSTALL_LINE.finditer(path.read_text(encoding="utf-8")):
        assert not bare_goldcase(match.group(1)), f"{shown(path)}: {match.group(0)}"


@pytest.mark.parametrize(
    ("line", "bare"),
    [
        ("goldcase pre-commit", True),
        ("'goldcase==0.1.0'", True),
        ("'goldcase @ git+https://github.com/goldcase-dev/goldcase@v0.1.0'", False),
        ("./goldcase-0.1.0-py3-none-any.whl", False),
        ("'goldcase[dask]'", False),
        ("'goldcase[dask]' in the environment goldcase is installed in", False),
        ("pre-commit && goldcase check", False),
        ("-q goldcase", True),
    ],
)
def test_the_install_line_rule(line: str, bare: bool) -> None:
    assert bare_goldcase(line) is bare


def test_the_install_commands_name_this_release() -> None:
    assert release_tag() == f"v{__version__}"
    assert requirement() == f"goldcase @ git+{REPOSITORY}@v{__version__}"
    assert requirement("dask") == f"goldcase[dask] @ git+{REPOSITORY}@v{__version__}"
    wanted = f"python -m pip install 'goldcase @ git+{REPOSITORY}@v{__version__}'"
    assert install_command() == wanted
    assert extra_hint("dask").startswith("python -m pip install 'goldcase[dask]' in the")


def test_the_package_metadata_names_the_repository() -> None:
    meta = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["version"] == __version__
    assert set(meta["project"]["urls"].values()) >= {REPOSITORY}
