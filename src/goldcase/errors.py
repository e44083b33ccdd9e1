"""The one exception goldcase raises for expected failures.

The CLI turns it into ``error: <message>`` on stderr and exit status 2 (the
command could not run). Findings about the set are never exceptions.
"""

from __future__ import annotations


class GoldcaseError(Exception):
    """A failure the user can fix: bad arguments, unreadable config, a broken input file."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
