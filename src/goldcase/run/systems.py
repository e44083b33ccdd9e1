"""The three ways to reach the system under test, behind one small interface.

A ``System`` opens one ``Session`` per job (``--jobs N``); a session asks one request at a
time and returns a ``Reply``: the parsed JSON response, or the reason there is none and whether
asking again may help (``retryable``).

- ``--cmd "python my_rag.py"``: each session is a long-lived worker process (``workers``);
- ``--http URL``: each session POSTs JSON (``web``);
- ``--python module:function``: each session calls a Python function in this process
  (``pycall``).
"""

from __future__ import annotations

from typing import Any, Protocol

from msgspec import Struct


class Reply(Struct, frozen=True):
    """What one request got: ``value`` (the parsed JSON response) or ``error`` (why not)."""

    value: Any = None
    error: str | None = None
    retryable: bool = False
    retry_after: float | None = None  # seconds the system asked to wait (HTTP Retry-After)


class Session(Protocol):
    def ask(self, request: dict[str, Any], timeout: float) -> Reply: ...

    def abort(self) -> None:
        """Stop a request in flight, from another thread (Ctrl-C)."""

    def discard(self) -> None:
        """The last response was malformed: start afresh (a worker is restarted)."""

    def close(self) -> None: ...


class System(Protocol):
    kind: str  # cmd | http | python
    identity: str  # what the digest is taken of: the command, the URL, module:function
    default_name: str

    def prepare(self) -> None:
        """Anything that can fail before the first request (import the callable, read the
        header variables); raises ``GoldcaseError``."""

    def session(self) -> Session: ...
