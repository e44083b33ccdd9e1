"""The page's static files (goldcase/labelpage/static/): shipped in the package, no inline
script or style (the CSP allows neither), nothing fetched from elsewhere, and no way for data
to become markup in the script (textContent only)."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from goldcase.labelpage.server import STATIC, static_file

SCRIPT = static_file("app.js").decode("utf-8")
PAGE = static_file("index.html").decode("utf-8")
STYLE = static_file("style.css").decode("utf-8")


def test_every_listed_file_is_in_the_package() -> None:
    folder = resources.files("goldcase.labelpage").joinpath("static")
    assert sorted(name for name, _ in STATIC.values()) == sorted(
        p.name for p in folder.iterdir() if not p.name.startswith(".")
    )


@pytest.mark.parametrize(
    "sink",
    [
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
        'setTimeout("',
        "createContextualFragment",
        "DOMParser",
        "srcdoc",
    ],
)
def test_the_script_has_no_way_to_turn_data_into_markup(sink: str) -> None:
    assert sink not in SCRIPT


def test_the_script_sets_no_link_or_source_from_data() -> None:
    """No attribute that loads or navigates is set: not through el()'s properties, not by
    hand."""
    assert not re.search(r"""["']?\b(href|src|srcset|action|formaction|data)["']?\s*:""", SCRIPT)
    assert not re.search(r"""\.(href|src|action)\s*=|setAttribute\(\s*["'](href|src)""", SCRIPT)
    assert "location" not in SCRIPT.replace("Location", "")


def test_the_page_has_no_inline_script_style_or_handler() -> None:
    assert re.findall(r"<script[^>]*>", PAGE) == ['<script src="/app.js" defer>']
    assert "<style" not in PAGE and " style=" not in PAGE
    assert not re.search(r"\son[a-z]+=", PAGE)


@pytest.mark.parametrize("text", [PAGE, SCRIPT, STYLE])
def test_nothing_is_fetched_from_elsewhere(text: str) -> None:
    assert not re.search(
        r"(https?:)?//[a-z0-9.-]+\.[a-z]", text.replace("http://www.w3.org/2000/svg", "")
    )
    assert "@import" not in text and "url(" not in text
