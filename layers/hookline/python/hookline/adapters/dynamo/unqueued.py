"""Notes of requests whose events are not all queued yet (keys.note), and the sweeper's checkpoint (keys.sweep_checkpoint).

A note is one small item per request (its event ids), put before the events are
stored and deleted once they are queued: 1 WRU each way for a single event, a few
for a batch of 100. They expire after a day in any case (TTL).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Key
from hookline.adapters.dynamo.ops import query_all
from hookline.adapters.failures import translate_failures
from hookline.core import ids
from hookline.core.sweeps import minute_of, shard_of
from hookline.core.unqueued import UnqueuedNote

KEPT = timedelta(days=1)


@translate_failures
class UnqueuedNoteRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    def open(self, tenant: str, event_ids: list[str], now: datetime) -> UnqueuedNote:
        token = ids.new_id("unq", int(now.timestamp() * 1000))
        note = UnqueuedNote(minute_of(now), shard_of(token, keys.UNQUEUED_SHARDS), tenant, token, tuple(event_ids))
        self._table.put_item(
            Item={
                **keys.unqueued_note(note.minute, note.shard, tenant, token),
                "tenant": tenant,
                "token": token,
                "event_ids": list(event_ids),
                self._ttl: int((now + KEPT).timestamp()),
            }
        )
        return note

    def close(self, note: UnqueuedNote) -> None:
        self._table.delete_item(Key=keys.unqueued_note(note.minute, note.shard, note.tenant, note.token))

    def of_minute(self, minute: str, shard: int) -> list[UnqueuedNote]:
        items = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.unqueued_partition(minute, shard)))
        return [UnqueuedNote(minute, shard, str(i["tenant"]), str(i["token"]), tuple(str(e) for e in i.get("event_ids", []))) for i in items]

    def checkpoint(self) -> str | None:
        item = self._table.get_item(Key=keys.sweep_checkpoint(), ConsistentRead=True).get("Item")
        return str(item["minute"]) if item else None

    def save_checkpoint(self, minute: str) -> None:
        self._table.put_item(Item={**keys.sweep_checkpoint(), "minute": minute})
