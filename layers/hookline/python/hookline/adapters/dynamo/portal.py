"""The tenant's portal settings (keys.portal_settings) and the event types it has sent (keys.event_types), one item each;
the types sent to each customer (keys.customer_event_types) and those broadcast (keys.broadcast_event_types), one item
per customer and one per tenant, in the tenant's types partition."""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import batch_get, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.portal import PortalSettings

MAX_TYPES = 1000  # a string set of event types stays far below DynamoDB's 400 KB item


@translate_failures
class PortalRepository:
    def __init__(self, table: Any):
        self._table = table

    def settings(self, tenant: str) -> PortalSettings | None:
        item = self._table.get_item(Key=keys.portal_settings(tenant)).get("Item")
        if not item:
            return None
        return PortalSettings(tenant, str(item.get("producer_name", "")), tuple(item.get("allowed_origins") or ()), str(item.get("updated_at", "")))

    def save_settings(self, settings: PortalSettings) -> None:
        self._table.put_item(
            Item={
                **keys.portal_settings(settings.tenant),
                "tenant": settings.tenant,
                "producer_name": settings.producer_name,
                "allowed_origins": list(settings.allowed_origins),
                "updated_at": settings.updated_at,
            }
        )

    def remember_types(self, tenant: str, types: set[str]) -> None:
        """Add to the tenant's set of sent types (an ADD to a string set: repeating it changes nothing); a full set stays as it is."""
        self._add(keys.event_types(tenant), types)

    def remember_customer_types(self, tenant: str, customer: str, types: set[str]) -> None:
        """Add to the set of types sent to the customer, as remember_types does."""
        self._add(keys.customer_event_types(tenant, customer), types)

    def remember_broadcast_types(self, tenant: str, types: set[str]) -> None:
        """Add to the set of types the tenant has broadcast, as remember_types does."""
        self._add(keys.broadcast_event_types(tenant), types)

    def _add(self, key: keys.Key, types: set[str]) -> None:
        write_if(
            self._table.update_item,
            Key=key,
            UpdateExpression="ADD #types :t",
            ConditionExpression="attribute_not_exists(#types) OR size(#types) < :most",
            ExpressionAttributeNames={"#types": "types"},
            ExpressionAttributeValues={":t": set(types), ":most": MAX_TYPES},
        )

    def types(self, tenant: str) -> list[str]:
        item = self._table.get_item(Key=keys.event_types(tenant)).get("Item") or {}
        return sorted(str(t) for t in item.get("types", ()))

    def types_sent_to(self, tenant: str, customer: str) -> list[str]:
        """The types sent to the customer and those broadcast: one BatchGetItem of the two items."""
        items = batch_get(self._table, [keys.customer_event_types(tenant, customer), keys.broadcast_event_types(tenant)])
        return sorted({str(t) for item in items for t in item.get("types", ())})
