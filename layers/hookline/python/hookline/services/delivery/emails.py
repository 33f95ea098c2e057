"""Whether and what to email a customer when one of its endpoints is disabled or recovers.

Idempotent on the transition, at most once: a marker item keyed by endpoint and transition is put
conditionally *before* the send. A retried or concurrent announcement of the same transition finds the
marker and sends nothing. A crash between the marker and the send loses that email (the SNS notification
and the log still carry the change); a send that fails with an error releases the marker, so a repeated
announcement can still send. The opposite order (send, then mark) would double an email on every crash
after the send, which a customer sees; a missed one is covered by the operators' SNS notification.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, Protocol

from hookline.core.emails import Email, Links, StatusNotice, Waiting, endpoint_email
from hookline.core.models import Endpoint
from hookline.core.sessions import SessionRequest
from hookline.services.ports import CustomerReader

_log = logging.getLogger(__name__)

# The paused deliveries counted for a disabled endpoint's email: one bounded read, "at least N" above it.
WAITING_COUNT_BOUND = 1000


class Mailer(Protocol):
    def send(self, sender: str, to: str, email: Email) -> str:
        """Send one email; returns the provider's message id. Raises if it was not accepted."""
        ...


class TransitionMarks(Protocol):
    def mark(self, tenant: str, endpoint_id: str, transition: str) -> bool:
        """Record that the transition's email goes out; False if it was already recorded."""
        ...

    def unmark(self, tenant: str, endpoint_id: str, transition: str) -> None: ...


class WaitingCounter(Protocol):
    def paused(self, tenant: str, endpoint_id: str, bound: int) -> Waiting:
        """The endpoint's paused deliveries, reading at most `bound` of them."""
        ...


class SessionGrants(Protocol):
    def grant(self, tenant: str, uid: str, wanted: SessionRequest, origin: str) -> dict[str, Any]:
        """A new portal session of the customer: its `token` among the fields."""
        ...


@dataclass(frozen=True)
class CustomerEmails:
    customers: CustomerReader
    mailer: Mailer
    marks: TransitionMarks
    waiting: WaitingCounter
    sender: str  # a verified SES identity; empty: no email at all
    links: Links
    sessions: SessionGrants | None = None  # with a portal configured: each email links a fresh session
    session_seconds: int = 0  # that session's lifetime; 0: no session, the bare portal address

    def endpoint_changed(self, endpoint: Endpoint, change: StatusNotice, transition: str) -> bool:
        """Email the endpoint's customer about `change`, once per `transition` (a key unique to that change).

        Returns whether an email went out. Nothing is sent without a sender, for the tenant's own
        endpoints (no customer), or to a customer without an email address.
        """
        if not self.sender or endpoint.customer is None:
            return False
        customer = self.customers.get(endpoint.tenant, endpoint.customer)
        if customer is None or not customer.email:
            return False
        if not self.marks.mark(endpoint.tenant, endpoint.id, transition):
            return False
        try:
            waiting = self.waiting.paused(endpoint.tenant, endpoint.id, WAITING_COUNT_BOUND) if change.kind == "disabled" else Waiting(0)
            self.mailer.send(self.sender, customer.email, endpoint_email(customer, endpoint, change, waiting, self._links(endpoint.tenant, customer.uid)))
        except Exception:
            self.marks.unmark(endpoint.tenant, endpoint.id, transition)
            raise
        return True

    def _links(self, tenant: str, uid: str) -> Links:
        """The email's links: with a portal, one carrying a fresh full session of the customer's (made only for an email that goes out)."""
        if not self.links.portal_base or self.sessions is None or self.session_seconds <= 0:
            return self.links
        granted = self.sessions.grant(tenant, uid, SessionRequest(self.session_seconds, read_only=False), self.links.portal_base)
        return replace(self.links, session_token=str(granted["token"]), tenant=tenant)
