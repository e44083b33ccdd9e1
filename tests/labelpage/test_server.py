"""The page's HTTP server as an intruder meets it (docs/label.md, "Safe by default"): bound to
127.0.0.1, a token on every request, the Host header checked, other sites refused, JSON
bodies only and capped, a fixed list of static files, and the same security headers on every
answer. Real requests to a real server on a free port."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from goldcase.errors import GoldcaseError
from goldcase.labelpage.server import CSP, HEADER, MAX_BODY, LabelServer, start
from labelpage.kit import build, serving

TOKEN = "a-token-for-the-tests-only"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelServer]:
    """One server for the module: no test here writes a file."""
    with serving(build(tmp_path_factory.mktemp("server") / "repo"), token=TOKEN) as running:
        yield running


def ask(
    server: LabelServer,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, http.client.HTTPMessage, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def cookie(server: LabelServer) -> dict[str, str]:
    return {"Cookie": f"goldcase_label_{server.port}={TOKEN}"}


def api(
    server: LabelServer, name: str, body: Any = None, **headers: str
) -> tuple[int, dict[str, Any]]:
    sent = {**cookie(server), "Content-Type": "application/json", **headers}
    status, _, raw = ask(server, "POST", f"/api/{name}", sent, json.dumps(body or {}).encode())
    return status, json.loads(raw)


def test_it_listens_on_127_0_0_1_only(server: LabelServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}/?token={TOKEN}"


def test_a_port_in_use_is_a_clear_error(server: LabelServer) -> None:
    with pytest.raises(GoldcaseError, match=r"cannot listen on 127\.0\.0\.1:\d+: .*--port 0"):
        start(server.app, server.port)


def test_the_token_in_the_address_becomes_a_cookie(server: LabelServer) -> None:
    status, headers, _ = ask(server, "GET", f"/?token={TOKEN}")
    assert status == 303 and headers["Location"] == "/"  # the token leaves the address bar
    assert headers["Set-Cookie"] == (
        f"goldcase_label_{server.port}={TOKEN}; HttpOnly; SameSite=Strict; Path=/"
    )
    status, headers, body = ask(server, "GET", "/", cookie(server))
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"<title>goldcase labelling</title>" in body


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "/", {}),
        ("GET", "/app.js", {}),
        ("GET", "/?token=wrong", {}),
        ("GET", f"/?token={TOKEN}&token=x", {}),
        ("GET", "/", {"Cookie": "goldcase_label_1=" + TOKEN}),  # another port's cookie
        ("GET", "/", {HEADER: "wrong"}),
        ("POST", "/api/state", {"Content-Type": "application/json"}),
        ("POST", f"/api/state?token={TOKEN}", {"Content-Type": "application/json"}),
    ],
)
def test_a_request_without_the_token_is_refused(
    server: LabelServer, method: str, path: str, headers: dict[str, str]
) -> None:
    status, _, body = ask(server, method, path, headers, b"{}" if method == "POST" else None)
    assert status == 403
    assert json.loads(body) == {
        "error": "no token: open the address goldcase label serve printed (it carries the token)"
    }


def test_the_token_may_come_in_a_header(server: LabelServer) -> None:
    headers = {HEADER: TOKEN, "Content-Type": "application/json"}
    status, _, body = ask(server, "POST", "/api/state", headers, b"{}")
    assert status == 200 and json.loads(body)["mode"] == "drafts"


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "127.0.0.1", "[::1]:{port}"]
)
def test_another_host_name_is_refused(server: LabelServer, host: str) -> None:
    """DNS rebinding: a page on another name that resolves to 127.0.0.1."""
    status, body = api(server, "state", Host=host.format(port=server.port))
    assert status == 421 and body == {"error": "this server answers to 127.0.0.1 only"}


def test_localhost_is_this_host(server: LabelServer) -> None:
    status, _ = api(server, "state", Host=f"localhost:{server.port}")
    assert status == 200


def test_no_host_header_is_refused(server: LabelServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as raw:
        raw.sendall(b"GET / HTTP/1.0\r\n\r\n")
        answer = raw.recv(4096)
    assert answer.startswith(b"HTTP/1.0 421")


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}],
)
def test_a_request_from_another_site_is_refused(
    server: LabelServer, headers: dict[str, str]
) -> None:
    status, body = api(server, "state", **headers)
    assert status == 403 and body == {"error": "requests from another site are refused"}


def test_a_request_from_the_page_itself_is_accepted(server: LabelServer) -> None:
    origin = f"http://127.0.0.1:{server.port}"
    status, _ = api(server, "state", Origin=origin, **{"Sec-Fetch-Site": "same-origin"})
    assert status == 200


def test_a_body_over_the_cap_is_refused_unread(server: LabelServer) -> None:
    headers = {**cookie(server), "Content-Type": "application/json"}
    headers["Content-Length"] = str(MAX_BODY + 1)
    status, _, body = ask(server, "POST", "/api/state", headers, b"{}")
    assert status == 413 and json.loads(body) == {"error": "at most 1,048,576 bytes"}


@pytest.mark.parametrize(
    ("kind", "body", "status", "error"),
    [
        ("text/plain", b"{}", 415, "send JSON (application/json)"),
        ("application/x-www-form-urlencoded", b"a=1", 415, "send JSON (application/json)"),
        ("application/json", b"{", 400, "the body is not JSON"),
        ("application/json", b"\xff\xfe", 400, "the body is not JSON"),
        ("application/json", b"[1, 2]", 400, "the body should be a JSON object"),
        ("application/json", b"[" * 100_000, 400, "the body is not JSON"),
    ],
)
def test_only_a_json_object_is_read(
    server: LabelServer, kind: str, body: bytes, status: int, error: str
) -> None:
    headers = {**cookie(server), "Content-Type": kind}
    got, _, raw = ask(server, "POST", "/api/state", headers, body)
    assert (got, json.loads(raw)) == (status, {"error": error})


def test_a_body_needs_its_length(server: LabelServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as raw:
        raw.sendall(
            f"POST /api/state HTTP/1.0\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Cookie: goldcase_label_{server.port}={TOKEN}\r\n"
            "Content-Type: application/json\r\n\r\n{}".encode()
        )
        answer = raw.recv(4096)
    assert answer.startswith(b"HTTP/1.0 411")


def raw_post(server: LabelServer, length: bytes, body: bytes = b"{}") -> bytes:
    """The whole answer to a POST whose Content-Length is ``length``, as the server wrote it."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as raw:
        raw.sendall(
            f"POST /api/state HTTP/1.0\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Cookie: goldcase_label_{server.port}={TOKEN}\r\n"
            "Content-Type: application/json\r\nContent-Length: ".encode()
            + length
            + b"\r\n\r\n"
            + body
        )
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    return answer


@pytest.mark.parametrize("length", [b"\xb2", b"\xb9\xb2", b"-1", b"+2", b" 2x"])
def test_a_length_that_is_not_ascii_digits_is_refused(server: LabelServer, length: bytes) -> None:
    """Headers are read as Latin-1, where the superscripts are digits to ``str.isdigit`` and
    not to ``int``: the request ended without an answer and a traceback on the terminal."""
    answer = raw_post(server, length)
    assert answer.startswith(b"HTTP/1.0 411")
    assert answer.endswith(b'{"error": "a request body needs its Content-Length"}')


@pytest.mark.parametrize("digits", [4301, 60_000])
def test_a_length_of_thousands_of_digits_is_over_the_cap(server: LabelServer, digits: int) -> None:
    """``int`` refuses a number of over 4,300 digits: the request ended without an answer and
    a traceback on the terminal."""
    answer = raw_post(server, b"9" * digits)
    assert answer.startswith(b"HTTP/1.0 413")
    assert answer.endswith(b'{"error": "at most 1,048,576 bytes"}')


def test_a_length_written_with_thousands_of_leading_zeros_is_its_number(
    server: LabelServer,
) -> None:
    assert raw_post(server, b"0" * 5000 + b"2").startswith(b"HTTP/1.0 200")


@pytest.mark.parametrize(
    "path",
    [
        "/index.html",
        "/static/app.js",
        "/../pyproject.toml",
        "/%2e%2e/goldcase.toml",
        "/etc/passwd",
        "/app.js/..",
        "/api/state",  # the API is POST only
    ],
)
def test_only_the_listed_static_files_are_served(server: LabelServer, path: str) -> None:
    status, _, body = ask(server, "GET", path, cookie(server))
    assert status == 404 and json.loads(body) == {"error": "no such page"}


@pytest.mark.parametrize("path", ["/api/nothing", "/api/", "/state", "/api/state/x"])
def test_an_unknown_operation_is_not_found(server: LabelServer, path: str) -> None:
    headers = {**cookie(server), "Content-Type": "application/json"}
    status, _, body = ask(server, "POST", path, headers, b"{}")
    assert status == 404 and json.loads(body) == {"error": "no such operation"}


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/"), ("GET", "/app.js"), ("GET", "/style.css"), ("GET", "/nothing"), ("GET", "/x")],
)
def test_every_answer_carries_the_security_headers(
    server: LabelServer, method: str, path: str
) -> None:
    _, headers, _ = ask(server, method, path, cookie(server))
    assert headers["Content-Security-Policy"] == CSP
    assert CSP.startswith("default-src 'none'; ")
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-store"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Server"].startswith("goldcase")


def test_refusals_carry_the_security_headers_too(server: LabelServer) -> None:
    _, headers, _ = ask(server, "GET", "/")
    assert headers["Content-Security-Policy"] == CSP


def test_an_error_of_an_operation_is_json(server: LabelServer) -> None:
    status, body = api(server, "item", {"key": "../golden/ret-001"})
    assert status == 400 and body == {"error": "'../golden/ret-001' is not the name of an item"}


def test_a_stale_save_is_a_conflict(server: LabelServer) -> None:
    status, state = api(server, "state")
    key = state["items"][0]["key"]
    status, body = api(server, "save", {"key": key, "hash": "stale", "fields": {}})
    assert status == 409
    assert body["error"].startswith(f"{key}.yaml changed since this page loaded it")


def test_no_request_is_logged(server: LabelServer, capsys: pytest.CaptureFixture[str]) -> None:
    """A request line would print the token."""
    ask(server, "GET", f"/?token={TOKEN}")
    ask(server, "GET", "/nothing")
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err
    assert captured.err == ""


def handlers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "process_request_thread" in t.name]


def test_a_client_that_hangs_up_prints_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tab closed while a large document is on its way (the connection reset after the
    first bytes of the answer): the standard library printed a traceback on the labeller's
    terminal for each."""
    root = build(tmp_path / "repo")
    (root / "corpus" / "big.md").write_text("# Big\n\n" + "A sentence. " * 300_000)
    body = json.dumps({"name": "big.md"}).encode()
    with serving(root, token=TOKEN) as running:
        with socket.create_connection(("127.0.0.1", running.port), timeout=60) as raw:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            raw.sendall(
                f"POST /api/document HTTP/1.0\r\nHost: 127.0.0.1:{running.port}\r\n"
                f"Cookie: goldcase_label_{running.port}={TOKEN}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            raw.recv(100)
        for thread in handlers():
            thread.join(timeout=60)
    assert capsys.readouterr().err == ""
