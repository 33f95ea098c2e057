"""Portal sessions: issue them for a customer, revoke all of a customer's, and authenticate a token.

Issuing stores only the token's hash (with a TTL) and answers with the token
once. Revoking is one write to the customer (its session epoch), whatever
the number of sessions. Authenticating reads the session and its customer;
API Gateway caches the authorizer's answer for at most
HOOKLINE_AUTHORIZER_CACHE_SECONDS (60 s at most), which bounds how long a
revoked session keeps working, and the API checks a session's expiry on
every request, so an expired one stops at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from hookline.core.access import Principal
from hookline.core.clock import iso
from hookline.core.contract import portal as contract
from hookline.core.errors import NotFound
from hookline.core.sessions import PortalSession, SessionRequest, check, generate_token, hash_token, is_session_token, portal_url
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

    def authenticate(self, token: str) -> Principal | None:
        """The principal a session token stands for, or None if it is unknown, expired or revoked."""
        if not is_session_token(token):
            return None
        session = self.sessions.find(hash_token(token))
        if session is None:
            return None
        if check(session, self.customers.get(session.tenant, session.customer), self.clock().timestamp()) is not None:
            return None
        return Principal(session.tenant, session.customer, session.read_only, float(session.expires_at), session.customer_created_at)
