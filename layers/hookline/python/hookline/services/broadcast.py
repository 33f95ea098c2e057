"""Broadcasts: one event to every subscribed endpoint of the tenant (each customer's and its own), fanned out off the request path.

`start` (the API) validates the event as `POST /v1/events` does (without
`customer`: a broadcast is addressed to everyone), stores it with its fan-out
state at step 0 and queues one job on the job queue (the replay queue); it
answers 202 at once, so 3,200 customers never run inside one API call. It is
idempotent on `id`: the same id and body answer the same and create nothing
(a job still at step 0 is queued again, in case the first request's never
was: a duplicate job is harmless); the same id with another body is 409.

`step` (the replay function, one job message) takes one page of up to PAGE
of the tenant's endpoints. Its contract, at least once and bounded:

* A failed step raises; its record fails back to SQS, is redelivered, and
  runs again from the state it then finds.
* Each subscribed endpoint of the page gets its delivery by a conditional
  put, its id derived from (tenant, event, endpoint): running the page again
  creates nothing twice. A disabled endpoint's delivery is stored paused
  (re-enabling the endpoint queues it).
* The page's deliveries that are pending and unattempted are queued on the
  delivery queue, again on a re-run, so a crash before the advance leaves
  none unqueued; a duplicate task is harmless, the attempt claim lets only
  one copy deliver.
* The fan-out state (cursor, counters, `done` after the last page) advances
  conditionally on the step read, so a page is counted once. A run that loses
  the advance (a duplicate job chain took the step) stops without queueing;
  the winner queues the job of the next page. A crash after the advance is
  redelivered and takes the next page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hookline.core import ids, validation
from hookline.core.broadcast import BROADCAST_JOB, Fanout, delivery_id
from hookline.core.clock import iso, parse_iso
from hookline.core.errors import Conflict, DependencyFailed, Unavailable
from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event
from hookline.core.settings import Settings
from hookline.core.versions import Renderings, VersionUnavailable, broadcast_pins, check_size, render
from hookline.services.events import request_hash
from hookline.services.ports import BroadcastEvents, CatalogReader, EndpointPages, JobQueue, TaskQueue, VersionPins

PAGE = 100  # endpoints per step: 100 conditional puts and at most 10 SQS batches


@dataclass(frozen=True)
class BroadcastService:
    events: BroadcastEvents
    endpoints: EndpointPages
    queue: TaskQueue  # the delivery queue: first attempts
    jobs: JobQueue  # the replay queue: one message per step
    settings: Settings
    clock: Callable[[], datetime]
    catalog: CatalogReader
    pins: VersionPins

    # -- the API side -----------------------------------------------------------------

    def start(self, tenant: str, body: dict[str, Any]) -> dict[str, Any]:
        data = validation.broadcast_create(body)
        now = self.clock()
        digest = request_hash(data.type, data.data, broadcast=True, versions=data.versions)
        event_id = ids.event_id(tenant, data.idempotency_key, int(now.timestamp() * 1000))
        try:
            existing = self.events.get_event(tenant, event_id) if data.idempotency_key else None
            if existing is None:
                created_at = iso(now)
                renderings, sunsets = self._render(tenant, data, now)
                event = Event.accepted(event_id, tenant, data.type, created_at, data.data, digest, renderings=renderings, broadcast=Fanout(), sunsets=sunsets)
                check_size({"": event.body, **dict(event.renderings)})
                if self.events.create_event(event, self._expires_at(created_at)):
                    self._queue_step(tenant, event_id)
                    return self._accepted(event_id)
                # A concurrent request with the same id won the race.
                existing = self.events.get_event(tenant, event_id, consistent=True)
                if existing is None:
                    raise Unavailable("the broadcast is being stored by a concurrent request; retry")
            if existing.request_hash != digest:
                raise Conflict("an event with this id exists with a different body", code="idempotency_conflict")
            if existing.broadcast is not None and existing.broadcast.step == 0:
                self._queue_step(tenant, event_id)
        except DependencyFailed as exc:
            raise Unavailable(f"the broadcast could not be queued ({exc.cause}); repeat the request with the same id") from None
        return self._accepted(event_id)

    def _render(self, tenant: str, data: validation.EventInput, now: datetime) -> tuple[Renderings, tuple[tuple[str, str], ...]]:
        """Every version the broadcast can be rendered at; one it cannot, to which an endpoint is pinned, refuses it (422)."""
        versions, types = self.catalog.load(tenant, [data.type])
        event_type = types.get(data.type)
        pins = broadcast_pins(versions, event_type, data.data, data.versions)
        for v in versions.versions:
            if v.name not in pins.values():
                held, _ = self.pins.pinned(tenant, v.name, 1)
                if held:
                    derive_error = f"endpoint {held[0]} is pinned to version {v.name}, which this broadcast can neither carry nor derive: send it in 'versions'"
                    raise VersionUnavailable(derive_error, v.name, held[0])
        renderings = render(versions, event_type, data.data, data.versions, pins, now)
        return renderings, tuple(sorted(versions.sunsets(renderings.data).items()))

    @staticmethod
    def _accepted(event_id: str) -> dict[str, Any]:
        return {"id": event_id, "status": "fanning_out"}

    def _expires_at(self, created_at: str) -> int:
        """The event's, so its deliveries expire with it."""
        return int((parse_iso(created_at) + timedelta(days=self.settings.retention_days)).timestamp())

    def _queue_step(self, tenant: str, event_id: str) -> None:
        self.jobs.send_bodies([json.dumps({"kind": BROADCAST_JOB, "tenant": tenant, "event_id": event_id}, separators=(",", ":"))])

    # -- the replay function's side ------------------------------------------------------

    def step(self, tenant: str, event_id: str) -> None:
        """Fan out one page of endpoints, then queue the next page's step (see the module's contract)."""
        event = self.events.get_event(tenant, event_id, consistent=True)
        if event is None or event.broadcast is None or event.broadcast.status == "done":
            return  # expired, not a broadcast, or finished by another job
        state = event.broadcast
        page, nxt = self.endpoints.page(tenant, PAGE, state.cursor or None)
        subscribed = [ep for ep in page if ep.subscribes_to(event.type)]
        expires_at = self._expires_at(event.created_at)
        stored = [self.events.ensure_delivery(self._delivery(event, ep), expires_at) for ep in subscribed]
        unsent = [d for d in stored if d.status == "pending" and d.attempts_made == 0]
        self.queue.send([DeliveryTask.of(d) for d in unsent])
        paused = sum(1 for ep in subscribed if ep.status != "active")
        if not self.events.advance_fanout(tenant, event_id, state, state.advanced(nxt, len(page), len(subscribed), paused)):
            return  # a duplicate job took this step: its chain goes on, this one ends
        if nxt:
            self._queue_step(tenant, event_id)

    @staticmethod
    def _delivery(event: Event, endpoint: Endpoint) -> Delivery:
        """The endpoint's delivery, at its payload version if the broadcast was rendered at it (it was pinned after), else the broadcast's own."""
        return Delivery(
            version=event.rendered_version(endpoint.version) or "",
            id=delivery_id(event.tenant, event.id, endpoint.id),
            tenant=event.tenant,
            event_id=event.id,
            endpoint_id=endpoint.id,
            status="pending" if endpoint.status == "active" else "paused",
            created_at=event.created_at,
            updated_at=event.created_at,
        )
