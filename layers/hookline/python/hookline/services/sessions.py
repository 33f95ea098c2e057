"""Portal sessions: issue them for a customer, revoke all of a customer's, and authenticate a token.

Issuing stores only the token's hash (with a TTL) and answers with the token
once. Revoking is one write to the customer (its session epoch), whatever
the number of sessions. Authenticating reads the session and its customer;
API Gateway caches the authorizer's answer for at most
HOOKLINE_AUTHORIZER_CACHE_SECONDS (60 s at most), which bounds how long a
revoked session keeps working. The API checks a session's expiry, and that
its customer is still the one it was made for (`confirm`), on every request,
so an expired session, or one whose customer was deleted, stops at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from hookline.core.access import Principal
from hookline.core.clock import iso
from hookline.core.contract import portal as contract
from hookline.core.errors import NotFound, Unauthorized
from hookline.core.sessions import CUSTOMER_GONE, PortalSession, SessionRequest, generate_token, hash_token, made_for, portal_url
from hookline.services.authentication import SessionAuthenticator
from hookline.services.customers import require_customer
from hookline.services.ports import CustomerSessions, SessionStore


@dataclass(frozen=True)
class PortalSessionService:
    sessions: SessionStore
    customers: CustomerSessions
    clock: Callable[[], datetime]

    def issue(self, tenant: str, uid: str, body: contract.CreatePortalSession, origin: str) -> contract.PortalSession:
        """A new session for the customer: the token (shown only here), the portal link carrying it, and its expiry."""
        return self.grant(tenant, uid, body.request(), origin)

    def grant(self, tenant: str, uid: str, wanted: SessionRequest, origin: str) -> contract.PortalSession:
        customer = require_customer(self.customers, tenant, uid)
        now = self.clock()
        token = generate_token()
        expires_at = int(now.timestamp()) + wanted.ttl_seconds
        self.sessions.add(
            PortalSession(
                token_hash=hash_token(token),
                tenant=tenant,
                customer=customer.uid,
                customer_created_at=customer.created_at,
                epoch=customer.session_epoch,
                read_only=wanted.read_only,
                created_at=iso(now),
                expires_at=expires_at,
            )
        )
        return contract.PortalSession(
            token=token,
            url=portal_url(origin, token, tenant),
            customer=customer.uid,
            read_only=wanted.read_only,
            expires_at=iso(datetime.fromtimestamp(expires_at, UTC)),
        )

    def revoke(self, tenant: str, uid: str) -> None:
        """Revoke every session of the customer made so far; sessions issued afterwards work."""
        customer = require_customer(self.customers, tenant, uid)
        if not self.customers.bump_session_epoch(tenant, customer.uid):
            raise NotFound(f"customer {uid[:64]} not found", code="customer_not_found")  # deleted meanwhile

    def confirm(self, who: Principal, token: str | None) -> Principal:
        """The caller of one API request, checked against the customer under its uid now; raises Unauthorized (401).

        `who` comes from the authorizer's answer, which API Gateway may have cached for up to
        HOOKLINE_AUTHORIZER_CACHE_SECONDS: its customer may have been deleted since, and another made under the
        same uid. So every request of a portal session reads the customer strongly consistent (one GetItem) and
        goes on only if it is the one the session was made for (`made_for`: the same creation time, the
        authorizer's `customer_since`). The producer is returned as it is, with no read. An answer of the previous
        release's authorizer names no creation time: the session behind `token` (the request's bearer token) is
        authenticated again, as the authorizer does, and then checked the same way.
        """
        if who.is_producer:
            return who
        if not who.since:
            again = self.authenticate(token) if token else None
            if again is None or (again.tenant, again.customer) != (who.tenant, who.customer):
                raise Unauthorized(CUSTOMER_GONE)
            who = again
        assert who.customer is not None  # a session's principal: narrowed for the type checker
        if not made_for(self.customers.current(who.tenant, who.customer), who.since):
            raise Unauthorized(CUSTOMER_GONE)
        return who

    def authenticate(self, token: str) -> Principal | None:
        """The principal a session token stands for, or None if it is unknown, expired or revoked (as the authorizer
        answers: `SessionAuthenticator`)."""
        return SessionAuthenticator(self.sessions, self.customers, self.clock).authenticate(token)
