"""Customer emails about a disabled or recovered endpoint, over the in-memory fakes: one per transition."""

from __future__ import annotations

import re
from dataclasses import replace

from hookline.core import notifications
from hookline.core.access import Principal
from hookline.core.breaker import Breaker
from hookline.core.clock import iso
from hookline.core.emails import StatusNotice
from hookline.core.models import Delivery, EmailOutcome, Event
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from hookline.core.versions import Renderings
from hookline.services.sessions import PortalSessionService
from tests.fakes.clock import FakeClock
from tests.fakes.contracts import customer, endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.mail import SENDER, EmailRig
from tests.fakes.outside import FakeSender, scripted
from tests.fakes.sessions import FakeSessionStore
from tests.unit.services.pipeline import Pipeline

GONE, UNAVAILABLE, OK = HttpResult(410, None, 9), HttpResult(503, None, 9), HttpResult(200, None, 9, body="ok")


def _gone_rig(mail: EmailRig, sender: str = SENDER) -> tuple[DeliveryRig, Pipeline]:
    rig = delivery_rig(FakeSender(lambda _r: GONE), emails=mail.emails(sender))
    return rig, Pipeline(rig)


def test_a_410_emails_the_customer_once_though_the_batch_and_the_handler_repeat_it() -> None:
    # Given a customer with an email address and its endpoint, which answers 410 Gone
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    rig, pipe = _gone_rig(mail)
    ep = pipe.endpoint(endpoint(customer="cus-1", description="Orders"))
    tasks = [pipe.event(ep, i) for i in range(3)]
    # When one batch delivers three events to it (each answer disables it), and the handler is retried with the same batch
    pipe.run(60)
    for t in tasks:
        pipe.submit(t)
    pipe.run(60)
    # And the same transition is announced twice more, as a retried Lambda holding the same endpoint would
    for _ in range(2):
        rig.worker.health.disable(ep, Breaker(), rig.clock(), "gone")
    # Then the endpoint is disabled, SNS heard of it, and the customer got exactly one email, from the sender, about it
    assert rig.endpoints.get("acme", ep.id).status == "disabled"
    assert notifications.DISABLED in rig.notify.kinds()
    assert [(m.sender, m.to) for m in mail.mailer.sent] == [(SENDER, "ops@customer.example")]
    email = mail.mailer.sent[0].email
    assert email.subject == "Webhook endpoint disabled: Orders"
    assert ep.id in email.text and "410 Gone" in email.text and f"POST /v1/endpoints/{ep.id}/enable" in email.text


def test_a_recovery_emails_the_customer_once() -> None:
    # Given a customer's endpoint that fails its first eleven requests (the threshold, then the first probe), then recovers
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    rig = delivery_rig(FakeSender(scripted(*[UNAVAILABLE] * 11, OK)), emails=mail.emails())
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint(customer="cus-1", max_concurrency=1))
    tasks = [pipe.event(ep, i) for i in range(20)]
    # When three virtual hours pass, and the handler is then retried with tasks already delivered
    pipe.run(3 * 3600)
    for t in tasks[:3]:
        pipe.submit(t)
    pipe.run(60)
    # Then the recovery was announced on SNS and emailed once
    assert rig.notify.kinds() == [notifications.CIRCUIT_OPENED, notifications.RECOVERED]
    assert [m.email.subject for m in mail.mailer.sent] == ["Webhook endpoint recovered: https://example.com/hook"]


def test_without_a_sender_no_email_goes_out_and_sns_still_hears_of_it() -> None:
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    rig, pipe = _gone_rig(mail, sender="")
    pipe.event(pipe.endpoint(endpoint(customer="cus-1")), 0)
    pipe.run(60)
    assert mail.mailer.sent == [] and mail.marks.marks == set()
    assert notifications.DISABLED in rig.notify.kinds()


def test_a_customer_without_email_and_the_tenants_own_endpoints_get_none() -> None:
    # Given a customer without an email address, its endpoint, and an endpoint of the tenant's own (no customer)
    mail = EmailRig()
    mail.customers.put(customer("cus-1"))
    rig, pipe = _gone_rig(mail)
    pipe.event(pipe.endpoint(endpoint("ep_cus", customer="cus-1")), 0)
    pipe.event(pipe.endpoint(endpoint("ep_own")), 1)
    # When both are disabled
    pipe.run(60)
    # Then both were announced on SNS and nobody was emailed
    assert {rig.endpoints.get("acme", e).status for e in ("ep_cus", "ep_own")} == {"disabled"}
    assert rig.notify.kinds().count(notifications.DISABLED) >= 2
    assert mail.mailer.sent == []


def test_a_refused_send_never_fails_the_delivery_and_frees_the_transition_for_a_later_announcement() -> None:
    # Given SES refusing every message
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    mail.mailer.refuse = True
    rig, pipe = _gone_rig(mail)
    ep = pipe.endpoint(endpoint(customer="cus-1"))
    task = pipe.event(ep, 0)
    # When the endpoint is disabled
    pipe.run(60)
    # Then the delivery's outcome and the SNS notification stand, and no marker is left behind
    assert pipe.delivery(task).attempts_made == 1 and rig.endpoints.get("acme", ep.id).status == "disabled"
    assert notifications.DISABLED in rig.notify.kinds()
    assert mail.marks.marks == set()
    # And once SES accepts again, the same transition announced again is emailed
    mail.mailer.refuse = False
    rig.worker.health.disable(ep, Breaker(), rig.clock(), "gone")
    assert len(mail.mailer.sent) == 1


def test_a_refused_send_is_counted_and_kept_on_the_endpoint_until_a_later_email_goes_out() -> None:
    # Given SES refusing every message (an unverified sender: MessageRejected), and a customer's endpoint that answers 410
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    mail.mailer.refuse = True
    rig, pipe = _gone_rig(mail)
    ep = pipe.endpoint(endpoint(customer="cus-1"))
    pipe.event(ep, 0)
    # When the endpoint is disabled, and its email refused
    pipe.run(60)
    # Then the failure was counted once (EmailFailed), and the endpoint keeps when, about what and the error's code
    assert mail.failures == [1]
    refused = rig.endpoints.get("acme", ep.id).last_email
    assert refused == EmailOutcome("failed", refused.at, "disabled", "MessageRejected")
    assert refused.at.startswith("2026-11-29T12:")
    # And never the address or the error's message
    assert "customer.example" not in str(refused) and "verified" not in str(refused)
    # When SES accepts again and the same transition is announced again, an hour later
    mail.mailer.refuse = False
    rig.clock.advance(3600)
    rig.worker.health.disable(ep, Breaker(), rig.clock(), "gone")
    # Then the email went out, and the endpoint says so: the failure is cleared, nothing more was counted
    assert len(mail.mailer.sent) == 1 and mail.failures == [1]
    assert rig.endpoints.get("acme", ep.id).last_email == EmailOutcome("sent", iso(rig.clock()), "disabled")


def test_an_email_whose_outcome_cannot_be_kept_still_counts_as_sent_once() -> None:
    # Given the endpoint store failing its writes of email outcomes
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    rig, pipe = _gone_rig(mail)
    rig.endpoints.faults.fail("record_email")
    ep = pipe.endpoint(endpoint(customer="cus-1"))
    task = pipe.event(ep, 0)
    # When the endpoint is disabled
    pipe.run(60)
    # Then the email went out once, the delivery's outcome stands, and nothing was counted as a failed email
    assert len(mail.mailer.sent) == 1 and mail.failures == []
    assert pipe.delivery(task).attempts_made == 1 and rig.endpoints.get("acme", ep.id).status == "disabled"
    assert rig.endpoints.get("acme", ep.id).last_email is None


def test_the_email_quotes_a_bounded_count_of_paused_deliveries_and_the_portal_when_configured() -> None:
    # Given a customer's endpoint with 1,500 paused deliveries (more than the count reads) and a portal
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    mail.marks.paused_counts[("acme", "ep_01")] = 1500
    emails = mail.emails(portal_base="https://portal.example.com/")
    change = StatusNotice("disabled", "failing", "2026-11-25T12:00:00.000Z", outage_seconds=5 * 86400.0)
    # When it is announced twice as the same transition
    sent = [emails.endpoint_changed(endpoint(customer="cus-1"), change, "disabled#t0") for _ in range(2)]
    # Then one email says at least 1,000 wait, since when, and links the portal without a token
    assert sent == [True, False]
    text = mail.mailer.sent[0].email.text
    assert "at least 1000 deliveries are paused" in text
    assert "Since: 2026-11-25T12:00:00.000Z" in text and "Outage: 5.0 days" in text
    assert "Portal: https://portal.example.com/portal\n" in text


def test_with_a_portal_each_email_links_a_fresh_session_of_its_customer() -> None:
    # Given a customer's endpoint, a portal and session-issuing emails
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    clock = FakeClock()
    sessions = PortalSessionService(FakeSessionStore(), mail.customers, clock)
    emails = replace(mail.emails(portal_base="https://portal.example.com"), sessions=sessions, session_seconds=86400)
    change = StatusNotice("disabled", "gone", "2026-11-29T12:00:00.000Z")
    # When a disable is announced twice (one email), then a recovery
    emails.endpoint_changed(endpoint(customer="cus-1"), change, "disabled#t0")
    emails.endpoint_changed(endpoint(customer="cus-1"), change, "disabled#t0")
    emails.endpoint_changed(endpoint(customer="cus-1"), StatusNotice("recovered", "recovered", "t1"), "recovered#v2")
    # Then each email carries its own portal link, the token in the fragment, and each is a full session of that customer
    links = [re.search(r"Portal: (\S+)", sent.email.text).group(1) for sent in mail.mailer.sent]  # type: ignore[union-attr]
    tokens = [link.removeprefix("https://portal.example.com/portal?t=acme#token=") for link in links]
    assert len(set(tokens)) == 2 and all(t.startswith("hps_") for t in tokens)
    made = mail.customers.get("acme", "cus-1").created_at
    assert all(sessions.authenticate(t) == Principal("acme", "cus-1", False, clock.timestamp() + 86400, since=made) for t in tokens)
    # And the HTML part carries the same link
    assert all(link in sent.email.html for link, sent in zip(links, mail.mailer.sent, strict=True))


def test_settings_carry_the_sender_and_the_portal() -> None:
    s = Settings.from_env({"HOOKLINE_NOTIFICATION_SENDER": SENDER, "HOOKLINE_PORTAL_BASE_URL": "https://portal.example.com"})
    assert (s.notification_sender, s.portal_base) == (SENDER, "https://portal.example.com")
    assert (Settings().notification_sender, Settings().portal_base) == ("", "")


def test_a_version_past_its_sunset_is_delivered_with_a_warning_each_time_and_emailed_once(caplog) -> None:
    # Given a customer's endpoint pinned to a version whose sunset has passed, and three events rendered at it
    mail = EmailRig()
    mail.customers.put(customer("cus-1", email="ops@customer.example"))
    rig = delivery_rig(FakeSender(lambda _r: OK), emails=mail.emails())
    pipe = Pipeline(rig)
    ep = pipe.endpoint(replace(endpoint(customer="cus-1", description="Orders"), version="2026-01-01"))
    sunset = (("2026-01-01", "2026-01-02T00:00:00.000Z"),)
    created = rig.clock().strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for i in range(3):
        renderings = Renderings("2026-10-01", {"2026-10-01": {"n": i}, "2026-01-01": {"n": i}})
        event = Event.accepted(f"evt_{i}", "acme", "a.b", created, {"n": i}, str(i), renderings=renderings, sunsets=sunset)
        planned = Delivery(f"dlv_{i}", "acme", event.id, ep.id, created_at=created, updated_at=created, version="2026-01-01")
        pipe.submit(replace(rig.events.add(event, planned), fresh=True))
    # When they are delivered
    with caplog.at_level("WARNING"):
        pipe.run(60)
    # Then every delivery at that version logged the deprecation, and the customer got one email naming the version
    warned = [r for r in caplog.records if r.getMessage() == "payload version past its sunset"]
    assert len(warned) == 3 and {getattr(r, "version", "") for r in warned} == {"2026-01-01"}
    assert [(m.to, m.email.subject) for m in mail.mailer.sent] == [("ops@customer.example", "Webhook endpoint on a retired payload version: Orders")]
    assert "2026-01-01" in mail.mailer.sent[0].email.text and "2026-01-02T00:00:00.000Z" in mail.mailer.sent[0].email.text
    # And another process (a fresh worker) that delivers it again sends no second email: the marker says it went out
    rig2 = delivery_rig(FakeSender(lambda _r: OK), emails=mail.emails())
    rig2.worker.health.past_sunset(ep, "2026-01-01", sunset[0][1])
    assert len(mail.mailer.sent) == 1
