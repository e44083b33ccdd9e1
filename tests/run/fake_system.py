"""A fake system under test for the run tests: a worker (``python fake_system.py``), a
callable (``--python fake_system:answer``) and the behaviour both share.

What it does for a case is read from the JSON file named by ``$FAKE_SCRIPT`` (case id ->
action); a case it has no action for is answered ``"30 days"``. Every request received is
appended to ``$FAKE_LOG`` (one JSON line, as received), so a test sees what reached the
system. Actions:

- ``answer:TEXT`` / ``abstain`` / ``error:TEXT``: that response;
- ``raw:TEXT``: TEXT printed as the response line, as it is (not JSON, say);
- ``twice``: two response lines for the one request;
- ``json:OBJECT``: OBJECT (JSON) as the response;
- ``crash``: a message on standard error, exit status 3;
- ``hang``: never answer;
- ``busy-once``: ``{"error": "busy", "retryable": true}`` the first time (a marker file
  beside the log remembers), then an answer;
- ``prompt:TEXT``: an answer that says it sent TEXT to its model;
- ``block``: create ``$FAKE_LOG.blocked``, then wait for ``$FAKE_LOG.release`` (a file no test
  creates: the worker waits until it is killed);
- ``meet:N``: write this process's id beside the log and wait until N processes have (at
  most a minute), then answer: N workers must be answering at once.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def _script() -> dict[str, str]:
    path = os.environ.get("FAKE_SCRIPT")
    return json.loads(Path(path).read_text(encoding="utf-8")) if path else {}


def _log() -> Path | None:
    path = os.environ.get("FAKE_LOG")
    return Path(path) if path else None


def respond(request: dict[str, Any]) -> Any:
    """The response to one request (or exits, or waits, as the action says)."""
    action = _script().get(str(request.get("id")), "answer:30 days")
    kind, _, arg = action.partition(":")
    log = _log()
    if kind == "answer":
        return {"answer": arg, "confidence": 0.9}
    if kind == "abstain":
        return {"outcome": "abstain"}
    if kind == "error":
        return {"error": arg}
    if kind == "json":
        return json.loads(arg)
    if kind == "raw":
        return arg
    if kind == "twice":  # two response lines for one request
        return json.dumps({"answer": "30 days"}) + "\n" + json.dumps({"answer": "stray"})
    if kind == "prompt":
        return {"answer": "30 days", "prompt": arg}
    if kind == "crash":
        print("boom: the index is gone", file=sys.stderr, flush=True)
        sys.exit(3)
    if kind == "hang":
        while True:
            time.sleep(1)
    if kind == "busy-once":
        assert log is not None
        marker = log.with_name(log.name + f".busy-{request['id']}")
        if not marker.exists():
            marker.touch()
            return {"error": "busy", "retryable": True}
        return {"answer": "30 days"}
    if kind == "block":
        assert log is not None
        log.with_name(log.name + ".blocked").touch()
        while not log.with_name(log.name + ".release").exists():
            time.sleep(0.05)
        return {"answer": "30 days"}
    if kind == "meet":
        assert log is not None
        folder = log.with_name(log.name + ".pids")
        folder.mkdir(exist_ok=True)
        (folder / str(os.getpid())).touch()
        deadline = time.monotonic() + 60
        while len(list(folder.iterdir())) < int(arg) and time.monotonic() < deadline:
            time.sleep(0.02)
        return {"answer": "30 days"}
    raise SystemExit(f"unknown action {action!r}")


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


def answer(request: dict[str, Any]) -> Any:
    """The ``--python fake_system:answer`` entry point (``raise``: a ``ValueError``;
    ``unprintable``: an exception whose ``__str__`` fails; ``crash`` is ``sys.exit(3)``)."""
    _record(json.dumps(request))
    action = _script().get(str(request.get("id")))
    if action == "raise":
        raise ValueError("the index is gone")
    if action == "unprintable":
        raise Unprintable
    return respond(request)


def _record(line: str) -> None:
    log = _log()
    if log is not None:
        with log.open("a", encoding="utf-8") as fh:
            fh.write(line.rstrip("\n") + "\n")


def main() -> None:
    for line in sys.stdin:
        _record(line)
        response = respond(json.loads(line))
        out = response if isinstance(response, str) else json.dumps(response)  # raw: as it is
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
