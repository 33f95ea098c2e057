"""Delivering one task: gate, claim, POST the webhook, decide, schedule, record.

At-least-once, single-flight. SQS may hand one task to two invocations at
once; the conditional claim lets only one of them send the request. If the
worker dies after the receiver answered but before the result is written, the
task comes back after the visibility timeout and the webhook is sent again with
the same `webhook-id`: receivers deduplicate on it.

Order matters for never losing a delivery: the next attempt is scheduled (or
the task dead-lettered) *before* the attempt is recorded. A crash in between
re-runs the attempt; a duplicate scheduled task is dropped by the claim.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from hookline.backoff import SYSTEM_RANDOM, BackoffPolicy, Jitter, RandomSource
from hookline.clock import iso, parse_iso
from hookline.models import Attempt, Delivery, DeliveryTask, Endpoint
from hookline.outbound import HttpResult
from hookline.policy import Decision, RetryPolicy, decide, deferral
from hookline.settings import Settings
from hookline.store import EndpointRepository, EventRepository
from hookline.webhook import webhook_headers

# How long to come back after when an earlier attempt is still being recorded.
BUSY_RETRY_SECONDS = 5.0


class Sender(Protocol):
    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResult: ...


class Scheduler(Protocol):
    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str: ...

    def dead_letter(self, task: DeliveryTask, reason: str, attributes: dict[str, str]) -> None: ...


@dataclass(frozen=True)
class DeliveryReport:
    """What happened to one task, for the log line."""

    task: DeliveryTask
    outcome: str  # succeeded | failed | retrying | deferred | skipped
    status_code: int | None = None
    error: str | None = None
    duration_ms: int = 0
    reason: str = ""
    next_in_seconds: float | None = None
    path: str = ""  # sqs | stepfunctions | dlq, where the task went next


def retry_policy(settings: Settings) -> RetryPolicy:
    jitter: Jitter = "equal" if settings.retry_jitter == "equal" else "full"
    backoff = BackoffPolicy(base_seconds=settings.retry_base_seconds, cap_seconds=settings.retry_max_delay_seconds, jitter=jitter)
    return RetryPolicy(backoff=backoff, max_attempts=settings.max_attempts, max_age_seconds=settings.max_age_seconds)


class DeliveryWorker:
    def __init__(
        self,
        events: EventRepository,
        endpoints: EndpointRepository,
        sender: Sender,
        scheduler: Scheduler,
        settings: Settings,
        clock: Callable[[], datetime],
        lease_seconds: int,
        rng: RandomSource = SYSTEM_RANDOM,
    ):
        self._events = events
        self._endpoints = endpoints
        self._sender = sender
        self._scheduler = scheduler
        self._settings = settings
        self._policy = retry_policy(settings)
        self._clock = clock
        self._lease_seconds = lease_seconds
        self._rng = rng

    def deliver(self, task: DeliveryTask) -> DeliveryReport:
        now = self._clock()
        endpoint = self._endpoints.get(task.tenant, task.endpoint_id)
        wait = deferral(endpoint.paused_until, now, self._policy, self._rng) if endpoint else None
        if wait is not None:
            # The receiver asked everyone to wait: no request, no attempt used.
            path = self._scheduler.schedule(task, wait, now, deferred=True)
            return DeliveryReport(task, "deferred", reason="endpoint paused by Retry-After", next_in_seconds=wait, path=path)
        claim = self._events.claim_attempt(task.tenant, task.event_id, task.delivery_id, task.attempt, now.timestamp(), self._lease_seconds)
        if claim.delivery is None:
            if claim.busy:
                path = self._scheduler.schedule(task, BUSY_RETRY_SECONDS, now, deferred=True)
                return DeliveryReport(task, "deferred", reason="previous attempt still being recorded", next_in_seconds=BUSY_RETRY_SECONDS, path=path)
            return DeliveryReport(task, "skipped", reason="attempt already claimed or delivery finished")
        result = self._send(task, endpoint, now)
        return self._conclude(task, claim.delivery, result)

    def _send(self, task: DeliveryTask, endpoint: Endpoint | None, now: datetime) -> HttpResult:
        event = self._events.get_event(task.tenant, task.event_id)
        if event is None or endpoint is None:
            missing = "event" if event is None else "endpoint"
            return HttpResult(None, f"{missing}_deleted", 0, detail=f"the {missing} no longer exists")
        if endpoint.status != "active":
            return HttpResult(None, "endpoint_disabled", 0, detail=f"endpoint is disabled ({endpoint.disabled_reason or 'manual'})")
        body = event.body.encode()
        headers = webhook_headers(event.id, int(now.timestamp()), body, [endpoint.secret])
        return self._sender.post(endpoint.url, body, headers)

    def _conclude(self, task: DeliveryTask, delivery: Delivery, result: HttpResult) -> DeliveryReport:
        now = self._clock()
        created = parse_iso(delivery.created_at) if delivery.created_at else now
        decision = decide(task.attempt, created, result.outcome, now, self._policy, self._rng)
        reason = decision.classification.reason
        if result.detail and result.status_code is None:
            reason = f"{reason}: {result.detail}"
        if decision.exhausted:
            reason = f"{reason}; gave up: {decision.exhausted}"
        path = self._apply(task, decision, result, now)
        attempt = Attempt(
            number=task.attempt,
            at=iso(now),
            status_code=result.status_code,
            error=result.error,
            duration_ms=result.duration_ms,
            outcome=decision.attempt_outcome,
            reason=reason[:500],
            response_body=result.body[: self._settings.response_body_limit_bytes],
        )
        expires_at = int((now + timedelta(days=self._settings.retention_days)).timestamp())
        self._events.record_attempt(delivery, attempt, decision.status, iso(now), expires_at)
        return DeliveryReport(task, decision.attempt_outcome, result.status_code, result.error, result.duration_ms, reason, decision.retry_in_seconds, path)

    def _apply(self, task: DeliveryTask, decision: Decision, result: HttpResult, now: datetime) -> str:
        """Carry out the decision's side effects; returns where the task went."""
        if decision.pause_endpoint_seconds is not None:
            self._endpoints.pause(task.tenant, task.endpoint_id, now.timestamp() + decision.pause_endpoint_seconds)
        if decision.disable_endpoint:
            self._endpoints.disable(task.tenant, task.endpoint_id, "gone", iso(now))
        if decision.retry_in_seconds is not None:
            return self._scheduler.schedule(task.next_attempt(), decision.retry_in_seconds, now)
        if decision.exhausted:
            self._scheduler.dead_letter(
                task,
                decision.exhausted,
                {
                    "last_status_code": "" if result.status_code is None else str(result.status_code),
                    "last_error": result.error or "",
                    "attempts": str(task.attempt),
                    "endpoint_id": task.endpoint_id,
                    "tenant": task.tenant,
                    "event_id": task.event_id,
                    "delivery_id": task.delivery_id,
                },
            )
            return "dlq"
        return ""
