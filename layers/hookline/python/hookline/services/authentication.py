"""Who a portal session token stands for: the authorizer's one question about a session.

Apart from the session service (hookline.services.sessions), which issues sessions and answers with the API's
models, so that the authorizer's cold start loads no request or response model (hookline.core.contract).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from hookline.core.access import Principal
from hookline.core.sessions import check, hash_token, is_session_token

if TYPE_CHECKING:  # the ports module names every store's protocol: the authorizer, which imports this, needs two
    from hookline.services.ports import CustomerSessions, SessionStore


@dataclass(frozen=True)
class SessionAuthenticator:
    sessions: SessionStore
    customers: CustomerSessions
    clock: Callable[[], datetime]

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
