"""A customer's time-window replay.

A time-window replay restarts the endpoint's failed (or paused) deliveries
created in [since, until] as manual attempts with a fresh budget. It works
through the sparse endpoint-deliveries index one page per step, pacing the
page's tasks at the endpoint's rate (SQS per-message delays), and they pass
through the same planning as any task: a breaker that is open holds them back.
Each step first writes the page's tasks into the replay item together with the
cursor's advance, then restarts and queues them, then clears them: a crash at
any point is finished by the job's redelivery, and duplicates are dropped by
the generation check and the delivery claim.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hookline.core import ids
from hookline.core.clock import iso
from hookline.core.errors import NotFound
from hookline.core.models import DeliveryTask
from hookline.core.replay import REPLAY, parse_window, public
from hookline.core.settings import Settings
from hookline.services.ports import DeliveryRestarts, EndpointReader, JobQueue, ReplayStore, TaskQueue

MAX_PAGE = 100
PAGE_SECONDS = 600  # one step queues at most ten minutes' worth at the endpoint's rate


@dataclass(frozen=True)
class ReplayService:
    replays: ReplayStore
    events: DeliveryRestarts
    endpoints: EndpointReader
    retry_queue: TaskQueue
    jobs: JobQueue
    settings: Settings
    clock: Callable[[], datetime]

    # -- the API side -----------------------------------------------------------------

    def start(self, tenant: str, endpoint_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Idempotent for a minute: the same request names the same replay."""
        endpoint = self.endpoints.get(tenant, endpoint_id) if ids.is_id(endpoint_id, ids.ENDPOINT) else None
        if endpoint is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        window = parse_window(body)
        now = self.clock()
        minute = now.strftime("%Y-%m-%dT%H:%M")
        replay_id = ids.derived_id(REPLAY, tenant, endpoint_id, window.since, window.until, window.status, minute)
        expires_at = int((now + timedelta(days=self.settings.retention_days)).timestamp())
        created = self.replays.create(tenant, replay_id, endpoint_id, window, iso(now), expires_at)
        item = self.replays.get(tenant, replay_id)
        if created or (item and int(item.get("step", 0)) == 0):
            # A repeat whose first attempt never got its job queued queues it now; a duplicate job is harmless.
            self.jobs.send_bodies([json.dumps({"kind": "replay", "tenant": tenant, "replay_id": replay_id})])
        return {"id": replay_id, "status": "running"}

    def describe(self, tenant: str, replay_id: str) -> dict[str, Any]:
        item = self.replays.get(tenant, replay_id) if ids.is_id(replay_id, REPLAY) else None
        if item is None:
            raise NotFound(f"replay {replay_id[:64]} not found")
        return public(item)

    # -- the replay function's side ------------------------------------------------------

    def step(self, tenant: str, replay_id: str) -> None:
        item = self.replays.get(tenant, replay_id)
        if item is None:
            return
        step = int(item["step"])
        if item.get("pending_tasks"):
            # A previous run died mid-step: finish it (restarts are idempotent, duplicate tasks dropped).
            self._queue_page(tenant, replay_id, step, [DeliveryTask.from_message(t) for t in item["pending_tasks"]], item)
        if item.get("done_paging"):
            return
        endpoint = self.endpoints.get(tenant, item["endpoint_id"])
        rate = endpoint.rate_limit_per_second if endpoint else 1.0
        page_size = max(1, min(MAX_PAGE, int(rate * PAGE_SECONDS)))
        status = item["status_filter"]
        page, cursor = self.events.deliveries_by_status(
            tenant, item["endpoint_id"], status, item["since"], item["until"] + "~", page_size, item.get("cursor_token") or None
        )
        page = [d for d in page if d.replay_id != replay_id]  # already restarted by this replay and failed again
        tasks = [DeliveryTask.of(d, generation=d.generation + 1, trigger="manual", replay_id=replay_id) for d in page]
        if not self.replays.begin_step(tenant, replay_id, step, cursor, cursor is None, [t.to_message() for t in tasks], len(tasks)):
            return  # a duplicate job took this step already
        self._queue_page(tenant, replay_id, step + 1, tasks, item, status)
        if cursor is not None:
            delay = min(900, math.ceil(len(tasks) / rate)) if tasks else 0
            self.jobs.send_bodies([json.dumps({"kind": "replay", "tenant": tenant, "replay_id": replay_id})], [delay])

    def _queue_page(self, tenant: str, replay_id: str, step: int, tasks: list[DeliveryTask], item: dict[str, Any], status: str = "") -> None:
        now = iso(self.clock())
        statuses = (status or item["status_filter"],)
        for t in tasks:
            self.events.restart(t.tenant, t.event_id, t.delivery_id, t.generation - 1, statuses, now, replay_id)
        endpoint = self.endpoints.get(tenant, item["endpoint_id"])
        rate = endpoint.rate_limit_per_second if endpoint else 1.0
        self.retry_queue.send(tasks, delays=[int(i / rate) for i in range(len(tasks))])
        self.replays.end_step(tenant, replay_id, step)
