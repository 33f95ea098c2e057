"""Customer emails through moto: SES v2 sends from the verified sender, the transition marker is a
conditional PutItem on the table, and the paused count a bounded query of the endpoint-deliveries index."""

from __future__ import annotations

import json
import re
import time
from email.header import decode_header, make_header
from email.utils import parseaddr
from typing import Any

import boto3
import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.email_marks import EmailMarkRepository
from hookline.adapters.dynamo.events import EventRepository
from hookline.adapters.ses import SesMailer
from hookline.core.emails import Links, StatusNotice
from hookline.core.errors import DependencyFailed
from hookline.core.settings import Settings
from hookline.entrypoints.authorizer import authorize
from hookline.services.delivery.emails import CustomerEmails
from hookline.wiring import container, topology
from hookline.wiring.emails import customer_emails
from local.resources import create_table
from tests.conftest import Hookline
from tests.fakes.contracts import T0, customer, delivery, endpoint
from tests.support.receiver import Answer, running_receiver

SENDER = "alerts@hookline.example.com"
GONE = StatusNotice("disabled", "gone", T0)


def _sent() -> list[object]:
    return list(ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].sent_messages)


@pytest.fixture
def table(aws: None) -> object:
    name = create_table(boto3.client("dynamodb"), topology.TABLE, "emails")
    boto3.client("sesv2").create_email_identity(EmailIdentity=SENDER)
    return boto3.resource("dynamodb").Table(name)


def _emails(table: object) -> tuple[CustomerEmails, EmailMarkRepository]:
    marks = EmailMarkRepository(table, topology.TABLE.ttl_attribute, 30)
    return CustomerEmails(CustomerRepository(table), SesMailer(boto3.client("sesv2")), marks, marks, SENDER, Links()), marks


def test_one_transition_sends_one_email_through_ses_with_the_paused_count(table: object, caplog: pytest.LogCaptureFixture) -> None:
    # Given a customer with an email address, and two paused deliveries of its endpoint
    CustomerRepository(table).put(customer("cus-1", email="ops@customer.example"))
    EventRepository(table, topology.TABLE.ttl_attribute).create_deliveries(
        [delivery("dlv_01", status="paused"), delivery("dlv_02", status="paused"), delivery("dlv_03", status="failed")], 2_000_000_000
    )
    emails, _ = _emails(table)
    # When the same disable is announced twice (a retried handler)
    sent = [emails.endpoint_changed(endpoint(customer="cus-1"), GONE, "disabled#" + T0) for _ in range(2)]
    # Then SES got one message, to the customer, from the sender, quoting both paused deliveries
    assert sent == [True, False]
    (message,) = _sent()
    assert message.source == SENDER and message.destinations["ToAddresses"] == ["ops@customer.example"]
    assert "2 deliveries are paused" in message.body and "POST /v1/endpoints/ep_01/enable" in message.body
    # And the log says an email went out, naming neither the recipient, nor the subject, nor the url
    logged = " ".join(str(vars(record)) for record in caplog.records)
    assert "email sent" in logged and message.id in logged
    assert "ops@customer.example" not in logged and "example.com/hook" not in logged and "disabled:" not in logged
    # And the marker is on the table, with an expiry
    item = table.get_item(Key=keys.email_mark("acme", "ep_01", "disabled#" + T0))["Item"]
    assert int(item[topology.TABLE.ttl_attribute]) > 0


@pytest.mark.parametrize(
    ("written", "header"),
    [
        ("Hookline <noreply@mail.example.com>", "Hookline <noreply@mail.example.com>"),
        ("noreply@mail.example.com", "noreply@mail.example.com"),
        ('"Équipe Hookline, Inc." <noreply@mail.example.com>', "=?utf-8?q?=C3=89quipe_Hookline=2C_Inc=2E?= <noreply@mail.example.com>"),
    ],
)
def test_the_email_goes_from_the_parsed_address_showing_the_name_as_written(table: object, written: str, header: str) -> None:
    # Given SES with the sender's domain verified (not the address), and the sender written as people write it
    boto3.client("sesv2").create_email_identity(EmailIdentity="mail.example.com")
    CustomerRepository(table).put(customer("cus-1", email="ops@customer.example"))
    emails = customer_emails(Settings(table_name=table.name, notification_sender=written))  # type: ignore[attr-defined]
    assert emails is not None
    # When a transition is announced
    assert emails.endpoint_changed(endpoint(customer="cus-1"), GONE, "disabled#" + T0)
    # Then SES sent it from the parsed address, the From: header carrying the name in 7-bit ASCII (RFC 2047 when it is not)
    (message,) = _sent()
    assert message.source == header and message.source.isascii()
    name, address = parseaddr(message.source)
    assert address == "noreply@mail.example.com"
    assert str(make_header(decode_header(name))) == parseaddr(written)[0]


def test_the_paused_count_reads_at_most_its_bound(table: object) -> None:
    EventRepository(table, topology.TABLE.ttl_attribute).create_deliveries([delivery(f"dlv_{i:02}", status="paused") for i in range(5)], 2_000_000_000)
    _, marks = _emails(table)
    assert (marks.paused("acme", "ep_01", 3).paused, marks.paused("acme", "ep_01", 3).more) == (3, True)
    assert (marks.paused("acme", "ep_01", 10).paused, marks.paused("acme", "ep_01", 10).more) == (5, False)
    assert marks.paused("acme", "ep_other", 10).paused == 0


def test_a_rejected_send_leaves_no_marker(table: object) -> None:
    # Given a sender SES has not verified
    CustomerRepository(table).put(customer("cus-1", email="ops@customer.example"))
    marks = EmailMarkRepository(table, topology.TABLE.ttl_attribute, 30)
    emails = CustomerEmails(CustomerRepository(table), SesMailer(boto3.client("sesv2")), marks, marks, "nobody@unverified.example", Links())
    # When a transition is announced, SES refuses it: the adapter names SES's error code
    with pytest.raises(DependencyFailed) as refused:
        emails.endpoint_changed(endpoint(customer="cus-1"), GONE, "disabled#" + T0)
    assert refused.value.cause == "MessageRejected"
    # Then nothing was sent and the transition is free for a later announcement
    assert _sent() == []
    assert "Item" not in table.get_item(Key=keys.email_mark("acme", "ep_01", "disabled#" + T0))


def _emf(out: str, name: str) -> list[dict[str, Any]]:
    """The EMF documents on stdout that carry the metric `name` (log lines are JSON too: they carry no `_aws`)."""
    documents = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [d for d in documents if "_aws" in d and name in d]


def test_an_unverified_sender_is_counted_and_the_endpoints_health_says_the_email_failed(
    hookline: Hookline, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a stack whose sender SES has not verified, with metrics on, and a customer (with an address) whose endpoint answers 410 Gone
    monkeypatch.setenv("HOOKLINE_NOTIFICATION_SENDER", "nobody@unverified.example")
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    container.reset()
    assert hookline.api("PUT", "/v1/customers/cus-1", {"name": "Customer One", "email": "ops@customer.example"})[0] == 201
    with running_receiver(lambda _r: Answer(410)) as receiver:
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/hook", "customer": "cus-1"})
        assert status == 201
        assert hookline.api("POST", "/v1/events", {"type": "invoice.paid", "data": {}, "customer": "cus-1"})[0] == 202
        capsys.readouterr()
        # When the delivery function sends it: the 410 disables the endpoint, and SES refuses the customer's email
        assert hookline.drain() == 1
    out = capsys.readouterr().out
    # Then no email went out, and one EmailFailed was written, dimensioned by service alone (what the alarm watches)
    assert _sent() == []
    [failed] = _emf(out, "EmailFailed")
    assert failed["EmailFailed"] == [1.0]
    assert failed["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]] and failed["service"] == "hookline"
    assert failed["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "hookline"
    # And the endpoint's health, as GET /v1/endpoints/{id} answers it, says the last email failed, when, about what and why
    status, described = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
    assert status == 200 and described["status"] == "disabled"
    last = described["health"]["last_email"]
    assert (last["outcome"], last["about"], last["error"]) == ("failed", "disabled", "MessageRejected")
    assert last["at"].endswith("Z")
    # And neither the customer's address nor the sender's reaches the answer or the metric
    assert "ops@customer.example" not in json.dumps(described) + json.dumps(failed)
    assert "unverified.example" not in json.dumps(last) + json.dumps(failed)


def test_the_container_wires_emails_only_with_a_sender(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert customer_emails(Settings()) is None
    assert container.delivery_worker().health.emails is None
    monkeypatch.setenv("HOOKLINE_NOTIFICATION_SENDER", SENDER)
    monkeypatch.setenv("HOOKLINE_PORTAL_BASE_URL", "https://portal.example.com")
    container.reset()
    emails = container.delivery_worker().health.emails
    assert emails is not None and emails.sender == SENDER and emails.links.portal() == "https://portal.example.com/portal"


def test_with_a_portal_the_email_links_a_session_the_authorizer_accepts(table: object, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the wired emails of a stack with a sender and a portal, and a customer with an endpoint
    monkeypatch.setenv("HOOKLINE_TABLE_NAME", table.name)  # type: ignore[attr-defined]
    monkeypatch.setenv("HOOKLINE_NOTIFICATION_SENDER", SENDER)
    monkeypatch.setenv("HOOKLINE_PORTAL_BASE_URL", "https://hooks.producer.example")
    container.reset()
    CustomerRepository(table).put(customer("cus-1", email="ops@customer.example"))
    emails = customer_emails(container.get_settings())
    assert emails is not None
    # When the endpoint's disable is announced
    assert emails.endpoint_changed(endpoint(customer="cus-1"), GONE, "disabled#" + T0)
    # Then the email carries a portal link whose token is a full session of that customer, for a day
    (message,) = _sent()
    match = re.search(r"https://hooks\.producer\.example/portal\?t=acme#token=(hps_[A-Za-z0-9_\-]+)", message.body)
    assert match is not None
    decision = authorize({"headers": {"authorization": f"Bearer {match.group(1)}"}})
    assert decision["isAuthorized"] and decision["context"]["customer"] == "cus-1" and decision["context"]["read_only"] is False
    assert 86300 < decision["context"]["expires_at"] - time.time() <= 86400
