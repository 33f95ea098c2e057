"""OAuth2 endpoints' access tokens in the data table (keys.auth_token), shared by every instance that delivers: one
that finds a token it may still use takes it instead of asking the token endpoint again (a fleet would otherwise ask
once per instance). The token is kept sealed (hookline.adapters.sealing), as the endpoint's own secrets are.

One item per endpoint; a write is one conditional PutItem that keeps the token refreshed last: a token stored by
another instance meanwhile, good for longer, is not overwritten. The item expires (TTL) an hour after its token stops
being used, so a deleted endpoint's token goes with time.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import write_if
from hookline.adapters.endpoint_auth import StoredToken
from hookline.adapters.failures import translate_failures

KEPT_AFTER_SECONDS = 3600  # the item's TTL after its token stops being used


@translate_failures
class TokenRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    def get(self, tenant: str, endpoint_id: str) -> StoredToken | None:
        item = self._table.get_item(Key=keys.auth_token(tenant, endpoint_id)).get("Item")
        if not item:
            return None
        return StoredToken(str(item["token"]), float(item["refresh_at"]), str(item.get("auth", "")))

    def put(self, tenant: str, endpoint_id: str, token: StoredToken) -> bool:
        """Keep the token unless the one stored is refreshed later; False when it was (nothing written)."""
        saved = write_if(
            self._table.put_item,
            Item={
                **keys.auth_token(tenant, endpoint_id),
                "token": token.sealed,
                "refresh_at": Decimal(str(round(token.refresh_at, 3))),
                "auth": token.auth,
                self._ttl: int(token.refresh_at) + KEPT_AFTER_SECONDS,
            },
            ConditionExpression="attribute_not_exists(#r) OR #r < :r OR #a <> :a",
            ExpressionAttributeNames={"#r": "refresh_at", "#a": "auth"},
            ExpressionAttributeValues={":r": Decimal(str(round(token.refresh_at, 3))), ":a": token.auth},
        )
        return saved is not None
