"""The items behind customer emails: one marker per endpoint transition emailed (`keys.email_mark`;
it expires through the table's TTL after `ttl_days`), and the bounded count of an endpoint's paused
deliveries that the email quotes.
"""

from __future__ import annotations

import time
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import count_indexed, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.emails import Waiting


@translate_failures
class EmailMarkRepository:
    def __init__(self, table: Any, ttl_attribute: str, ttl_days: int):
        self._table = table
        self._ttl_attribute = ttl_attribute
        self._ttl_seconds = ttl_days * 86_400

    def mark(self, tenant: str, endpoint_id: str, transition: str) -> bool:
        """Put the marker unless it exists (one conditional PutItem, billed even when refused)."""
        item = {**keys.email_mark(tenant, endpoint_id, transition), self._ttl_attribute: int(time.time()) + self._ttl_seconds}
        return write_if(self._table.put_item, Item=item, ConditionExpression=f"attribute_not_exists({keys.PK})") is not None

    def unmark(self, tenant: str, endpoint_id: str, transition: str) -> None:
        self._table.delete_item(Key=keys.email_mark(tenant, endpoint_id, transition))

    def paused(self, tenant: str, endpoint_id: str, bound: int) -> Waiting:
        """One COUNT query on the endpoint-deliveries index, evaluating at most `bound` items (a single page)."""
        count, more = count_indexed(self._table, tenant, endpoint_id, "paused", bound)
        return Waiting(count, more)
