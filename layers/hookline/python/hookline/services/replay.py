"""Replays: a customer's time-window replay, and the operators' DLQ drain.

A time-window replay restarts the endpoint's failed (or paused) deliveries
created in [since, until] as manual attempts with a fresh budget. It works
through the sparse endpoint-deliveries index one page per step, pacing the
page's tasks at the endpoint's rate (SQS per-message delays), and they pass
through the same planning as any task: a breaker that is open holds them back.
Each step first writes the page's tasks into the replay item together with the
cursor's advance, then restarts and queues them, then clears them: a crash at
any point is finished by the job's redelivery, and duplicates are dropped by
the generation check and the delivery claim.

The DLQ drain moves messages from the dead-letter queue to the retry queue at
a set rate (receive, send, delete; SQS has no move API under moto), optionally
for one tenant or endpoint. Tasks hookline dead-lettered itself come back as
manual replays; poison messages stay where they are.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from hookline.adapters.dynamo.store import EndpointRepository, EventRepository, is_conditional_failure
from hookline.adapters.queues import TaskQueue
from hookline.core import ids
from hookline.core.clock import iso
from hookline.core.errors import NotFound, ValidationFailed
from hookline.core.models import DeliveryTask, MalformedTask
from hookline.core.settings import Settings
from hookline.core.validation import reject_unknown, time_param

REPLAY = "rpl"
REPLAYABLE_STATUSES = ("failed", "paused")
MAX_PAGE = 100
PAGE_SECONDS = 600  # one step queues at most ten minutes' worth at the endpoint's rate


def _key(tenant: str, replay_id: str) -> dict[str, str]:
    return {"pk": f"RPL#{tenant}#{replay_id}", "sk": "RPL"}


@dataclass(frozen=True)
class ReplayWindow:
    since: str
    until: str
    status: str


def parse_window(body: dict[str, Any]) -> ReplayWindow:
    reject_unknown(body, {"since", "until", "status"})
    for name in ("since", "until"):
        if name not in body:
            raise ValidationFailed(f"'{name}' is required, as an ISO 8601 time", code="missing_field")
    values = {name: iso(time_param(body[name], name)) for name in ("since", "until")}
    if values["since"] >= values["until"]:
        raise ValidationFailed("'since' must be before 'until'")
    status = body.get("status", "failed")
    if status not in REPLAYABLE_STATUSES:
        raise ValidationFailed(f"'status' must be one of {', '.join(REPLAYABLE_STATUSES)}")
    return ReplayWindow(values["since"], values["until"], status)


class ReplayRepository:
    def __init__(self, table: Any, ttl_attribute: str = "expires_at"):
        self._table = table
        self._ttl = ttl_attribute

    def create(self, tenant: str, replay_id: str, endpoint_id: str, window: ReplayWindow, now_iso: str, expires_at: int) -> bool:
        item = {
            **_key(tenant, replay_id),
            "id": replay_id,
            "endpoint_id": endpoint_id,
            "since": window.since,
            "until": window.until,
            "status_filter": window.status,
            "matched": 0,
            "queued": 0,
            "delivered": 0,
            "failed": 0,
            "done_paging": False,
            "step": 0,
            "created_at": now_iso,
            self._ttl: expires_at,
        }
        try:
            self._table.put_item(Item=item, ConditionExpression="attribute_not_exists(pk)")
        except ClientError as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def get(self, tenant: str, replay_id: str) -> dict[str, Any] | None:
        item = self._table.get_item(Key=_key(tenant, replay_id), ConsistentRead=True).get("Item")
        return dict(item) if item else None

    def begin_step(self, tenant: str, replay_id: str, step: int, cursor: str | None, done: bool, tasks: list[str], matched: int) -> bool:
        """Advance the cursor and record the page's tasks, once: False if this step was already taken."""
        try:
            self._table.update_item(
                Key=_key(tenant, replay_id),
                UpdateExpression="SET step = :next, cursor_token = :c, done_paging = :d, pending_tasks = :t ADD matched :m, queued :m",
                ConditionExpression="step = :step",
                ExpressionAttributeValues={":next": step + 1, ":step": step, ":c": cursor or "", ":d": done, ":t": tasks, ":m": matched},
            )
        except ClientError as exc:
            if is_conditional_failure(exc):
                return False
            raise
        return True

    def end_step(self, tenant: str, replay_id: str, step: int) -> None:
        self._table.update_item(
            Key=_key(tenant, replay_id),
            UpdateExpression="REMOVE pending_tasks",
            ConditionExpression="step = :step",
            ExpressionAttributeValues={":step": step},
        )

    def count(self, tenant: str, replay_id: str, outcome: str) -> None:
        """A replayed delivery finished: delivered or failed."""
        name = "delivered" if outcome == "delivered" else "failed"
        self._table.update_item(Key=_key(tenant, replay_id), UpdateExpression=f"ADD {name} :one", ExpressionAttributeValues={":one": 1})


def public(item: dict[str, Any]) -> dict[str, Any]:
    queued, delivered, failed = int(item["queued"]), int(item["delivered"]), int(item["failed"])
    running = not item.get("done_paging") or item.get("pending_tasks") or delivered + failed < queued
    return {
        "id": item["id"],
        "endpoint_id": item["endpoint_id"],
        "status": "running" if running else "completed",
        "since": item["since"],
        "until": item["until"],
        "filter": item["status_filter"],
        "matched": int(item["matched"]),
        "queued": queued,
        "delivered": delivered,
        "failed": failed,
        "created_at": item["created_at"],
    }


class ReplayService:
    def __init__(
        self,
        replays: ReplayRepository,
        events: EventRepository,
        endpoints: EndpointRepository,
        retry_queue: TaskQueue,
        jobs: TaskQueue,
        settings: Settings,
        clock: Callable[[], datetime],
    ):
        self._replays = replays
        self._events = events
        self._endpoints = endpoints
        self._retry = retry_queue
        self._jobs = jobs
        self._settings = settings
        self._clock = clock

    # -- the API side -----------------------------------------------------------------

    def start(self, tenant: str, endpoint_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Idempotent for a minute: the same request names the same replay."""
        endpoint = self._endpoints.get(tenant, endpoint_id) if ids.is_id(endpoint_id, ids.ENDPOINT) else None
        if endpoint is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        window = parse_window(body)
        now = self._clock()
        minute = now.strftime("%Y-%m-%dT%H:%M")
        replay_id = ids.derived_id(REPLAY, tenant, endpoint_id, window.since, window.until, window.status, minute)
        expires_at = int((now + timedelta(days=self._settings.retention_days)).timestamp())
        created = self._replays.create(tenant, replay_id, endpoint_id, window, iso(now), expires_at)
        item = self._replays.get(tenant, replay_id)
        if created or (item and int(item.get("step", 0)) == 0):
            # A repeat whose first attempt never got its job queued queues it now; a duplicate job is harmless.
            self._jobs.send_bodies([json.dumps({"kind": "replay", "tenant": tenant, "replay_id": replay_id})])
        return {"id": replay_id, "status": "running"}

    def describe(self, tenant: str, replay_id: str) -> dict[str, Any]:
        item = self._replays.get(tenant, replay_id) if ids.is_id(replay_id, REPLAY) else None
        if item is None:
            raise NotFound(f"replay {replay_id[:64]} not found")
        return public(item)

    # -- the replay function's side ------------------------------------------------------

    def step(self, tenant: str, replay_id: str) -> None:
        item = self._replays.get(tenant, replay_id)
        if item is None:
            return
        step = int(item["step"])
        if item.get("pending_tasks"):
            # A previous run died mid-step: finish it (restarts are idempotent, duplicate tasks dropped).
            self._queue_page(tenant, replay_id, step, [DeliveryTask.from_message(t) for t in item["pending_tasks"]], item)
        if item.get("done_paging"):
            return
        endpoint = self._endpoints.get(tenant, item["endpoint_id"])
        rate = endpoint.rate_limit_per_second if endpoint else 1.0
        page_size = max(1, min(MAX_PAGE, int(rate * PAGE_SECONDS)))
        status = item["status_filter"]
        page, cursor = self._events.deliveries_by_status(
            tenant, item["endpoint_id"], status, item["since"], item["until"] + "~", page_size, item.get("cursor_token") or None
        )
        page = [d for d in page if d.replay_id != replay_id]  # already restarted by this replay and failed again
        tasks = [
            DeliveryTask(d.tenant, d.event_id, d.id, d.endpoint_id, d.attempts_made + 1, d.generation + 1, trigger="manual", replay_id=replay_id) for d in page
        ]
        if not self._replays.begin_step(tenant, replay_id, step, cursor, cursor is None, [t.to_message() for t in tasks], len(tasks)):
            return  # a duplicate job took this step already
        self._queue_page(tenant, replay_id, step + 1, tasks, item, status)
        if cursor is not None:
            delay = min(900, math.ceil(len(tasks) / rate)) if tasks else 0
            self._jobs.send_bodies([json.dumps({"kind": "replay", "tenant": tenant, "replay_id": replay_id})], [delay])

    def _queue_page(self, tenant: str, replay_id: str, step: int, tasks: list[DeliveryTask], item: dict[str, Any], status: str = "") -> None:
        now = iso(self._clock())
        statuses = (status or item["status_filter"],)
        for t in tasks:
            self._events.restart(t.tenant, t.event_id, t.delivery_id, t.generation - 1, statuses, now, replay_id)
        endpoint = self._endpoints.get(tenant, item["endpoint_id"])
        rate = endpoint.rate_limit_per_second if endpoint else 1.0
        self._retry.send(tasks, delays=[int(i / rate) for i in range(len(tasks))])
        self._replays.end_step(tenant, replay_id, step)


@dataclass
class DrainReport:
    moved: int = 0
    skipped: int = 0
    poison: int = 0
    more: bool = False

    def public(self) -> dict[str, Any]:
        return {"moved": self.moved, "skipped": self.skipped, "poison": self.poison, "more": self.more}


class DlqDrain:
    """Operators: move the DLQ's messages to the retry queue at a set pace."""

    def __init__(self, sqs: Any, dlq_url: str, retry_url: str, sleep: Callable[[float], None] = time.sleep, monotonic: Callable[[], float] = time.monotonic):
        self._sqs = sqs
        self._dlq = dlq_url
        self._retry = retry_url
        self._sleep = sleep
        self._monotonic = monotonic

    def run(self, rate: float, tenant: str = "", endpoint_id: str = "", max_messages: int = 10_000, time_budget: float = 90.0) -> DrainReport:
        report = DrainReport()
        started = self._monotonic()
        empty = 0
        while report.moved < max_messages:
            if self._monotonic() - started > time_budget:
                report.more = True
                return report
            batch = self._sqs.receive_message(
                QueueUrl=self._dlq, MaxNumberOfMessages=10, VisibilityTimeout=60, MessageAttributeNames=["All"], WaitTimeSeconds=0
            ).get("Messages", [])
            if not batch:
                empty += 1
                if empty >= 2:
                    return report
                continue
            empty = 0
            for message in batch:
                self._one(message, rate, tenant, endpoint_id, report)
        report.more = True
        return report

    def _one(self, message: dict[str, Any], rate: float, tenant: str, endpoint_id: str, report: DrainReport) -> None:
        reason = message.get("MessageAttributes", {}).get("reason", {}).get("StringValue", "")
        try:
            task = DeliveryTask.from_message(message["Body"])
        except MalformedTask:
            task = None
        if reason == "poison" or task is None:
            report.poison += 1  # stays for a human; it becomes visible again after the timeout
            return
        if (tenant and task.tenant != tenant) or (endpoint_id and task.endpoint_id != endpoint_id):
            report.skipped += 1  # left invisible for the receive's timeout, so one pass sees it once
            return
        # Send, then delete: a crash in between leaves a duplicate, which the
        # delivery's generation check and claim drop.
        self._sqs.send_message(QueueUrl=self._retry, MessageBody=message["Body"])
        self._sqs.delete_message(QueueUrl=self._dlq, ReceiptHandle=message["ReceiptHandle"])
        report.moved += 1
        self._sleep(1.0 / rate)


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The replay function: SQS replay jobs, or a direct `{"kind": "drain_dlq", ...}` invocation."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from hookline.adapters.observability import get_logger
    from hookline.wiring import container

    if "Records" not in event:
        if event.get("kind") != "drain_dlq":
            return {"error": {"code": "bad_request", "message": "expected SQS records or {'kind': 'drain_dlq'}"}}
        settings = container.get_settings()
        rate = float(event.get("rate") or settings.dlq_drain_rate_per_second)
        report = container.dlq_drain().run(
            rate=max(rate, 0.1),
            tenant=str(event.get("tenant") or ""),
            endpoint_id=str(event.get("endpoint_id") or ""),
            max_messages=int(event.get("max_messages") or 10_000),
        )
        get_logger().info("dlq drained", extra=report.public())
        return report.public()

    service = container.replay_service()

    def record_handler(record: SQSRecord) -> None:
        job = json.loads(record.body)
        if job.get("kind") == "replay":
            logger = get_logger()
            logger.append_keys(tenant=job["tenant"], replay_id=job["replay_id"])
            try:
                service.step(str(job["tenant"]), str(job["replay_id"]))
            finally:
                logger.remove_keys(["tenant", "replay_id"])

    return dict(process_partial_response(event=event, record_handler=record_handler, processor=BatchProcessor(event_type=EventType.SQS), context=context))
