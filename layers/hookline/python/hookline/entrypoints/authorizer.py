"""The Lambda authorizer, shared by API Gateway and local mode: an API key or a portal session token.

HTTP API, payload 2.0, simple responses: `{"isAuthorized", "context"}`. An API
key's context is `{"tenant"}`; a portal session's is `{"tenant", "customer",
"read_only", "expires_at", "customer_since"}` (its customer's creation time), which the API scopes every route by; a
poll token's is `{"tenant", "poll_endpoint"}`: the API serves it that endpoint's poll route and refuses it every other. API Gateway
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
from hookline.adapters.dynamo.poll_tokens import PollTokenRepository
from hookline.core import polling
from hookline.core.apikeys import bearer_key
from hookline.core.sessions import is_session_token
from hookline.services.authentication import SessionAuthenticator
from hookline.wiring import authorizer as wiring

DENY: dict[str, Any] = {"isAuthorized": False}


def _poll_token(event: dict[str, Any], token: str, store: PollTokenRepository | None) -> dict[str, Any]:
    """A poll token: its context names its one endpoint, and the API serves it that endpoint's poll and nothing else
    (403 elsewhere, hookline.core.access). Not decided here by the request's path: API Gateway caches an answer per
    Authorization header for every path, so a denial on a wrong path would deny the right one for the cache's time."""
    parts = polling.token_parts(token)
    if parts is None:
        return DENY
    stored = (store or wiring.poll_tokens()).find(parts[0])
    if stored is None or not polling.accepts(stored, parts[1]):
        return DENY
    return {"isAuthorized": True, "context": {"tenant": stored.tenant, "poll_endpoint": stored.endpoint_id}}


def authorize(
    event: dict[str, Any], repo: ApiKeyRepository | None = None, sessions: SessionAuthenticator | None = None, poll_tokens: PollTokenRepository | None = None
) -> dict[str, Any]:
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
    if polling.is_poll_token(key):
        return _poll_token(event, key, poll_tokens)
    repo = repo or wiring.api_keys()
    record = repo.find(key)
    if record is None or record.revoked:
        return DENY
    return {"isAuthorized": True, "context": {"tenant": record.tenant}}


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda authorizer's entry: one lookup (two for a session: it and its customer), no context needed."""
    del context
    return authorize(event)
