"""`make portal-screenshots`: the customer portal's pages as PNGs in docs/img/ (python -m tests.browser.screenshots).

Starts local mode, makes a demo customer through the producer API (a healthy
endpoint, one whose receiver fails until it is fixed, one that answered 410
and disabled itself), opens each page in headless Chromium at 1280×800, and
again on a 390×844 phone (docs/img/portal-mobile*.png), and writes
docs/img/portal-*.png.

The failures chart needs a week of history that a fresh local stack cannot
have, so the failing endpoint's hourly counters for the past days are written
straight into the statistics table (one outage of 47 deliveries and a few
scattered failures); the current hour's failures, deliveries and replay are
real ones made by the stack.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from local.receiver import WebhookReceiver
from tests.browser.stack import TENANT, Producer, chromium_executable, local_stack, wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Page

OUT = Path("docs/img")
CUSTOMER = "globex"
TIMEZONE = "Europe/Berlin"


def seed_history(endpoint_id: str, now: datetime) -> None:
    """A week of history for the failing endpoint: steady traffic, an outage two days ago, a few stray failures. The hourly
    counters (success rate, latency) and, for each failure, a failed delivery of a stored event created in that hour (the
    failure chart counts those, as a replay selects them)."""
    from hookline.adapters import aws
    from hookline.adapters.dynamo.events import EventRepository
    from hookline.adapters.dynamo.stats import StatsRepository
    from hookline.core import ids
    from hookline.core.clock import iso
    from hookline.core.models import Delivery, Event
    from hookline.core.stats import attempt_counts, hour_of
    from hookline.wiring import topology
    from hookline.wiring.settings import get_settings

    settings = get_settings()
    table = aws.dynamodb_table(settings.table_name)
    stats = StatsRepository(table, retention_days=settings.retention_days)
    events = EventRepository(table, topology.TABLE.ttl_attribute)
    expires_at = int((now + timedelta(days=settings.retention_days)).timestamp())
    outage_start = (now - timedelta(days=2)).replace(hour=12, minute=0, second=0, microsecond=0)
    outage = {outage_start: 19, outage_start + timedelta(hours=1): 28}
    strays = {now - timedelta(days=5, hours=3): 2, now - timedelta(days=4, hours=9): 1, now - timedelta(days=1, hours=6): 3}
    for back in range(1, 7 * 24):
        hour = now - timedelta(hours=back)
        key = hour.replace(minute=0, second=0, microsecond=0)
        failed = outage.get(key, 0) + sum(n for t, n in strays.items() if t.replace(minute=0, second=0, microsecond=0) == key)
        succeeded = 6 + (back * 7) % 5
        counts: dict[str, int] = {}
        samples = [attempt_counts(True, 40 + (i * 37) % 160, True, "succeeded") for i in range(succeeded)]
        samples += [attempt_counts(False, 2000, False, "failed") for _ in range(failed)]
        for sample in samples:
            for k, v in sample.items():
                counts[k] = counts.get(k, 0) + v
        stats.add(TENANT, endpoint_id, hour_of(hour), counts)
        for n in range(failed):
            at = key + timedelta(minutes=(n * 7) % 60)
            ms = int(at.timestamp() * 1000)
            event = Event.accepted(ids.new_id(ids.EVENT, ms), TENANT, "customer.updated", iso(at), {"customer": f"cus_{n}"}, "seeded", customer=CUSTOMER)
            events.create_event(event, expires_at)
            events.create_deliveries(
                [Delivery(ids.delivery_id(TENANT, event.id, endpoint_id, ms), TENANT, event.id, endpoint_id, "failed", 1, iso(at), iso(at))], expires_at
            )


def build_demo(producer: Producer) -> tuple[dict[str, Any], list[WebhookReceiver]]:
    billing = WebhookReceiver(port=0).start()
    crm = WebhookReceiver(port=0, status=503).start()
    legacy = WebhookReceiver(port=0, status=410).start()
    producer.settings("Acme Billing")
    producer.customer(CUSTOMER, "Globex Corporation", max_rate=50.0, max_concurrency=10)
    host = "http://localhost"
    endpoints = {
        "billing": producer.endpoint(
            CUSTOMER,
            f"{host}:{billing.port}/webhooks/billing",
            description="Billing service: invoices and payments",
            event_types=["invoice.paid", "invoice.created", "payment.failed"],
            rate_limit_per_second=20,
        ),
        "crm": producer.endpoint(
            CUSTOMER,
            f"{host}:{crm.port}/hooks/crm-sync",
            description="CRM sync (customer records)",
            event_types=["customer.created", "customer.updated"],
            rate_limit_per_second=5,
            max_concurrency=2,
        ),
        "legacy": producer.endpoint(CUSTOMER, f"{host}:{legacy.port}/legacy/erp", description="Legacy ERP connector", event_types=["invoice.paid"]),
    }
    billing.secret = endpoints["billing"]["secret"]
    crm.secret = endpoints["crm"]["secret"]
    for i in range(14):
        producer.event(CUSTOMER, ("invoice.paid", "invoice.created", "payment.failed")[i % 3], {"invoice": f"in_{1000 + i}", "amount": 1200 + 15 * i})
    for i in range(6):
        producer.event(CUSTOMER, ("customer.created", "customer.updated")[i % 2], {"customer": f"cus_{200 + i}", "plan": "growth"})
    producer.wait_for_failed(endpoints["crm"]["id"], 6)
    wait_until(lambda: producer.get_endpoint(endpoints["legacy"]["id"])["status"] == "disabled", "the 410 endpoint to disable itself")
    seed_history(endpoints["crm"]["id"], datetime.now(UTC))
    return endpoints, [billing, crm, legacy]


def shoot(page: Page, out: Path, name: str, *, full_page: bool = False) -> Path:
    path = out / f"portal-{name}.png"
    page.wait_for_timeout(150)  # let the last answers render
    page.screenshot(path=str(path), full_page=full_page)
    print(f"wrote {path}")
    return path


def capture(page: Page, out: Path, link: str, endpoints: dict[str, Any], crm: WebhookReceiver, base_url: str) -> None:
    crm_id = endpoints["crm"]["id"]
    page.goto(link)
    page.get_by_test_id("attention-flag").first.wait_for()
    page.locator("[data-testid=endpoint-card] [data-testid=p95]").last.filter(has_not_text="…").wait_for()
    shoot(page, out, "endpoints")

    page.locator(f"[data-endpoint-id={crm_id}] [data-testid=endpoint-link]").click()
    page.get_by_test_id("measured-success-rate").wait_for()
    shoot(page, out, "endpoint-settings", full_page=True)

    page.get_by_test_id("tab-deliveries").click()
    page.get_by_test_id("delivery-row").first.wait_for()
    page.get_by_test_id("expand-delivery").first.click()
    page.get_by_test_id("attempt-row").first.wait_for()
    shoot(page, out, "delivery-log")

    page.get_by_test_id("tab-failures").click()
    page.get_by_test_id("failure-chart").wait_for()
    page.get_by_test_id("failure-window").first.wait_for()
    shoot(page, out, "failures")

    crm.status = 200  # the customer fixed their receiver
    page.get_by_test_id("failure-window").first.click()  # the newest window: the real failures of this hour
    page.get_by_test_id("replay-button").click()
    page.locator("[data-testid=replay-progress][data-complete=true]").wait_for(timeout=60_000)
    page.get_by_test_id("replay-progress").scroll_into_view_if_needed()
    shoot(page, out, "replay")

    page.get_by_test_id("back-link").click()
    page.get_by_test_id("add-endpoint").click()
    page.get_by_test_id("create-form").wait_for()
    page.get_by_label("URL").fill("https://hooks.globex.example/hookline")
    page.get_by_label("Description (optional)").fill("Data warehouse ingest")
    shoot(page, out, "create")

    page.goto(f"{base_url}/portal?t={TENANT}#token=hps_this-link-was-revoked")
    page.get_by_test_id("expired").wait_for()
    shoot(page, out, "expired")


def capture_phone(page: Page, out: Path, link: str, endpoints: dict[str, Any], base_url: str) -> None:
    """The same views on a 390 px phone, each as the screen shows it with the endpoint's tabs at the top."""
    crm_id = endpoints["crm"]["id"]
    page.goto(link)
    page.locator("[data-testid=endpoint-card] [data-testid=p95]").last.filter(has_not_text="…").wait_for()
    shoot(page, out, "mobile")

    def tabs_on_top() -> None:
        page.locator("nav.tabs").evaluate("nav => window.scrollTo(0, nav.getBoundingClientRect().top + window.scrollY - 8)")

    page.locator(f"[data-endpoint-id={crm_id}] [data-testid=endpoint-link]").click()
    page.get_by_test_id("measured-success-rate").wait_for()
    shoot(page, out, "mobile-settings")

    page.get_by_test_id("tab-deliveries").click()
    page.get_by_test_id("expand-delivery").first.click()
    page.get_by_test_id("attempt-row").first.wait_for()
    tabs_on_top()
    shoot(page, out, "mobile-delivery-log")

    page.get_by_test_id("tab-failures").click()
    page.get_by_test_id("failure-window").first.wait_for()
    tabs_on_top()
    shoot(page, out, "mobile-failures")

    page.get_by_test_id("back-link").click()
    page.get_by_test_id("add-endpoint").click()
    page.get_by_test_id("event-type-option").first.wait_for()
    page.get_by_label("URL").fill("https://hooks.globex.example/hookline")
    shoot(page, out, "mobile-create")

    page.goto(f"{base_url}/portal?t={TENANT}#token=hps_this-link-was-revoked")
    page.get_by_test_id("expired").wait_for()
    shoot(page, out, "mobile-expired")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.browser.screenshots", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", default=str(OUT), help="where the PNGs go (docs/img)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = chromium_executable()
    if chromium is None:
        print("Chromium not found: apt-get install -y chromium (or set HOOKLINE_CHROMIUM)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    with local_stack() as stack:
        producer = Producer(stack.base_url, stack.api_key)
        endpoints, receivers = build_demo(producer)
        try:
            link = producer.session(CUSTOMER, ttl_seconds=86400)["url"]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, headless=True)
                # The phone first: the desktop's capture ends with a replay, after which no failed delivery of this hour
                # is left to expand in the delivery log.
                mobile = browser.new_context(
                    viewport={"width": 390, "height": 844}, locale="en-US", timezone_id=TIMEZONE, is_mobile=True, has_touch=True, device_scale_factor=1
                )
                capture_phone(mobile.new_page(), out, producer.session(CUSTOMER, ttl_seconds=86400)["url"], endpoints, stack.base_url)
                context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US", timezone_id=TIMEZONE, device_scale_factor=1)
                capture(context.new_page(), out, link, endpoints, receivers[1], stack.base_url)
                browser.close()
        finally:
            for r in receivers:
                r.stop()
    print(f"portal screenshots done in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
