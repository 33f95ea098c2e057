"""The replay function: paged jobs from the replay queue, or the operators' DLQ drain invoked directly.

A record is one step of a bulk job (hookline.services.jobs, kind "job": a
re-enabled endpoint's re-queue, a deleted customer's endpoints, a broadcast's
fan-out, a customer's time-window replay); a step is idempotent, so a record that
fails is redelivered by SQS and finished then. The previous release's page of a
deleted customer's endpoints ("delete_customer_endpoints"), of a broadcast
("broadcast") or of a replay ("replay"), queued before this one was deployed,
starts that customer's deletion job, that broadcast's job or that replay's job.
The drain is a direct invocation `{"kind": "drain_dlq", "rate"?, "tenant"?,
"endpoint_id"?, "max_messages"?}` and answers with its DrainReport.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from hookline.adapters import metrics
from hookline.adapters.dlq import DrainReport
from hookline.adapters.observability import get_logger
from hookline.core.broadcast import LEGACY_BROADCAST_MESSAGE
from hookline.core.errors import envelope
from hookline.core.jobs import JOB_MESSAGE
from hookline.services.bulk import DELETE_CUSTOMER_ENDPOINTS
from hookline.services.customers import deletion_job_id
from hookline.services.replay import LEGACY_REPLAY_MESSAGE
from hookline.wiring import container


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if "Records" not in event:
        if event.get("kind") == SWEEP:
            return sweep()
        if event.get("kind") != "drain_dlq":
            return envelope("bad_request", "expected SQS records, {'kind': 'drain_dlq'} or {'kind': 'sweep'}")
        return drain(event)

    def record_handler(record: SQSRecord) -> None:
        job = json.loads(record.body)
        if job.get("kind") == JOB_MESSAGE:
            logger = get_logger()
            logger.append_keys(tenant=job["tenant"], job_id=job["job_id"])
            try:
                step = job.get("step")
                container.job_runner().step(str(job["tenant"]), str(job["job_id"]), None if step is None else int(step))
            finally:
                logger.remove_keys(["tenant", "job_id"])
        elif job.get("kind") == DELETE_CUSTOMER_ENDPOINTS:  # the previous release's message: its job does the rest
            tenant, uid, created_at = str(job["tenant"]), str(job["customer"]), str(job["created_at"])
            params = {"customer": uid, "customer_created_at": created_at}
            container.job_runner().start(tenant, DELETE_CUSTOMER_ENDPOINTS, params, job_id=deletion_job_id(tenant, uid, created_at))
        elif job.get("kind") == LEGACY_BROADCAST_MESSAGE:  # the previous release's message: the broadcast's job does the rest
            container.broadcast_service().fan_out(str(job["tenant"]), str(job["event_id"]))
        elif job.get("kind") == LEGACY_REPLAY_MESSAGE:  # the previous release's step of a replay: the replay's job does the rest
            container.replay_service().adopt(str(job["tenant"]), str(job["replay_id"]))

    return dict(process_partial_response(event=event, record_handler=record_handler, processor=BatchProcessor(event_type=EventType.SQS), context=context))


SWEEP = "sweep"


def sweep() -> dict[str, Any]:
    """The scheduled sweep (hookline.services.sweeper): its report, logged, and `UnqueuedFound` as a metric (alarmed on)."""
    report = container.sweeper().sweep()
    get_logger().info("sweep", extra=report)
    metrics.publish_sweep(report["unqueued_events"])
    return report


def drain(command: dict[str, Any], progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Move the DLQ's messages to the retry queue; the rate defaults to HOOKLINE_DLQ_DRAIN_RATE_PER_SECOND.

    Progress is logged after each batch, and handed to `progress` too (the local CLI prints it)."""

    def heard(so_far: DrainReport) -> None:
        get_logger().info("dlq drain progress", extra=so_far.public())
        if progress is not None:
            progress(so_far.public())

    settings = container.get_settings()
    rate = float(command.get("rate") or settings.dlq_drain_rate_per_second)
    report = container.dlq_drain().run(
        rate=max(rate, 0.1),
        tenant=str(command.get("tenant") or ""),
        endpoint_id=str(command.get("endpoint_id") or ""),
        max_messages=int(command.get("max_messages") or 10_000),
        progress=heard,
    )
    get_logger().info("dlq drained", extra=report.public())
    return report.public()
