"""The API key check, shared by API Gateway's Lambda authorizer and local mode.

HTTP API, payload 2.0, simple responses: {"isAuthorized", "context": {"tenant"}}.
API Gateway caches each answer per Authorization header for the configured TTL,
so a revoked key stops working within that TTL.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters import aws
from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.wiring.settings import get_settings

DENY: dict[str, Any] = {"isAuthorized": False}


def bearer_key(headers: dict[str, Any] | None) -> str | None:
    for name, value in (headers or {}).items():
        if name.lower() == "authorization" and isinstance(value, str):
            scheme, _, key = value.strip().partition(" ")
            if scheme.lower() == "bearer" and key.strip():
                return key.strip()
    return None


def authorize(event: dict[str, Any], repo: ApiKeyRepository | None = None) -> dict[str, Any]:
    key = bearer_key(event.get("headers"))
    if key is None:
        identity = event.get("identitySource") or []
        if identity and isinstance(identity[0], str):
            key = bearer_key({"authorization": identity[0]})
    if key is None or len(key) > 256:
        return DENY
    repo = repo or ApiKeyRepository(aws.dynamodb_table(get_settings().table_name))
    record = repo.find(key)
    if record is None or record.revoked:
        return DENY
    return {"isAuthorized": True, "context": {"tenant": record.tenant}}


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda authorizer's entry: one lookup, no context needed."""
    del context
    return authorize(event)
