"""The Lambda authorizer, shared by API Gateway and local mode: an API key or a portal session token.

HTTP API, payload 2.0, simple responses: `{"isAuthorized", "context"}`. An API
key's context is `{"tenant"}`; a portal session's is `{"tenant", "customer",
"read_only", "expires_at", "customer_since"}` (its customer's creation time), which the API scopes every route by. API Gateway
caches each answer per Authorization header for HOOKLINE_AUTHORIZER_CACHE_SECONDS
(at most 60 s), so a revoked key or session stops working within that; the API
checks a session's expiry and its customer (the one under the uid now must have
been created at `customer_since`) itself on every request. Neither the key nor the
token is ever logged. What it reads through comes from its own composition root
(hookline.wiring.authorizer), which imports no delivery path and no API model.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.core.apikeys import bearer_key
from hookline.core.sessions import is_session_token
from hookline.services.authentication import SessionAuthenticator
from hookline.wiring import authorizer as wiring

DENY: dict[str, Any] = {"isAuthorized": False}


def authorize(event: dict[str, Any], repo: ApiKeyRepository | None = None, sessions: SessionAuthenticator | None = None) -> dict[str, Any]:
    key = bearer_key(event.get("headers"))
    if key is None:
        identity = event.get("identitySource") or []
        if identity and isinstance(identity[0], str):
            key = bearer_key({"authorization": identity[0]})
    if key is None or len(key) > 256:
        return DENY
    if is_session_token(key):
        who = (sessions or wiring.session_authenticator()).authenticate(key)
        if who is None or who.customer is None:
            return DENY
        context = {
            "tenant": who.tenant,
            "customer": who.customer,
            "read_only": who.read_only,
            "expires_at": int(who.expires_at or 0),
            "customer_since": who.since,
        }
        return {"isAuthorized": True, "context": context}
    repo = repo or wiring.api_keys()
    record = repo.find(key)
    if record is None or record.revoked:
        return DENY
    return {"isAuthorized": True, "context": {"tenant": record.tenant}}


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda authorizer's entry: one lookup (two for a session: it and its customer), no context needed."""
    del context
    return authorize(event)
