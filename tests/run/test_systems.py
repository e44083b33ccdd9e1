"""goldcase run --http (a real local HTTP server) and --python (a real module imported from the
current folder)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kit import run_cli
from run.kit import FAKE, IDS, by_id, make_set, requests, run_goldcase, script


class Handler(BaseHTTPRequestHandler):
    """Answers like the fake system; ``ret-002`` gets a 503 the first time, ``ret-003`` a 404,
    ``oos-001`` a body that is not JSON. Every request's headers and body are kept."""

    seen: ClassVar[list[tuple[dict[str, str], dict[str, Any]]]] = []
    busy: ClassVar[set[str]] = set()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Handler.seen.append((dict(self.headers), body))
        case_id = body["id"]
        if case_id == "ret-002" and case_id not in Handler.busy:
            Handler.busy.add(case_id)
            self._send(503, b"overloaded", {"Retry-After": "0"})
        elif case_id == "ret-003":
            self._send(404, b"no such route")
        elif case_id == "oos-001":
            self._send(200, b"<html>oops</html>")
        else:
            self._send(200, json.dumps({"answer": "30 days"}).encode())

    def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def server() -> Iterator[str]:
    Handler.seen, Handler.busy = [], set()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/answer"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_http_posts_each_request_with_headers_from_the_environment(
    tmp_path: Path, server: str
) -> None:
    repo = make_set(tmp_path / "repo")
    out = tmp_path / "run.jsonl"
    done = run_goldcase(
        repo,
        out,
        {"RAG_TOKEN": "Bearer s3cret"},
        "--http",
        server,
        "--header",
        "Authorization=RAG_TOKEN",
        "--retries",
        "1",
    )
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert written["ret-001"]["outcome"] == "answer"
    assert written["ret-002"]["outcome"] == "answer"  # the 503 was retried
    assert written["ret-003"]["error"] == "HTTP 404 Not Found: no such route"
    assert written["oos-001"]["error"].startswith("malformed response: not JSON")
    for headers, body in Handler.seen:
        assert headers["Authorization"] == "Bearer s3cret"
        assert set(body) == {"id", "question", "trial"}
    text = out.with_name("run.jsonl.run.json").read_text(encoding="utf-8")
    assert "s3cret" not in text and "/answer" not in text
    assert json.loads(text)["system"]["name"] == "127.0.0.1"  # the host, when --system is not given


def test_a_header_variable_that_is_not_set_is_refused(tmp_path: Path, server: str) -> None:
    repo = make_set(tmp_path / "repo")
    done = run_cli(
        "run", "--repo", repo, "--out", tmp_path / "x.jsonl", "--http", server,
        "--header", "Authorization=NO_SUCH_VARIABLE_SET_ANYWHERE",
    )  # fmt: skip
    assert done.exit_code == 2
    assert "the environment variable NO_SUCH_VARIABLE_SET_ANYWHERE is not set" in done.stderr
    assert Handler.seen == []


def test_an_unreachable_endpoint_is_an_error_on_each_case(tmp_path: Path) -> None:
    repo = make_set(tmp_path / "repo")
    out = tmp_path / "run.jsonl"
    done = run_goldcase(repo, out, {}, "--http", "http://127.0.0.1:9/x", "--retries", "0")
    assert done.exit_code == 0
    assert {line["outcome"] for line in by_id(out).values()} == {"error"}
    assert by_id(out)["ret-001"]["error"].startswith("cannot reach the system")


class NotHttp(BaseHTTPRequestHandler):
    """Reads the request, then answers ``answer``'s bytes as they are, whatever HTTP says."""

    answer: ClassVar[bytes]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.wfile.write(self.answer)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (b"garbage\r\n\r\n", "BadStatusLine: garbage"),
        (
            b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(150)) + b"\r\n",
            "HTTPException: got more than 100 headers",
        ),
        (
            b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n",
            "LineTooLong: got more than 65536 bytes when reading header line",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "IncompleteRead: IncompleteRead(0 bytes read)",
        ),
    ],
    ids=["status-line", "headers", "header-line", "chunks"],
)
def test_an_answer_that_is_not_http_is_an_error_line(
    tmp_path: Path, answer: bytes, error: str
) -> None:
    """http.client refuses these with an HTTPException, which is no OSError: the first such
    answer stopped the whole run with an internal error."""
    handler = type("Handler", (NotHttp,), {"answer": answer})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/answer"
        repo = make_set(tmp_path / "repo")
        out = tmp_path / "run.jsonl"
        done = run_goldcase(repo, out, {}, "--http", url, "--retries", "0")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert done.exit_code == 0, done.stderr
    errors = {line["error"] for line in by_id(out).values()}
    assert errors == {f"malformed response: {error}"}


def test_python_imports_the_function_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_set(tmp_path / "repo")
    here = tmp_path / "here"
    here.mkdir()
    (here / "fake_system.py").write_text(FAKE.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(here)
    monkeypatch.delitem(__import__("sys").modules, "fake_system", raising=False)
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {"ret-002": "raise", "ret-003": "raw:plain text", "oos-001": "abstain"})
    done = run_goldcase(repo, out, env, "--python", "fake_system:answer", "--jobs", "2")
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert sorted(written) == IDS
    assert written["ret-001"]["outcome"] == "answer"
    assert written["ret-002"]["error"] == "ValueError: the index is gone"
    assert written["ret-003"]["error"] == "malformed response: expected a JSON object, got str"
    assert written["oos-001"]["outcome"] == "abstain"
    assert {r["id"] for r in requests(tmp_path)} == set(IDS)


def test_python_that_exits_or_raises_the_unprintable_is_an_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A function that calls sys.exit, or raises an exception whose own __str__ fails, left
    its call without an answer: the run stopped with an internal error (IndexError)."""
    repo = make_set(tmp_path / "repo")
    monkeypatch.syspath_prepend(str(FAKE.parent))
    out = tmp_path / "run.jsonl"
    env = script(tmp_path, {"ret-001": "crash", "ret-002": "unprintable"})
    args = ("--python", "fake_system:answer", "--retries", "0")
    done = run_goldcase(repo, out, env, *args)
    assert done.exit_code == 0, done.stderr
    written = by_id(out)
    assert written["ret-001"]["error"] == "SystemExit: 3"
    assert written["ret-002"]["error"] == (
        "Unprintable: (its message cannot be shown: its __str__ failed)"
    )
    assert written["ret-003"]["outcome"] == "answer"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_here:answer", "cannot import 'no_such_module_here'"),
        ("json:no_such_function", "json has no function 'no_such_function'"),
    ],
)
def test_python_that_cannot_be_loaded_is_refused(tmp_path: Path, spec: str, message: str) -> None:
    repo = make_set(tmp_path / "repo")
    done = run_cli("run", "--repo", repo, "--out", tmp_path / "x.jsonl", "--python", spec)
    assert done.exit_code == 2
    assert message in done.stderr


class Trickle(BaseHTTPRequestHandler):
    """Answers 200 and then a byte of its body every tenth of a second, 300 of them: each
    byte comes well within a socket timeout, the whole far after it (a streaming endpoint's
    heartbeats, or a hostile one)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        stop = threading.Event()
        for _ in range(300):
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:  # the client gave up: what the run should do
                return
            stop.wait(0.1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def _run_against(handler: Any, tmp_path: Path, out: Path, *, daemon: bool) -> Any:
    """``goldcase run --http`` (a one-second timeout, no retry, four jobs) on the sample
    cases against a local server of ``handler``, shut down after."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = daemon
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/answer"
        repo = make_set(tmp_path / "repo")
        args = ("--http", url, "--timeout", "1", "--retries", "0", "--jobs", "4")
        return run_goldcase(repo, out, {}, *args)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_response_that_never_ends_is_cut_at_the_timeout(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    done = _run_against(Trickle, tmp_path, out, daemon=True)
    assert done.exit_code == 0, done.stderr
    errors = {line["error"] for line in by_id(out).values()}
    assert errors == {"no response within 1 s"}


class TrickledError(Trickle):
    """Answers a status that is no answer (``status``), then trickles its body as ``Trickle``
    does, and records how many of its 300 bytes went out before the client hung up."""

    status: ClassVar[int]
    sent: ClassVar[list[int]]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(self.status)
        self.send_header("Content-Length", "1000000")
        self.end_headers()
        stop = threading.Event()
        for count in range(300):
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:  # the client gave up: what the run should do
                self.sent.append(count)
                return
            stop.wait(0.1)
        self.sent.append(300)


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (503, "HTTP 503 Service Unavailable"),
        (302, "HTTP 302: redirected to elsewhere; give the final URL"),
    ],
)
def test_an_error_whose_body_never_ends_is_cut_at_the_timeout(
    tmp_path: Path, status: int, error: str
) -> None:
    """The body of an error is read for its message: it was read without a deadline, each
    request lasting as long as the server kept trickling, whatever --timeout said (30 s here,
    for ever from a server that never stops). Now the status is the error once the deadline
    passes, and the connection is closed: the server's writes fail long before its last."""
    sent: list[int] = []
    handler = type("Handler", (TrickledError,), {"status": status, "sent": sent})
    out = tmp_path / "run.jsonl"
    done = _run_against(handler, tmp_path, out, daemon=False)  # close waits for its counts
    assert done.exit_code == 0, done.stderr
    assert {line["error"] for line in by_id(out).values()} == {error}
    assert len(sent) == len(IDS) and max(sent) < 300, sent
