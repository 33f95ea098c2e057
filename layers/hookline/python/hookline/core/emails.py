"""The email a customer gets when one of its endpoints is disabled or recovers: pure text and HTML, no I/O.

Contract: the message names the endpoint (id, url, description), why, since when, how many deliveries
wait, and how to re-enable it. It never carries a secret, a signing key or an API key: the endpoint's
`secret` is not read here. With a portal configured it carries a portal link with a fresh session of
that customer's (its token in the URL fragment), which lets the customer act on its own endpoints only,
expires (HOOKLINE_EMAIL_PORTAL_SESSION_SECONDS) and is revoked with the customer's other sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Literal

from hookline.core.customers import Customer
from hookline.core.models import Endpoint
from hookline.core.sessions import portal_url

ChangeKind = Literal["disabled", "recovered", "version_sunset"]

_REASONS = {
    "gone": "it answered 410 Gone, which asks senders to stop",
    "failing": "its deliveries kept failing for longer than the outage limit",
    "access_denied": "its AWS destination (or the role hookline assumes for it) refused hookline access",
    "destination_missing": "its AWS destination (or the role hookline assumes for it) does not exist",
    "kms_refused": "the KMS key that encrypts its AWS destination refused hookline",
}


@dataclass(frozen=True)
class StatusNotice:
    """One state change of an endpoint, as the customer is told about it."""

    kind: ChangeKind
    reason: str  # disabled: "gone", "failing" or a destination's refusal (hookline.core.classify); recovered: "recovered"; version_sunset: the payload version
    since: str  # ISO-8601 UTC: when the outage began (failing) or the change happened (version_sunset: the sunset)
    outage_seconds: float | None = None


@dataclass(frozen=True)
class Waiting:
    """Deliveries parked for the endpoint, counted with a bounded read: `more` means "at least `paused`"."""

    paused: int
    more: bool = False

    def phrase(self) -> str:
        count = f"at least {self.paused}" if self.more else str(self.paused)
        noun = "delivery is" if self.paused == 1 and not self.more else "deliveries are"
        return f"{count} {noun} paused"


@dataclass(frozen=True)
class Links:
    """Where the customer acts: the API's enable route, and the portal if one is configured."""

    portal_base: str = ""
    session_token: str = ""  # a portal session made for this email; empty: the bare portal address
    tenant: str = ""  # whose portal settings the link's page applies

    @staticmethod
    def enable(endpoint_id: str) -> str:
        return f"POST /v1/endpoints/{endpoint_id}/enable"

    def portal(self) -> str | None:
        if not self.portal_base:
            return None
        return portal_url(self.portal_base, self.session_token, self.tenant) if self.session_token else f"{self.portal_base.rstrip('/')}/portal"


@dataclass(frozen=True)
class Email:
    subject: str
    text: str
    html: str


def _duration(seconds: float) -> str:
    hours = seconds / 3600
    return f"{hours / 24:.1f} days" if hours >= 48 else f"{hours:.1f} hours"


def _lines(customer: Customer, endpoint: Endpoint, change: StatusNotice, waiting: Waiting, links: Links) -> tuple[str, list[str]]:
    label = endpoint.description or endpoint.where()
    intro = [f"Hello {customer.name},", ""]
    facts = [f"Endpoint: {endpoint.id}", f"URL: {endpoint.url}" if endpoint.destination is None else f"Destination: {endpoint.where()}"]
    if endpoint.description:
        facts.append(f"Description: {endpoint.description}")
    if change.kind == "disabled":
        subject = f"Webhook endpoint disabled: {label}"
        why = _REASONS.get(change.reason, change.reason)
        body = [f"We stopped delivering webhooks to your endpoint because {why}.", "", *facts, f"Since: {change.since}"]
        if change.outage_seconds is not None:
            body.append(f"Outage: {_duration(change.outage_seconds)}")
        body += [
            f"Waiting: {waiting.phrase()}; more are parked as their retries come due. They are kept, not dropped.",
            "",
            "When the endpoint answers again, re-enable it to resume delivery of everything waiting:",
            f"  {links.enable(endpoint.id)}",
        ]
    elif change.kind == "version_sunset":
        subject = f"Webhook endpoint on a retired payload version: {label}"
        body = [
            f"Your endpoint is pinned to payload version {change.reason}, which passed its sunset on {change.since}.",
            "It still receives that version for now; upgrade it to a newer version before that stops.",
            "",
            *facts,
            f"Upgrade it in the portal, or with PATCH /v1/endpoints/{endpoint.id} and a newer 'version' (a test event goes out at that version first).",
        ]
    else:
        subject = f"Webhook endpoint recovered: {label}"
        body = [
            "Your endpoint answers again: deliveries to it have resumed.",
            "",
            *facts,
            f"Since: {change.since}",
            "Nothing to do. If it is ever disabled, re-enable it with:",
            f"  {links.enable(endpoint.id)}",
        ]
    portal = links.portal()
    if portal:
        body += ["", f"Portal: {portal}"]
    return subject, intro + body


def endpoint_email(customer: Customer, endpoint: Endpoint, change: StatusNotice, waiting: Waiting, links: Links) -> Email:
    """The subject and the plain-text and HTML bodies (the HTML says the same, escaped)."""
    subject, lines = _lines(customer, endpoint, change, waiting, links)
    text = "\n".join(lines) + "\n"
    paragraphs = "\n".join(f"<p>{escape(line)}</p>" if line else "" for line in lines)
    html = f'<!doctype html><html><body style="font-family:sans-serif">\n{paragraphs}\n</body></html>\n'
    return Email(subject, text, html)
