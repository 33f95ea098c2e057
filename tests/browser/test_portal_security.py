"""The portal's safety in headless Chromium: read-only sessions, expired links, XSS, CSP, no foreign requests, narrow
screens, and the accessibility check itself (axe-core catches what it should)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from local.receiver import WebhookReceiver
from tests.browser.a11y import DESKTOP, PHONE, assert_accessible, assert_chart_fits, overflowing, resize, tab_labels
from tests.browser.portal import TIMEZONE, PageLog, card, mutating_controls, open_endpoint, open_portal
from tests.browser.stack import TENANT, Producer
from tests.support.receiver import Answer, running_receiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCRIPT_PAYLOAD = "<script>window.__xss=1</script>"
IMG_PAYLOAD = '<img src=x onerror="window.__xss=1">'
XSS = f"{SCRIPT_PAYLOAD} {IMG_PAYLOAD}"


def _walk_views(page: Page, endpoint_id: str) -> dict[str, int]:
    """Visit every view of one endpoint and count the mutating controls on each."""
    seen = {"overview": mutating_controls(page)}
    open_endpoint(page, endpoint_id)
    page.get_by_test_id("measured-success-rate").wait_for()
    seen["settings"] = mutating_controls(page)
    page.get_by_test_id("tab-deliveries").click()
    page.get_by_test_id("delivery-row").first.wait_for()
    seen["deliveries"] = mutating_controls(page)
    page.get_by_test_id("tab-failures").click()
    expect(page.get_by_test_id("failure-sentence")).to_contain_text("failed")
    seen["failures"] = mutating_controls(page)
    return seen


def test_a_read_only_session_shows_no_mutating_control(page: Page, producer: Producer, customer: str) -> None:
    # Given a disabled endpoint with a failed delivery: every kind of control would have something to act on
    with WebhookReceiver(port=0, status=500) as rx:
        endpoint = producer.endpoint(customer, rx.url)
        producer.event(customer, "invoice.paid")
        producer.wait_for_failed(endpoint["id"], 1)
        producer.call("PATCH", f"/v1/endpoints/{endpoint['id']}", {"status": "disabled"})

        # When a full session walks every view, it has mutating controls (so the count below means something)
        open_portal(page, producer.session(customer)["url"])
        writable = _walk_views(page, endpoint["id"])
        assert all(n > 0 for n in writable.values()), writable

        # When a read-only session walks the same views
        session = producer.session(customer, read_only=True)
        open_portal(page, session["url"])
        expect(page.get_by_test_id("read-only-badge")).to_be_visible()
        read_only = _walk_views(page, endpoint["id"])

        # Then none shows a single mutating control: no add, edit, save, rotate, test, enable, delete, retry or replay
        assert read_only == {"overview": 0, "settings": 0, "deliveries": 0, "failures": 0}
        for testid in ("add-endpoint", "save-settings", "rotate-secret", "send-test", "enable-endpoint", "delete-endpoint", "retry-delivery", "replay-button"):
            expect(page.get_by_test_id(testid)).to_have_count(0)
        open_endpoint_settings = page.get_by_test_id("tab-settings")
        open_endpoint_settings.click()
        expect(page.locator("#settings-form")).to_have_count(0)
        expect(page.get_by_test_id("rate-limit-value")).to_have_text("20 per second")  # the default 50/s, under the customer's 20
        # And reading still works: the secret can be revealed
        page.get_by_test_id("reveal-secret").click()
        expect(page.get_by_test_id("secret-value")).to_have_text(endpoint["secret"])
        # And the API refuses a change with that token anyway
        refused = requests.patch(
            f"{producer.base_url}/v1/endpoints/{endpoint['id']}", json={"description": "x"}, headers={"Authorization": f"Bearer {session['token']}"}, timeout=10
        )
        assert refused.status_code == 403


def test_a_revoked_session_shows_the_expiry_page_naming_the_producer(page: Page, producer: Producer, customer: str) -> None:
    # Given a customer using a working portal link
    open_portal(page, producer.session(customer)["url"])
    expect(page.get_by_test_id("endpoint-list")).to_be_attached()
    # When the producer revokes the customer's sessions (no authorizer cache in these tests) and the page reloads
    producer.revoke_sessions(customer)
    page.reload()
    # Then the page says the link has expired and whom to ask, and forgets the token
    expect(page.get_by_test_id("expired-message")).to_have_text("This link has expired; ask Acme Billing for a new one.")
    expect(page.get_by_test_id("endpoint-list")).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('hookline.portal.token')") is None


def test_an_expired_session_shows_the_expiry_page(page: Page, producer: Producer, customer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a customer using a link that works for a minute
    open_portal(page, producer.session(customer, ttl_seconds=60)["url"])
    expect(page.get_by_test_id("endpoint-list")).to_be_attached()
    # When that minute has passed (the in-process stack's API clock moved on; nothing else about the session changed)
    later = datetime.now(UTC) + timedelta(seconds=61)
    monkeypatch.setattr("hookline.entrypoints.api.routing.utcnow", lambda: later)
    page.reload()
    # Then the page shows the expiry page, not a broken screen, and forgets the token
    expect(page.get_by_test_id("expired-message")).to_have_text("This link has expired; ask Acme Billing for a new one.")
    expect(page.get_by_test_id("endpoint-list")).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('hookline.portal.token')") is None


def test_a_link_naming_another_tenant_reloads_under_the_sessions_own(page: Page, producer: Producer, customer: str) -> None:
    # Given a working link whose `t` was changed to name another tenant (whose name and framing policy would apply)
    link = producer.session(customer)["url"].replace(f"?t={TENANT}", "?t=someone-else")
    open_portal(page, link)
    # Then the page comes back under the session's own tenant, its producer named, the token never back in the address
    expect(page.get_by_test_id("endpoint-list")).to_be_attached()
    assert urlsplit(page.url).query == f"t={TENANT}" and "token" not in page.url
    assert page.evaluate("document.body.dataset.producer") == "Acme Billing"


@pytest.mark.axe
def test_the_expiry_page_passes_axe_and_a_planted_violation_fails_the_check(page: Page, producer: Producer) -> None:
    # Given the expiry page
    page.goto(f"{producer.base_url}/portal?t={TENANT}#token=hps_not-a-real-token")
    expect(page.get_by_test_id("expired-message")).to_be_visible()
    # Then axe-core finds no violation of WCAG 2.2 A/AA or AAA contrast on it, at 1,280 and 390 px
    assert_accessible(page, "expiry page")

    # When an unlabelled text field is planted in it
    page.evaluate("() => document.querySelector('[data-testid=expired]').append(Object.assign(document.createElement('input'), {type: 'text', id: 'planted'}))")
    # Then the check fails, naming the rule and the field
    with pytest.raises(AssertionError) as unlabelled:
        assert_accessible(page, "expiry page", widths=(DESKTOP,))
    assert "label (critical)" in str(unlabelled.value) and "#planted" in str(unlabelled.value)

    # When, instead, the message is greyed to 5.7:1: enough for AA (4.5:1), not for AAA (7:1)
    page.evaluate("() => { document.getElementById('planted').remove(); document.querySelector('[data-testid=expired-message]').style.color = '#666666'; }")
    # Then the check fails on AAA contrast alone: that rule is on
    with pytest.raises(AssertionError) as greyed:
        assert_accessible(page, "expiry page", widths=(DESKTOP,))
    assert "color-contrast-enhanced" in str(greyed.value) and "color-contrast (" not in str(greyed.value)


def test_a_bogus_token_or_none_shows_the_expiry_page(page: Page, producer: Producer) -> None:
    # When a made-up token is opened
    page.goto(f"{producer.base_url}/portal?t={TENANT}#token=hps_not-a-real-token")
    # Then the expiry page shows, naming the producer from the page (filled in by the server)
    expect(page.get_by_test_id("expired-message")).to_have_text("This link has expired; ask Acme Billing for a new one.")
    assert "token" not in page.url
    # When there is no token at all, for a tenant without portal settings
    page.goto(f"{producer.base_url}/portal?t=nobody-here")
    # Then the expiry page falls back to "your provider"
    expect(page.get_by_test_id("expired-message")).to_have_text("This link has expired; ask your provider for a new one.")


def test_xss_payloads_in_a_description_and_a_receivers_answer_render_as_text(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint described with script and onerror payloads, whose receiver answers 500 with them in its body
    with running_receiver(lambda _r: Answer(status=500, body=XSS.encode())) as rx:
        endpoint = producer.endpoint(customer, rx.url, description=XSS)
        producer.event(customer, "invoice.paid")
        producer.wait_for_failed(endpoint["id"], 1)
        open_portal(page, producer.session(customer)["url"])

        # Then the overview shows the description as characters
        expect(card(page, endpoint["id"]).get_by_test_id("endpoint-description")).to_have_text(XSS)
        # And the attempts in the delivery log show the receiver's body as characters
        open_endpoint(page, endpoint["id"], "deliveries")
        page.get_by_test_id("expand-delivery").first.click()
        expect(page.get_by_test_id("attempt-response").first).to_have_text(XSS)
        # And so does a test event's result
        page.get_by_test_id("tab-settings").click()
        page.get_by_test_id("send-test").click()
        expect(page.get_by_test_id("test-status")).to_have_text("500")
        expect(page.get_by_test_id("test-response")).to_have_text(XSS)
        # And nothing ran: no flag set, no image or extra script element in the document
        page.wait_for_timeout(200)
        assert page.evaluate("typeof window.__xss") == "undefined"
        assert page.locator("img").count() == 0
        assert page.locator("script").evaluate_all("ss => ss.map(s => s.getAttribute('src'))") == ["/portal/portal.js"]


def test_the_page_is_served_with_a_strict_csp_and_requests_nothing_from_another_origin(
    page: Page, page_log: PageLog, producer: Producer, customer: str
) -> None:
    # Given the page as the server sends it
    answer = requests.get(f"{producer.base_url}/portal?t={TENANT}", timeout=10)
    csp = answer.headers["Content-Security-Policy"]
    # Then its policy allows only its own scripts, styles and API, never inline code, and is framed by itself alone
    directives = {d.split()[0]: d.split()[1:] for d in (part.strip() for part in csp.split(";")) if d}
    assert directives["default-src"] == ["'self'"] and directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert directives["connect-src"] == ["'self'"] and directives["frame-ancestors"] == ["'self'"]
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    # And the page holds no inline script, style or handler for the policy to refuse
    html = answer.text
    assert "<style" not in html and " style=" not in html and " onclick" not in html.lower()
    assert all('src="/portal/' in tag for tag in html.split("<script")[1:])

    # When the producer allows an app's origin to embed the portal
    producer.settings("Acme Billing", ["https://app.acme.example"])
    try:
        framed = requests.get(f"{producer.base_url}/portal?t={TENANT}", timeout=10).headers["Content-Security-Policy"]
        # Then that origin joins frame-ancestors
        assert "frame-ancestors 'self' https://app.acme.example" in framed
    finally:
        producer.settings("Acme Billing")

    # When a customer uses every view of the page
    with WebhookReceiver(port=0, status=500) as rx:
        endpoint = producer.endpoint(customer, rx.url, description="CSP check")
        producer.event(customer, "invoice.paid")
        producer.wait_for_failed(endpoint["id"], 1)
        open_portal(page, producer.session(customer)["url"])
        _walk_views(page, endpoint["id"])
        page.get_by_test_id("back-link").click()
        page.get_by_test_id("add-endpoint").click()
        expect(page.get_by_test_id("create-form")).to_be_visible()

    # Then every request went to the page's own origin, and the browser reported no policy violation
    own = urlsplit(producer.base_url).netloc
    assert page_log.requests and {urlsplit(u).netloc for u in page_log.requests} == {own}, page_log.requests
    assert not [m for m in page_log.console_errors if "Content Security Policy" in m]


def test_the_portal_stays_usable_at_390_px(browser: Browser, producer: Producer, customer: str) -> None:
    # Given a phone-sized window and an endpoint with a long URL whose receiver fails: a one-hour spike at the chart's edge
    with WebhookReceiver(port=0, status=500) as rx:
        endpoint = producer.endpoint(customer, rx.url + "/a-rather-long-path/that/keeps/going/and-going", description="Phone check")
        producer.event(customer, "invoice.paid")
        producer.wait_for_failed(endpoint["id"], 1)
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", timezone_id=TIMEZONE, is_mobile=True, has_touch=True)
        try:
            phone = context.new_page()
            open_portal(phone, producer.session(customer)["url"])
            expect(card(phone, endpoint["id"]).get_by_test_id("p95")).not_to_have_text("…")
            # Then nothing sticks out sideways or is cut off, on the overview or on any of the endpoint's views
            found = {"overview": overflowing(phone)}
            card(phone, endpoint["id"]).get_by_test_id("endpoint-link").tap()
            phone.get_by_test_id("measured-success-rate").wait_for()
            found["settings"] = overflowing(phone)
            # And every tab's label is whole, inside its tab and the bar (the active one too)
            phone.get_by_test_id("tab-failures").tap()
            phone.locator("[data-testid=tab-failures][aria-current=page]").wait_for()
            phone.get_by_test_id("failure-window").first.wait_for()
            tabs = tab_labels(phone)
            assert tabs == [{"text": label, "inBar": True, "inTab": True} for label in ("Settings", "Delivery log", "Failures & replay")], tabs
            found["failures"] = overflowing(phone)
            # And the chart is legible: labels inside it at 11 px or more, every hour's bar at least 2 px wide, the spike inside
            chart = assert_chart_fits(phone)
            assert chart["width"] <= 390
            assert [i for i, bar in enumerate(chart["bars"]) if bar["count"]] in ([166], [167]), "the spike is in the last hours"
            # And when the clock reads half past midnight (the chart's last day has just begun), no day label is cut off
            # at the chart's edge, on the phone or, the same page widened, on a desktop
            midnight = (datetime.now(ZoneInfo(TIMEZONE)) + timedelta(days=1)).replace(hour=0, minute=30, second=0, microsecond=0)
            phone.clock.set_fixed_time(midnight)
            phone.get_by_test_id("tab-failures").tap()
            last_hour = midnight.replace(minute=0).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            expect(phone.get_by_test_id("chart-bar").last).to_have_attribute("data-hour", last_hour)
            assert_chart_fits(phone)
            resize(phone, DESKTOP)
            assert_chart_fits(phone)
            resize(phone, PHONE, 844)
            phone.get_by_test_id("tab-deliveries").tap()
            phone.get_by_test_id("expand-delivery").first.tap()
            phone.get_by_test_id("attempt-row").first.wait_for()
            found["delivery log, expanded"] = overflowing(phone)
            phone.get_by_test_id("back-link").tap()
            phone.get_by_test_id("add-endpoint").tap()
            phone.get_by_test_id("event-type-option").first.wait_for()
            found["create"] = overflowing(phone)
            assert found == {view: [] for view in found}, found
            # And the main controls are still on screen and large enough to tap
            phone.get_by_test_id("back-link").tap()
            card(phone, endpoint["id"]).get_by_test_id("endpoint-link").tap()
            box = phone.get_by_test_id("save-settings").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 36
        finally:
            context.close()
