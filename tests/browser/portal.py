"""Page helpers for the portal tests: open a link, reach an endpoint's tab, move by keyboard, find where focus went."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# The browser's zone in the tests: not UTC, so a time shown unconverted would be caught.
TIMEZONE = "Europe/Berlin"


@dataclass
class PageLog:
    """What a page did besides rendering: every request's URL, uncaught errors, console errors."""

    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)


def open_portal(page: Page, url: str) -> None:
    """Open a portal link and wait until the endpoints overview has loaded."""
    page.goto(url)
    page.locator("[data-testid=endpoint-list][data-loaded], [data-testid=expired]").first.wait_for(state="attached")


def card(page: Page, endpoint_id: str) -> Locator:
    return page.locator(f"[data-testid=endpoint-card][data-endpoint-id={endpoint_id}]")


def open_endpoint(page: Page, endpoint_id: str, tab: str = "settings") -> None:
    """From the overview, open one endpoint's tab by clicking, as a customer would."""
    card(page, endpoint_id).get_by_test_id("endpoint-link").click()
    page.get_by_test_id("endpoint-title").wait_for()
    if tab != "settings":
        page.get_by_test_id(f"tab-{tab}").click()
        page.locator(f"[data-testid=tab-{tab}][aria-current=page]").wait_for()


def tab_to(page: Page, selector: str, *, max_presses: int = 100) -> None:
    """Press Tab until the element matching `selector` has focus (keyboard only, no clicks)."""
    for _ in range(max_presses):
        if page.evaluate("(sel) => { const el = document.querySelector(sel); return !!el && el === document.activeElement; }", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never got focus after {max_presses} Tab presses")


def mutating_controls(page: Page) -> int:
    """How many controls that change something the current view shows (the page tags each with data-mutating)."""
    return int(page.locator("[data-mutating]").count())


def expect_result_focused(page: Page, testid: str) -> Locator:
    """Focus is on the message reporting an action's outcome (never on <body>): a live region the page focused by script
    (role status or alert, tabindex -1)."""
    from playwright.sync_api import expect  # here: conftest imports this module before it knows playwright is there

    message = page.get_by_test_id(testid)
    expect(message).to_be_focused()
    assert message.get_attribute("role") in ("status", "alert"), message.get_attribute("role")
    assert message.get_attribute("tabindex") == "-1"
    return message
