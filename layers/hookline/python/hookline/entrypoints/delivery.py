"""The delivery queues' consumer: a batch of SQS records in, partial failures out.

The batch is planned once per endpoint (limits, breaker, pauses), then its
records are delivered concurrently, so one slow receiver cannot push the batch
past the function timeout. A record fails (and SQS redelivers it after the
visibility timeout) only when hookline itself could not finish: a receiver's
failure is a recorded outcome, not a failed record. A record that is not a
delivery task fails too; after the redrive policy's receive count it rests in
the dead-letter queue.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import lru_cache
from typing import Any

from aws_lambda_powertools.utilities.batch import AsyncBatchProcessor, EventType, async_process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from hookline.adapters import metrics
from hookline.adapters.observability import get_logger
from hookline.core.models import DeliveryTask, MalformedTask
from hookline.core.reports import DeliveryReport
from hookline.services.delivery.fanout import carried
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.worker import DeliveryWorker
from hookline.wiring import container

DELIVERY_ATTEMPT = "delivery attempt"
DELIVERY_BATCH = "delivery batch"

# Threads for one batch's tasks at most (HOOKLINE_DELIVERY_BATCH_SIZE, 10 by default); a larger batch queues its excess.
MAX_BATCH_RECORDS = 100


def log_report(report: DeliveryReport, successes: bool = False) -> None:
    """One line for an attempt that did not succeed (and for every one with `successes`); the delivery log keeps them all."""
    if report.outcome == "succeeded" and not successes:
        return
    t = report.task
    get_logger().info(
        DELIVERY_ATTEMPT,
        extra={
            "tenant": t.tenant,
            "event_id": t.event_id,
            "delivery_id": t.delivery_id,
            "endpoint_id": t.endpoint_id,
            "attempt": t.attempt,
            "outcome": report.outcome,
            "status_code": report.status_code,
            "error": report.error,
            "duration_ms": report.duration_ms,
            "reason": report.reason,
        },
    )


def log_batch(records: int, reports: list[DeliveryReport], failed_records: int) -> None:
    """One summary line per batch: how many records, what became of them, the slowest answer."""
    outcomes = Counter(r.outcome for r in reports)
    get_logger().info(
        DELIVERY_BATCH,
        extra={
            "records": records,
            "outcomes": dict(sorted(outcomes.items())),
            "failed_records": failed_records,
            "endpoints": len({(r.task.tenant, r.task.endpoint_id) for r in reports}),
            "slowest_ms": max((r.duration_ms or 0 for r in reports), default=0),
        },
    )


def _resolve(event: dict[str, Any], worker: DeliveryWorker) -> dict[str, DeliveryTask | None]:
    """Each record's task as it should run; None for what needs no delivery (set aside, a duplicate redrive, or a repeat within the batch).

    A record whose resolution fails (e.g. DynamoDB is down) is left out, so it
    fails on its own below and SQS redelivers it.
    """
    resolved: dict[str, DeliveryTask | None] = {}
    seen: set[DeliveryTask] = set()
    for record in event.get("Records", []):
        message_id, body = record.get("messageId", ""), record.get("body", "")
        try:
            received = DeliveryTask.from_message(body)
            if received.fresh and _received_before(record):
                received = replace(received, fresh=False)  # its first receive may have sent: this copy claims
            task = worker.resolve(received)
            if task is not None and task in seen:
                # The same attempt twice in one batch (an idempotent ingest repeat
                # re-queued it): one copy runs, the other is done with.
                get_logger().info("duplicate task in batch", extra={"message_id": message_id, "delivery_id": task.delivery_id, "attempt": task.attempt})
                task = None
            elif task is not None:
                seen.add(task)
            resolved[message_id] = task
        except MalformedTask as exc:
            # Poison: logged with its reason and set aside, never retried, never failing the batch.
            worker.set_aside(body, str(exc))
            resolved[message_id] = None
        except Exception:
            get_logger().exception("could not resolve a task", extra={"message_id": message_id})
    return resolved


def _first_lane(event: dict[str, Any]) -> bool:
    """The batch came from the delivery queue (first attempts), not the retry queue: the queue name ends both the
    record's eventSourceARN and the retry queue's URL."""
    retry_queue = container.get_settings().retry_queue_url.rsplit("/", 1)[-1]
    sources = {str(r.get("eventSourceARN", "")).rsplit(":", 1)[-1] for r in event.get("Records", [])}
    return bool(sources) and retry_queue not in sources


def _received_before(record: dict[str, Any]) -> bool:
    """SQS handed this message out before (a crashed or timed-out invocation had it)."""
    try:
        return int(record.get("attributes", {}).get("ApproximateReceiveCount", "1")) > 1
    except (TypeError, ValueError):
        return True


@lru_cache(maxsize=1)
def _task_pool() -> ThreadPoolExecutor:
    """One pool for the life of the process (a warm Lambda reuses it): a batch's tasks run side by side, one thread each."""
    return ThreadPoolExecutor(max_workers=MAX_BATCH_RECORDS, thread_name_prefix="deliver")


def _deliver(worker: DeliveryWorker, task: DeliveryTask, plan: Plan | None) -> DeliveryReport:
    """One task; every log line written meanwhile on this thread (the services' included) carries its correlation ids."""
    logger = get_logger()
    logger.thread_safe_append_keys(tenant=task.tenant, event_id=task.event_id, delivery_id=task.delivery_id, endpoint_id=task.endpoint_id)
    try:
        return worker.deliver(task, plan)
    finally:
        logger.thread_safe_clear_keys()


def handle_batch(event: dict[str, Any], context: Any, worker: DeliveryWorker | None = None) -> dict[str, Any]:
    worker = worker or container.delivery_worker()
    successes = container.log_successes()
    resolved = _resolve(event, worker)
    plans = worker.plan((t for t in resolved.values() if t is not None), first_lane=_first_lane(event))
    processor = AsyncBatchProcessor(event_type=EventType.SQS)
    executor = _task_pool()

    reports: list[DeliveryReport] = []

    async def record_handler(record: SQSRecord) -> None:
        if record.message_id not in resolved:
            raise RuntimeError("task could not be resolved; SQS will redeliver it")
        task = resolved[record.message_id]
        if task is None:
            return
        loop = asyncio.get_running_loop()
        # run_in_executor does not carry context variables to the pool's thread; `carried` takes the invocation's log keys along.
        report = await loop.run_in_executor(executor, carried(_deliver), worker, task, plans.get(task))
        log_report(report, successes)
        reports.append(report)

    response: dict[str, Any] = {}
    try:
        response = dict(async_process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context))
    finally:
        worker.release(plans.values(), reports)
        metrics.publish(reports)
        log_batch(len(event.get("Records", [])), reports, len(response.get("batchItemFailures", [])))
    return response
