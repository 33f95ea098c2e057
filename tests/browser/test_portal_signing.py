"""The portal shows which signature formats an endpoint's webhooks carry (issue 53, item 2): the main one, each one
that also signs while receivers migrate with its end, and the Ed25519 public key; never a secret or a private key."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Page, expect

from tests.browser.a11y import assert_accessible
from tests.browser.portal import open_endpoint, open_portal
from tests.browser.stack import Producer


@pytest.mark.axe
def test_the_settings_show_every_format_sent_and_the_public_key_never_a_secret(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint signing with Ed25519, and with GitHub's format too for a week while its receiver moves over
    until = (datetime.now(UTC) + timedelta(days=7)).isoformat()
    signing = {"scheme": "standard-webhooks", "algorithm": "ed25519", "also": [{"scheme": "hmac", "preset": "github"}], "also_until": until}
    endpoint = producer.endpoint(customer, "https://example.com/hook", signing=signing)
    # When its customer opens it in the portal
    open_portal(page, producer.session(customer)["url"])
    open_endpoint(page, endpoint["id"])
    # Then both formats are listed, the second with its end, and the public key is shown
    formats = page.get_by_test_id("signing-format")
    expect(formats).to_have_count(2)
    expect(formats.nth(0)).to_contain_text("Standard Webhooks v1a (Ed25519)")
    expect(formats.nth(1)).to_contain_text("GitHub (X-Hub-Signature-256)")
    expect(formats.nth(1).locator("time")).to_have_count(1)
    expect(page.get_by_test_id("signing-public-key")).to_have_text(endpoint["signing"]["public_key"])
    assert endpoint["secret"] not in (page.text_content("body") or "")
    assert_accessible(page, "endpoint settings with its signature formats")
    # When the migration's end is moved into the past, then the main format alone is listed
    producer.call("PATCH", f"/v1/endpoints/{endpoint['id']}", {"signing": {**signing, "also_until": "2020-01-01T00:00:00Z"}})
    page.reload()
    page.get_by_test_id("endpoint-title").wait_for()
    expect(page.get_by_test_id("signing-format")).to_have_count(1)


def test_rotating_a_one_signature_formats_secret_says_it_takes_effect_at_once(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint signing in GitHub's format, which carries one signature
    endpoint = producer.endpoint(customer, "https://example.com/hook", signing={"scheme": "hmac", "preset": "github"})
    open_portal(page, producer.session(customer)["url"])
    open_endpoint(page, endpoint["id"])
    # When its secret is rotated, then the page says the new secret alone signs from now on, with no overlap promised
    page.get_by_test_id("rotate-secret").click()
    page.get_by_test_id("confirm-ok").click()
    expect(page.get_by_test_id("rotate-explanation")).to_contain_text("signed with the new secret alone from now on")
    expect(page.get_by_test_id("rotated-secret")).to_have_text(producer.call("GET", f"/v1/endpoints/{endpoint['id']}/secret")["secret"])
