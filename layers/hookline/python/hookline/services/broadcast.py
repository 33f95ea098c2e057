"""Broadcasts: one event to every subscribed endpoint of the tenant (each customer's and its own), fanned out off the request path.

`start` (the API) validates the event as `POST /v1/events` does (without
`customer`: a broadcast is addressed to everyone), stores it with its fan-out
state at step 0, and starts its job (hookline.services.jobs, kind `broadcast`);
it answers 202 at once with the job, so 3,200 customers never run inside one
API call. It is idempotent on `id`: the same id and body answer the same and
create nothing (the job's id is derived from the event's, so a repeat starts
no second job, and starts it if the first request stored the event but failed
before its job); the same id with another body is 409.

`BroadcastFanout` is the job's kind: each step (the jobs function, one job
message) takes one page of up to PAGE of the tenant's endpoints from the job's
cursor. On top of the JobRunner's contract (a failed step raises and is
redelivered; the job advances conditionally on the step read, so a page is
counted once):

* Each subscribed endpoint of the page gets its delivery by a conditional
  put, its id derived from (tenant, event, endpoint): running the page again
  creates nothing twice. A disabled endpoint's delivery is stored paused
  (re-enabling the endpoint queues it).
* The page's deliveries that are pending and unattempted are queued on the
  delivery queue, again on a re-run, so a crash before the advance leaves
  none unqueued; a duplicate task is harmless, the attempt claim lets only
  one copy deliver.
* The event's fan-out state (what `GET /v1/events/{id}` shows: counters, and
  `done` after the last page) advances conditionally on its own step, before
  the job does. A step that finds it ahead of the job (a crash between the two
  advances, or the previous release's page messages took pages) takes no page:
  it moves the job to the state's cursor, with the counts that make the job's
  the state's. So the two agree after every step, and each page is taken once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core import ids, validation
from hookline.core.broadcast import Fanout, fanout_job_id
from hookline.core.clock import iso, parse_iso
from hookline.core.contract.events import BroadcastAccepted, CreateBroadcast
from hookline.core.contract.jobs import JobSummary
from hookline.core.errors import Conflict, DependencyFailed, Unavailable
from hookline.core.idempotency import request_hash
from hookline.core.jobs import BROADCAST_JOB, Job, StepResult
from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event
from hookline.core.settings import Settings
from hookline.core.versions import Renderings, VersionUnavailable, broadcast_pins, check_size, render
from hookline.services.ports import BroadcastEvents, BroadcastTypeNotes, CatalogReader, EndpointPages, EventRecords, JobStarter, TaskQueue, VersionPins

PAGE = 100  # endpoints per step: 100 conditional puts and at most 10 SQS batches


def _expires_at(created_at: str, retention_days: int) -> int:
    """The event's, so its deliveries expire with it."""
    return int((parse_iso(created_at) + timedelta(days=retention_days)).timestamp())


@dataclass(frozen=True)
class BroadcastService:
    events: EventRecords
    jobs: JobStarter  # the fan-out's job (its steps run BroadcastFanout on the job queue)
    settings: Settings
    clock: Callable[[], datetime]
    catalog: CatalogReader
    pins: VersionPins
    types: BroadcastTypeNotes | None = None  # its type is noted as sent to every customer (their portals list it)

    def start(self, tenant: str, request: CreateBroadcast) -> BroadcastAccepted:
        data = request.input()
        now = self.clock()
        event_id = ids.event_id(tenant, data.idempotency_key, int(now.timestamp() * 1000))
        try:
            self._store(tenant, event_id, data, now)
            job = self.fan_out(tenant, event_id)
        except DependencyFailed as exc:
            raise Unavailable(f"the broadcast could not be queued ({exc.cause}); repeat the request with the same id") from None
        if self.types is not None:
            self.types.note_broadcast(tenant, [data.type])
        return BroadcastAccepted(id=event_id, status="fanning_out", job=JobSummary.of(job))

    def fan_out(self, tenant: str, event_id: str) -> Job:
        """Start the stored broadcast's job; a repeat starts none (and queues its first step again while it has not run)."""
        return self.jobs.start(tenant, BROADCAST_JOB, {"event_id": event_id}, job_id=fanout_job_id(tenant, event_id))

    def _store(self, tenant: str, event_id: str, data: validation.EventInput, now: datetime) -> None:
        """Store the broadcast's event once; a repeat of its id must carry its body (409 otherwise)."""
        digest = request_hash(data.type, data.data, broadcast=True, versions=data.versions)
        existing = self.events.get_event(tenant, event_id) if data.idempotency_key else None
        if existing is None:
            created_at = iso(now)
            renderings, sunsets = self._render(tenant, data, now)
            event = Event.accepted(event_id, tenant, data.type, created_at, data.data, digest, renderings=renderings, broadcast=Fanout(), sunsets=sunsets)
            check_size({"": event.body, **dict(event.renderings)})
            if self.events.create_event(event, _expires_at(created_at, self.settings.retention_days)):
                return
            # A concurrent request with the same id won the race.
            existing = self.events.get_event(tenant, event_id, consistent=True)
            if existing is None:
                raise Unavailable("the broadcast is being stored by a concurrent request; retry")
        if existing.request_hash != digest:
            raise Conflict("an event with this id exists with a different body", code="idempotency_conflict")

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
        renderings = render(versions, event_type, data.data, data.versions, pins)
        return renderings, tuple(sorted(versions.sunsets(renderings.data).items()))


@dataclass(frozen=True)
class BroadcastFanout:
    """The `broadcast` job kind: one page of the tenant's endpoints a step (see the module's contract)."""

    events: BroadcastEvents
    endpoints: EndpointPages
    queue: TaskQueue  # the delivery queue: first attempts
    retention_days: int

    def step(self, job: Job, now: datetime) -> StepResult:
        event = self.events.get_event(job.tenant, job.params["event_id"], consistent=True)
        if event is None:
            return StepResult(cancel="the broadcast's event is gone (expired)")
        if event.broadcast is None:
            return StepResult(cancel="the event is not a broadcast")
        state = event.broadcast
        if state.status == "done" or state.cursor != job.cursor:
            return _following(job, state)  # the state is ahead: this page was taken
        page, nxt = self.endpoints.page(job.tenant, PAGE, job.cursor or None)
        data = json.loads(event.body).get("data")  # what the endpoints' content filters read (the default version's)
        subscribed = [ep for ep in page if ep.receives(event.type, event.customer, data)]
        expires_at = _expires_at(event.created_at, self.retention_days)
        stored = [self.events.ensure_delivery(_delivery(event, ep), expires_at) for ep in subscribed]
        unsent = [d for d in stored if d.unsent]
        ordered = {ep.id for ep in subscribed if ep.ordered}
        self.queue.enqueue([DeliveryTask.of(d, ordered=d.endpoint_id in ordered) for d in unsent])
        paused = sum(1 for ep in subscribed if ep.status != "active")
        advanced = state.advanced(nxt, len(page), len(subscribed), paused)
        if self.events.advance_fanout(job.tenant, event.id, state, advanced):
            return _following(job, advanced)
        # Another step took this page meanwhile (a duplicate, or the previous release's message): follow what it wrote.
        taken = self.events.get_event(job.tenant, event.id, consistent=True)
        return _following(job, taken.broadcast if taken is not None and taken.broadcast is not None else advanced)


def _following(job: Job, state: Fanout) -> StepResult:
    """The step that brings the job to the fan-out state: its cursor, and the counts that make the job's the state's
    (in step, those of the one page just taken)."""
    counts = {name: n - job.counts.get(name, 0) for name, n in state.counts().items()}
    return StepResult(counts=counts, cursor=state.cursor or None)  # none after the last page


def _delivery(event: Event, endpoint: Endpoint) -> Delivery:
    """The endpoint's delivery, at its payload version if the broadcast was rendered at it (it was pinned after), else the broadcast's own."""
    return Delivery(
        version=event.rendered_version(endpoint.version) or "",
        id=event.broadcast_delivery_id(endpoint.id),
        tenant=event.tenant,
        event_id=event.id,
        endpoint_id=endpoint.id,
        status="pending" if endpoint.status == "active" else "paused",
        created_at=event.created_at,
        updated_at=event.created_at,
        layout=event.layout,
    )
