"""Delivering tasks: plan the batch, then per task claim, POST, decide, schedule, record.

The worker only orchestrates; each step has its own collaborator:
`Planner` (endpoint state and the core planner), `WebhookSender` (signed POST),
`Recorder` (retry decision, scheduling, the attempt log, statistics) and
`HealthTracker` (breaker, limiter, disabling, leases).

At-least-once, single-flight. SQS may hand one task to two invocations at
once; the conditional claim lets only one of them send the request. If the
worker dies after the receiver answered but before the result is written, the
task comes back after the visibility timeout and the webhook is sent again with
the same `webhook-id`: receivers deduplicate on it. The next attempt is
scheduled (or the task dead-lettered) *before* the attempt is recorded, so a
crash in between re-runs the attempt rather than losing the delivery.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial

from hookline.core.clock import iso
from hookline.core.models import DeliveryTask
from hookline.core.planning import leases_held
from hookline.core.reports import DeliveryReport
from hookline.services.delivery.fanout import Fanout
from hookline.services.delivery.health import HealthTracker
from hookline.services.delivery.planner import Planner
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.ports import DeliveryLog, Scheduler, StatsSink
from hookline.services.delivery.recorder import Recorder
from hookline.services.delivery.sender import WebhookSender
from hookline.services.delivery.stats_buffer import StatsBuffer

_log = logging.getLogger(__name__)


def _run(job: Callable[[], None]) -> None:
    job()


# How long to come back after when an earlier attempt is still being recorded.
BUSY_RETRY_SECONDS = 5.0


class DeliveryWorker:
    def __init__(
        self,
        events: DeliveryLog,
        planner: Planner,
        sender: WebhookSender,
        recorder: Recorder,
        health: HealthTracker,
        scheduler: Scheduler,
        clock: Callable[[], datetime],
        sleep: Callable[[float], None],
        lease_seconds: int,
        stats_buffer: StatsBuffer,
        stats: StatsSink | None,
        fanout: Fanout,
    ):
        self._events = events
        self._planner = planner
        self._sender = sender
        self._recorder = recorder
        self._health = health
        self._scheduler = scheduler
        self._clock = clock
        self._sleep = sleep
        self._lease_seconds = lease_seconds
        self._stats_buffer = stats_buffer
        self._stats = stats
        self._fanout = fanout

    # -- redrive: a dead-lettered task moved back by an operator ---------------------

    def resolve(self, task: DeliveryTask) -> DeliveryTask | None:
        """A task as it should run. One hookline dead-lettered comes back as a
        manual replay with a fresh budget; a duplicate of it restarts nothing (None)."""
        if not task.dead_lettered:
            return task
        restarted = self._events.restart(task.tenant, task.event_id, task.delivery_id, task.generation, ("failed",), iso(self._clock()))
        if restarted is None:
            _log.info("redriven task skipped: already replayed or not failed", extra={"delivery_id": task.delivery_id, "event_id": task.event_id})
            return None
        return DeliveryTask(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, restarted.attempts_made + 1, restarted.generation, trigger="manual")

    def set_aside(self, body: str, reason: str) -> None:
        _log.warning("poison message set aside", extra={"reason": reason})
        self._scheduler.set_aside(body, reason)

    # -- a batch ------------------------------------------------------------------

    def plan(self, tasks: Iterable[DeliveryTask]) -> dict[DeliveryTask, Plan]:
        """Each endpoint of the batch looked at once (see `Planner`)."""
        return self._planner.plan(tasks)

    def release(self, plans: Iterable[Plan]) -> None:
        """End of a batch: give back its concurrency leases (they also expire on their own) and write its statistics, side by side."""
        held: dict[tuple[str, str, float], int] = {}
        for p in plans:
            if p.endpoint is not None:
                for expiry, count in leases_held([p.step]).items():
                    key = (p.endpoint.tenant, p.endpoint.id, expiry)
                    held[key] = held.get(key, 0) + count
        work: list[Callable[[], None]] = [partial(self._health.give_back, tenant, endpoint_id, expiry, n) for (tenant, endpoint_id, expiry), n in held.items()]
        work += [partial(self._write_stats, key, counts) for key, counts in self._stats_buffer.drain().items()]
        self._fanout.map(_run, work)

    def _write_stats(self, key: tuple[str, str, str], counts: dict[str, int]) -> None:
        if self._stats is None:
            return
        tenant, endpoint_id, hour = key
        try:
            self._stats.add(tenant, endpoint_id, hour, counts)
        except Exception:  # statistics are best effort; a delivery never fails for them
            _log.exception("statistics not written", extra={"tenant": tenant, "endpoint_id": endpoint_id})

    # -- one task ---------------------------------------------------------------

    def deliver(self, task: DeliveryTask, plan: Plan | None = None) -> DeliveryReport:
        """One task; without a plan it is planned (and its lease released) on its own."""
        if plan is not None:
            return self._carry_out(task, plan)
        plan = self.plan([task])[task]
        try:
            return self._carry_out(task, plan)
        finally:
            self.release([plan])

    def _carry_out(self, task: DeliveryTask, plan: Plan) -> DeliveryReport:
        now = self._clock()
        if plan.failed:
            raise RuntimeError(plan.failed)
        step = plan.step
        if step.kind == "defer":
            path = self._scheduler.schedule(task, step.defer_seconds, now, deferred=True)
            return DeliveryReport(task, "deferred", reason=step.reason, next_in_seconds=step.defer_seconds, path=path)
        if step.kind == "park":
            parked = self._events.park(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, iso(now))
            return DeliveryReport(task, "parked" if parked else "skipped", reason=step.reason)
        claim = self._events.claim_attempt(task.tenant, task.event_id, task.delivery_id, task.attempt, now.timestamp(), self._lease_seconds, task.generation)
        if claim.delivery is None:
            if claim.missing:
                self.set_aside(task.to_message(), "delivery not found: its event expired or never existed")
                return DeliveryReport(task, "skipped", reason="poison: delivery not found")
            if claim.busy:
                path = self._scheduler.schedule(task, BUSY_RETRY_SECONDS, now, deferred=True)
                return DeliveryReport(task, "deferred", reason="previous attempt still being recorded", next_in_seconds=BUSY_RETRY_SECONDS, path=path)
            return DeliveryReport(task, "skipped", reason="attempt already claimed or delivery finished")
        wait = step.send_at - self._clock().timestamp()
        if wait > 0:
            self._sleep(wait)  # paced by the endpoint's limiter; bounded by its horizon
        result = self._sender.send(task, plan)
        done = self._clock()
        decision = self._recorder.decide(task, claim.delivery, result, done)
        breaker_event = ""
        if plan.endpoint is not None:
            breaker_event = self._health.after_attempt(plan.endpoint, plan.breaker, step.kind == "probe", result, done)
        self._health.apply(task.tenant, task.endpoint_id, decision, done)
        return self._recorder.conclude(task, claim.delivery, result, decision, done, breaker_event)
