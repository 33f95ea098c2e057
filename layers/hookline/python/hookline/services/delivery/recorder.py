"""After an attempt: decide what comes next, schedule it, then record the attempt.

The next attempt is scheduled (or the task dead-lettered) *before* the attempt
is recorded, so a crash in between re-runs the attempt rather than losing the
delivery. Statistics are buffered per batch and written once at its end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core import notifications
from hookline.core.backoff import RandomSource
from hookline.core.classify import TRANSIENT_ERRORS
from hookline.core.clock import iso, parse_iso
from hookline.core.models import Attempt, Delivery, DeliveryTask
from hookline.core.notifications import Notify
from hookline.core.policy import Decision, RetryPolicy, decide
from hookline.core.reports import DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.stats import attempt_counts
from hookline.services.delivery.ports import DeliveryLog, ReplayProgress, Scheduler
from hookline.services.delivery.stats_buffer import StatsBuffer


@dataclass(frozen=True)
class RecordingConfig:
    policy: RetryPolicy
    retention_days: int = 30
    response_body_limit_bytes: int = 4096


class Recorder:
    def __init__(
        self,
        events: DeliveryLog,
        scheduler: Scheduler,
        notify: Notify,
        config: RecordingConfig,
        clock: Callable[[], datetime],
        rng: RandomSource,
        stats: StatsBuffer,
        replays: ReplayProgress | None = None,
    ):
        self._events = events
        self._scheduler = scheduler
        self._notify = notify
        self._config = config
        self._clock = clock
        self._rng = rng
        self._stats = stats
        self._replays = replays

    def decide(self, task: DeliveryTask, delivery: Delivery, result: HttpResult, now: datetime) -> Decision:
        started = delivery.generation_started_at or delivery.created_at
        created = parse_iso(started) if started else now
        return decide(delivery.budget_attempt(task.attempt), created, result.outcome, now, self._config.policy, self._rng)

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
            response_body=result.body[: self._config.response_body_limit_bytes],
            trigger=task.trigger,
        )
        expires_at = int((now + timedelta(days=self._config.retention_days)).timestamp())
        self._events.record_attempt(delivery, attempt, decision.status, iso(now), expires_at)
        ended = decision.status if decision.status in ("succeeded", "failed") else ""
        first = task.trigger == "scheduled" and delivery.generation == 0 and budget_attempt == 1
        if result.status_code is not None or result.error in TRANSIENT_ERRORS:  # a request that reached out, not one refused before sending
            self._stats.add(task.tenant, task.endpoint_id, now, attempt_counts(decision.status == "succeeded", result.duration_ms, first, ended))
        if task.replay_id and ended and self._replays is not None:
            self._replays.count(task.tenant, task.replay_id, "delivered" if decision.status == "succeeded" else "failed")
        return DeliveryReport(
            task, decision.attempt_outcome, result.status_code, result.error, result.duration_ms, reason, decision.retry_in_seconds, path, first, breaker_event
        )

    def _schedule(self, task: DeliveryTask, decision: Decision, result: HttpResult, now: datetime, budget_attempt: int) -> str:
        """The next attempt, or the dead-letter queue; returns where the task went."""
        if decision.retry_in_seconds is not None:
            return self._scheduler.schedule(task.next_attempt(), decision.retry_in_seconds, now)
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
        self._scheduler.dead_letter(task, decision.exhausted, attributes)
        self._notify(notifications.EXHAUSTED, reason=decision.exhausted, **{k: v for k, v in attributes.items() if v})
        return "dlq"
