"""Delivering one task: claim the attempt, POST the webhook, record what happened.

At-least-once, single-flight. SQS may hand one task to two invocations at
once; the conditional claim lets only one of them send the request. If the
worker dies after the receiver answered but before the result is written, the
task comes back after the visibility timeout and the webhook is sent again with
the same `webhook-id`: receivers deduplicate on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from hookline.clock import iso
from hookline.models import Attempt, Delivery, DeliveryTask
from hookline.outbound import HttpResult
from hookline.policy import decide
from hookline.settings import Settings
from hookline.store import EndpointRepository, EventRepository
from hookline.webhook import webhook_headers


class Sender(Protocol):
    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResult: ...


@dataclass(frozen=True)
class DeliveryReport:
    """What happened to one task, for the log line."""

    task: DeliveryTask
    outcome: str  # succeeded | failed | skipped
    status_code: int | None = None
    error: str | None = None
    duration_ms: int = 0
    reason: str = ""


class DeliveryWorker:
    def __init__(
        self,
        events: EventRepository,
        endpoints: EndpointRepository,
        sender: Sender,
        settings: Settings,
        clock: Callable[[], datetime],
        lease_seconds: int,
    ):
        self._events = events
        self._endpoints = endpoints
        self._sender = sender
        self._settings = settings
        self._clock = clock
        self._lease_seconds = lease_seconds

    def deliver(self, task: DeliveryTask) -> DeliveryReport:
        now = self._clock()
        delivery = self._events.claim_attempt(task.tenant, task.event_id, task.delivery_id, task.attempt, now.timestamp(), self._lease_seconds)
        if delivery is None:
            return DeliveryReport(task, "skipped", reason="attempt already claimed or delivery finished")
        event = self._events.get_event(task.tenant, task.event_id)
        endpoint = self._endpoints.get(task.tenant, task.endpoint_id)
        if event is None or endpoint is None:
            missing = "event" if event is None else "endpoint"
            result = HttpResult(None, f"{missing}_deleted", 0, detail=f"the {missing} no longer exists")
        elif endpoint.status != "active":
            result = HttpResult(None, "endpoint_disabled", 0, detail=f"endpoint is disabled ({endpoint.disabled_reason or 'manual'})")
        else:
            body = event.body.encode()
            headers = webhook_headers(event.id, int(now.timestamp()), body, [endpoint.secret])
            result = self._sender.post(endpoint.url, body, headers)
        return self._record(task, delivery, result)

    def _record(self, task: DeliveryTask, delivery: Delivery, result: HttpResult) -> DeliveryReport:
        now = self._clock()
        decision = decide(task.attempt, result.outcome, now)
        reason = decision.classification.reason
        if result.detail and result.status_code is None:
            reason = f"{reason}: {result.detail}"
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
        return DeliveryReport(task, decision.status, result.status_code, result.error, result.duration_ms, reason)
