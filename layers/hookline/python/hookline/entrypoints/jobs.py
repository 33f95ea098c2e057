"""The jobs function: every bulk job's steps from the jobs queue, or the operators' DLQ drain invoked directly.

A record is one step of a bulk job (hookline.services.jobs, kind "job": a
re-enabled endpoint's re-queue, a deleted customer's endpoints, a broadcast's
fan-out, a customer's time-window replay); a step is idempotent, so a record that
fails is redelivered by SQS and finished then. A message the previous release
queued starts the job this release runs for it (hookline.services.compat).
Direct invocations: the scheduled sweep `{"kind": "sweep"}` (which also runs the job queue's messages where the
function has no event source on it: HOOKLINE_SWEEP_RUNS_JOBS, at HOOKLINE_SIZE=small); the operators' DLQ drain
`{"kind": "drain_dlq", "rate"?, "tenant"?, "endpoint_id"?, "max_messages"?}`, which
starts a drain job (hookline.services.drain) and answers `{"job": …}` at once; and
`{"kind": "job", "job_id"}`, which answers the job as it stands (the CLI watches a
drain with it). Each sweep first moves the previous release's job queue (named `replay`) into the jobs queue
(hookline.services.jobsweep.Resend), for this release only.

A record that fails on the last receive the job queue's redrive policy allows is
about to be dead-lettered because of hookline itself: it is counted in the
`InternalFailures` metric (hookline.core.internal_failures), as the delivery
functions count theirs.
"""

from __future__ import annotations

import json
import time
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from hookline.adapters import metrics
from hookline.adapters.observability import get_logger
from hookline.core import internal_failures
from hookline.core.errors import DependencyFailed, HooklineError, envelope
from hookline.core.jobs import DRAIN_DLQ, JOB_MESSAGE
from hookline.services.jobsweep import PREVIOUS_COUNTS, PREVIOUS_POLL_SECONDS, PREVIOUS_WINDOW_SECONDS, JobQueueSweep, Resend
from hookline.wiring import container


def handle(event: Any, context: Any) -> dict[str, Any]:
    if not isinstance(event, dict) or "Records" not in event:
        return direct(event, context)
    failed: dict[str, BaseException] = {}  # by message id, why its record failed

    def record_handler(record: SQSRecord) -> None:
        try:
            run(record)
        except Exception as exc:
            failed[record.message_id] = exc
            raise

    try:
        return dict(process_partial_response(event=event, record_handler=record_handler, processor=BatchProcessor(event_type=EventType.SQS), context=context))
    except Exception as exc:  # the invocation fails: SQS hands every record out again, or moves it on its last receive
        for record in event.get("Records", []):
            failed.setdefault(str(record.get("messageId", "")), exc)
        raise
    finally:
        try:
            metrics.publish_internal_failures(internal_failures.last_receives(event.get("Records", []), failed, container.max_receive_count("jobs")))
        except Exception:  # the count must not hide the batch's own answer or error
            get_logger().exception("internal failures not counted")


def run(record: SQSRecord) -> None:
    """One record of the job queue: a job's step, or a previous release's message that starts its job (services.compat)."""
    job = json.loads(record.body)
    if job.get("kind") == JOB_MESSAGE:
        logger = get_logger()
        logger.thread_safe_append_keys(tenant=job["tenant"], job_id=job["job_id"])
        try:
            step = job.get("step")
            container.job_runner().step(str(job["tenant"]), str(job["job_id"]), None if step is None else int(step))
        finally:
            logger.thread_safe_remove_keys(["tenant", "job_id"])
    elif not container.previous_release_messages().handle(job):
        get_logger().warning("job queue message of no known kind", extra={"kind": str(job.get("kind"))[:64]})


SWEEP = "sweep"


def sweep(context: Any = None) -> dict[str, Any]:
    """The scheduled sweep (hookline.services.sweeper): its report, logged, and `UnqueuedFound` (alarmed on) and
    `OverdueRetriesRequeued` as metrics. Where the function has no event source on the job queue (HOOKLINE_SWEEP_RUNS_JOBS,
    at HOOKLINE_SIZE=small), it then runs the queue's messages through `handle`, as the event source would
    (hookline.services.jobsweep), even when the sweep itself failed; the report counts them. Before that it moves the
    previous release's job queue into the jobs queue (`move_previous_jobs`), at every size."""
    try:
        report: dict[str, Any] = container.sweeper().sweep()
        get_logger().info("sweep", extra=report)
        metrics.publish_sweep(report["unqueued_events"])
        metrics.publish_overdue_retries(report["overdue_retries_requeued"])
    finally:
        try:
            moved = move_previous_jobs()
        finally:
            jobs = run_jobs(context)
    return {**report, **moved, **jobs}


def move_previous_jobs() -> dict[str, int]:
    """The previous release's job queue's messages, each sent to the jobs queue and deleted only once sent."""
    messages = container.previous_job_messages()
    if messages is None:
        return {}
    sweep = JobQueueSweep(
        messages, Resend(container.jobs_queue()), time.monotonic, container.job_batch_size(), PREVIOUS_WINDOW_SECONDS, PREVIOUS_COUNTS, PREVIOUS_POLL_SECONDS
    )
    moved = sweep.run()
    if any(moved.values()):
        get_logger().info("previous release's job messages moved to the jobs queue", extra=moved)
    return moved


def run_jobs(context: Any) -> dict[str, int]:
    """The job queue's messages, received by the sweep itself where no event source runs them; {} where one does."""
    messages = container.swept_job_messages()
    if messages is None:
        return {}

    def run_batch(records: list[dict[str, Any]]) -> set[str]:
        answer = handle({"Records": records}, context)
        return {str(failure["itemIdentifier"]) for failure in answer.get("batchItemFailures", [])}

    jobs = JobQueueSweep(messages, run_batch, time.monotonic, container.job_batch_size()).run()
    get_logger().info("jobs run by the sweep", extra=jobs)
    return jobs


def direct(command: Any, context: Any = None) -> dict[str, Any]:
    """A direct invocation: the scheduled sweep, or the operators' CLI starting a DLQ drain or reading a job. A refusal,
    or a dependency that failed, is answered as an error (the CLI prints it), not raised as the function's error."""
    kind = command.get("kind") if isinstance(command, dict) else None
    try:
        if kind == SWEEP:
            return sweep(context)
        if kind == DRAIN_DLQ:
            started = container.drain_control().start(command)
            get_logger().info("dlq drain started", extra=started["job"])
            return started
        if kind == READ_JOB:
            return container.drain_control().describe(command)
    except HooklineError as refused:
        return refused.envelope()
    except DependencyFailed as failed:
        get_logger().warning("direct invocation failed on a dependency", extra={"kind": kind, "cause": failed.cause})
        return envelope("dependency_failed", f"{failed}; invoke it again (a drain started again within the minute is the same drain)")
    return envelope("bad_request", f"expected SQS records, or a direct invocation of kind {SWEEP!r}, {DRAIN_DLQ!r} or {READ_JOB!r}")


READ_JOB = "job"  # {"kind": "job", "job_id", "tenant"?}: a job as GET /v1/jobs/{id} shows it (the operators' own by default)
