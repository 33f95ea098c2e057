"""Portal sessions in the data table: one item per session, by its token's hash (keys.portal_session).

The token itself is never stored. The item expires through the table's TTL
attribute at the session's expiry; the authorizer checks the expiry itself,
because TTL deletes late.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.failures import translate_failures
from hookline.core.sessions import PortalSession


@translate_failures
class SessionRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    def add(self, session: PortalSession) -> None:
        self._table.put_item(
            Item={
                **keys.portal_session(session.token_hash),
                "tenant": session.tenant,
                "customer": session.customer,
                "customer_created_at": session.customer_created_at,
                "epoch": session.epoch,
                "read_only": session.read_only,
                "created_at": session.created_at,
                self._ttl: session.expires_at,
            }
        )

    def find(self, token_hash: str) -> PortalSession | None:
        item = self._table.get_item(Key=keys.portal_session(token_hash)).get("Item")
        if not item:
            return None
        return PortalSession(
            token_hash=token_hash,
            tenant=str(item["tenant"]),
            customer=str(item["customer"]),
            customer_created_at=str(item.get("customer_created_at", "")),
            epoch=int(item.get("epoch", 0)),
            read_only=bool(item.get("read_only", False)),
            created_at=str(item.get("created_at", "")),
            expires_at=int(item[self._ttl]),
        )
