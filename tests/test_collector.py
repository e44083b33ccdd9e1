"""collector.let_go: what a command no longer needs is left to the process's end in the
console script (which ends without teardown, ``cli.leave``), and freed as usual otherwise."""

from __future__ import annotations

import subprocess
import sys
import weakref

import pytest

from goldcase import collector


class _Lines(list[int]):
    """A list that can be watched by a weak reference."""


def test_a_library_caller_frees_what_it_lets_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "_KEPT_TO_EXIT", None)
    lines = _Lines(range(10))
    watched = weakref.ref(lines)
    collector.let_go(lines)
    del lines
    assert watched() is None


def test_the_console_script_keeps_what_it_lets_go_until_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "_KEPT_TO_EXIT", None)
    collector.ending_without_teardown()
    lines = _Lines(range(10))
    watched = weakref.ref(lines)
    collector.let_go(lines)
    del lines
    assert watched() == list(range(10))


def test_the_console_script_says_it_ends_without_teardown() -> None:
    """``main()`` as the console script calls it (no arguments) switches ``let_go`` to
    keeping; ``main(argv)``, as a caller in the same process uses it, does not."""
    probe = (
        "import sys\n"
        "from goldcase import cli, collector\n"
        "cli.main(['--help'])\n"
        "print('library', collector._KEPT_TO_EXIT is not None, flush=True)\n"
        "sys.argv = ['goldcase', '--help']\n"
        "import atexit\n"
        "atexit.register(lambda: print('console', collector._KEPT_TO_EXIT is not None))\n"
        "cli.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert "library False" in done.stdout
    assert "console True" in done.stdout
