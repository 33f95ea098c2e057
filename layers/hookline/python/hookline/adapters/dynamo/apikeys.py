"""API keys: each belongs to one tenant and is stored only as a hash."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import write_if

KEY_PREFIX = "hk_"


def generate_api_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(key: str) -> str:
    # Keys are 256-bit random, so an unsalted SHA-256 cannot be brute-forced;
    # a fast hash keeps the authorizer cheap.
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class ApiKeyRecord:
    tenant: str
    key_hash: str
    revoked: bool = False


class ApiKeyRepository:
    """API keys in the data table, by the key's hash (keys.api_key)."""

    def __init__(self, table: Any):
        self._table = table

    def add(self, tenant: str, key: str, now_iso: str) -> ApiKeyRecord:
        digest = hash_api_key(key)
        self._table.put_item(Item={**keys.api_key(digest), "tenant": tenant, "created_at": now_iso, "revoked": False})
        return ApiKeyRecord(tenant=tenant, key_hash=digest)

    def revoke(self, key: str) -> bool:
        """Revoke a key; API Gateway's cached answers expire within HOOKLINE_AUTHORIZER_CACHE_SECONDS."""
        revoked = write_if(
            self._table.update_item,
            Key=keys.api_key(hash_api_key(key)),
            UpdateExpression="SET revoked = :t",
            ConditionExpression=f"attribute_exists({keys.PK})",
            ExpressionAttributeValues={":t": True},
        )
        return revoked is not None

    def find(self, key: str) -> ApiKeyRecord | None:
        digest = hash_api_key(key)
        item = self._table.get_item(Key=keys.api_key(digest)).get("Item")
        if not item:
            return None
        return ApiKeyRecord(tenant=str(item["tenant"]), key_hash=digest, revoked=bool(item.get("revoked", False)))


def parse_key_list(raw: str) -> list[tuple[str, str]]:
    """`tenant:key,tenant:key` -> [(tenant, key)]; raises ValueError on a malformed entry."""
    pairs = []
    for entry in raw.split(","):
        part = entry.strip()
        if not part:
            continue
        tenant, sep, key = part.partition(":")
        if not sep or not tenant.strip() or not key.strip():
            raise ValueError(f"HOOKLINE_API_KEYS entry {part!r} is not tenant:key")
        pairs.append((tenant.strip(), key.strip()))
    return pairs
