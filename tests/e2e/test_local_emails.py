"""Local mode's customer emails: moto's SES with the sender verified at provisioning, each email printed."""

from __future__ import annotations

import time
from types import SimpleNamespace

import boto3
import pytest

from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.core.emails import StatusNotice
from hookline.wiring import container, topology
from local.mail import render
from local.run import LOCAL_SENDER, LocalHookline
from tests.e2e.conftest import running_local_mode
from tests.fakes.contracts import T0, customer, endpoint


def test_local_mode_verifies_its_sender_and_prints_each_email(local_hookline: LocalHookline, capsys: pytest.CaptureFixture[str]) -> None:
    # Given local mode, whose sender moto's SES verified at provisioning (SES refuses an unverified one: see below)
    identities = boto3.client("sesv2").list_email_identities()["EmailIdentities"]
    assert LOCAL_SENDER in [i["IdentityName"] for i in identities]
    # And a customer with an email address
    table = boto3.resource("dynamodb").Table(local_hookline.resources[topology.TABLE.env])
    CustomerRepository(table).put(customer("cus-1", email="ops@customer.example"))
    # When the delivery worker's emails announce that the customer's endpoint was disabled
    emails = container.delivery_worker().health.emails
    assert emails is not None and emails.sender == LOCAL_SENDER
    assert emails.endpoint_changed(endpoint(customer="cus-1", description="Orders"), StatusNotice("disabled", "gone", T0), "disabled#local")
    # Then the console shows it: recipient, subject and its first lines
    printed = ""
    deadline = time.monotonic() + 5
    while "email to" not in printed and time.monotonic() < deadline:
        time.sleep(0.1)
        printed += capsys.readouterr().out
    assert "email to ops@customer.example: Webhook endpoint disabled: Orders" in printed
    assert "    Hello Customer One," in printed and "Endpoint: ep_01" in printed


def test_a_sender_written_with_a_name_is_verified_by_its_address_and_sends() -> None:
    # Given local mode with its sender written `Name <address>`
    with running_local_mode(HOOKLINE_NOTIFICATION_SENDER=f"Hookline Local <{LOCAL_SENDER}>") as hookline:
        # Then moto's SES verified the address (an identity named `Hookline Local <...>` would verify no sender)
        identities = [i["IdentityName"] for i in boto3.client("sesv2").list_email_identities()["EmailIdentities"]]
        assert identities == [LOCAL_SENDER]
        # And a customer's email goes out from it, showing the name
        table = boto3.resource("dynamodb").Table(hookline.resources[topology.TABLE.env])
        CustomerRepository(table).put(customer("cus-1", email="ops@customer.example"))
        emails = container.delivery_worker().health.emails
        assert emails is not None and emails.sender == f"Hookline Local <{LOCAL_SENDER}>"
        assert emails.endpoint_changed(endpoint(customer="cus-1"), StatusNotice("disabled", "gone", T0), "disabled#named")


def test_render_shows_the_first_lines_only() -> None:
    message = SimpleNamespace(destinations={"ToAddresses": ["a@example.com"]}, subject="s", body="one\n\ntwo\nthree\nfour")
    assert render(message, lines=2) == "email to a@example.com: s\n    one\n    two"
    html = SimpleNamespace(destinations={"ToAddresses": ["a@example.com"]}, subject="s", body="<html><body>\n<p>a &amp; b</p>\n<p>c</p></body></html>")
    assert render(html) == "email to a@example.com: s\n    a & b\n    c"
