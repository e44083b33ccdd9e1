"""The page's HTTP server: the standard library's ``ThreadingHTTPServer``, safe by default.

- **Bound to 127.0.0.1**, never to another interface.
- **A random token on every request.** The address printed at the start carries it
  (``/?token=...``); the first request trades it for a cookie (``HttpOnly``,
  ``SameSite=Strict``, named after the port) and is sent on to ``/``, so the token leaves the
  address bar. Every later request carries the cookie or the ``X-Goldcase-Token`` header; one
  without either is refused (403).
- **The Host header** must name 127.0.0.1 or localhost and this port (421 otherwise): a page
  elsewhere that points its own name at 127.0.0.1 (DNS rebinding) is refused. An ``Origin``
  or ``Sec-Fetch-Site`` header from another site is refused too.
- **JSON only.** The API is ``POST /api/<operation>`` with a JSON object of at most
  ``MAX_BODY`` bytes (a declared ``Content-Length``; 411, 413, 415 otherwise), and answers JSON.
- **Nothing fetched from elsewhere.** Four static files from the package, by a fixed list
  (no path from the request reaches the file system); ``Content-Security-Policy:
  default-src 'none'`` with only what the page needs from itself.
- **No token in a log.** Requests are not logged; an unexpected error prints its type and
  message, never a request line nor a traceback; a client that hangs up prints nothing.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import sys
import threading
from collections.abc import Iterator
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from msgspec import Struct

from goldcase.errors import GoldcaseError
from goldcase.labelpage.app import OPERATIONS, App
from goldcase.labelpage.edits import Conflict

HOST = "127.0.0.1"
MAX_BODY = 1024 * 1024
HEADER = "X-Goldcase-Token"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def static_file(name: str) -> bytes:
    return resources.files("goldcase.labelpage").joinpath("static", name).read_bytes()


class Gate(Struct, frozen=True):
    """Who may ask: the token, and the names this server answers to."""

    token: str
    port: int

    @property
    def cookie(self) -> str:
        return f"goldcase_label_{self.port}"  # cookies ignore ports: two servers, two names

    @property
    def origins(self) -> frozenset[str]:
        return frozenset({f"http://{HOST}:{self.port}", f"http://localhost:{self.port}"})

    def host_ok(self, host: str | None) -> bool:
        return host is not None and f"http://{host.lower()}" in self.origins

    def same(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def carried(self, headers: Message, query: dict[str, list[str]]) -> tuple[bool, bool]:
        """(the request carries the token, it came in the address)."""
        if self.same(headers.get(HEADER)) or self.same(_cookie(headers, self.cookie)):
            return True, False
        given = query.get("token", [])
        return (len(given) == 1 and self.same(given[0])), True

    def site_ok(self, headers: Message) -> bool:
        origin = headers.get("Origin")
        fetch_site = headers.get("Sec-Fetch-Site")
        return (origin is None or origin in self.origins) and fetch_site in (
            None,
            "same-origin",
            "none",
        )


def _cookie(headers: Message, name: str) -> str | None:
    for header in headers.get_all("Cookie") or []:
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
    return None


class LabelServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, app: App, port: int, token: str | None = None) -> None:
        super().__init__((HOST, port), Handler)
        self.app = app
        self.gate = Gate(token or secrets.token_urlsafe(24), self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line for what a request raised outside an operation (those are answered 500),
        none for a client that hung up before its answer was written (a tab closed while a
        large document loads): the standard library printed a traceback for each."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError):
            print(f"goldcase label serve: {type(exc).__name__}: {exc}", file=sys.stderr)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.gate.token}"


def start(app: App, port: int, token: str | None = None) -> LabelServer:
    """The server, bound and listening (``port`` 0: any free port); not yet serving."""
    try:
        return LabelServer(app, port, token)
    except OSError as exc:
        raise GoldcaseError(
            f"cannot listen on {HOST}:{port}: {exc.strerror or exc}; pass --port 0 to take "
            "any free port"
        ) from None


@contextlib.contextmanager
def serving(app: App, port: int = 0, token: str | None = None) -> Iterator[LabelServer]:
    """The page served from a thread while the block runs, then stopped and joined (the self
    check, the screenshots and the tests)."""
    server = start(app, port, token)
    thread = threading.Thread(target=server.serve_forever, name="goldcase-label", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class Handler(BaseHTTPRequestHandler):
    server: LabelServer
    _cookie: str | None = None  # set when the token came in the address
    timeout = 30  # seconds a connection may stay silent: a slow client holds no thread
    server_version = "goldcase"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a request line would print the token."""

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if not self._allowed(parse_qs(url.query), page=url.path == "/"):
            return
        if url.path == "/" and url.query:  # the token leaves the address bar
            self._send(HTTPStatus.SEE_OTHER, b"", "text/plain", {"Location": "/"})
            return
        found = STATIC.get(url.path)
        if found is None:
            self._error(HTTPStatus.NOT_FOUND, "no such page")
            return
        name, kind = found
        self._send(HTTPStatus.OK, static_file(name), kind)

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        if not self._allowed({}, page=False):
            return
        body = self._body()
        if body is None:
            return
        name = url.path.removeprefix("/api/")
        if not url.path.startswith("/api/") or url.query or name not in OPERATIONS:
            self._error(HTTPStatus.NOT_FOUND, "no such operation")
            return
        self._answer(name, body)

    def _allowed(self, query: dict[str, list[str]], *, page: bool) -> bool:
        """Host, site and token; the token from the address only for the page itself, which
        then sets the cookie."""
        gate = self.server.gate
        if not gate.host_ok(self.headers.get("Host")):
            self._error(HTTPStatus.MISDIRECTED_REQUEST, "this server answers to 127.0.0.1 only")
            return False
        if not gate.site_ok(self.headers):
            self._error(HTTPStatus.FORBIDDEN, "requests from another site are refused")
            return False
        ok, in_address = gate.carried(self.headers, query if page else {})
        if not ok:
            self._error(
                HTTPStatus.FORBIDDEN,
                "no token: open the address goldcase label serve printed (it carries the token)",
            )
            return False
        if in_address:
            self._cookie = f"{gate.cookie}={gate.token}; HttpOnly; SameSite=Strict; Path=/"
        return True

    def _body(self) -> dict[str, Any] | None:
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (application/json)")
            return None
        length = self.headers.get("Content-Length")
        if length is None or not (length.isascii() and length.isdigit()):  # "²" is a digit
            self._error(HTTPStatus.LENGTH_REQUIRED, "a request body needs its Content-Length")
            return None
        digits = length.lstrip("0") or "0"  # int() refuses over 4,300 digits: compare first
        if len(digits) > len(str(MAX_BODY)) or int(digits) > MAX_BODY:
            self.close_connection = True  # the body is not read
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY:,} bytes")
            return None
        try:
            data = json.loads(self.rfile.read(int(digits)).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self._error(HTTPStatus.BAD_REQUEST, "the body is not JSON")
            return None
        if not isinstance(data, dict):
            self._error(HTTPStatus.BAD_REQUEST, "the body should be a JSON object")
            return None
        return data

    def _answer(self, name: str, body: dict[str, Any]) -> None:
        try:
            result = self.server.app.call(name, body)
        except Conflict as exc:
            self._error(HTTPStatus.CONFLICT, exc.message)
        except GoldcaseError as exc:
            self._error(HTTPStatus.BAD_REQUEST, exc.message)
        except Exception as exc:  # the page shows it; the server goes on
            print(f"goldcase label serve: {type(exc).__name__}: {exc}", file=sys.stderr)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(exc).__name__}")
        else:
            self._json(HTTPStatus.OK, result)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json(status, {"error": message})

    def _json(self, status: HTTPStatus, data: Any) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def _send(
        self, status: HTTPStatus, body: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        if self._cookie is not None:
            self.send_header("Set-Cookie", self._cookie)
        self.end_headers()
        self.wfile.write(body)
