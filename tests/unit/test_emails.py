"""The customer email's content (hookline.core.emails): what it says, and what it never carries."""

from __future__ import annotations

from hookline.core.destinations import Destination
from hookline.core.emails import Links, StatusNotice, Waiting, endpoint_email
from tests.fakes.contracts import SECRET, customer, endpoint

CUSTOMER = customer(name="Acme <Shop>", email="ops@customer.example")
ENDPOINT = endpoint(customer="cus-1", url="https://hooks.example.com/in?a=1&b=2", description="Orders")
GONE = StatusNotice("disabled", "gone", "2026-11-29T12:00:00.000Z")


def test_a_disabled_endpoints_email_names_it_why_since_when_what_waits_and_how_to_re_enable() -> None:
    email = endpoint_email(CUSTOMER, ENDPOINT, GONE, Waiting(1), Links())
    assert email.subject == "Webhook endpoint disabled: Orders"
    for fact in ("Endpoint: ep_01", "URL: https://hooks.example.com/in?a=1&b=2", "Description: Orders", "410 Gone", "Since: 2026-11-29T12:00:00.000Z"):
        assert fact in email.text
    assert "1 delivery is paused" in email.text
    assert "POST /v1/endpoints/ep_01/enable" in email.text
    assert "Portal" not in email.text


def test_the_html_says_the_same_escaped() -> None:
    email = endpoint_email(CUSTOMER, ENDPOINT, GONE, Waiting(0), Links("https://portal.example.com"))
    assert "<p>Hello Acme &lt;Shop&gt;,</p>" in email.html
    assert "in?a=1&amp;b=2" in email.html and "Acme <Shop>" not in email.html
    assert "https://portal.example.com/portal" in email.html and "POST /v1/endpoints/ep_01/enable" in email.html


def test_an_email_never_carries_the_signing_secret() -> None:
    for change in (GONE, StatusNotice("recovered", "recovered", "2026-11-29T13:00:00.000Z")):
        email = endpoint_email(CUSTOMER, ENDPOINT, change, Waiting(3), Links("https://portal.example.com"))
        assert SECRET not in email.text + email.html + email.subject
        assert "whsec_" not in email.text + email.html


def test_an_endpoint_without_description_is_named_by_its_url() -> None:
    email = endpoint_email(CUSTOMER, endpoint(), StatusNotice("recovered", "recovered", "t"), Waiting(0), Links())
    assert email.subject == "Webhook endpoint recovered: https://example.com/hook"
    assert "Description" not in email.text and "deliveries to it have resumed" in email.text


def test_an_aws_destination_refusal_is_told_in_words_with_the_destination() -> None:
    queue = Destination("sqs", "https://sqs.eu-west-1.amazonaws.com/111122223333/orders")
    email = endpoint_email(CUSTOMER, endpoint(url="", destination=queue), StatusNotice("disabled", "access_denied", "t"), Waiting(2), Links())
    assert email.subject == "Webhook endpoint disabled: sqs https://sqs.eu-west-1.amazonaws.com/111122223333/orders"
    assert "refused hookline access" in email.text
    assert "Destination: sqs https://sqs.eu-west-1.amazonaws.com/111122223333/orders" in email.text and "URL:" not in email.text
    assert "2 deliveries are paused" in email.text


def test_a_polling_endpoint_is_named_by_its_id_not_a_blank_address() -> None:
    polled = endpoint(url="", destination=Destination("poll", ""))
    email = endpoint_email(CUSTOMER, polled, StatusNotice("recovered", "recovered", "t"), Waiting(0), Links())
    assert email.subject == f"Webhook endpoint recovered: polling endpoint {polled.id}"
    assert f"Destination: polling endpoint {polled.id}" in email.text
