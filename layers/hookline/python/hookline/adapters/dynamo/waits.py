"""Notes of retries waiting in Step Functions (keys.retry_wait), and the sweeper's checkpoint for them (keys.wait_checkpoint).

A note is one small item per long wait, keyed by the minute its task is due and a
shard of its delivery: put before the wait starts, deleted when the task arrives
back on a queue (or by the sweeper once the note is overdue): about 1 WRU each
way. It expires a week after it is due in any case (TTL).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Key
from hookline.adapters.dynamo.ops import query_page
from hookline.adapters.failures import translate_failures
from hookline.core.models import DeliveryTask
from hookline.core.sweeps import shard_of
from hookline.core.waits import due_minute

KEPT = timedelta(days=7)


def note_key(task: DeliveryTask) -> keys.Key:
    """The note of a waiting task (one carrying `wait_until`)."""
    shard = shard_of(task.delivery_id, keys.WAIT_SHARDS)
    return keys.retry_wait(due_minute(task), shard, task.tenant, task.event_id, task.delivery_id, task.generation, task.attempt)


@translate_failures
class RetryWaitRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    def open(self, task: DeliveryTask) -> None:
        """Note a task about to wait in Step Functions (it carries its due time, `wait_until`)."""
        self._table.put_item(Item={**note_key(task), "task": task.to_message(), self._ttl: task.wait_until + int(KEPT.total_seconds())})

    def close(self, tasks: list[DeliveryTask]) -> None:
        """Drop the notes of these waiting tasks (BatchWriteItem, 25 a request); a note already gone is no error."""
        wanted = {(k[keys.PK], k[keys.SK]): k for k in (note_key(t) for t in tasks if t.wait_until)}
        if not wanted:
            return
        with self._table.batch_writer() as batch:
            for key in wanted.values():
                batch.delete_item(Key=key)

    def due_page(self, minute: str, shard: int, limit: int, cursor: str | None) -> tuple[list[DeliveryTask], str | None]:
        """One page of the tasks noted as due in `minute` in `shard`, and the cursor to the next page (None at the end)."""
        partition = keys.wait_partition(minute, shard)
        items, following = query_page(self._table, limit, cursor, partition, KeyConditionExpression=Key(keys.PK).eq(partition))
        return [DeliveryTask.from_message(str(item["task"])) for item in items], following

    def checkpoint(self) -> str | None:
        item = self._table.get_item(Key=keys.wait_checkpoint(), ConsistentRead=True).get("Item")
        return str(item["minute"]) if item else None

    def save_checkpoint(self, minute: str) -> None:
        self._table.put_item(Item={**keys.wait_checkpoint(), "minute": minute})
