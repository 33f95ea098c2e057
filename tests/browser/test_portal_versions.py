"""Payload versions in the portal, in headless Chromium against local mode: see an endpoint's pin, upgrade it, pick event types.

The module's tenant has three versions besides the base one every tenant has
(registered once, through the producer API): RETIRED, past its sunset (set in
the one test that needs it), DEPRECATED, with a sunset some months ahead, and
NEW, the default. Endpoints are created pinned to the version a test needs.
Upgrading sends a signed `hookline.test` webhook at the new version first and
moves the pin only if the receiver answers 2xx.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from local.receiver import ReceivedWebhook, WebhookReceiver
from tests.browser.portal import TIMEZONE, mutating_controls, open_endpoint, open_portal
from tests.browser.stack import Producer, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RETIRED = "2025-01-01"
DEPRECATED = "2025-06-01"
BASE = "2026-01-01"
NEW = "2026-10-01"


def _midnight_utc(days_from_now: int) -> datetime:
    day = datetime.now(UTC) + timedelta(days=days_from_now)
    return day.replace(hour=0, minute=0, second=0, microsecond=0)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _shown(moment: datetime) -> str:
    """A day as the page shows it: en-US, in the browser's zone ("Mar 1, 2027")."""
    local = moment.astimezone(ZoneInfo(TIMEZONE))
    return f"{local:%b} {local.day}, {local.year}"


# A sunset far enough ahead that the version stays pinnable for the whole run.
SUNSET = _midnight_utc(150)


@pytest.fixture(scope="module", autouse=True)
def versions(producer: Producer) -> None:
    # Given the tenant's versions: DEPRECATED with a sunset ahead, NEW the default (the base one stays as it is)
    producer.call("PUT", f"/v1/versions/{DEPRECATED}", {"sunset_at": _iso(SUNSET)})
    producer.call("PUT", f"/v1/versions/{NEW}", {"default": True})
    listed = producer.call("GET", "/v1/versions")
    assert listed["default"] == NEW and [v["version"] for v in listed["items"]] == [DEPRECATED, BASE, NEW], listed


def _test_webhooks(rx: WebhookReceiver) -> list[ReceivedWebhook]:
    return [r for r in rx.received if r.json().get("type") == "hookline.test"]


def _upgrade_and_confirm(page: Page) -> None:
    page.get_by_test_id("upgrade-version").click()
    dialog = page.get_by_test_id("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(f"A signed hookline.test event rendered at version {NEW} is sent to")
    expect(dialog).to_contain_text(f"otherwise it stays on {DEPRECATED}")
    page.get_by_test_id("confirm-ok").click()


def test_an_endpoint_on_a_deprecated_version_is_upgraded_once_it_accepts_a_test_event_at_the_new_one(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint pinned to the deprecated version, whose receiver verifies signatures
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url, version=DEPRECATED)
        rx.secret = endpoint["secret"]
        open_portal(page, producer.session(customer)["url"])

        # When the customer opens it
        open_endpoint(page, endpoint["id"])

        # Then its pin shows, deprecated, with the sunset day in the browser's zone, and an upgrade to the default is offered
        panel = page.get_by_test_id("payload-version")
        expect(panel.get_by_test_id("version-line")).to_have_text(f"Pinned to {DEPRECATED} — deprecated, sunset on {_shown(SUNSET)}")
        expect(panel.locator("time")).to_have_attribute("datetime", _iso(SUNSET))
        upgrade = panel.get_by_test_id("upgrade-version")
        expect(upgrade).to_have_text(f"Upgrade to {NEW}")
        expect(upgrade).to_be_enabled()

        # When they upgrade, confirming in the dialog that explains the test event
        _upgrade_and_confirm(page)

        # Then the view comes back with the new pin, the latest version, and nothing more to upgrade to
        expect(page.get_by_test_id("notice")).to_have_text(f"Your endpoint accepted the test event and is now pinned to version {NEW}.")
        expect(panel.get_by_test_id("pinned-version")).to_have_text(NEW)
        expect(panel.get_by_test_id("version-line")).to_have_text(f"Pinned to {NEW} (latest)")
        expect(panel.get_by_test_id("upgrade-version")).to_have_count(0)
        # And the receiver got one signed hookline.test webhook, rendered at the new version, and accepted it
        tests = _test_webhooks(rx)
        assert len(tests) == 1, [r.body for r in rx.received]
        assert tests[0].json()["version"] == NEW and tests[0].verified is True and tests[0].status == 200
        # And the API says the pin moved
        assert producer.get_endpoint(endpoint["id"])["version"] == NEW


def test_an_upgrade_whose_test_event_fails_shows_the_failure_and_keeps_the_pin(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint pinned to the deprecated version, whose receiver answers 500
    with WebhookReceiver(port=0, status=500) as rx:
        endpoint = producer.endpoint(customer, rx.url, version=DEPRECATED)
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # When the customer upgrades it
        _upgrade_and_confirm(page)

        # Then the test's failure shows (its status code), and that the endpoint stays on the old version
        panel = page.get_by_test_id("payload-version")
        expect(panel.get_by_test_id("upgrade-error")).to_have_text(
            f"Your endpoint did not accept the test event at version {NEW}, so it stays pinned to {DEPRECATED}."
        )
        expect(panel.get_by_test_id("attempt-summary")).to_contain_text("500")
        expect(panel.get_by_test_id("pinned-version")).to_have_text(DEPRECATED)
        expect(panel.get_by_test_id("upgrade-version")).to_be_enabled()  # ready to try again once the receiver is fixed
        expect(page.get_by_test_id("notice")).to_be_hidden()
        # And the receiver did get the test at the new version, which it refused
        tests = wait_until(lambda: _test_webhooks(rx), "the test webhook")
        assert [(t.json()["version"], t.status) for t in tests] == [(NEW, 500)]
        # And the pin did not move
        assert producer.get_endpoint(endpoint["id"])["version"] == DEPRECATED


def test_a_pin_past_its_sunset_says_so_and_a_read_only_session_gets_no_upgrade_button(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint pinned to a version whose sunset has since passed (it was pinnable when the endpoint was made)
    producer.call("PUT", f"/v1/versions/{RETIRED}", {})
    endpoint = producer.endpoint(customer, "https://hooks.example.com/retired", version=RETIRED)
    gone = _midnight_utc(-10)
    producer.call("PUT", f"/v1/versions/{RETIRED}", {"sunset_at": _iso(gone)})

    # When a read-only session opens it
    open_portal(page, producer.session(customer, read_only=True)["url"])
    open_endpoint(page, endpoint["id"])

    # Then the pin shows with its passed sunset, the newer version is named, but there is no upgrade button
    panel = page.get_by_test_id("payload-version")
    expect(panel.get_by_test_id("version-line")).to_have_text(f"Pinned to {RETIRED} — sunset passed on {_shown(gone)}; it can no longer be pinned")
    expect(panel.get_by_test_id("upgrade-available")).to_have_text(f"Version {NEW} is available.")
    expect(page.get_by_test_id("upgrade-version")).to_have_count(0)
    assert mutating_controls(page) == 0

    # When a full session opens it, the upgrade offered is to the default, not to the older deprecated version
    open_portal(page, producer.session(customer)["url"])
    open_endpoint(page, endpoint["id"])
    expect(page.get_by_test_id("upgrade-version")).to_have_text(f"Upgrade to {NEW}")
    expect(page.get_by_test_id("upgrade-version")).to_be_enabled()


def test_the_event_type_pick_list_offers_registered_and_sent_types_and_marks_deprecated_ones(page: Page, producer: Producer, customer: str) -> None:
    # Given two registered types sent to the customer, one deprecated, a type sent to it but never registered,
    # and a registered type it was never sent (the customer's pick-list offers only its own types)
    schema = {"versions": {NEW: {"schema": {"type": "object"}}}}
    producer.call("PUT", "/v1/event-types/invoice.paid", {"description": "An invoice was paid.", **schema})
    producer.call("PUT", "/v1/event-types/invoice.settled", {"description": "Use invoice.paid.", "deprecated": True, **schema})
    producer.call("PUT", "/v1/event-types/payout.made", {"description": "Never sent to this customer.", **schema})
    producer.event(customer, "order.shipped", {"n": 1})
    producer.event(customer, "invoice.paid", {"n": 2})  # sent and registered: offered once
    producer.event(customer, "invoice.settled", {"n": 3})
    open_portal(page, producer.session(customer)["url"])

    # When the customer starts a new endpoint
    page.get_by_test_id("add-endpoint").click()
    expect(page.get_by_test_id("create-form")).to_be_visible()

    # Then the pick-list offers the registered types and the sent one, each once, by name
    options = page.get_by_test_id("event-type-option")
    expect(page.locator("[data-testid=event-type-option][value='order.shipped']")).to_be_attached()
    values = options.evaluate_all("os => os.map(o => o.value)")
    assert {"invoice.paid", "invoice.settled", "order.shipped"} <= set(values) and "payout.made" not in values, values
    assert len(values) == len(set(values)), values
    # And the deprecated one says so; the others do not
    choice = page.get_by_test_id("event-type-choice")
    expect(choice.filter(has=page.locator("[value='invoice.settled']"))).to_have_text("invoice.settled (deprecated)")
    expect(choice.filter(has=page.locator("[value='invoice.paid']"))).to_have_text("invoice.paid")
    expect(choice.filter(has=page.locator("[value='order.shipped']"))).to_have_text("order.shipped")

    # When they tick a registered type and the sent one, and create the endpoint
    page.get_by_label("URL").fill("https://hooks.example.com/picked")
    page.get_by_label("invoice.paid", exact=True).check()
    page.get_by_label("order.shipped", exact=True).check()
    page.get_by_test_id("create-submit").click()

    # Then the endpoint subscribes to those names
    expect(page.get_by_test_id("created-title")).to_be_visible()
    items = producer.call("GET", f"/v1/endpoints?customer={customer}")["items"]
    assert [sorted(e["event_types"]) for e in items] == [["invoice.paid", "order.shipped"]]
