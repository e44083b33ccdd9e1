"""``--http URL``: the system as an HTTP endpoint, one JSON POST a request.

The body is the request object; a 2xx response's body is the response object. 429 and 5xx
answers, refused or dropped connections and timeouts may pass: they are retried (``--retries``,
waiting what ``Retry-After`` asks when it says). Other statuses are errors, and so is a
redirect (give the final URL). Headers come from environment variables named on the command
line (``--header Authorization=API_TOKEN`` sends the value of ``$API_TOKEN``), never from a
file in the repository, so a token is never committed and a repository cannot send one.
"""

from __future__ import annotations

import http.client
import json
import math
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.run.protocol import parse_response
from goldcase.run.systems import Reply
from goldcase.text import clip

MAX_BODY = 64 * 1024 * 1024
RETRYABLE = frozenset((429, 500, 502, 503, 504))
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP header name
MAX_RETRY_AFTER = 60.0


def headers_from_env(specs: Sequence[str], environ: Mapping[str, str]) -> dict[str, str]:
    """``NAME=VARIABLE`` pairs as headers whose values are the variables' values."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, variable = spec.partition("=")
        if not sep or not _TOKEN.match(name) or not variable:
            raise GoldcaseError(
                f"--header {spec!r}: expected NAME=VARIABLE, the header's name and the "
                "environment variable that holds its value (--header Authorization=API_TOKEN)"
            )
        value = environ.get(variable)
        if value is None:
            raise GoldcaseError(f"--header {name}: the environment variable {variable} is not set")
        if "\r" in value or "\n" in value:
            raise GoldcaseError(f"--header {name}: ${variable} holds a line break")
        out[name] = value
    return out


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


class HttpSystem:
    kind = "http"

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise GoldcaseError(f"--http {url!r}: expected an http:// or https:// URL")
        self.url = url
        self.identity = url
        self.default_name = parsed.hostname
        self._headers = {"Content-Type": "application/json", **headers}

    def prepare(self) -> None:
        """The headers were read from the environment when the options were parsed."""

    def session(self) -> HttpSession:
        return HttpSession(self.url, self._headers)


class HttpSession:
    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        self._url = url
        self._headers = dict(headers)
        self._opener = urllib.request.build_opener(_NoRedirect())

    def ask(self, request: dict[str, Any], timeout: float) -> Reply:
        body = json.dumps(request, ensure_ascii=False).encode()
        post = urllib.request.Request(self._url, data=body, headers=self._headers, method="POST")
        deadline = time.monotonic() + timeout
        try:
            with self._opener.open(post, timeout=timeout) as answer:
                data = _body(answer, deadline)
        except urllib.error.HTTPError as exc:
            return _status(exc, deadline)
        except TimeoutError:
            return Reply(error=f"no response within {timeout:g} s", retryable=True)
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return Reply(error=f"cannot reach the system: {clip(str(reason), 200)}", retryable=True)
        except http.client.HTTPException as exc:  # not HTTP: a status line, headers, chunks
            return Reply(error=f"malformed response: {type(exc).__name__}: {clip(str(exc), 200)}")
        if len(data) > MAX_BODY:
            return Reply(error=f"malformed response: a body longer than {MAX_BODY:,} bytes")
        try:
            return Reply(value=parse_response(data))
        except ValueError as exc:
            return Reply(error=f"malformed response: {exc}")

    def abort(self) -> None:
        """A request in flight ends at its timeout; nothing is written after Ctrl-C."""

    def discard(self) -> None:
        """Each request is a connection of its own: nothing to start afresh."""

    def close(self) -> None:
        """Nothing held open between requests."""


def _body(answer: Any, deadline: float, limit: int = MAX_BODY + 1) -> bytes:
    """The body, at most ``limit`` bytes of it, read by the deadline: the socket's timeout
    bounds each read, not the whole, and a body that trickles a byte at a time (a stream's
    heartbeats) would never end."""
    parts: list[bytes] = []
    size = 0
    while size < limit:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = answer.read1(min(1 << 16, limit - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def _status(exc: urllib.error.HTTPError, deadline: float) -> Reply:
    """The error a status other than 2xx is, with the start of its body when that comes by
    the deadline (a body trickled a byte at a time is given up, as a 2xx body is)."""
    code = exc.code
    with_body = ""
    try:
        detail = _body(exc, deadline, 2000).decode("utf-8", "replace")
        with_body = f": {clip(detail, 200)}" if detail.strip() else ""
    except (OSError, http.client.HTTPException):  # a timeout, a body cut short: the status
        pass  # is the answer
    if 300 <= code < 400:
        where = exc.headers.get("Location", "elsewhere")
        return Reply(error=f"HTTP {code}: redirected to {clip(where, 200)}; give the final URL")
    return Reply(
        error=f"HTTP {code} {exc.reason}{with_body}",
        retryable=code in RETRYABLE,
        retry_after=_retry_after(exc.headers.get("Retry-After")),
    )


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (the seconds form only), capped."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return None if math.isnan(seconds) else min(max(seconds, 0.0), MAX_RETRY_AFTER)
