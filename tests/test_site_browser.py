"""The built rules site in a real browser: headless Chromium driven by Playwright.

The site is served on 127.0.0.1 (a free port, in a thread); the home page, a rule page and a
scenario page must load without console errors and show their cards, and the search box must find
a rule by its ID. Screenshots go to reports/screenshots/ (gitignored) for people to look at.

Needs the ``test`` extra (Playwright's Python package) and a Chromium binary: Debian's
``chromium`` at /usr/bin/chromium, or CANASTA_CHROMIUM. ``playwright install`` is never called.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_site import ROOT, SPEC, Built, built_site, mkdocs_available

SCREENSHOTS = ROOT / "reports" / "screenshots"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
RULE = "pile.frozen.take-with-natural-pair"
TIMEOUT_MS = 90_000
#: what the search box says once its index is loaded (mkdocs-material's "search.result.placeholder")
SEARCH_READY = "Type to start searching"
SCENARIO_AREA, SCENARIO = "pile", "pile-frozen-taken-whole-with-wilds-and-red-three"


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CANASTA_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    reason = mkdocs_available()
    if reason:
        pytest.skip(reason)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed: pip install -e '.[test]'")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium binary: apt-get install chromium (or set CANASTA_CHROMIUM)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served(browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Built]]:
    built = built_site(tmp_path_factory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built.site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", built
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def page(browser, served):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)  # generous: CI runs the browser beside another test worker
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda message: page.errors.append(f"console: {message.text}") if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: page.errors.append(f"request failed: {request.url}"))
    page.on("request", lambda request: None if request.url.startswith(served[0]) or request.url.startswith("data:")
            else page.errors.append(f"external request: {request.url}"))
    yield page
    context.close()


def open_page(page, served, path: str) -> None:
    response = page.goto(served[0] + path, wait_until="networkidle")
    assert response is not None and response.ok, path


def visible_cards(page) -> int:
    cards = page.locator(".cc-card")
    assert cards.count() > 0
    shown = 0
    for index in range(min(cards.count(), 40)):
        card = cards.nth(index)
        if card.is_visible():
            box = card.bounding_box()
            assert box is not None and box["width"] >= 25 and box["height"] >= 35, box
            shown += 1
    return shown


def screenshot(page, name: str, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000
    return path


def test_the_home_page_loads_with_cards(page, served):
    open_page(page, served, "")
    assert "Canasta" in page.title()
    assert visible_cards(page) >= 5
    joker = page.locator('.cc-card[aria-label="Joker"]').first
    heart = page.locator('.cc-card[aria-label="Ace of Hearts"]').first
    spade = page.locator('.cc-card[aria-label="Ace of Spades"]').first
    assert heart.evaluate("e => getComputedStyle(e).color") == "rgb(198, 40, 40)"
    assert spade.evaluate("e => getComputedStyle(e).color") == "rgb(28, 28, 28)"
    assert joker.evaluate("e => getComputedStyle(e).backgroundImage").startswith("linear-gradient")
    screenshot(page, "home.png")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_rule_page_shows_the_rule_and_its_scenarios_as_cards(page, served):
    area = SPEC.rules[RULE].area
    open_page(page, served, f"rules/{area}/#{RULE}")
    heading = page.locator(f'[id="{RULE}"]')
    assert heading.is_visible()
    assert RULE in page.locator("article").inner_text()
    table = page.locator(f'[id="{RULE}"] ~ * .cc-card').first
    table.scroll_into_view_if_needed()
    assert table.is_visible()
    assert visible_cards(page) >= 2
    heading.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, -80)")
    screenshot(page, "rule-page.png", full_page=False)  # the area page is long: the rule and its scenarios
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_scenario_page_draws_the_table(page, served):
    built = served[1]
    scenario = next((s for s in built.scenarios if s.id == SCENARIO), built.scenarios[0])
    open_page(page, served, f"scenarios/{scenario.area}/{scenario.id}/")
    table = page.locator(".cc-table").first
    assert table.is_visible()
    assert visible_cards(page) >= 8
    if scenario.id == SCENARIO:
        crosswise = page.locator(".cc-table").first.locator(".cc-cross .cc-card")
        assert crosswise.count() == 3  # the red three, the two and the joker in the pile
        transform = crosswise.first.evaluate("e => getComputedStyle(e).transform")
        assert transform not in ("none", "")
        assert page.locator('.cc-card[aria-label^="Three of Hearts, crosswise"]').count() >= 1
        assert page.get_by_text("The action is accepted").first.is_visible()
    screenshot(page, "scenario-page.png")
    assert page.errors == []  # type: ignore[attr-defined]


def test_search_finds_a_rule_by_its_id(page, served):
    open_page(page, served, "")
    query = page.locator("input.md-search__input")
    from playwright.sync_api import expect

    first_item = page.locator(".md-search-result__item").first
    result = page.locator(f'.md-search-result a[href*="#{RULE}"]:visible').first
    # The search index loads in a web worker, and a query typed before it is ready finds nothing:
    # open the search and wait until it says it is ready for a query (Material shows "Initializing
    # search" until then), then type the rule's ID, wait for it as the best match and follow it.
    query.click()
    expect(page.locator(".md-search-result__meta")).to_have_text(SEARCH_READY, timeout=TIMEOUT_MS)
    query.press_sequentially(RULE, delay=10)
    expect(first_item).to_contain_text(RULE, timeout=TIMEOUT_MS)  # best match first
    screenshot(page, "search.png", full_page=False)
    result.click()
    page.wait_for_url(lambda url: url.endswith(f"#{RULE}"))
    assert page.locator(f'[id="{RULE}"]').is_visible()
    assert page.errors == []  # type: ignore[attr-defined]
