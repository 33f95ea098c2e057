"""The delivery queues' consumer: a batch of SQS records in, partial failures out.

This module translates only: the SQS event into the worker's records, the
worker's answer into the partial batch response, the logs and the metrics. The
worker owns the batch (hookline.services.delivery.worker.DeliveryWorker.run_batch:
resolved, planned once per endpoint, delivered side by side, released); a record
fails (and SQS redelivers it after the visibility timeout) only when hookline
itself could not finish it, and poison is set aside at once, never retried.

Every record dead-lettered because of hookline itself (poison set aside, or a
record failing on the last receive its queue's redrive policy allows) is counted
in the `InternalFailures` metric, which a deploy's canary rolls back on; a task
whose receiver exhausted its attempts is not (hookline.core.internal_failures).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache, partial
from typing import Any

from hookline.adapters import metrics
from hookline.adapters.observability import get_logger
from hookline.core import internal_failures
from hookline.core.models import DeliveryTask
from hookline.core.reports import DeliveryReport
from hookline.services.delivery.endpoint_pool import carried
from hookline.services.delivery.ordered import LineOutcome, LineRecord, OrderedLane
from hookline.services.delivery.worker import Around, BatchAnswer, BatchRecord, DeliveryWorker
from hookline.wiring import container
from hookline.wiring.container import DeliveryLane, Lane

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


def _records(event: dict[str, Any]) -> list[BatchRecord]:
    return [BatchRecord(str(r.get("messageId", "")), str(r.get("body", "")), _received_before(r)) for r in event.get("Records", [])]


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


def _logged(successes: bool) -> Around:
    """One task's delivery with its correlation ids on every log line written meanwhile on its thread (the services'
    included), and its attempt's line after (`log_report`)."""

    def around(task: DeliveryTask, deliver: Callable[[], DeliveryReport]) -> DeliveryReport:
        logger = get_logger()
        logger.thread_safe_append_keys(tenant=task.tenant, event_id=task.event_id, delivery_id=task.delivery_id, endpoint_id=task.endpoint_id)
        try:
            report = deliver()
        finally:
            logger.thread_safe_clear_keys()
        log_report(report, successes)
        return report

    return around


def _count_internal_failures(event: dict[str, Any], failed: dict[str, BaseException], poison: list[tuple[str, str]], lane: Lane) -> None:
    """The `InternalFailures` metric: the poison set aside, and the failed records on their last receive (SQS moves
    them to the dead-letter queue now). It must not hide the batch's own answer or error."""
    records = event.get("Records", [])
    by_id = {str(r.get("messageId", "")): r for r in records}
    try:
        found = [internal_failures.poison(by_id[message_id], why) for message_id, why in poison]
        metrics.publish_internal_failures(found + internal_failures.last_receives(records, failed, container.max_receive_count(lane)))
    except Exception:
        get_logger().exception("internal failures not counted")


def handle_batch(event: dict[str, Any], context: Any, worker: DeliveryWorker | None = None, lane: DeliveryLane = "first") -> dict[str, Any]:
    """The batch's partial failures (ReportBatchItemFailures): the records `DeliveryWorker.run_batch` could not
    finish. A batch whose every record failed fails the invocation (BatchProcessingError), as Powertools' batch
    processor does. Its records dead-lettered because of hookline are counted (`InternalFailures`) however it ends.

    `lane`: the queue the function drains, as its wiring says (functions/delivery/handler.py: the delivery function
    drains the delivery queue's first attempts, the retry function, the same code, the retry queue).

    Not Powertools' AsyncBatchProcessor: an asyncio loop for threads that do the work cost the delivery handler
    about 0.4 ms of CPU a task on the invocation's own thread, before the first request and after the last.
    """
    answer = BatchAnswer()
    records = event.get("Records", [])
    try:
        worker = worker or container.delivery_worker()
        around = _logged(container.log_successes())
        try:
            worker.run_batch(_records(event), _task_pool(), first_lane=lane == "first", around=around, answer=answer)
        finally:
            metrics.publish(answer.reports)
            log_batch(len(records), answer.reports, len(answer.failed))
        failed = [str(r.get("messageId", "")) for r in records if str(r.get("messageId", "")) in answer.failed]
        if records and len(failed) == len(records):
            # Imported here: Powertools' batch package imports asyncio and its data classes, a sixth of this cold start.
            from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError, ExceptionInfo

            errors: list[ExceptionInfo] = [(type(e), e, e.__traceback__) for e in answer.failed.values()]
            raise BatchProcessingError(msg=f"All records failed processing. {len(errors)} individual errors logged separately below.", child_exceptions=errors)
        return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}
    except Exception as exc:  # the invocation fails: SQS hands every record out again, or moves it on its last receive
        for record in records:
            answer.failed.setdefault(str(record.get("messageId", "")), exc)
        raise
    finally:
        _count_internal_failures(event, answer.failed, answer.poison, lane)


# -- the ordered lane --------------------------------------------------------------------------------------------


def handle_ordered_batch(event: dict[str, Any], context: Any, lane: OrderedLane | None = None) -> dict[str, Any]:
    """The ordered lane's batch (topology.ORDERED): each endpoint's records (one SQS message group) in order, through
    `OrderedLane`, the endpoints side by side. The records each endpoint left on the queue (the one held, and those
    behind it) fail in the answer; SQS hands them out again, in order, once the held one is visible."""
    lane = lane or container.ordered_lane()
    outcomes: list[LineOutcome] = []
    lines: dict[str, list[LineRecord]] = {}
    for record in event.get("Records", []):
        message_id = str(record.get("messageId", ""))
        group = str(record.get("attributes", {}).get("MessageGroupId", ""))
        lines.setdefault(group, []).append(LineRecord(message_id, str(record.get("receiptHandle", "")), str(record.get("body", "")), _received_before(record)))
    around = _logged(container.log_successes())

    def deliver(task: DeliveryTask) -> DeliveryReport:
        return around(task, partial(lane.worker.deliver, task, None))

    def run(records: list[LineRecord]) -> LineOutcome:
        return lane.run(records, deliver)

    try:
        outcomes = list(_task_pool().map(carried(run), lines.values()))
        return {"batchItemFailures": [{"itemIdentifier": message_id} for o in outcomes for message_id in o.kept]}
    finally:
        reports = [r for o in outcomes for r in o.reports]
        _count_internal_failures(event, {k: v for o in outcomes for k, v in o.failed.items()}, [p for o in outcomes for p in o.poison], "ordered")
        try:
            metrics.publish(reports)
        except Exception:  # the count must not hide the batch's own answer or error
            get_logger().exception("internal failures not counted")
        log_batch(len(event.get("Records", [])), reports, sum(len(o.kept) for o in outcomes))
