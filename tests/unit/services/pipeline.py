"""SQS and the delivery function in virtual time, over the delivery rig's fakes.

Tasks wait on a queue until they are due. Each round takes what is due, in
batches, and runs up to `invocations` batches as concurrent invocations do:
every batch is planned before any is delivered (so each plans against the
others' grants and leases), then each is delivered and released. What the
worker schedules comes back as the scheduler's adapter sends it: SQS delays
in whole seconds, deferrals of up to two hours in 900 s hops, longer waits in
Step Functions (as the waiting task, noted; with `lose_waits` set, a wait in
Step Functions never ends, as a stopped execution's). Between rounds the clock
jumps to the next due task.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field, replace

from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event, webhook_body
from hookline.core.reports import DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.waits import waiting
from hookline.services.delivery.plans import Plan
from tests.fakes.delivery import DeliveryRig
from tests.fakes.outside import Request

SQS_MAX_DELAY = 900
DEFER_HOPS_UP_TO_SECONDS = 7200  # hookline.adapters.queues: deferrals up to this hop through SQS
MAX_ROUNDS = 100_000


@dataclass(order=True)
class _Due:
    at: float
    seq: int
    task: DeliveryTask = field(compare=False)


@dataclass(frozen=True)
class Sent:
    """A request the receiver got, when (virtual epoch seconds), for which endpoint and task."""

    at: float
    endpoint_id: str
    webhook_id: str
    request: Request


@dataclass(frozen=True)
class Planned:
    at: float
    round: int  # invocations of one round ran side by side
    invocation: int
    task: DeliveryTask
    plan: Plan


class Pipeline:
    def __init__(self, rig: DeliveryRig, batch_size: int = 10, invocations: int = 1):
        self.rig = rig
        self.batch_size = batch_size
        self.invocations = invocations
        self.sent: list[Sent] = []
        self.planned: list[Planned] = []
        self.reports: list[DeliveryReport] = []
        self._queue: list[_Due] = []
        self._seq = itertools.count()
        self._scheduled_seen = 0
        self._invocation = itertools.count()
        self._round = 0
        self._by_url: dict[str, str] = {}
        self.lose_waits = False  # waits in Step Functions never put their task back (stopped, failed, never started)
        self.lost: list[DeliveryTask] = []
        answer = rig.http.answer

        def timed(request: Request) -> HttpResult:
            self.sent.append(Sent(rig.clock.timestamp(), self._by_url.get(request.url, ""), request.headers["webhook-id"], request))
            return answer(request)

        rig.http.answer = timed

    # -- setting up --------------------------------------------------------------------------------

    def endpoint(self, endpoint: Endpoint) -> Endpoint:
        self._by_url[endpoint.url] = endpoint.id
        return self.rig.endpoints.add(endpoint)

    def event(self, endpoint: Endpoint, n: int, event_type: str = "a.b") -> DeliveryTask:
        """An accepted event with one pending delivery to `endpoint`; its first task is queued now."""
        created = self.rig.clock().strftime("%Y-%m-%dT%H:%M:%S.000Z")
        event_id, delivery_id = f"evt_{endpoint.id}_{n:04d}", f"dlv_{endpoint.id}_{n:04d}"
        body = webhook_body(event_id, event_type, created, {"n": n})
        event = Event(id=event_id, tenant=endpoint.tenant, type=event_type, created_at=created, body=body, request_hash=str(n))
        # Queued as ingest queues it: the delivery's only task, fresh (it sends without a claim write)
        task = replace(
            self.rig.events.add(event, Delivery(delivery_id, endpoint.tenant, event_id, endpoint.id, created_at=created, updated_at=created)), fresh=True
        )
        self.submit(task)
        return task

    def submit(self, task: DeliveryTask, delay: float = 0.0) -> None:
        heapq.heappush(self._queue, _Due(self.rig.clock.timestamp() + delay, next(self._seq), task))

    # -- running ---------------------------------------------------------------------------------

    def run(self, seconds: float) -> None:
        """Run rounds until `seconds` of virtual time have passed (or nothing is left to do)."""
        until = self.rig.clock.timestamp() + seconds
        for _ in range(MAX_ROUNDS):
            if not self._queue:
                break
            now = self.rig.clock.timestamp()
            if self._queue[0].at > now:
                if self._queue[0].at > until:
                    break
                self.rig.clock.advance(self._queue[0].at - now)
            self.round()
        else:
            raise AssertionError(f"still busy after {MAX_ROUNDS} rounds: something is put off by nothing, over and over")
        if self.rig.clock.timestamp() < until:
            self.rig.clock.advance(until - self.rig.clock.timestamp())

    def round(self) -> None:
        """Up to `invocations` batches of what is due now: all planned first, then each delivered, then all released."""
        now = self.rig.clock.timestamp()
        batches: list[list[DeliveryTask]] = []
        while self._queue and self._queue[0].at <= now and len(batches) < self.invocations:
            batch: list[DeliveryTask] = []
            while self._queue and self._queue[0].at <= now and len(batch) < self.batch_size:
                batch.append(heapq.heappop(self._queue).task)
            batches.append(batch)
        self._round += 1
        plans = [self.plan(batch) for batch in batches]
        reports = []
        for batch, planned in zip(batches, plans, strict=True):
            reports.append([self.rig.worker.deliver(t, planned[t]) for t in batch])
            self.reports += reports[-1]
        for planned, answered in zip(plans, reports, strict=True):
            self.rig.worker.release(planned.values(), answered)  # with the batch's answers, as the handler gives them
        self._requeue_scheduled()

    def plan(self, batch: list[DeliveryTask]) -> dict[DeliveryTask, Plan]:
        invocation = next(self._invocation)
        planned = self.rig.worker.plan(batch)
        now = self.rig.clock.timestamp()
        self.planned += [Planned(now, self._round, invocation, t, planned[t]) for t in batch]
        return planned

    def _requeue_scheduled(self) -> None:
        for task, delay, deferred in self.rig.scheduler.scheduled[self._scheduled_seen :]:
            if delay <= SQS_MAX_DELAY or (deferred and delay <= DEFER_HOPS_UP_TO_SECONDS):
                self.submit(task, min(SQS_MAX_DELAY, math.ceil(delay)))
            else:
                now = self.rig.clock.timestamp()
                waits = waiting(task, math.ceil(now + delay))  # as the state machine puts it back (the scheduler noted it)
                if self.lose_waits:
                    self.lost.append(waits)
                else:
                    self.submit(waits, waits.wait_until - now)
        self._scheduled_seen = len(self.rig.scheduler.scheduled)

    # -- reading -----------------------------------------------------------------------------------

    def sent_to(self, endpoint: Endpoint) -> list[float]:
        return [s.at for s in self.sent if s.endpoint_id == endpoint.id]

    def delivery(self, task: DeliveryTask) -> Delivery:
        return self.rig.events.delivery(task.tenant, task.event_id, task.delivery_id)


def most_in_any_window(times: list[float], seconds: float = 1.0) -> int:
    """The largest number of `times` within any half-open window [t, t + seconds)."""
    ordered = sorted(times)
    return max((sum(1 for u in ordered[i:] if u < t + seconds) for i, t in enumerate(ordered)), default=0)
