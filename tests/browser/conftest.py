"""Fixtures for the portal tests in headless Chromium (Playwright's sync API) against local mode.

* `browser`: one Chromium per test session, Debian's (`/usr/bin/chromium`),
  never a downloaded one. Missing: the run fails in CI (`CI=true`), else the
  browser tests are skipped.
* `portal_stack`: one whole local hookline per module (in-process, free ports),
  tuned by tests.browser.stack.BROWSER_ENV; `producer` is its API client.
* `page`: a fresh browser context and page per test (1280×800, en-US, a
  non-UTC time zone so times are visibly converted), which records every
  request the page makes and every uncaught page error; the test fails if
  the page threw. A test marked `axe` (it runs axe-core, tests.browser.a11y,
  injected as an inline script) gets a context that bypasses the page's CSP;
  every other test's page enforces it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from local.run import LocalHookline
from tests.browser.portal import TIMEZONE, PageLog
from tests.browser.stack import Producer, chromium_executable, local_stack

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

try:
    import playwright  # noqa: F401
except ImportError:  # pragma: no cover - the dev venv has it
    # The test modules import playwright: on a laptop without it they are not collected; in CI they fail to import.
    if os.environ.get("CI") != "true":
        collect_ignore_glob = ["test_*.py"]

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "axe: runs axe-core on the portal (tests.browser.a11y): its page's context bypasses the CSP, for that test only")


_uids = itertools.count(1)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = chromium_executable()
    if path is None:
        _missing("Chromium not found (apt-get install -y chromium, or set HOOKLINE_CHROMIUM)")
    assert path is not None
    return path


def _missing(what: str) -> None:
    """In CI a missing browser fails the run; on a laptop the browser tier is skipped."""
    message = f"{what}: the portal's browser tests need it"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Browser]:
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _missing("the playwright package is not installed")
    # Auto-waiting assertions get twice Playwright's default: `make test` runs this tier beside others on 2 cores.
    expect.set_options(timeout=20_000)  # a deadline, not a wait: the tests run beside the moto tiers (Makefile)

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def portal_stack() -> Iterator[LocalHookline]:
    stack = local_stack()
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="module")
def producer(portal_stack: LocalHookline) -> Producer:
    client = Producer(portal_stack.base_url, portal_stack.api_key)
    client.settings("Acme Billing")
    return client


@pytest.fixture
def customer(producer: Producer) -> str:
    """A fresh customer per test (limits: 20/s, 5 at a time), so tests never see each other's endpoints."""
    uid = f"cust-{next(_uids)}"
    producer.customer(uid, f"Customer {uid}", max_rate=20.0, max_concurrency=5)
    return uid


@pytest.fixture
def page_log() -> PageLog:
    return PageLog()


@pytest.fixture
def page(browser: Browser, page_log: PageLog, request: pytest.FixtureRequest) -> Iterator[Page]:
    axe = request.node.get_closest_marker("axe") is not None
    context = browser.new_context(viewport=VIEWPORT, locale="en-US", timezone_id=TIMEZONE, bypass_csp=axe)
    context.set_default_timeout(20_000)
    tab = context.new_page()
    tab.on("request", lambda r: page_log.requests.append(r.url))
    tab.on("pageerror", lambda e: page_log.errors.append(str(e)))
    tab.on("console", lambda m: page_log.console_errors.append(m.text) if m.type == "error" else None)
    try:
        yield tab
    finally:
        context.close()
    assert not page_log.errors, f"the page threw: {page_log.errors}"
