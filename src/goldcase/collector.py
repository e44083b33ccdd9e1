"""The cyclic garbage collector, kept out of the way of what a command builds to keep.

A warm run decodes a million small values from the cache and builds a ``Case`` for each of
10,000 files; none of them can be garbage while the command runs, and none is part of a
reference cycle. Left alone, the collector walks all of them several times as they move up
its generations (50 ms of a 300 ms check). ``kept()`` pauses it while such objects are made
and then moves everything alive into the permanent generation (``gc.freeze``), which no
collection walks. Reference counting still frees each of them when it is no longer used;
only a reference cycle among frozen objects would outlive its use, and the objects kept this
way hold none.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


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
