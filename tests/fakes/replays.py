"""Replay records in memory, as hookline.adapters.dynamo.replays.ReplayRepository keeps them."""

from __future__ import annotations

from typing import Any

from hookline.core.replay import ReplayWindow
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults


class FakeReplayStore:
    """ReplayStore (the services' port) and ReplayProgress (the delivery service's).

    Contract, as the adapter's: `create` makes a record once (False if it
    exists); `record_page` counts a page once, for a step later than any it
    recorded (nothing for a missing record), and drops an adopted plan; `count`
    adds to the record unconditionally. `get`
    returns a copy of the stored item, its attributes named as the adapter's.
    """

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict[str, Any]] = {}
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def create(self, tenant: str, replay_id: str, endpoint_id: str, window: ReplayWindow, now_iso: str, expires_at: int, job_id: str) -> bool:
        self.faults.check("create")
        if (tenant, replay_id) in self.items:
            return False
        counters = dict.fromkeys(("matched", "queued", "delivered", "failed", "step"), 0)
        window_fields = {"since": window.since, "until": window.until, "status_filter": window.status}
        stamps = {"created_at": now_iso, "expires_at": expires_at}
        self.items[(tenant, replay_id)] = {
            "id": replay_id,
            "endpoint_id": endpoint_id,
            **window_fields,
            **counters,
            "done_paging": False,
            "job_id": job_id,
            **stamps,
        }
        return True

    @atomic
    def get(self, tenant: str, replay_id: str) -> dict[str, Any] | None:
        self.faults.check("get")
        item = self.items.get((tenant, replay_id))
        return {k: list(v) if isinstance(v, list) else v for k, v in item.items()} if item else None

    @atomic
    def record_page(self, tenant: str, replay_id: str, step: int, queued: int, done: bool) -> None:
        self.faults.check("record_page")
        item = self.items.get((tenant, replay_id))
        if item is None or item.get("paged_step", -1) >= step:
            return
        item.update(paged_step=step, done_paging=done)
        item["matched"] += queued
        item["queued"] += queued
        item.pop("pending_tasks", None)

    @atomic
    def count(self, tenant: str, replay_id: str, outcome: str) -> None:
        self.faults.check("count")
        name = "delivered" if outcome == "delivered" else "failed"
        item = self.items.setdefault((tenant, replay_id), {})  # an ADD creates what is not there, as DynamoDB's does
        item[name] = item.get(name, 0) + 1
