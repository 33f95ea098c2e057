"""Replay jobs in the data table: one item per replay (keys.replay).

Every step is conditional on the step counter, so a duplicate job takes a step at most once.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import write_if
from hookline.adapters.failures import translate_failures
from hookline.core.replay import ReplayWindow


@translate_failures
class ReplayRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    def create(self, tenant: str, replay_id: str, endpoint_id: str, window: ReplayWindow, now_iso: str, expires_at: int) -> bool:
        item = {
            **keys.replay(tenant, replay_id),
            "id": replay_id,
            "endpoint_id": endpoint_id,
            "since": window.since,
            "until": window.until,
            "status_filter": window.status,
            "matched": 0,
            "queued": 0,
            "delivered": 0,
            "failed": 0,
            "done_paging": False,
            "step": 0,
            "created_at": now_iso,
            self._ttl: expires_at,
        }
        return write_if(self._table.put_item, Item=item, ConditionExpression=f"attribute_not_exists({keys.PK})") is not None

    def get(self, tenant: str, replay_id: str) -> dict[str, Any] | None:
        item = self._table.get_item(Key=keys.replay(tenant, replay_id), ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def begin_step(self, tenant: str, replay_id: str, step: int, cursor: str | None, done: bool, tasks: list[str], matched: int) -> bool:
        """Advance the cursor and record the page's tasks, once: False if this step was already taken."""
        taken = write_if(
            self._table.update_item,
            Key=keys.replay(tenant, replay_id),
            UpdateExpression="SET step = :next, cursor_token = :c, done_paging = :d, pending_tasks = :t ADD matched :m, queued :m",
            ConditionExpression="step = :step",
            ExpressionAttributeValues={":next": step + 1, ":step": step, ":c": cursor or "", ":d": done, ":t": tasks, ":m": matched},
        )
        return taken is not None

    def end_step(self, tenant: str, replay_id: str, step: int) -> None:
        self._table.update_item(
            Key=keys.replay(tenant, replay_id),
            UpdateExpression="REMOVE pending_tasks",
            ConditionExpression="step = :step",
            ExpressionAttributeValues={":step": step},
        )

    def count(self, tenant: str, replay_id: str, outcome: str) -> None:
        """A replayed delivery finished: delivered or failed."""
        name = "delivered" if outcome == "delivered" else "failed"
        self._table.update_item(Key=keys.replay(tenant, replay_id), UpdateExpression=f"ADD {name} :one", ExpressionAttributeValues={":one": 1})
