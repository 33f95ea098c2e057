"""API keys in the data table: one item per key, by the key's hash (keys.api_key); the key itself is never stored."""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import write_if
from hookline.core.apikeys import ApiKeyRecord, hash_api_key


class ApiKeyRepository:
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
