"""The labelling page driven in a real browser (Playwright with the system Chromium): a
labeller labels three drafts end to end and promotes them, and the files pass goldcase check;
hostile text renders as text; a request without the token is refused; typing survives a
reload; two tabs on one item never overwrite each other; a second labeller works blind, then
sees the agreement and writes a resolution.

Every test also asserts that the page asked nothing of any other origin and that the browser
reported no error (a Content-Security-Policy violation is one). Chromium comes from Debian's
package (``.ci/run`` installs it); without it these tests are skipped and say why. No browser
is ever downloaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from goldcase.labelpage.server import LabelServer
from goldcase.text import fold_quote
from kit import CHROMIUM, CHROMIUM_FLAGS, run_cli, write
from labelpage.kit import (
    ABSENT,
    ANSWERED,
    DELIVERY,
    HOSTILE,
    HOSTILE_DOC,
    HOSTILE_TRACE,
    PREMISE,
    RETURNS,
    SELECT,
    TRACES,
    build,
    drafts,
    serving,
)

FLAGS = [*CHROMIUM_FLAGS, "--disable-extensions"]
START = 1_772_400_000  # the page's clock in the test that moves it (2026-03-01, seconds)
WAIT = 60_000  # ms: a generous bound for a busy machine, never a speed claim
expect.set_options(timeout=WAIT)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
    ),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


class Watched:
    """A browser context whose requests and errors are kept, to be judged at the end."""

    def __init__(self, browser: Browser, server: LabelServer) -> None:
        self.origin = f"http://127.0.0.1:{server.port}"
        self.server = server
        self.context: BrowserContext = browser.new_context(viewport={"width": 1440, "height": 1000})
        self.closed = False
        self.requests: list[str] = []
        self.errors: list[str] = []
        # What the browser may log in this test: a refusal the test asks for is logged as a
        # failed load, possibly after the test's last step (a favicon's request)
        self.expected: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))

    def page(self, *, token: bool = True) -> Page:
        page = self.context.new_page()
        page.set_default_timeout(WAIT)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )
        if token:
            page.goto(self.server.url)
            expect(page.locator("#question")).not_to_be_empty()
            loaded(page)
        return page

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.context.close()

    def judge(self) -> None:
        elsewhere = [url for url in self.requests if not url.startswith(self.origin + "/")]
        assert elsewhere == [], "the page asked another origin"
        assert [e for e in self.errors if not any(x in e for x in self.expected)] == []


@pytest.fixture
def watch(browser: Browser) -> Iterator[list[Watched]]:
    opened: list[Watched] = []
    yield opened
    for watched in opened:
        watched.close()
        watched.judge()


@contextmanager
def served(root: Path, opened: list[Watched], labeller: str | None = None) -> Iterator[LabelServer]:
    """The page served while the test's browsers are open: they are closed before the server
    stops, so no late request of theirs (a favicon) meets a closed port."""
    with serving(root, labeller) as server:
        try:
            yield server
        finally:
            for made in opened:
                made.close()


def watched(browser: Browser, server: LabelServer, opened: list[Watched]) -> Watched:
    made = Watched(browser, server)
    opened.append(made)
    return made


def loaded(page: Page) -> None:
    """Wait until no item is loading: a key pressed meanwhile is held back by the page."""
    expect(page.locator("#work")).not_to_have_attribute("aria-busy", "true")


def open_item(page: Page, question: str) -> None:
    page.locator("#items button", has_text=question[:30]).click()
    expect(page.locator("#question")).to_have_text(question)
    loaded(page)


def find(page: Page, query: str, doc: str) -> None:
    """Search the documents and open the first passage found in ``doc``."""
    page.fill("#search", query)
    page.keyboard.press("Enter")
    page.locator("#results button", has_text=doc).first.click()
    expect(page.locator("#doc-name")).to_have_text(doc)


def save(page: Page) -> None:
    page.keyboard.press("Control+s")
    expect(page.locator("#notice")).to_contain_text("Saved")


def in_document(document: str, quote: str) -> bool:
    return fold_quote(quote) in fold_quote(document)


def label_the_answered_draft(page: Page) -> None:
    """Two quotes from two documents (one by mouse, one by keyboard), the answer and its
    checks from what the page offers, a wrong answer from production's."""
    open_item(page, ANSWERED)
    page.keyboard.press("1")
    expect(page.locator('input[value="answer"]')).to_be_checked()
    find(page, "damaged delivery credit", "returns-policy.md")
    page.evaluate(SELECT, "A customer has 14 days from delivery to request a credit")
    page.keyboard.press("Alt+q")
    expect(page.locator("#quotes .quote")).to_have_count(1)
    expect(page.locator("#quotes mark")).to_have_text(
        "A customer has 14 days from delivery to request a credit"
    )
    find(page, "large items delivered", "delivery.md")  # opens on the paragraph's first piece
    page.keyboard.press("ArrowDown")  # the next sentence
    page.keyboard.press("Enter")
    expect(page.locator("#quotes .quote")).to_have_count(2)
    expect(page.locator("#quotes mark").nth(1)).to_have_text(
        "Large items are delivered by a two-person team for £29."
    )
    expect(page.locator('#tags input[value="multi_doc"]')).to_be_checked()

    page.locator("#answer-offers button", has_text="14 days").click()
    page.keyboard.press("End")
    page.keyboard.type(";")
    page.locator("#answer-offers button", has_text="£29").click()
    expect(page.locator("#answer")).to_have_value("14 days; £29")
    page.locator("#contains-offers button", has_text="14 days").click()
    page.locator("#contains-offers button", has_text="£29").click()
    expect(page.locator("#contains > li")).to_have_count(2)
    page.locator("#not-offers button", has_text="30 days").click()
    expect(page.locator("#not-contains")).to_contain_text("30 days")
    page.locator("#fail-offers button", has_text="Production's answer").click()
    page.locator("#fail-offers button", has_text="30 days; £29").click()
    page.fill("#pass-new", "Fourteen days from delivery; a large item costs £29 to deliver.")
    page.keyboard.press("Enter")
    page.fill("#slice", "returns")
    page.fill("#labelled-by", "support-lead")
    save(page)
    expect(page.locator("#checks")).to_contain_text("Ready to promote into the golden set")


def label_the_false_premise(page: Page) -> None:
    open_item(page, PREMISE)
    page.keyboard.press("2")
    expect(page.locator("#premise-box")).to_be_visible()
    find(page, "restocking fee opened", "returns-policy.md")
    page.evaluate(SELECT, "Opened large appliances carry a 10% restocking fee.")
    page.click("#use-selection")
    expect(page.locator("#premise mark")).to_have_text(
        "Opened large appliances carry a 10% restocking fee."
    )
    page.locator("#contains-offers button", has_text="10%").click()
    page.locator("#not-offers button", has_text="20%").click()
    page.locator("#fail-offers button", has_text="Production's answer").click()
    expect(page.locator("#labelled-by")).to_have_value("support-lead")  # remembered
    page.fill("#slice", "returns")
    save(page)
    expect(page.locator("#checks")).to_contain_text("Ready to promote into the golden set")


def label_the_absent_one(page: Page) -> None:
    open_item(page, ABSENT)
    page.keyboard.press("3")
    page.fill("#slice", "general")
    page.keyboard.press("Control+Enter")  # save, then the next item
    expect(page.locator("#notice")).to_contain_text("Saved")


def test_three_drafts_labelled_promoted_and_checked(
    tmp_path: Path, browser: Browser, watch: list[Watched]
) -> None:
    root = build(tmp_path / "repo")
    with served(root, watch) as server:
        page = watched(browser, server, watch).page()
        label_the_answered_draft(page)
        label_the_false_premise(page)
        label_the_absent_one(page)
        expect(page.locator("#promote-all")).to_have_text("Promote 3 labelled drafts")
        page.click("#promote-all")
        expect(page.locator("#promote-result")).to_contain_text("Moved 3 drafts")
        expect(page.locator("#empty")).to_contain_text("No drafts")

    assert list((root / "cases" / "inbox").glob("*.yaml")) == []
    cases = {}
    for path in (root / "cases" / "golden").glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases[data["question"]] = data
    answered, premise, absent = cases[ANSWERED], cases[PREMISE], cases[ABSENT]

    assert answered["answerable"] is True
    assert answered["expected_answer"] == "14 days; £29"
    assert [s["doc"] for s in answered["support"]] == ["returns-policy.md", "delivery.md"]
    assert in_document(RETURNS, answered["support"][0]["quote"])
    assert in_document(DELIVERY, answered["support"][1]["quote"])
    assert answered["expect"] == {
        "contains": [["14 days", "fourteen days", "14-day"], ["£29", "£29.00"]],
        "not_contains": ["30 days"],
    }
    assert answered["probes"]["fail"] == [
        "You have 30 days and large item delivery is free.",
        "30 days; £29",
    ]
    assert set(answered["tags"]) == {"multi_doc"}
    assert answered["labelled_by"] == "support-lead"

    assert premise["answerable"] is False
    assert "expected_answer" not in premise and "support" not in premise
    assert set(premise["tags"]) == {"unanswerable", "false_premise"}
    assert premise["notes"] == (
        'False premise: returns-policy.md says "Opened large appliances carry a 10% '
        'restocking fee."'
    )
    assert premise["expect"]["contains"] == [["10%", "10 per cent", "ten per cent"]]
    assert premise["expect"]["not_contains"] == ["20%"]

    assert absent["answerable"] is False and absent["slice"] == "general"
    assert absent["tags"] == ["unanswerable"] and "expect" not in absent

    check = run_cli("check", "--repo", root, "--format", "json")
    found = json.loads(check.stdout)["findings"]
    assert [f for f in found if f["severity"] == "error"] == []
    assert check.exit_code == 0


def test_hostile_text_renders_as_text(
    tmp_path: Path, browser: Browser, watch: list[Watched]
) -> None:
    root = build(tmp_path / "repo", [*TRACES, HOSTILE_TRACE])
    write(root, "corpus/gift-cards.md", HOSTILE_DOC)
    with served(root, watch) as server:
        page = watched(browser, server, watch).page()
        open_item(page, HOSTILE)
        expect(page.locator("#production-answer")).to_have_text(HOSTILE_TRACE["answer"])
        expect(page.locator("#items")).to_contain_text("<script>document.title")
        find(page, "gift cards expire", "gift-cards.md")
        expect(page.locator("#doc-text")).to_contain_text("<b>never</b> expire.")
        expect(page.locator("#results")).to_contain_text("<img src=x")
        data = "#question *, #production-answer *, #items img, #items b, #doc-text b, #doc-text img"
        assert page.locator(f"{data}, #results img, #results b").count() == 0
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert page.title() == "goldcase labelling"


def test_a_request_without_the_token_is_refused(
    tmp_path: Path, browser: Browser, watch: list[Watched]
) -> None:
    root = build(tmp_path / "repo")
    with served(root, watch) as server:
        stranger = watched(browser, server, watch)
        stranger.expected.append("the server responded with a status of 403")
        page = stranger.page(token=False)
        for address in ("/", "/?token=guessed", "/app.js"):
            response = page.goto(stranger.origin + address)
            assert response is not None and response.status == 403
            assert "no token" in page.content()
        assert run_cli("check", "--repo", root).exit_code == 0  # nothing was written


def test_typing_survives_a_reload(tmp_path: Path, browser: Browser, watch: list[Watched]) -> None:
    root = build(tmp_path / "repo")
    draft = root / "cases" / "inbox" / f"{drafts(root)[ANSWERED]}.yaml"
    before = draft.read_bytes()
    with served(root, watch) as server:
        page = watched(browser, server, watch).page()
        open_item(page, ANSWERED)
        page.keyboard.press("1")
        page.fill("#answer", "14 days")
        page.fill("#notes", "asked the returns team")
        page.reload()
        expect(page.locator("#question")).to_have_text(ANSWERED)
        expect(page.locator("#notice")).to_contain_text("Restored what you typed")
        expect(page.locator("#answer")).to_have_value("14 days")
        expect(page.locator("#notes")).to_have_value("asked the returns team")
        expect(page.locator('input[value="answer"]')).to_be_checked()
    assert draft.read_bytes() == before  # kept in the browser, not written


def test_two_tabs_on_one_item_never_overwrite(
    tmp_path: Path, browser: Browser, watch: list[Watched]
) -> None:
    root = build(tmp_path / "repo")
    draft = root / "cases" / "inbox" / f"{drafts(root)[ABSENT]}.yaml"
    with served(root, watch) as server:
        tabs = watched(browser, server, watch)
        tabs.expected.append("the server responded with a status of 409")  # the refused save
        first, second = tabs.page(), tabs.page()
        for tab in (first, second):
            open_item(tab, ABSENT)
            tab.keyboard.press("3")
        first.fill("#slice", "general")
        second.fill("#slice", "returns")
        save(first)
        second.keyboard.press("Control+s")
        expect(second.locator("#notice")).to_contain_text("changed since this page loaded it")
        assert "slice: general" in draft.read_text(encoding="utf-8")
        second.locator("#notice button", has_text="Load the saved version").click()
        expect(second.locator("#slice")).to_have_value("general")


def test_a_second_labeller_works_blind_then_resolves(
    tmp_path: Path, browser: Browser, watch: list[Watched]
) -> None:
    root = build(tmp_path / "repo")
    made = run_cli("label", "sample", "--repo", root, "--n", "2", "--seed", "s")
    assert made.exit_code == 0, made.stdout + made.stderr
    with served(root, watch, "second") as server:
        page = watched(browser, server, watch).page()
        open_item(page, "how long do i have to send back unused things")
        expect(page.locator("#reveal")).to_be_hidden()
        expect(page.locator("#step-probes")).to_be_hidden()
        page.keyboard.press("1")
        page.fill("#answer", "14 days")
        save(page)
        expect(page.locator("#reveal")).to_contain_text("30 days")
        expect(page.locator("#reveal")).to_contain_text("You disagree: expected_answer")
        agreement = page.locator("#agreement")
        expect(agreement).to_contain_text("Disagreements (1 to resolve)")
        agreement.locator("textarea").fill("unused items: 30 days from delivery (returns § 2)")
        agreement.locator("input").fill("support-lead")
        agreement.locator("button", has_text="Save the resolution").click()
        expect(page.locator("#notice")).to_contain_text("Wrote the resolution")
        expect(agreement).to_contain_text("Resolution: unused items")

        open_item(page, "can i send back a personalised mug")
        page.keyboard.press("2")
        save(page)
        expect(page.locator("#reveal")).to_contain_text("You agree with the set.")

    case = yaml.safe_load((root / "cases" / "golden" / "ret-002.yaml").read_text("utf-8"))
    assert case["resolution"] == {
        "rule": "unused items: 30 days from delivery (returns § 2)",
        "decided_by": "support-lead",
    }
    check = run_cli("check", "--repo", root, "--select", "labelling")
    assert check.exit_code == 0, check.stdout


def test_keys_move_skip_and_the_clock_counts(
    tmp_path: Path, browser: Browser, watch: list[Watched]
) -> None:
    """Next, previous and skip from the keyboard; the time on an item and the estimate left,
    on a clock the test moves (Playwright's): no real time is waited for or measured."""
    root = build(tmp_path / "repo")
    with served(root, watch) as server:
        watched_page = watched(browser, server, watch)
        page = watched_page.page(token=False)
        page.clock.install(time=START)
        page.clock.pause_at(START + 1)  # time moves only when the test moves it
        page.goto(server.url)
        expect(page.locator("#position")).to_have_text("1 of 3")
        loaded(page)
        progress = page.locator("#progress")
        expect(progress).to_contain_text("0 of 3 labelled")
        expect(progress).to_contain_text("about 3 min left (3 × 60 s, the planned pace)")
        page.clock.run_for(7_000)
        expect(page.locator("#item-time")).to_have_text("0:07 spent on it")
        expect(progress).to_contain_text("0:07 on this item")

        questions = [page.locator("#question").inner_text()]
        page.keyboard.press("Alt+n")
        expect(page.locator("#position")).to_have_text("2 of 3")
        expect(page.locator("#item-time")).to_have_text("0:00 spent on it")
        questions.append(page.locator("#question").inner_text())
        page.keyboard.press("Alt+p")
        expect(page.locator("#position")).to_have_text("1 of 3")
        expect(page.locator("#question")).to_have_text(questions[0])
        expect(page.locator("#item-time")).to_have_text("0:07 spent on it")  # kept

        page.keyboard.press("3")
        page.fill("#slice", "general")
        save(page)
        expect(progress).to_contain_text("1 of 3 labelled")
        expect(progress).to_contain_text("about 2 min left (2 × 60 s, the planned pace)")
        page.keyboard.press("Alt+n")
        expect(page.locator("#question")).to_have_text(questions[1])
        page.keyboard.press("Alt+k")  # skip: the next item not labelled yet is the third
        expect(page.locator("#position")).to_have_text("3 of 3")
        page.keyboard.press("Alt+k")  # the first is labelled, the second skipped
        expect(page.locator("#notice")).to_contain_text("Every other item is labelled or skipped")
        page.keyboard.press("Alt+n")
        expect(page.locator("#notice")).to_contain_text("This is the last item.")

        open_item(page, ANSWERED)  # the trace's time shows beside production's answer
        expect(page.locator("#asked")).to_contain_text("2 Mar 2026")
        expect(page.locator("#production-answer")).to_have_text(TRACES[0]["answer"])
