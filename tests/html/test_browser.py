"""Render the page in headless Chromium: the screenshot is not blank and no request left it.

Chromium comes from Debian's package (`.ci/run` installs it when missing); without it this
test is skipped and says why."""

from __future__ import annotations

import json
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from goldcase.html.page import PageInput, build_page
from kit import CHROMIUM, CHROMIUM_FLAGS, DATA

FLAGS = [*CHROMIUM_FLAGS, "--hide-scrollbars"]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)


def png_pixels(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and the decompressed scanlines of a PNG (no imaging library needed)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, width, height, idat = 8, 0, 0, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", chunk[:8])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    return width, height, zlib.decompress(idat)


def page_requests(netlog: Path) -> list[str]:
    """URLs the page itself asked for. Chromium's own background requests (update checks,
    network time) carry the initiator "not an origin"; a file:// page's carry "null"."""
    text = netlog.read_text(errors="replace").rstrip().rstrip(",")
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # the browser may exit before closing the array
        log = json.loads(text + "]}")
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        url = params.get("url")
        if event["type"] == start and url and params.get("initiator") != "not an origin":
            urls.append(str(url))
    return [u for u in urls if not u.startswith(("file:", "data:", "about:"))]


def render(tmp_path: Path, html: str) -> tuple[bytes, list[str]]:
    page = tmp_path / "page.html"
    page.write_text(html)
    shot, netlog = tmp_path / "shot.png", tmp_path / "net.json"
    assert CHROMIUM is not None
    subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=900,1800",
            f"--screenshot={shot}",
            f"--log-net-log={netlog}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return shot.read_bytes(), page_requests(netlog)


def test_page_renders_and_stays_offline(tmp_path: Path) -> None:
    report = json.loads((DATA / "reports" / "six-case.json").read_text())
    base = json.loads((DATA / "reports" / "six-case-base.json").read_text())
    shot, requested = render(tmp_path, build_page(PageInput(report, base)))
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (900, 1800)
    assert len(set(pixels)) > 16, "the screenshot is blank"
    assert requested == []


def test_the_request_check_catches_a_leak(tmp_path: Path) -> None:
    leaky = '<html><body><p>x</p><img src="http://127.0.0.1:9/leak.png"></body></html>'
    _, requested = render(tmp_path, leaky)
    assert requested == ["http://127.0.0.1:9/leak.png"]
