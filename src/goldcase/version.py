"""``golden.version``: the set's version string, one line."""

from __future__ import annotations

from goldcase.config import Config
from goldcase.errors import GoldcaseError


def read_version(config: Config) -> str | None:
    """The version string, or None when the repository has no ``golden.version`` yet."""
    path = config.version_file
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(f"{path.name}: cannot read it: {exc}") from exc
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        raise GoldcaseError(
            f"{path.name}: expected one line holding the version, found "
            f"{len(lines)}; write the version on a single line"
        )
    return lines[0]
