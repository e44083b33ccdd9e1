"""Where goldcase itself lives: its one repository URL, the release tag of the installed
goldcase, and how to install it. Every message, scaffolded file and doc that names the
repository or an install command takes it from here (a test holds the docs to it).

goldcase is installed from its repository (a release tag) or from a wheel built from it; it is
not on a package index, so installing it by name resolves nothing and no message suggests it.
"""

from __future__ import annotations

from goldcase import __version__

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
