"""Make the screenshots of the labelling page in docs/label.md, in the system Chromium.

The sample set is copied to a temporary folder, a week of its sample traces is triaged into
drafts there, and the page is served from that copy; a labeller's steps are then played in
the browser (Playwright, the system Chromium: no browser is downloaded) and the page is
photographed. The repository itself is never written, except the two images:

    .venv/bin/python scripts/label_screenshot.py docs/
        docs/label.png         a draft labelled: a quote in context, the answer and its checks
        docs/label-second.png  a second labeller's label saved: the set's answer, the agreement
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path

import yaml
from playwright.sync_api import Page, expect, sync_playwright

from goldcase.cache import Cache
from goldcase.config import load_config
from goldcase.context import Context
from goldcase.labelpage.app import App
from goldcase.labelpage.items import source_for
from goldcase.labelpage.server import LabelServer
from goldcase.labelpage.server import serving as server_serving

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZE = {"width": 1440, "height": 1300}
SELECT = (ROOT / "tests" / "labelpage" / "kit.py").read_text(encoding="utf-8")
SELECT = SELECT.split('SELECT = r"""', 1)[1].split('"""', 1)[0]  # the tests' mouse selection


def copy_of_the_sample_set(folder: Path) -> Path:
    """The tracked files of this repository, 20 drafts triaged from its sample traces, and a
    new second labeller's blank sample."""
    root = folder / "sample-set"
    files = subprocess.run(
        ["git", "ls-files", "goldcase.toml", "cases", "corpus", "labels", "traces", "prompts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, root / rel)
    goldcase = Path(sys.executable).parent / "goldcase"
    subprocess.run(
        [goldcase, "triage", "traces/sample.jsonl", "--seed", "2026-w10", "--n", "20"],
        cwd=root,
        capture_output=True,
        check=True,
    )
    subprocess.run(
        [goldcase, "label", "sample", "--labeller", "senior-agent", "--seed", "2026-w11"],
        cwd=root,
        capture_output=True,
        check=True,
    )
    return root


def serving(root: Path, labeller: str | None) -> AbstractContextManager[LabelServer]:
    ctx = Context(load_config(root), Cache(None))
    return server_serving(App(ctx, source_for(ctx, labeller)), 0)


def loaded(page: Page) -> None:
    """Wait until no item is loading (the page holds back keys pressed meanwhile)."""
    expect(page.locator("#work")).not_to_have_attribute("aria-busy", "true")


def label_a_draft(page: Page, root: Path) -> None:
    page.locator("#items button", has_text="can i return a toaster").click()
    expect(page.locator("#question")).to_contain_text("can i return a toaster")
    loaded(page)
    page.keyboard.press("1")
    page.fill("#search", "return most items within 30 days")
    page.keyboard.press("Enter")
    page.locator("#results button", has_text="returns-and-credits-policy.md").first.click()
    expect(page.locator("#doc-name")).to_have_text("returns-and-credits-policy.md")
    page.evaluate(
        SELECT,
        "You can return most items for a full refund within 30 days from delivery, for any "
        "reason, including a simple change of mind.",
    )
    page.keyboard.press("Alt+q")
    page.fill("#answer", "Yes, within 30 days from delivery")
    page.locator("#contains-offers button", has_text="30 days").click()
    page.fill("#lead", "yes")
    page.locator("#not-offers button", has_text="14 days").click()
    page.locator("#fail-offers button", has_text="14 days").click()
    page.fill("#pass-new", "Yes - you have thirty days from delivery.")
    page.keyboard.press("Enter")
    page.fill("#slice", "returns")
    page.fill("#labelled-by", "support-lead")
    page.keyboard.press("Control+s")
    expect(page.locator("#checks")).to_contain_text("Ready to promote")
    page.evaluate("document.querySelector('.work').scrollTop = 0")


def label_a_second_time(page: Page, root: Path) -> None:
    """Three labels of a fresh sample: two as the set has them, the third with a figure of
    its own (a disagreement), then the third one's answer and the agreement so far."""
    for index in range(3):
        page.locator("#items button").nth(index).click()
        expect(page.locator("#position")).to_have_text(f"{index + 1} of 30")
        loaded(page)
        key = page.locator("#item-id").inner_text()
        case = yaml.safe_load((root / "cases" / "golden" / f"{key}.yaml").read_text("utf-8"))
        if not case.get("answerable", True):
            page.keyboard.press("2")
        else:
            page.keyboard.press("1")
            answer = case["expected_answer"] if index < 2 else "Within 14 days"
            page.fill("#answer", answer)
        page.keyboard.press("Control+s")
        expect(page.locator("#reveal")).to_be_visible()
    page.evaluate("document.querySelector('.work').scrollTop = 10000")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="where to write label.png and label-second.png")
    args = parser.parse_args()
    if CHROMIUM is None:
        print("error: Chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        root = copy_of_the_sample_set(Path(scratch))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for labeller, steps, name in [
            (None, label_a_draft, "label.png"),
            ("senior-agent", label_a_second_time, "label-second.png"),
        ]:
            with serving(root, labeller) as server:
                page = browser.new_page(viewport=SIZE)
                page.set_default_timeout(60_000)
                page.goto(server.url)
                expect(page.locator("#question")).not_to_be_empty()
                steps(page, root)
                page.wait_for_timeout(300)  # the last notice settles before the photograph
                page.screenshot(path=str(args.folder / name))
                page.close()
                print(args.folder / name)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
