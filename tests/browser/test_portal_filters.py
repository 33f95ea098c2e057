"""Content filters in the portal, in headless Chromium against local mode: see an endpoint's filter, try it as typed on
sample events (POST /v1/filters/test, the rule delivery applies), save it, and read the API's refusal of a bad one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from local.receiver import WebhookReceiver
from tests.browser.portal import PageLog, open_endpoint, open_portal
from tests.browser.stack import Producer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OVER_100 = {"data": {"amount": [{"numeric": [">=", 100]}]}}
OVER_500 = {"data": {"amount": [{"numeric": [">=", 500]}]}}


def _shown_filter(page: Page) -> Any:
    """The saved filter the panel shows, read back as JSON."""
    return json.loads(page.get_by_test_id("filter-json").text_content() or "")


def _try_event(page: Page, data: str, *, event_type: str | None = None) -> None:
    if event_type is not None:
        page.get_by_label("Event type", exact=True).fill(event_type)
    page.get_by_label("Event data (JSON)").fill(data)
    page.get_by_test_id("run-filter-test").click()


def test_a_filter_is_tried_as_typed_then_saved_and_a_malformed_one_shows_the_apis_message(
    page: Page, page_log: PageLog, producer: Producer, customer: str
) -> None:
    # Given an endpoint for orders of 100 or more
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url, event_types=["order.paid"], filter=OVER_100)
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # Then its settings show the filter, and the editor holds it
        panel = page.get_by_test_id("content-filter")
        expect(panel.get_by_test_id("filter-json")).to_be_visible()
        assert _shown_filter(page) == OVER_100
        editor = page.get_by_label("Filter (JSON)")
        assert json.loads(editor.input_value()) == OVER_100
        # And the sample event starts as one of its type, addressed to this customer
        expect(page.get_by_label("Event type", exact=True)).to_have_value("order.paid")
        expect(page.get_by_label("Customer", exact=True)).to_have_value(customer)

        # When the customer types a filter for orders of 500 or more (not saved) and tries an order of 750
        editor.fill(json.dumps(OVER_500))
        _try_event(page, '{"amount": 750}')
        # Then it matches
        outcome = page.get_by_test_id("filter-test-outcome")
        expect(outcome).to_have_attribute("data-matches", "true")
        expect(outcome).to_contain_text("Matches: an event like this one is delivered to this endpoint.")

        # When they try an order of 200: it would pass the saved filter, but not the one typed
        _try_event(page, '{"amount": 200}')
        expect(outcome).to_have_attribute("data-matches", "false")
        expect(outcome).to_contain_text("Does not match")
        # And nothing was saved by trying
        assert producer.get_endpoint(endpoint["id"])["filter"] == OVER_100
        # And a type the endpoint does not subscribe to is pointed out
        _try_event(page, '{"amount": 750}', event_type="invoice.paid")
        expect(outcome).to_have_attribute("data-matches", "true")
        expect(page.get_by_test_id("filter-test-unsubscribed")).to_contain_text("does not subscribe to invoice.paid")

        # When they save it
        page.get_by_test_id("save-filter").click()
        # Then it is the endpoint's filter, shown as saved, and deliveries follow it: 750 goes out, 200 is filtered out
        expect(page.get_by_test_id("filter-saved")).to_have_text("Filter saved.")
        assert producer.get_endpoint(endpoint["id"])["filter"] == OVER_500
        assert _shown_filter(page) == OVER_500
        assert producer.event(customer, "order.paid", {"amount": 750})["deliveries"] == 1
        assert producer.event(customer, "order.paid", {"amount": 200})["deliveries"] == 0

        # When they type a malformed filter (a bare value where EventBridge wants an array) and try it
        editor.fill('{"data": {"amount": 500}}')
        _try_event(page, '{"amount": 750}', event_type="order.paid")
        # Then the API's message names the bad part, and the editor is marked invalid
        message = "'filter.data.amount': must be an array of match values"
        expect(page.get_by_test_id("filter-test-error")).to_contain_text(f"The filter is not valid: {message}")
        expect(editor).to_have_attribute("aria-invalid", "true")
        # And saving it is refused with the same message, the saved filter kept
        page.get_by_test_id("save-filter").click()
        expect(page.get_by_test_id("filter-error")).to_contain_text(f"The filter was not saved: {message}")
        assert producer.get_endpoint(endpoint["id"])["filter"] == OVER_500
        assert _shown_filter(page) == OVER_500

        # When the editor holds text that is not JSON, the page says so without asking the API
        asked = sum("/v1/endpoints/" in url for url in page_log.requests)
        editor.fill('{"data": ')
        page.get_by_test_id("save-filter").click()
        expect(page.get_by_test_id("filter-error")).to_contain_text("The filter is not valid JSON")
        assert sum("/v1/endpoints/" in url for url in page_log.requests) == asked

        # When they empty the editor and save: the filter is removed, every event of its types delivered
        editor.fill("")
        page.get_by_test_id("save-filter").click()
        expect(page.get_by_test_id("filter-saved")).to_contain_text("Filter removed.")
        expect(page.get_by_test_id("filter-none")).to_be_visible()
        assert producer.get_endpoint(endpoint["id"])["filter"] is None
        _try_event(page, '{"amount": 1}')
        expect(outcome).to_have_attribute("data-matches", "true")
        expect(outcome).to_contain_text("No filter")


def test_a_read_only_session_sees_the_filter_and_tries_the_saved_one(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint with a filter on the customer, and a read-only session
    eu_only = {"customer": [{"prefix": "eu-"}]}
    endpoint = producer.endpoint(customer, "https://hooks.example.com/filtered", filter=eu_only)
    open_portal(page, producer.session(customer, read_only=True)["url"])
    open_endpoint(page, endpoint["id"])

    # Then the filter shows, with no editor and no save button
    assert _shown_filter(page) == eu_only
    expect(page.get_by_label("Filter (JSON)")).to_have_count(0)
    expect(page.get_by_test_id("save-filter")).to_have_count(0)

    # When they try the saved filter on an event addressed to them (their uid has no eu- prefix), then to an eu- customer
    page.get_by_label("Event type", exact=True).fill("terms.updated")
    _try_event(page, '{"region": "eu"}')
    outcome = page.get_by_test_id("filter-test-outcome")
    expect(outcome).to_have_attribute("data-matches", "false")
    page.get_by_label("Customer", exact=True).fill("eu-4711")
    _try_event(page, '{"region": "eu"}')
    # Then the API answers for a read-only session too: trying a filter changes nothing
    expect(outcome).to_have_attribute("data-matches", "true")
