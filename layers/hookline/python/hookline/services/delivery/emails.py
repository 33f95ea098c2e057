"""Whether and what to email a customer when one of its endpoints is disabled or recovers.

Idempotent on the transition, at most once: a marker item keyed by endpoint and transition is put
conditionally *before* the send. A retried or concurrent announcement of the same transition finds the
marker and sends nothing. A crash between the marker and the send loses that email (the SNS notification
and the log still carry the change); a send that fails with an error releases the marker, so a repeated
announcement can still send. The opposite order (send, then mark) would double an email on every crash
after the send, which a customer sees; a missed one is covered by the operators' SNS notification.

An email that was tried says how it went, at the cost of one write per email (rare: one per transition):
the endpoint keeps the outcome (`last_email`: sent, or failed with the error's code, never the address or
a message), which its health shows, and a failure is counted (`EmailFailed`, alarmed on). Neither may fail
the announcement: they are logged when they fail.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from hookline.core.clock import iso
from hookline.core.emails import Links, StatusNotice, Waiting, endpoint_email
from hookline.core.errors import error_code
from hookline.core.models import EmailOutcome, EmailOutcomeKind, Endpoint
from hookline.core.sessions import SessionRequest
from hookline.services.delivery.ports import EmailOutcomes, Mailer, SessionGrants, TransitionMarks, WaitingCounter
from hookline.services.ports import CustomerReader

_log = logging.getLogger(__name__)

# The paused deliveries counted for a disabled endpoint's email: one bounded read, "at least N" above it.
WAITING_COUNT_BOUND = 1000


@dataclass(frozen=True)
class CustomerEmails:
    customers: CustomerReader
    mailer: Mailer
    marks: TransitionMarks
    waiting: WaitingCounter
    sender: str  # the From: value, `Name <address>` or the address, whose address SES verified; empty: no email at all
    links: Links
    sessions: SessionGrants | None = None  # with a portal configured: each email links a fresh session
    session_seconds: int = 0  # that session's lifetime; 0: no session, the bare portal address
    outcomes: EmailOutcomes | None = None  # where each tried email's outcome is kept (the endpoint); None: nowhere
    clock: Callable[[], datetime] | None = None  # the outcome's time; needed with `outcomes`
    count_failure: Callable[[], None] | None = None  # counts a failed email (the EmailFailed metric)

    def endpoint_changed(self, endpoint: Endpoint, change: StatusNotice, transition: str) -> bool:
        """Email the endpoint's customer about `change`, once per `transition` (a key unique to that change).

        Returns whether an email went out. Nothing is sent without a sender, for the tenant's own
        endpoints (no customer), or to a customer without an email address. An email that was due and
        did not go out (the send refused, or what it needs unreadable) raises, after it was counted and
        kept on the endpoint as failed; one that went out is kept as sent.
        """
        if not self.sender or endpoint.customer is None:
            return False
        customer = self.customers.get(endpoint.tenant, endpoint.customer)
        if customer is None or not customer.email:
            return False
        marked = False
        try:
            marked = self.marks.mark(endpoint.tenant, endpoint.id, transition)
            if not marked:
                return False
            waiting = self.waiting.paused(endpoint.tenant, endpoint.id, WAITING_COUNT_BOUND) if change.kind == "disabled" else Waiting(0)
            self.mailer.send(self.sender, customer.email, endpoint_email(customer, endpoint, change, waiting, self._links(endpoint.tenant, customer.uid)))
        except Exception as exc:
            self._failed(endpoint, change, exc)
            if marked:
                self.marks.unmark(endpoint.tenant, endpoint.id, transition)
            raise
        self._keep(endpoint, change, "sent")
        return True

    def _failed(self, endpoint: Endpoint, change: StatusNotice, exc: Exception) -> None:
        if self.count_failure is not None:
            try:
                self.count_failure()
            except Exception:  # a metric never fails the announcement
                _log.exception("EmailFailed not counted")
        self._keep(endpoint, change, "failed", error_code(exc))

    def _keep(self, endpoint: Endpoint, change: StatusNotice, outcome: EmailOutcomeKind, error: str = "") -> None:
        """The endpoint's `last_email`: one write, logged rather than raised when it fails (the email's fate stands)."""
        if self.outcomes is None or self.clock is None:
            return
        try:
            self.outcomes.record_email(endpoint.tenant, endpoint.id, EmailOutcome(outcome, iso(self.clock()), change.kind, error))
        except Exception:
            _log.exception("email outcome not kept", extra={"tenant": endpoint.tenant, "endpoint_id": endpoint.id, "outcome": outcome})

    def _links(self, tenant: str, uid: str) -> Links:
        """The email's links: with a portal, one carrying a fresh full session of the customer's (made only for an email that goes out)."""
        if not self.links.portal_base or self.sessions is None or self.session_seconds <= 0:
            return self.links
        granted = self.sessions.grant(tenant, uid, SessionRequest(self.session_seconds, read_only=False), self.links.portal_base)
        return replace(self.links, session_token=granted.token, tenant=tenant)
