"""Poll tokens in the data table: one item per token by its id (keys.poll_token), holding its secret's hash and never
the secret. Apart from the mailbox, so the authorizer's cold start imports only this (and no delivery model)."""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import write_if
from hookline.core.polling import PollToken


class PollTokenRepository:
    """Poll tokens by id: the authorizer's lookup, and the producer's make and revoke."""

    def __init__(self, table: Any):
        self._table = table

    def add(self, token: PollToken) -> None:
        self._table.put_item(
            Item={
                **keys.poll_token(token.id),
                "tenant": token.tenant,
                "endpoint_id": token.endpoint_id,
                "secret_hash": token.secret_hash,
                "created_at": token.created_at,
                "revoked": False,
            }
        )

    def find(self, token_id: str) -> PollToken | None:
        item = self._table.get_item(Key=keys.poll_token(token_id)).get("Item")
        if not item:
            return None
        return PollToken(token_id, str(item["tenant"]), str(item["endpoint_id"]), str(item["secret_hash"]), str(item["created_at"]), bool(item.get("revoked")))

    def revoke(self, tenant: str, endpoint_id: str, token_id: str) -> bool:
        """Revoke one of the endpoint's tokens (False: none of that id for that endpoint); API Gateway's cached answers
        expire within HOOKLINE_AUTHORIZER_CACHE_SECONDS."""
        return (
            write_if(
                self._table.update_item,
                Key=keys.poll_token(token_id),
                UpdateExpression="SET revoked = :t",
                ConditionExpression="tenant = :tenant AND endpoint_id = :ep",
                ExpressionAttributeValues={":t": True, ":tenant": tenant, ":ep": endpoint_id},
            )
            is not None
        )
