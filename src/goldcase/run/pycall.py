"""``--python module:function``: the system as a Python function, called in this process.

The function takes the request (a dict: id, question, trial) and returns the response (a dict).
``module`` is imported the way ``python -m`` would: the current folder comes first on
``sys.path``, then the installed packages. This runs code the user named on the command line,
never code named by the repository: no config key can name a callable.

An exception is an error (retried when it is a ``ConnectionError`` or ``TimeoutError``). A
call that runs past ``--timeout`` is recorded as an error, but a Python thread cannot be
stopped from outside: that call runs on in the background until it returns, and its answer is
dropped. Prefer ``--cmd`` for a system that may hang.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.run.systems import Reply
from goldcase.text import clip

Function = Callable[[dict[str, Any]], Any]


class PythonSystem:
    kind = "python"

    def __init__(self, spec: str) -> None:
        module, sep, name = spec.partition(":")
        if not sep or not module or not name.isidentifier():
            raise GoldcaseError(
                f"--python {spec!r}: expected module:function (my_rag:answer, pkg.api:ask)"
            )
        self.identity = spec
        self.default_name = spec
        self._module, self._name = module, name
        self._function: Function | None = None

    def prepare(self) -> None:
        here = os.getcwd()
        if here not in sys.path:
            sys.path.insert(0, here)  # as python -m does
        try:
            module = importlib.import_module(self._module)
        except Exception as exc:  # its import runs user code: anything can go wrong
            raise GoldcaseError(
                f"--python: cannot import {self._module!r}: {type(exc).__name__}: {clip(str(exc))}"
            ) from None
        function = getattr(module, self._name, None)
        if not callable(function):
            raise GoldcaseError(f"--python: {self._module} has no function {self._name!r}")
        self._function = function

    def session(self) -> CallSession:
        assert self._function is not None, "prepare() first"
        return CallSession(self._function)


class CallSession:
    def __init__(self, function: Function) -> None:
        self._function = function

    def ask(self, request: dict[str, Any], timeout: float) -> Reply:
        box: list[Reply] = []
        done = threading.Event()

        def call() -> None:
            try:
                box.append(Reply(value=self._function(dict(request))))
            except BaseException as exc:  # the system's own failure (sys.exit too): its error
                box.append(_failed(exc))
            finally:
                done.set()

        # a daemon thread a call: one that hangs cannot keep the process from exiting
        threading.Thread(target=call, daemon=True, name="goldcase-call").start()
        if not done.wait(timeout):
            return Reply(error=f"no response within {timeout:g} s", retryable=True)
        return box[0]

    def abort(self) -> None:
        """A call cannot be stopped; its answer is dropped after Ctrl-C."""

    def discard(self) -> None:
        """A function holds no connection to start afresh."""

    def close(self) -> None:
        """Nothing to close."""


def _failed(exc: BaseException) -> Reply:
    """The error a call that raised is: its type and message (retried for a connection error
    or a timeout). Anything the function raised ends here, a ``SystemExit`` or an exception
    whose own ``__str__`` fails included: either left the call without an answer, and the
    run stopped with an internal error."""
    try:
        detail = clip(str(exc), 200)
    except Exception:
        detail = "(its message cannot be shown: its __str__ failed)"
    retry = isinstance(exc, ConnectionError | TimeoutError)
    return Reply(error=f"{type(exc).__name__}: {detail}", retryable=retry)
