"""Where goldcase itself lives: its one repository URL, the release tag of the installed
goldcase, and how to install it. Every message, scaffolded file and doc that names the
repository or an install command takes it from here (a test holds the docs to it).

goldcase is installed from its repository (a release tag) or from a wheel built from it; it is
not on a package index, so installing it by name resolves nothing and no message suggests it.
"""

from __future__ import annotations

from pathlib import Path

from goldcase import __version__

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_TREE = _PACKAGE.parents[1]  # src/goldcase -> the repository's top, in a checkout

REPOSITORY = "https://github.com/goldcase-dev/goldcase"


def release_tag(version: str = __version__) -> str:
    """The git tag of a release: ``v0.1.0``."""
    return f"v{version}"


def requirement(extra: str | None = None, version: str = __version__) -> str:
    """A pip requirement that resolves: this release from the repository, by its tag."""
    name = f"goldcase[{extra}]" if extra else "goldcase"
    return f"{name} @ git+{REPOSITORY}@{release_tag(version)}"


def install_command(extra: str | None = None) -> str:
    """The command that installs this release (with ``extra``) into an environment."""
    return f"python -m pip install '{requirement(extra)}'"


def extra_hint(extra: str) -> str:
    """How to add an extra's packages to the environment goldcase is installed in: pip reads
    the installed goldcase's own metadata, so nothing is fetched for goldcase itself."""
    return f"python -m pip install 'goldcase[{extra}]' in the environment goldcase is installed in"


def shipped(packaged: str, source: str | None = None) -> Path | None:
    """A file or folder goldcase ships: ``packaged`` inside the installed package (where the
    wheel puts it), else ``source`` (default the same) at the source tree's top, for a
    checkout run in place; None when neither exists. Found by the package's own path, not
    ``importlib.resources``, whose import is 7 ms of every command."""
    for path in (_PACKAGE / packaged, _SOURCE_TREE / (source or packaged)):
        if path.exists():
            return path
    return None
