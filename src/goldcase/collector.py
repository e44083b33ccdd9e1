"""The cyclic garbage collector, kept out of the way of what a command builds to keep.

A warm run decodes a million small values from the cache and builds a ``Case`` for each of
10,000 files; none of them can be garbage while the command runs, and none is part of a
reference cycle. Left alone, the collector walks all of them several times as they move up
its generations (50 ms of a 300 ms check). ``kept()`` pauses it while such objects are made
and then moves everything alive into the permanent generation (``gc.freeze``), which no
collection walks. Reference counting still frees each of them when it is no longer used;
only a reference cycle among frozen objects would outlive its use, and the objects kept this
way hold none.

Freeing is not free either: the 100,000 parsed lines of a run are about a million objects,
and letting go of them one by one takes 0.12 s. The console script ends without the
interpreter's teardown (``cli.leave``), so what it no longer needs can simply stay until the
kernel takes the whole process back: ``let_go`` keeps it there, and frees nothing when
goldcase is called as a library, where the caller's ``del`` frees as usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_KEPT_TO_EXIT: list[object] | None = None


def ending_without_teardown() -> None:
    """Called by the console script, which ends with ``os._exit``: from now on ``let_go``
    keeps what it is given until then."""
    global _KEPT_TO_EXIT
    _KEPT_TO_EXIT = []


def let_go(value: object) -> None:
    """The caller no longer needs ``value`` (and drops its own reference next): in the
    console script it is kept until the process ends rather than freed object by object;
    else nothing happens here. Only for what is not needed to make room for something else:
    kept, it stays in the run's peak memory."""
    if _KEPT_TO_EXIT is not None:
        _KEPT_TO_EXIT.append(value)


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """Pause the collector for the block; what is alive at its end is frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()
