"""Ordered endpoints' line heads: one small item per endpoint while a delivery holds its line
(hookline.core.models.LineHead), written by the ordered lane only when a task must wait, dropped when the delivery
that held the line moves on. Nothing is written while an ordered endpoint's deliveries succeed."""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Attr
from hookline.adapters.dynamo.ops import write_if
from hookline.adapters.failures import translate_failures
from hookline.core.models import LineHead


@translate_failures
class LineHeadRepository:
    def __init__(self, table: Any, ttl_attribute: str):
        self._table = table
        self._ttl = ttl_attribute

    def held(self, head: LineHead, expires_at: int) -> None:
        """Note the delivery holding the line (until `expires_at` at most: a head left behind goes with the deliveries);
        the one it names keeps its `since` when it holds again."""
        current = self.head(head.tenant, head.endpoint_id)
        since = current.since if current is not None and current.delivery_id == head.delivery_id else head.since
        fields = {**head.public(), "since": since}
        self._table.put_item(
            Item={**keys.line_head(head.tenant, head.endpoint_id), **{k: v for k, v in fields.items() if v is not None}, self._ttl: expires_at}
        )

    def moved_on(self, tenant: str, endpoint_id: str, delivery_id: str) -> None:
        """The delivery no longer holds the line (it ended, or was parked): its head goes, unless another one's is there."""
        write_if(self._table.delete_item, Key=keys.line_head(tenant, endpoint_id), ConditionExpression=Attr("delivery_id").eq(delivery_id))

    def head(self, tenant: str, endpoint_id: str) -> LineHead | None:
        item = self._table.get_item(Key=keys.line_head(tenant, endpoint_id), ConsistentRead=True).get("Item")
        if item is None:
            return None
        return LineHead(
            tenant=tenant,
            endpoint_id=endpoint_id,
            delivery_id=str(item["delivery_id"]),
            event_id=str(item["event_id"]),
            attempt=int(item["attempt"]),
            outcome=str(item["outcome"]),
            reason=str(item.get("reason", "")),
            status_code=int(item["status_code"]) if item.get("status_code") is not None else None,
            error=str(item["error"]) if item.get("error") is not None else None,
            next_at=str(item["next_at"]),
            since=str(item["since"]),
        )
