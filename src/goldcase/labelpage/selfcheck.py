"""``goldcase label serve --check``: serve the page once on a free port, ask it what a browser
and an intruder would ask, say what it answered, and stop. Nothing blocks and nothing is
written, so ``make run`` (and CI) can show the page's capability without a browser."""

from __future__ import annotations

import http.client
import json
from typing import Any

from msgspec import Struct

from goldcase.labelpage.app import App
from goldcase.labelpage.server import HOST, MAX_BODY, LabelServer, serving


class Asked(Struct, frozen=True):
    what: str
    status: int
    expected: int
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == self.expected


def _ask(
    server: LabelServer,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(HOST, server.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def _json(token_cookie: str, size: int | None = None) -> dict[str, str]:
    headers = {"Cookie": token_cookie, "Content-Type": "application/json"}
    if size is not None:
        headers["Content-Length"] = str(size)
    return headers


def probe(server: LabelServer) -> list[Asked]:
    """What the server answers to the page's own requests and to refused ones."""
    gate = server.gate
    status, headers, _ = _ask(server, "GET", f"/?token={gate.token}")
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    out = [Asked("the address with the token", status, 303, "sets the cookie, drops the token")]
    status, headers, _ = _ask(server, "GET", "/", {"Cookie": cookie})
    csp = headers.get("Content-Security-Policy", "")
    out.append(Asked("the page, with the cookie", status, 200, csp.split(";")[0]))
    status, _, body = _ask(server, "POST", "/api/state", _json(cookie), b"{}")
    out.append(Asked("the API, with the cookie", status, 200, _state_note(body)))
    status, _, _ = _ask(server, "GET", "/")
    out.append(Asked("the page without the token", status, 403, "refused"))
    status, _, _ = _ask(server, "POST", "/api/state", {"Content-Type": "application/json"}, b"{}")
    out.append(Asked("the API without the token", status, 403, "refused"))
    foreign = {**_json(cookie), "Host": f"rebound.example:{server.port}"}
    status, _, _ = _ask(server, "POST", "/api/state", foreign, b"{}")
    out.append(Asked("another Host name (DNS rebinding)", status, 421, "refused"))
    status, _, _ = _ask(server, "POST", "/api/state", _json(cookie, MAX_BODY + 1), b"{}")
    out.append(Asked(f"a body over {MAX_BODY:,} bytes", status, 413, "refused unread"))
    plain = {"Cookie": cookie, "Content-Type": "text/plain"}
    status, _, _ = _ask(server, "POST", "/api/state", plain, b"{}")
    out.append(Asked("a body that is not JSON", status, 415, "refused"))
    return out


def _state_note(body: bytes) -> str:
    try:
        state: Any = json.loads(body)
        found = state["items"]
    except (ValueError, KeyError, TypeError):
        return "no state"
    if state["mode"] == "drafts":
        return f"{len(found)} draft{'' if len(found) == 1 else 's'} in {state['folder']}/"
    done = sum(item["state"] == "done" for item in found)
    return f"{len(found)} label files of {state['labeller']!r}, {done} finished"


def self_check(app: App) -> tuple[list[str], bool]:
    """Serve on a free port, probe, stop; the lines to print and whether every answer was
    the expected one."""
    with serving(app) as server:
        asked = probe(server)
    lines = [f"served the labelling page on http://{HOST}:{server.port}/ and asked it:"]
    width = max(len(a.what) for a in asked)
    for a in asked:
        mark = "" if a.ok else f"  UNEXPECTED (expected {a.expected})"
        lines.append(f"  {a.what:<{width}}  {a.status}  {a.note}{mark}")
    ok = all(a.ok for a in asked)
    lines.append("stopped" + ("" if ok else "; the page did not answer as it should"))
    return lines, ok
