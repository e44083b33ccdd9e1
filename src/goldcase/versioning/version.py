"""``golden.version``: the set's version string, one line."""

from __future__ import annotations

import re

from goldcase.config import Config
from goldcase.errors import GoldcaseError
from goldcase.safeio import TooLarge, read_inside

# A version is one short line: a larger file (a branch's 300 MB of NULs, about 300 KB in git) is
# refused unread, not decoded, split and printed in every report.
MAX_VERSION_BYTES = 64 * 1024


def read_version(config: Config) -> str | None:
    """The version string, or None when the repository has no ``golden.version`` yet."""
    path = config.version_file
    if not path.exists():
        return None
    try:
        text = read_version_text(config)
    except TooLarge as exc:
        raise GoldcaseError(
            f"{path.name} holds {exc.size:,} bytes, more than the {exc.limit:,} a version may "
            "take; write the version on a single short line"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GoldcaseError(f"{path.name}: cannot read it: {exc}") from exc
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        raise GoldcaseError(
            f"{path.name}: expected one line holding the version, found "
            f"{len(lines)}; write the version on a single line"
        )
    return lines[0]


def read_version_text(config: Config) -> str:
    """``golden.version``'s text, read only when it lies inside the repository (a link to a
    one-line file anywhere would become the version) and within ``MAX_VERSION_BYTES``."""
    return read_inside(config.root, config.version_file.name, MAX_VERSION_BYTES).decode("utf-8")


# Searched where a run of digits begins: "^(.*?)(\d+)$" tried every split of the version, each
# to its end, so a version of a megabyte of digits and a letter hung.
_TRAILING_NUMBER = re.compile(r"(?<!\d)\d+$")
_NUMBERS = re.compile(r"(\d+)")


def next_version(version: str) -> str:
    """The version after ``version``: its trailing number plus one, zero padding kept
    (``1`` → ``2``, ``2026.3`` → ``2026.4``, ``v009`` → ``v010``)."""
    match = _TRAILING_NUMBER.search(version)
    if match is None:
        raise GoldcaseError(
            f"golden.version holds {version!r}, which does not end in a number, so goldcase "
            "cannot bump it; write a version that ends in one (1, 2026.3, v7) and run goldcase lock"
        )
    prefix, digits = version[: match.start()], match[0]
    try:
        number = int(digits)
    except ValueError:  # more digits than Python reads as an int (4,300)
        raise GoldcaseError(
            f"golden.version ends in a number of {len(digits):,} digits, too long to count on "
            "from; write a shorter version and run goldcase lock"
        ) from None
    return prefix + str(number + 1).zfill(len(digits))


def version_key(version: str) -> tuple[str | int, ...]:
    """Sort key that compares the numbers in a version as numbers (``2026.10`` > ``2026.9``)."""
    parts = _NUMBERS.split(version)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def highest(*versions: str | None) -> str | None:
    present = [v for v in versions if v is not None]
    return max(present, key=version_key) if present else None


def parse_version_text(text: str) -> str | None:
    """The version in a golden.version file's text (None when it holds none)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if len(lines) == 1 else None


_MARKER = re.compile(r"^(<{7}|\|{7}|={7}|>{7})(?: |$)")
_SECTION = {"<": "ours", "|": "base", "=": "theirs", ">": ""}


def conflict_sides(text: str) -> tuple[str | None, str | None, str | None] | None:
    """(ancestor, ours, theirs) in a golden.version that git left with conflict markers (the
    merge driver was not configured); None when the text has no markers."""
    sections: dict[str, list[str]] = {"ours": [], "base": [], "theirs": [], "": []}
    section, seen = "", False
    for line in text.splitlines():
        marker = _MARKER.match(line)
        if marker is not None:
            seen, section = True, _SECTION[marker.group(1)[0]]
        elif line.strip():
            sections[section].append(line.strip())
    if not seen:
        return None

    def one(name: str) -> str | None:
        return sections[name][0] if len(sections[name]) == 1 else None

    return one("base"), one("ours"), one("theirs")
