"""Replays in the data table: one item per replay (keys.replay), what the customer reads of it.

Its paging is a job (hookline.services.replay); each page is counted conditionally on the job's step, so a repeated
step counts once. The previous release paged through the item itself (`step`, `cursor_token`, `pending_tasks`),
which this one reads when it takes such a replay over, and keeps `step` at 0 in new items for it.
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

    def create(self, tenant: str, replay_id: str, endpoint_id: str, window: ReplayWindow, now_iso: str, expires_at: int, job_id: str) -> bool:
        item = {
            **keys.replay(tenant, replay_id),
            "id": replay_id,
            "job_id": job_id,
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

    def record_page(self, tenant: str, replay_id: str, step: int, queued: int, done: bool) -> None:
        """One UpdateItem, conditional on the step: it also drops a page the previous release had planned (adopted)."""
        write_if(
            self._table.update_item,
            Key=keys.replay(tenant, replay_id),
            UpdateExpression="SET paged_step = :step, done_paging = :d ADD matched :n, queued :n REMOVE pending_tasks",
            ConditionExpression=f"attribute_exists({keys.PK}) AND (attribute_not_exists(paged_step) OR paged_step < :step)",
            ExpressionAttributeValues={":step": step, ":d": done, ":n": queued},
        )

    def count(self, tenant: str, replay_id: str, outcome: str) -> None:
        """A replayed delivery finished: delivered or failed."""
        name = "delivered" if outcome == "delivered" else "failed"
        self._table.update_item(Key=keys.replay(tenant, replay_id), UpdateExpression=f"ADD {name} :one", ExpressionAttributeValues={":one": 1})
