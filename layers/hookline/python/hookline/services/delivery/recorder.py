"""A task's record: what it writes to the delivery log and the queues.

Before sending: claim the attempt (single flight), or defer, park, set aside a
poison task, restart a redriven one. After an answer: decide what comes next,
schedule it, then record the attempt. The next attempt is scheduled (or the
task dead-lettered) *before* the attempt is recorded, so a crash in between
re-runs the attempt rather than losing the delivery. Statistics are buffered
(`count`, before the record) and carried on the endpoint's give-back, which
goes out beside the record of its last task in the batch, or written at the
batch's end.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from hookline.core import notifications
from hookline.core.backoff import RandomSource
from hookline.core.claims import ClaimVerdict, claim_verdict, unsent_restart
from hookline.core.classify import TRANSIENT_ERRORS
from hookline.core.clock import iso, parse_iso
from hookline.core.errors import DependencyFailed
from hookline.core.models import Attempt, Delivery, DeliveryTask
from hookline.core.notifications import Notify
from hookline.core.policy import Decision, RetryPolicy, decide
from hookline.core.reports import SET_ASIDE, DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.stats import attempt_counts
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.ports import DeliveryLog, ReplayProgress, Scheduler
from hookline.services.delivery.stats_buffer import StatsBuffer

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecordingConfig:
    policy: RetryPolicy
    lease_seconds: int  # how long a claim holds an attempt: it outlives the longest invocation
    busy_retry_seconds: float  # how soon a task comes back while an earlier attempt is still being recorded
    retention_days: int = 30
    response_body_limit_bytes: int = 4096  # kept of an attempt that did not succeed
    success_body_limit_bytes: int = 256  # kept of a successful attempt: a 2xx body rarely says more, and every attempt stores it


@dataclass(frozen=True)
class Recorder:
    events: DeliveryLog
    scheduler: Scheduler
    notify: Notify
    config: RecordingConfig
    rng: RandomSource
    stats: StatsBuffer
    replays: ReplayProgress | None = None

    def restart(self, task: DeliveryTask, now: datetime) -> DeliveryTask | None:
        """A dead-lettered task redriven by an operator: a new generation with a fresh budget, once (None for a duplicate).

        A letter whose restart is refused because it already restarted the delivery, on an earlier receive that then
        failed before its attempt was recorded (a throttled write, a timeout), runs that generation's first attempt
        (hookline.core.claims.unsent_restart): acknowledged as a duplicate, it would leave the delivery pending with
        no task anywhere. Its task claims, so a copy of the letter running meanwhile sends nothing twice."""
        restarted = self.events.restart(task.tenant, task.event_id, task.delivery_id, task.generation, ("failed",), iso(now))
        if restarted is not None:
            return DeliveryTask.of(restarted, trigger="manual")
        key = (task.tenant, task.event_id, task.delivery_id)
        current = self.events.read_for_sending((), (key,))[1].get(key)
        if unsent_restart(current, task.generation):
            assert current is not None
            _log.info(
                "redriven task resumed: restarted on an earlier receive, no attempt made", extra={"delivery_id": task.delivery_id, "event_id": task.event_id}
            )
            return DeliveryTask.of(current, trigger="manual")
        _log.info("redriven task skipped: already replayed or not failed", extra={"delivery_id": task.delivery_id, "event_id": task.event_id})
        return None

    def arrived(self, tasks: list[DeliveryTask]) -> None:
        """Tasks out of a wait in Step Functions are in SQS's hands again: their notes go (hookline.core.waits). Best
        effort: a note left behind is dropped by the sweeper once it sees the attempt made (or re-queues a copy that
        claims, and so sends nothing twice)."""
        waited = [t for t in tasks if t.wait_until]
        if not waited:
            return
        try:
            self.scheduler.arrived(waited)
        except DependencyFailed as failed:
            _log.warning("notes of ended waits not dropped; the sweeper will", extra={"cause": failed.cause, "tasks": len(waited)})

    def hop(self, tasks: list[DeliveryTask], delays: list[int]) -> None:
        """Tasks received before their due time go back on the retry queue for the rest (hookline.core.waits)."""
        self.scheduler.hop(tasks, delays)

    def set_aside(self, body: str, reason: str) -> None:
        """A poison message: kept on the dead-letter queue for a human, never retried."""
        _log.warning("poison message set aside", extra={"reason": reason})
        self.scheduler.set_aside(body, reason)

    def defer(self, task: DeliveryTask, seconds: float, reason: str, now: datetime) -> DeliveryReport:
        """Put the same attempt off: no request, no attempt used."""
        path = self.scheduler.schedule(task, seconds, now, deferred=True)
        return DeliveryReport(task, "deferred", reason=reason, next_in_seconds=seconds, path=path)

    def park(self, task: DeliveryTask, reason: str, now: datetime) -> DeliveryReport:
        """Pause the delivery until its endpoint is re-enabled (its task is done with)."""
        parked = self.events.park(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, iso(now))
        return DeliveryReport(task, "parked" if parked else "skipped", reason=reason)

    def claim(self, task: DeliveryTask, now: datetime, plan: Plan | None = None) -> Delivery | DeliveryReport:
        """Take the attempt (single flight): the delivery to send for, or the report of why not.

        A fresh task whose delivery the batch read checks the claim's rule on it and writes
        nothing (hookline.core.claims); every other task claims with a conditional write.
        """
        if task.fresh and plan is not None and plan.delivery_read:
            verdict = claim_verdict(plan.delivery, task.attempt, task.generation, now.timestamp())
            if verdict == "go" and plan.delivery is not None:
                return replace(plan.delivery, status="pending")
            return self._not_claimed(task, verdict, now)
        claim = self.events.claim_attempt(
            task.tenant, task.event_id, task.delivery_id, task.attempt, now.timestamp(), self.config.lease_seconds, task.generation
        )
        if claim.delivery is not None:
            return claim.delivery
        return self._not_claimed(task, "missing" if claim.missing else "busy" if claim.busy else "done", now)

    def _not_claimed(self, task: DeliveryTask, verdict: ClaimVerdict, now: datetime) -> DeliveryReport:
        if verdict == "missing":
            self.set_aside(task.to_message(), "delivery not found: its event expired or never existed")
            return DeliveryReport(task, "skipped", reason="poison: delivery not found", path=SET_ASIDE)
        if verdict == "busy":
            return self.defer(task, self.config.busy_retry_seconds, "previous attempt still being recorded", now)
        return DeliveryReport(task, "skipped", reason="attempt already claimed or delivery finished")

    def decide(self, task: DeliveryTask, delivery: Delivery, result: HttpResult, now: datetime) -> Decision:
        started = delivery.generation_started_at or delivery.created_at
        created = parse_iso(started) if started else now
        return decide(delivery.budget_attempt(task.attempt), created, result.outcome, now, self.config.policy, self.rng)

    def count(self, task: DeliveryTask, delivery: Delivery, result: HttpResult, decision: Decision, now: datetime) -> None:
        """The attempt in the endpoint's statistics and its version's use (held in `stats` until written). Before the
        attempt is recorded: the endpoint's give-back, which carries the statistics, may go out beside that record. A
        record that then fails leaves the attempt counted, and its task's next copy counts it again: statistics, never
        deliveries."""
        if result.status_code is None and result.error not in TRANSIENT_ERRORS:  # refused before sending: it never reached out
            return
        ended, first = _ended(decision), _first(task, delivery)
        self.stats.add(task.tenant, task.endpoint_id, now, attempt_counts(decision.status == "succeeded", result.duration_ms, first, ended))
        if task.version:
            self.stats.add_version(task.tenant, task.version, now)

    def conclude(self, task: DeliveryTask, delivery: Delivery, result: HttpResult, decision: Decision, now: datetime, breaker_event: str) -> DeliveryReport:
        reason = decision.classification.reason
        if result.detail and result.status_code is None:
            reason = f"{reason}: {result.detail}"
        if decision.exhausted:
            reason = f"{reason}; gave up: {decision.exhausted}"
        budget_attempt = delivery.budget_attempt(task.attempt)
        path = self._schedule(task, decision, result, now, budget_attempt)
        attempt = Attempt(
            number=task.attempt,
            at=iso(now),
            status_code=result.status_code,
            error=result.error,
            duration_ms=result.duration_ms,
            outcome=decision.attempt_outcome,
            reason=reason[:500],
            response_body=result.body[: self.config.success_body_limit_bytes if decision.status == "succeeded" else self.config.response_body_limit_bytes],
            trigger=task.trigger,
        )
        expires_at = int((now + timedelta(days=self.config.retention_days)).timestamp())
        self.events.record_attempt(delivery, attempt, decision.status, iso(now), expires_at)
        ended, first = _ended(decision), _first(task, delivery)
        if task.replay_id and ended and self.replays is not None:
            self.replays.count(task.tenant, task.replay_id, "delivered" if decision.status == "succeeded" else "failed")
        return DeliveryReport(
            task, decision.attempt_outcome, result.status_code, result.error, result.duration_ms, reason, decision.retry_in_seconds, path, first, breaker_event
        )

    def _schedule(self, task: DeliveryTask, decision: Decision, result: HttpResult, now: datetime, budget_attempt: int) -> str:
        """The next attempt, or the dead-letter queue; returns where the task went."""
        if decision.retry_in_seconds is not None:
            return self.scheduler.schedule(task.next_attempt(), decision.retry_in_seconds, now)
        if not decision.exhausted:
            return ""
        attributes = {
            "last_status_code": "" if result.status_code is None else str(result.status_code),
            "last_error": result.error or "",
            "attempts": str(budget_attempt),
            "endpoint_id": task.endpoint_id,
            "tenant": task.tenant,
            "event_id": task.event_id,
            "delivery_id": task.delivery_id,
        }
        self.scheduler.dead_letter(task, decision.exhausted, attributes)
        self.notify(notifications.EXHAUSTED, reason=decision.exhausted, **{k: v for k, v in attributes.items() if v})
        return "dlq"


def _ended(decision: Decision) -> str:
    """How the delivery ended with this attempt ("succeeded", "failed"), or "" while it goes on."""
    return decision.status if decision.status in ("succeeded", "failed") else ""


def _first(task: DeliveryTask, delivery: Delivery) -> bool:
    """Whether the attempt is its delivery's first (not a replay's, nor a retry's)."""
    return task.trigger == "scheduled" and delivery.generation == 0 and delivery.budget_attempt(task.attempt) == 1
