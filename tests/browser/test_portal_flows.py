"""What a customer does in the portal, in headless Chromium against local mode: find what failed, and fix it.

Each test makes its own customer, endpoints and events through the producer
API, opens the customer's portal link, and drives the page as a person would
(clicks, typing, Tab and Enter). The receivers are real HTTP servers on
127.0.0.1 whose answers a test changes mid-way ("the customer fixed it").

On the way, the tests marked `axe` check each view they reach with axe-core at
1,280 and 390 px, and that Tab reaches every control with a visible focus ring
(tests.browser.a11y); after Retry, Replay, Save, Rotate and Delete, pressed by
keyboard, focus is on the message reporting the outcome.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect
from standardwebhooks.webhooks import Webhook

from local.receiver import WebhookReceiver
from tests.browser.a11y import assert_accessible, assert_chart_fits, assert_keyboard_reachable
from tests.browser.portal import TIMEZONE, card, expect_result_focused, open_endpoint, open_portal, tab_to
from tests.browser.stack import Producer, wait_until
from tests.support.receiver import Answer, running_receiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SENTENCE = re.compile(r"^(\d+) deliveries failed between (\d\d:\d\d) and (\d\d:\d\d) on ([A-Z][a-z]{2}) (\d{1,2})\.$")


@pytest.mark.axe
def test_a_failing_endpoint_is_flagged_its_failures_charted_and_replayed_in_one_click(page: Page, producer: Producer, customer: str) -> None:
    # Given a customer with a healthy endpoint and one whose receiver answers 500
    with WebhookReceiver(port=0) as healthy_rx, WebhookReceiver(port=0, status=500) as failing_rx:
        healthy = producer.endpoint(customer, healthy_rx.url, description="Billing")
        failing = producer.endpoint(customer, failing_rx.url, description="CRM sync")
        for i in range(3):
            producer.event(customer, "invoice.paid", {"n": i})
        failed = producer.wait_for_failed(failing["id"], 3)
        link = producer.session(customer)["url"]

        # When the customer opens the link
        open_portal(page, link)

        # Then the token has left the address bar for sessionStorage
        assert "#" not in page.url and "token" not in page.url
        assert page.evaluate("sessionStorage.getItem('hookline.portal.token')") == link.split("#token=", 1)[1]
        # And the failing endpoint is flagged, with its 3 failed deliveries and last error; the healthy one is not
        failing_card, healthy_card = card(page, failing["id"]), card(page, healthy["id"])
        expect(failing_card.get_by_test_id("attention-flag")).to_have_text("Needs attention")
        expect(failing_card.get_by_test_id("failed-count")).to_have_text("3")
        expect(failing_card.get_by_test_id("success-rate")).to_have_text("0%")
        expect(failing_card.get_by_test_id("success-attempts")).to_have_text("of 6 attempts")  # 3 deliveries, 2 attempts each
        expect(failing_card.get_by_test_id("last-error")).to_contain_text("HTTP 500")
        expect(healthy_card.get_by_test_id("success-rate")).to_have_text("100%")
        expect(healthy_card.get_by_test_id("success-attempts")).to_have_text("of 3 attempts")
        expect(healthy_card.get_by_test_id("circuit-badge")).to_have_text("Circuit closed")
        expect(healthy_card.get_by_test_id("attention-flag")).to_have_count(0)
        # And the overview passes axe-core at both widths, Tab reaching each of its controls with a visible focus ring
        assert_accessible(page, "endpoints overview")
        assert_keyboard_reachable(page, "endpoints overview")

        # When they open its failures
        failing_card.get_by_test_id("failures-link").click()

        # Then the page draws an hourly chart of the last 7 days, its bars adding up to the 3 failures
        bars = page.get_by_test_id("chart-bar")
        expect(bars).to_have_count(7 * 24)
        counts = [int(c) for c in bars.evaluate_all("bars => bars.map(b => b.getAttribute('data-count'))")]
        assert sum(counts) == 3
        # And a sentence names the worst window, in the browser's time zone
        sentence = page.get_by_test_id("failure-sentence")
        expect(sentence).to_have_text(SENTENCE)
        match = SENTENCE.match(sentence.text_content() or "")
        assert match is not None and match.group(1) == "3"
        hours = [
            datetime.fromisoformat(h.replace("Z", "+00:00")) for h, c in zip(bars.evaluate_all("bs => bs.map(b => b.dataset.hour)"), counts, strict=True) if c
        ]
        start, end = hours[0].astimezone(ZoneInfo(TIMEZONE)), (hours[-1] + timedelta(hours=1)).astimezone(ZoneInfo(TIMEZONE))
        assert match.groups()[1:] == (f"{start:%H:%M}", f"{end:%H:%M}", f"{start:%b}", str(start.day))
        # And the chart fits its box: every label inside it and at least 11 px, every hour's bar at least 2 px wide
        assert_chart_fits(page)
        # And the view passes axe-core at both widths, Tab reaching each control with a visible focus ring
        assert_accessible(page, "failures view")
        assert_keyboard_reachable(page, "failures view")

        # When the receiver is fixed and they replay the selected window with one key press on its button
        failing_rx.status = 200
        tab_to(page, "#replay-window")
        page.keyboard.press("Enter")

        # Then focus is on the message reporting the replay, which says when it is done
        note = expect_result_focused(page, "replay-note")
        expect(note).to_have_text("Done: 3 deliveries succeeded.", timeout=30_000)
        # And the progress updates until the replay completes: 3 matched, 3 delivered, none failed
        progress = page.locator("[data-testid=replay-progress][data-complete=true]")
        expect(progress).to_be_visible(timeout=30_000)
        expect(progress.get_by_test_id("replay-status")).to_have_text("completed")
        expect(progress.get_by_test_id("replay-matched")).to_have_text("3")
        expect(progress.get_by_test_id("replay-delivered")).to_have_text("3")
        expect(progress.get_by_test_id("replay-failed")).to_have_text("0")
        # And the deliveries succeeded: the receiver accepted each failed webhook again, and none is failed any more
        redelivered = {r.headers["webhook-id"] for r in failing_rx.received if r.status == 200}
        assert {d["event_id"] for d in failed} <= redelivered
        assert producer.deliveries(failing["id"]) == []
        # And the delivery log says so too: the replayed ones succeeded, and none is failed
        page.get_by_test_id("tab-deliveries").click()
        replayed = page.locator(f"[data-testid=delivery-row][data-event-id='{failed[0]['event_id']}'] [data-testid=delivery-status]")
        expect(replayed).to_have_text("succeeded")
        page.get_by_label("Status").select_option("failed")
        expect(page.get_by_test_id("deliveries-empty")).to_have_text("No failed deliveries in this window.")


@pytest.mark.axe
def test_the_delivery_log_pages_newest_first_expands_to_attempts_and_retries_one(page: Page, producer: Producer, customer: str) -> None:
    # Given 21 deliveries that failed for good (two attempts each): one more than a page
    with WebhookReceiver(port=0, status=500) as rx:
        endpoint = producer.endpoint(customer, rx.url, rate_limit_per_second=20)
        for i in range(21):
            producer.event(customer, "order.created", {"n": i})
        producer.wait_for_failed(endpoint["id"], 21, timeout=90)
        open_portal(page, producer.session(customer)["url"])

        # When the customer opens the endpoint's delivery log
        open_endpoint(page, endpoint["id"], "deliveries")

        # Then one page of 20 shows, newest first, each time in the browser's zone with UTC on hover
        rows = page.get_by_test_id("delivery-row")
        expect(rows).to_have_count(20)
        created = page.locator("[data-testid=delivery-created]")
        stamps = created.evaluate_all("ts => ts.map(t => t.getAttribute('datetime'))")
        assert stamps == sorted(stamps, reverse=True)
        first = created.first
        utc = datetime.fromisoformat(stamps[0].replace("Z", "+00:00"))
        assert first.get_attribute("title") == f"{stamps[0]} (UTC)"
        assert f"{utc.astimezone(ZoneInfo(TIMEZONE)):%H:%M:%S}" in (first.text_content() or "")
        # And the log passes axe-core at both widths
        assert_accessible(page, "delivery log")
        # And "More", pressed by keyboard, loads the rest and goes away, focus moving to the first delivery it added
        page.get_by_test_id("deliveries-more").focus()
        page.keyboard.press("Enter")
        expect(rows).to_have_count(21)
        expect(page.get_by_test_id("deliveries-more")).to_have_count(0)
        expect(rows.nth(20)).to_be_focused()

        # When they filter to paused deliveries, there are none; back to failed in the last hour, all 21
        page.get_by_label("Status").select_option("paused")
        expect(page.get_by_test_id("deliveries-empty")).to_have_text("No paused deliveries in this window.")
        page.get_by_label("Status").select_option("failed")
        page.get_by_label("Time window").select_option("1h")
        expect(rows).to_have_count(20)

        # When they expand the newest delivery
        newest = rows.first
        newest.get_by_test_id("expand-delivery").click()

        # Then its two scheduled attempts show, with status code, trigger and the receiver's answer
        attempts = newest.get_by_test_id("attempt-row")
        expect(attempts).to_have_count(2)
        expect(newest.get_by_test_id("attempt-status")).to_have_text(["500", "500"])
        expect(attempts.first).to_contain_text("scheduled")
        expect(newest.get_by_test_id("attempt-response").first).to_have_text('{"received": false}')
        # And the expanded log passes axe-core at both widths, Tab reaching each control with a visible focus ring
        assert_accessible(page, "delivery log, expanded")
        assert_keyboard_reachable(page, "delivery log, expanded")

        # When the receiver is fixed and they retry that one delivery, by keyboard
        rx.status = 200
        tab_to(page, "[data-testid=delivery-row]:first-child [data-testid=retry-delivery]")
        page.keyboard.press("Enter")

        # Then it is queued, focus on the message saying so (the button is gone), and it succeeds as a manual attempt
        expect(expect_result_focused(page, "retry-queued")).to_have_text("Retry queued")
        expect(newest.get_by_test_id("retry-delivery")).to_have_count(0)
        event_id, delivery_id = newest.get_attribute("data-event-id"), newest.get_attribute("data-delivery-id")
        wait_until(lambda: producer.call("GET", f"/v1/events/{event_id}/deliveries/{delivery_id}")["status"] == "succeeded", "the retried delivery to succeed")
        newest.get_by_test_id("expand-delivery").click()  # close
        newest.get_by_test_id("expand-delivery").click()  # and open again: fresh attempts
        expect(attempts).to_have_count(3)
        expect(attempts.last).to_contain_text("manual")
        expect(newest.get_by_test_id("delivery-status")).to_have_text("succeeded")
        assert len(producer.deliveries(endpoint["id"])) == 20


@pytest.mark.axe
def test_the_delivery_log_shows_every_delivery_filters_by_status_and_finds_one_by_its_event(page: Page, producer: Producer, customer: str) -> None:
    # Given 3 deliveries that succeeded, 2 that failed for good (400) and 1 paused (its endpoint disabled when it was sent)
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url, rate_limit_per_second=20, headers={"x-team": "billing"})
        succeeded = [producer.event(customer, "order.created", {"n": i})["id"] for i in range(3)]
        wait_until(lambda: len(producer.deliveries(endpoint["id"], "succeeded")) == 3, "3 succeeded deliveries")
        rx.status = 400
        failed = [producer.event(customer, "order.created", {"n": 10 + i})["id"] for i in range(2)]
        producer.wait_for_failed(endpoint["id"], 2)
        producer.call("PATCH", f"/v1/endpoints/{endpoint['id']}", {"status": "disabled"})
        paused = producer.event(customer, "order.created", {"n": 20})["id"]
        wait_until(lambda: len(producer.deliveries(endpoint["id"], "paused")) == 1, "1 paused delivery")
    open_portal(page, producer.session(customer)["url"])

    # When the customer opens the endpoint's delivery log, Then all 6 show (the "all" filter is the first)
    open_endpoint(page, endpoint["id"], "deliveries")
    rows = page.get_by_test_id("delivery-row")
    expect(rows).to_have_count(6)
    shown = rows.evaluate_all("rows => rows.map(r => r.dataset.eventId)")
    assert sorted(shown) == sorted([*succeeded, *failed, paused])
    # And "succeeded" shows the 3 that succeeded, "failed" the 2, "paused" the 1
    for status, wanted in (("succeeded", succeeded), ("failed", failed), ("paused", [paused])):
        page.get_by_label("Status").select_option(status)
        expect(rows).to_have_count(len(wanted))
        assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.eventId)")) == sorted(wanted)
    page.get_by_label("Status").select_option("all")
    expect(rows).to_have_count(6)

    # When they search for one failed delivery's event id, Then that one shows, alone
    page.get_by_label("Event id").fill(failed[1])
    page.get_by_label("Event id").press("Enter")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-event-id", failed[1])
    # And its attempt shows the headers it was sent with, the signature redacted, the endpoint's own header among them
    rows.first.get_by_test_id("expand-delivery").click()
    sent = rows.first.get_by_test_id("attempt-headers").first
    sent.locator("summary").click()
    expect(sent).to_contain_text(f"webhook-id: {failed[1]}")
    expect(sent).to_contain_text("webhook-signature: v1,<redacted>")
    expect(sent).to_contain_text("x-team: billing")
    # And the view passes axe-core at both widths
    assert_accessible(page, "delivery log, one found by its event")
    # When they go back to the whole log, Then all 6 show again
    page.get_by_test_id("search-clear").click()
    expect(rows).to_have_count(6)


def test_rotating_the_secret_shows_it_once_and_the_next_webhook_verifies_with_it(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint whose receiver verifies signatures
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url)
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # When the customer reveals the secret, it is the one the endpoint was made with
        page.get_by_test_id("reveal-secret").click()
        expect(page.get_by_test_id("secret-value")).to_have_text(endpoint["secret"])

        # When they rotate it by keyboard, confirming in the dialog (Tab from Cancel to the confirm button)
        tab_to(page, "#rotate-secret")
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("confirm-dialog")).to_be_visible()
        expect(page.get_by_test_id("confirm-cancel")).to_be_focused()
        page.keyboard.press("Tab")
        expect(page.get_by_test_id("confirm-ok")).to_be_focused()
        page.keyboard.press("Enter")

        # Then focus is on the message with the new secret, shown once, with the overlap explained
        expect_result_focused(page, "rotate-message")
        rotated = page.get_by_test_id("rotated-secret")
        expect(rotated).to_have_text(re.compile(r"^whsec_\S+$"))
        new_secret = rotated.text_content() or ""
        assert new_secret != endpoint["secret"]
        expect(page.get_by_test_id("rotate-explanation")).to_contain_text("a signature with the old secret too")
        expect(page.get_by_test_id("secret-value")).to_have_count(0)  # the old one is no longer on screen

        # And the next webhook verifies with the new secret (the old one still signs during the overlap)
        rx.secret = new_secret
        producer.event(customer, "invoice.paid", {"after": "rotation"})
        webhook = wait_until(lambda: next((r for r in rx.received if r.json().get("type") == "invoice.paid"), None), "the webhook after the rotation")
        assert webhook.verified is True and webhook.status == 200
        Webhook(new_secret).verify(webhook.body, webhook.headers)
        Webhook(endpoint["secret"]).verify(webhook.body, webhook.headers)
        assert len(webhook.headers["webhook-signature"].split(" ")) == 2

        # And revealing the secret again shows the new one and the previous one with its end
        page.reload()
        page.get_by_test_id("reveal-secret").click()
        expect(page.get_by_test_id("secret-value")).to_have_text(new_secret)
        expect(page.get_by_test_id("previous-secret")).to_have_text(endpoint["secret"])


@pytest.mark.axe
def test_a_disabled_endpoint_is_re_enabled_after_a_test_event_and_its_paused_deliveries_go_out(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint the producer disabled, with a paused delivery
    with WebhookReceiver(port=0, status=503) as rx:
        endpoint = producer.endpoint(customer, rx.url)
        producer.call("PATCH", f"/v1/endpoints/{endpoint['id']}", {"status": "disabled"})
        producer.event(customer, "invoice.paid", {"while": "disabled"})
        wait_until(lambda: producer.deliveries(endpoint["id"], "paused"), "the paused delivery")
        open_portal(page, producer.session(customer)["url"])

        # Then the overview shows it disabled, and why
        c = card(page, endpoint["id"])
        expect(c.get_by_test_id("status-badge")).to_have_text("Disabled")
        expect(c.get_by_test_id("disabled-reason")).to_have_text("Disabled because it was disabled by request.")
        expect(c.get_by_test_id("paused-count")).to_have_text("1")

        # When the customer re-enables it while their receiver still fails
        open_endpoint(page, endpoint["id"])
        page.get_by_test_id("enable-endpoint").click()

        # Then the test event's outcome and the API's message show, focused, and it stays disabled
        expect(expect_result_focused(page, "enable-error")).to_contain_text("did not accept the test event")
        expect(page.get_by_test_id("attempt-summary")).to_contain_text("503")
        assert producer.get_endpoint(endpoint["id"])["status"] == "disabled"
        # And the settings, with the disabled panel and the error, pass axe-core at both widths, every control reached by Tab
        page.get_by_test_id("measured-success-rate").wait_for()
        assert_accessible(page, "endpoint settings")
        assert_keyboard_reachable(page, "endpoint settings")

        # When the receiver is fixed and they try again
        rx.status = 200
        page.get_by_test_id("enable-endpoint").click()

        # Then it is active, its paused delivery is being re-queued, the notice follows the job until it is done, and it arrives
        notice = page.get_by_test_id("notice")
        expect(notice).to_have_text("The endpoint is active again; its paused deliveries are being re-queued.")
        expect_result_focused(page, "notice")
        expect(page.get_by_test_id("status-badge")).to_have_text("Active")
        expect(notice).to_have_text("The endpoint is active again; 1 paused delivery re-queued, done.", timeout=20_000)
        expect(page.get_by_test_id("disabled-panel")).to_have_count(0)
        assert producer.get_endpoint(endpoint["id"])["status"] == "active"
        wait_until(lambda: any(r.json().get("type") == "invoice.paid" and r.status == 200 for r in rx.received), "the paused delivery to arrive")


def test_a_rate_limit_above_the_ceiling_shows_the_api_error_and_one_within_it_saves(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint of a customer whose ceiling is 20 per second, with some traffic measured
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url)
        producer.event(customer, "invoice.paid")
        wait_until(lambda: producer.get_endpoint(endpoint["id"])["health"]["attempts"] >= 1, "the first webhook's attempt counted")
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # Then the measured success rate and p95 latency sit next to the pace settings, with the ceiling
        pace = page.locator(".pace")
        expect(pace.get_by_test_id("measured-success-rate")).to_have_text(re.compile(r"^100% of \d+ attempts?$"))
        expect(pace.get_by_test_id("measured-p95")).to_have_text(re.compile(r"^\d+ ms$"))
        # And the health card says what its success rate is over (the same day's attempts), not a fixed count
        shown = producer.get_endpoint(endpoint["id"])["health"]["attempts"]
        expect(page.get_by_test_id("health-success-rate")).to_have_text(f"100% of {shown} attempt{'' if shown == 1 else 's'}")
        # (an endpoint's default rate, 50/s, is capped at its customer's ceiling)
        expect(pace.get_by_label("Rate limit (per second)")).to_have_value("20")
        expect(pace.get_by_text("Up to 20 per second on your plan.")).to_be_visible()

        # When the customer asks for 500 per second, and presses Save by keyboard
        page.get_by_label("Rate limit (per second)").fill("500")
        tab_to(page, "#save-settings")
        page.keyboard.press("Enter")

        # Then the API's message names the ceiling, focused, and nothing changed
        expect(expect_result_focused(page, "settings-error")).to_contain_text("above the customer's ceiling of 20")
        assert producer.get_endpoint(endpoint["id"])["rate_limit_per_second"] == 20

        # When they ask for 15 and a description with an extra event type typed in
        page.get_by_label("Rate limit (per second)").fill("15")
        page.get_by_label("Description").fill("Orders, paced")
        page.get_by_label("Other event types").fill("order.shipped")
        tab_to(page, "#save-settings")
        page.keyboard.press("Enter")

        # Then it saves, focus on the message saying so
        expect(expect_result_focused(page, "settings-saved")).to_have_text("Saved.")
        saved = producer.get_endpoint(endpoint["id"])
        assert (saved["rate_limit_per_second"], saved["description"], saved["event_types"]) == (15, "Orders, paced", ["order.shipped"])


@pytest.mark.axe
def test_an_endpoint_is_created_with_the_keyboard_only(page: Page, producer: Producer, customer: str) -> None:
    # Given a customer with no endpoint yet, and an event type the producer has sent before
    producer.event(customer, "invoice.paid")
    open_portal(page, producer.session(customer)["url"])
    expect(page.get_by_test_id("endpoints-empty")).to_be_visible()

    # When they Tab to "Add endpoint" and press Enter (no mouse anywhere)
    tab_to(page, "#add-endpoint")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "the focused control shows no focus ring"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("create-form")).to_be_visible()
    # And the form, its event types loaded, passes axe-core at both widths, Tab reaching each control with a visible focus ring
    expect(page.locator("[data-testid=event-type-option][value='invoice.paid']")).to_be_attached()
    assert_accessible(page, "create view")
    assert_keyboard_reachable(page, "create view")
    # And the URL field's hint says what it accepts: a URL with a user name and password in it, which it says is refused, is
    url_hint = re.compile(r"^Where webhooks are sent: an https:// URL of a public host, .* with no user name or password in it\. Plain http://")
    expect(page.get_by_label("URL")).to_have_accessible_description(url_hint)
    tab_to(page, "#new-url")
    page.keyboard.type("https://user:pass@hooks.example.com/keyboard")
    tab_to(page, "#create-submit")
    page.keyboard.press("Enter")
    expect(expect_result_focused(page, "create-error")).to_contain_text("must not contain credentials")

    # When they fill the form by typing, ticking a known event type with Space and typing another, then Enter
    tab_to(page, "#new-url")
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("https://hooks.example.com/keyboard")
    page.keyboard.press("Tab")
    page.keyboard.type("Made without a mouse")
    invoice_paid = page.locator("[data-testid=event-type-option][value='invoice.paid']")
    expect(invoice_paid).to_be_attached()
    tab_to(page, f"#{invoice_paid.get_attribute('id')}")
    page.keyboard.press("Space")
    tab_to(page, "#new-other-types")
    page.keyboard.type("order.shipped")
    tab_to(page, "#new-rate")
    page.keyboard.type("12")
    tab_to(page, "#create-submit")
    page.keyboard.press("Enter")

    # Then the endpoint exists with what was typed, and its secret is shown once
    expect(page.get_by_test_id("created-title")).to_be_focused()
    expect(page.get_by_test_id("created-secret")).to_have_text(re.compile(r"^whsec_\S+$"))
    items = producer.call("GET", f"/v1/endpoints?customer={customer}")["items"]
    assert [(e["url"], e["description"], sorted(e["event_types"]), e["rate_limit_per_second"]) for e in items] == [
        ("https://hooks.example.com/keyboard", "Made without a mouse", ["invoice.paid", "order.shipped"], 12)
    ]
    # And Enter on "Open the endpoint" goes to it
    tab_to(page, "[data-testid=open-created]")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("endpoint-title")).to_have_text("https://hooks.example.com/keyboard")


def test_deleting_an_endpoint_asks_first_and_a_cancel_keeps_it(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint open in the portal
    endpoint = producer.endpoint(customer, "https://hooks.example.com/to-delete")
    open_portal(page, producer.session(customer)["url"])
    open_endpoint(page, endpoint["id"])

    # When the customer asks to delete it by keyboard, then backs out with Escape
    tab_to(page, "#delete-endpoint")
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("https://hooks.example.com/to-delete stops receiving webhooks at once")
    page.keyboard.press("Escape")

    # Then nothing happened, and focus is back on the button
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("delete-endpoint")).to_be_focused()
    assert producer.get_endpoint(endpoint["id"])["id"] == endpoint["id"]

    # When they press it again and confirm (Tab from Cancel to the confirm button, Enter)
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("confirm-cancel")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")

    # Then they are back on the overview, focus on the notice telling them so, and the endpoint is gone
    expect(expect_result_focused(page, "notice")).to_have_text("Deleted https://hooks.example.com/to-delete.")
    expect(page.get_by_test_id("endpoints-empty")).to_be_visible()
    producer.call("GET", f"/v1/endpoints/{endpoint['id']}", expect=(404,))


def test_an_ordered_endpoint_shows_its_badge_and_the_delivery_holding_its_line(page: Page, producer: Producer, customer: str) -> None:
    # Given an ordered endpoint whose receiver answers 503 with Retry-After: 120, and two events for it
    with running_receiver(lambda _r: Answer(status=503, headers={"Retry-After": "120"})) as rx:
        endpoint = producer.endpoint(customer, rx.url, ordered=True)
        first = producer.event(customer, "order.created", {"n": 1})
        producer.event(customer, "order.created", {"n": 2})
        # (the first one fails and holds the line for two minutes; the second waits behind it, never sent)
        wait_until(lambda: producer.get_endpoint(endpoint["id"]).get("line") is not None, "the first delivery to hold the line")
        assert [json.loads(r.body)["data"]["n"] for r in rx.requests] == [1]

        # When the customer opens the endpoint in the portal
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # Then it is marked ordered, and the header says which delivery holds its line, why, and when it is tried next
        expect(page.get_by_test_id("ordered-badge")).to_have_text("Ordered")
        line = page.get_by_test_id("line-head")
        expect(line).to_contain_text("Holding the line")
        expect(line).to_have_attribute("data-event-id", first["id"])
        expect(line).to_contain_text("attempt 1 failed (503)")
        expect(line).to_contain_text("Later deliveries to this endpoint wait")
        expect(line.get_by_test_id("line-next-at")).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))
