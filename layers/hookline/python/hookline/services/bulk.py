"""The kinds of bulk job (hookline.services.jobs): each step one bounded page, safe to run twice.

`requeue_paused`: a re-enabled endpoint's paused backlog back on the retry queue, a
page at a time at the endpoint's rate (each page's tasks spread over SQS delays, the
next page queued when they are due). Re-enabling creates the job and queues its first
step before it marks the endpoint active: a step that finds the endpoint not active
yet tries again shortly, and gives up (its backlog stays paused, as the endpoint is
still disabled) if it never becomes active. So a crash anywhere leaves either a
disabled endpoint with its backlog paused, or an active one with a job that finishes.
A task queued twice is harmless: the delivery claim lets one copy send.

`delete_customer_endpoints`: a deleted customer's endpoints, a page at a time: those
created before the job started. A customer created again under the uid meanwhile keeps
the endpoints made for it, and loses none of the old one's to it.

`broadcast`: a broadcast's fan-out, kept beside the broadcast it fans out
(hookline.services.broadcast.BroadcastFanout).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core.clock import parse_iso
from hookline.core.jobs import Job, StepResult, paced
from hookline.core.models import DeliveryTask
from hookline.services.ports import DeliveryIndex, EndpointReader, EndpointStore, TaskQueue

REQUEUE_PAGE = 100  # paused deliveries per step: one index query, ten SQS batches
DELETE_PAGE = 100  # endpoints deleted per step
ACTIVATION_WAIT = timedelta(minutes=10)  # how long a requeue waits for its endpoint to be marked active
ACTIVATION_POLL_SECONDS = 5


@dataclass(frozen=True)
class PausedRequeue:
    endpoints: EndpointReader
    deliveries: DeliveryIndex
    retry_queue: TaskQueue

    def step(self, job: Job, now: datetime) -> StepResult:
        endpoint_id = job.params["endpoint_id"]
        endpoint = self.endpoints.get(job.tenant, endpoint_id)
        if endpoint is None:
            return StepResult(cancel="the endpoint was deleted")
        if endpoint.status != "active":
            if now - parse_iso(job.created_at) < ACTIVATION_WAIT:
                return StepResult(again_in=ACTIVATION_POLL_SECONDS)
            return StepResult(cancel="the endpoint was not re-enabled; its backlog stays paused")
        page, cursor = self.deliveries.deliveries_by_status(job.tenant, endpoint_id, "paused", limit=REQUEUE_PAGE, cursor=job.cursor or None)
        # Oldest first: an ordered endpoint's backlog goes back on its lane in the order its events were accepted.
        tasks = [DeliveryTask.of(d, ordered=endpoint.ordered) for d in page]
        delays, next_in = paced(len(tasks), max(endpoint.rate_limit_per_second, 0.1))
        if tasks:
            self.retry_queue.enqueue(tasks, delays=delays)
        return StepResult(counts={"requeued": len(tasks)}, cursor=cursor, next_in=next_in)


@dataclass(frozen=True)
class CustomerEndpointsDeletion:
    endpoints: EndpointStore

    def step(self, job: Job, now: datetime) -> StepResult:
        uid = job.params["customer"]
        page, cursor = self.endpoints.page_of_owner(job.tenant, uid, DELETE_PAGE, job.cursor or None)
        # An endpoint created after the deletion began is a new customer's under the same uid (ISO times sort in order).
        old = [endpoint for endpoint in page if endpoint.created_at <= job.created_at]
        deleted = sum(1 for endpoint in old if self.endpoints.delete(job.tenant, endpoint.id))
        return StepResult(counts={"endpoints_deleted": deleted}, cursor=cursor)
