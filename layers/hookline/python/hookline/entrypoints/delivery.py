"""The delivery queues' consumer: a batch of SQS records in, partial failures out.

The batch is planned once per endpoint (limits, breaker, pauses), then its
records are delivered concurrently, so one slow receiver cannot push the batch
past the function timeout. A record fails (and SQS redelivers it after the
visibility timeout) only when hookline itself could not finish: a receiver's
failure is a recorded outcome, not a failed record. A record that is not a
delivery task, or a task whose delivery no longer exists, is poison: set aside
on the dead-letter queue at once, never retried.

Every record dead-lettered because of hookline itself (poison set aside, or a
record failing on the last receive its queue's redrive policy allows) is counted
in the `InternalFailures` metric, which a deploy's canary rolls back on; a task
whose receiver exhausted its attempts is not (hookline.core.internal_failures).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError, ExceptionInfo

from hookline.adapters import metrics
from hookline.adapters.observability import get_logger
from hookline.core import internal_failures
from hookline.core.internal_failures import InternalFailure
from hookline.core.models import DeliveryTask, MalformedTask
from hookline.core.reports import SET_ASIDE, DeliveryReport
from hookline.services.delivery.endpoint_pool import carried
from hookline.services.delivery.ordered import LineOutcome, LineRecord, OrderedLane
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.worker import DeliveryWorker, ReceivedTask
from hookline.wiring import container
from hookline.wiring.container import DeliveryLane

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


@dataclass
class Fate:
    """What hookline itself could not do with a batch's records: those that failed (by message id, why) and the poison it set aside."""

    failed: dict[str, BaseException] = field(default_factory=dict)
    poison: list[InternalFailure] = field(default_factory=list)

    def internal_failures(self, event: dict[str, Any], max_receive_count: int) -> list[InternalFailure]:
        """The poison, and the failed records on their last receive (SQS moves them to the dead-letter queue now)."""
        return [*self.poison, *internal_failures.last_receives(event.get("Records", []), self.failed, max_receive_count)]


def _resolve(event: dict[str, Any], worker: DeliveryWorker, fate: Fate | None = None) -> dict[str, DeliveryTask | None]:
    """Each record's task as it should run (the worker decides: `DeliveryWorker.resolve_batch`); None for what needs
    no delivery. A record whose resolution failed (e.g. DynamoDB is down) is left out, so it fails on its own below
    and SQS redelivers it; `fate` notes why, and the poison set aside."""
    fate = fate if fate is not None else Fate()
    resolved: dict[str, DeliveryTask | None] = {}
    received: list[ReceivedTask] = []
    for record in event.get("Records", []):
        message_id, body = record.get("messageId", ""), record.get("body", "")
        try:
            received.append(ReceivedTask(message_id, DeliveryTask.from_message(body), _received_before(record)))
        except MalformedTask as exc:
            # Poison: logged with its reason and set aside, never retried, never failing the batch.
            worker.set_aside(body, str(exc))
            resolved[message_id] = None
            fate.poison.append(internal_failures.poison(record, type(exc).__name__))
    for message_id, outcome in worker.resolve_batch(received).items():
        if isinstance(outcome, Exception):
            get_logger().error("could not resolve a task", extra={"message_id": message_id}, exc_info=outcome)
            fate.failed[message_id] = outcome
        else:
            resolved[message_id] = outcome
    return resolved


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


def handle_batch(event: dict[str, Any], context: Any, worker: DeliveryWorker | None = None, lane: DeliveryLane = "first") -> dict[str, Any]:
    """The batch's partial failures; its records dead-lettered because of hookline are counted (`InternalFailures`) however it ends.

    `lane`: the queue the function drains, as its wiring says (functions/delivery/handler.py: the delivery function
    drains the delivery queue's first attempts, the retry function, the same code, the retry queue).
    """
    fate = Fate()
    try:
        return _handle_batch(event, worker, fate, lane)
    except Exception as exc:  # the invocation fails: SQS hands every record out again, or moves it on its last receive
        for record in event.get("Records", []):
            fate.failed.setdefault(str(record.get("messageId", "")), exc)
        raise
    finally:
        try:
            metrics.publish_internal_failures(fate.internal_failures(event, container.max_receive_count(lane)))
        except Exception:  # the count must not hide the batch's own answer or error
            get_logger().exception("internal failures not counted")


def _handle_batch(event: dict[str, Any], worker: DeliveryWorker | None, fate: Fate, lane: DeliveryLane) -> dict[str, Any]:
    worker = worker or container.delivery_worker()
    successes = container.log_successes()
    resolved = _resolve(event, worker, fate)
    plans = worker.plan((t for t in resolved.values() if t is not None), first_lane=lane == "first")
    reports: list[DeliveryReport] = []

    def deliver(record: dict[str, Any]) -> None:
        message_id = str(record.get("messageId", ""))
        try:
            if message_id not in resolved:
                raise RuntimeError("task could not be resolved; SQS will redeliver it")
            task = resolved[message_id]
            if task is None:
                return
            report = _deliver(worker, task, plans.get(task))
            log_report(report, successes)
            reports.append(report)
            if report.path == SET_ASIDE:  # its delivery is gone: poison
                fate.poison.append(internal_failures.poison(record, "DeliveryNotFound"))
        except Exception as exc:  # the record fails (SQS redelivers it); its resolution's own error, when that failed, says more
            fate.failed.setdefault(message_id, exc)
            raise

    response: dict[str, Any] = {}
    try:
        response = side_by_side(event.get("Records", []), deliver)
    finally:
        worker.release(plans.values(), reports)
        metrics.publish(reports)
        log_batch(len(event.get("Records", [])), reports, len(response.get("batchItemFailures", [])))
    return response


def side_by_side(records: list[dict[str, Any]], handle: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Each record handled on a thread of its own (`_task_pool`, the invocation's log keys carried along); the
    partial batch response SQS reads (ReportBatchItemFailures): the records whose handling raised. A batch whose
    every record failed fails the invocation (BatchProcessingError), as Powertools' batch processor does.

    Not Powertools' AsyncBatchProcessor: an asyncio loop for threads that do the work cost the delivery handler
    about 0.4 ms of CPU a task on the invocation's own thread, before the first request and after the last."""
    pool = _task_pool()
    running = [(record, pool.submit(carried(handle), record)) for record in records]
    failed: list[dict[str, str]] = []
    errors: list[ExceptionInfo] = []
    for record, future in running:
        error = future.exception()
        if error is not None:
            failed.append({"itemIdentifier": str(record.get("messageId", ""))})
            errors.append((type(error), error, error.__traceback__))
    if records and len(failed) == len(records):
        raise BatchProcessingError(msg=f"All records failed processing. {len(errors)} individual errors logged separately below.", child_exceptions=errors)
    return {"batchItemFailures": failed}


# -- the ordered lane --------------------------------------------------------------------------------------------


def handle_ordered_batch(event: dict[str, Any], context: Any, lane: OrderedLane | None = None) -> dict[str, Any]:
    """The ordered lane's batch (topology.ORDERED): each endpoint's records (one SQS message group) in order, through
    `OrderedLane`, the endpoints side by side. The records each endpoint left on the queue (the one held, and those
    behind it) fail in the answer; SQS hands them out again, in order, once the held one is visible."""
    lane = lane or container.ordered_lane()
    fate = Fate()
    outcomes: list[LineOutcome] = []
    lines: dict[str, list[LineRecord]] = {}
    by_id: dict[str, dict[str, Any]] = {}
    for record in event.get("Records", []):
        message_id = str(record.get("messageId", ""))
        by_id[message_id] = record
        group = str(record.get("attributes", {}).get("MessageGroupId", ""))
        lines.setdefault(group, []).append(LineRecord(message_id, str(record.get("receiptHandle", "")), str(record.get("body", "")), _received_before(record)))
    successes = container.log_successes()

    def deliver(task: DeliveryTask) -> DeliveryReport:
        report = _deliver(lane.worker, task, None)
        log_report(report, successes)
        return report

    def run(records: list[LineRecord]) -> LineOutcome:
        return lane.run(records, deliver)

    try:
        outcomes = list(_task_pool().map(carried(run), lines.values()))
        return {"batchItemFailures": [{"itemIdentifier": message_id} for o in outcomes for message_id in o.kept]}
    finally:
        for o in outcomes:
            fate.failed.update(o.failed)
            fate.poison.extend(internal_failures.poison(by_id[message_id], why) for message_id, why in o.poison)
        reports = [r for o in outcomes for r in o.reports]
        try:
            metrics.publish_internal_failures(fate.internal_failures(event, container.max_receive_count("ordered")))
            metrics.publish(reports)
        except Exception:  # the count must not hide the batch's own answer or error
            get_logger().exception("internal failures not counted")
        log_batch(len(event.get("Records", [])), reports, sum(len(o.kept) for o in outcomes))
