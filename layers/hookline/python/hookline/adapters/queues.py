"""Delivery tasks onto the SQS queues (TaskQueue), and back for later (TaskScheduler: an SQS delay, or a wait in
the Step Functions state machine, noted for the sweeper; the DLQ for what is set aside).

The operators' DLQ drain (hookline.adapters.dlq) is the other module that talks to SQS.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Protocol

from hookline.adapters.failures import translate_failures
from hookline.core.clock import iso
from hookline.core.errors import DependencyFailed
from hookline.core.models import DeliveryTask
from hookline.core.reports import HELD
from hookline.core.sqs import MAX_BATCH_ENTRIES, MAX_DELAY_SECONDS
from hookline.core.waits import how_to_wait, waiting

SEND_TRIES = 3


class QueueError(DependencyFailed):
    """Some tasks could not be queued; the caller may retry the whole enqueue."""


def ordered_entry(task: DeliveryTask) -> dict[str, str]:
    """A task's entry on the ordered lane (a FIFO queue): its endpoint is its message group, so SQS hands out one
    endpoint's tasks in the order they were sent, and none while one of them is in flight. The deduplication id is
    new for each enqueue (kept across the tries of that one enqueue): a task queued again on purpose (a re-queue after
    `enable`, a replay) must not be dropped as a duplicate within SQS's five minutes; the attempt claim already
    keeps two copies from both sending."""
    return {"MessageBody": task.to_message(), "MessageGroupId": task.endpoint_id, "MessageDeduplicationId": uuid.uuid4().hex}


@translate_failures
class TaskQueue:
    """`ordered_queue_url`: where the tasks of ordered endpoints go (`DeliveryTask.ordered`), whatever this queue is."""

    def __init__(self, client: Any, queue_url: str, ordered_queue_url: str = ""):
        self._sqs = client
        self._url = queue_url
        self._ordered_url = ordered_queue_url

    def enqueue(self, tasks: list[DeliveryTask], delay_seconds: int = 0, delays: list[int] | None = None) -> None:
        """Queue tasks in batches of ten (one SQS request each), each with its own delay if `delays` is given. The
        tasks of ordered endpoints go to the ordered lane, in the order given, without delay (a FIFO queue has none
        per message).

        Raises DependencyFailed (QueueError when SQS refused entries) on any failure.
        """
        waits = delays or [delay_seconds] * len(tasks)
        ordered = [ordered_entry(t) for t in tasks if t.ordered and self._ordered_url]
        if ordered:
            self._put_entries(self._ordered_url, ordered)
        rest = [(t.to_message(), w) for t, w in zip(tasks, waits, strict=True) if not (t.ordered and self._ordered_url)]
        if rest:
            self.enqueue_bodies([b for b, _ in rest], [w for _, w in rest])

    def enqueue_bodies(self, bodies: list[str], delays: list[int] | None = None) -> None:
        waits = delays or [0] * len(bodies)
        self._put_entries(self._url, [{"MessageBody": b, "DelaySeconds": min(MAX_DELAY_SECONDS, max(0, w))} for b, w in zip(bodies, waits, strict=True)])

    def _put_entries(self, url: str, given: list[dict[str, Any]]) -> None:
        for start in range(0, len(given), MAX_BATCH_ENTRIES):
            chunk = given[start : start + MAX_BATCH_ENTRIES]
            entries = [{"Id": str(i), **e} for i, e in enumerate(chunk)]
            for attempt in range(SEND_TRIES):
                failed = self._sqs.send_message_batch(QueueUrl=url, Entries=entries).get("Failed") or []
                if not failed:
                    break
                # Only the entries SQS refused go again (a batch can partly succeed).
                refused = {f["Id"] for f in failed}
                entries = [e for e in entries if e["Id"] in refused]
                if attempt + 1 < SEND_TRIES:
                    time.sleep(0.05 * 2**attempt)
            else:
                raise QueueError(f"{len(entries)} of {len(chunk)} tasks were not queued: {failed[0].get('Message', '')}")


def execution_name(task: DeliveryTask, deferred_until: int | None = None) -> str:
    """Derived from the delivery and attempt, so starting the same retry's wait twice is a no-op. A deferral waits
    the same attempt again, perhaps after a wait of its own: its name also carries its due second, or it would
    collide with that closed execution (ExecutionAlreadyExists) and never wait at all."""
    name = f"{task.delivery_id}-g{task.generation}-a{task.attempt}"
    return name if deferred_until is None else f"{name}-d{deferred_until}"


class WaitNotes(Protocol):
    """The notes of tasks waiting in Step Functions (hookline.adapters.dynamo.waits.RetryWaitRepository)."""

    def open(self, task: DeliveryTask) -> None: ...

    def close(self, tasks: list[DeliveryTask]) -> None: ...


@translate_failures
class TaskScheduler:
    """Puts a task back for later: SQS DelaySeconds for short waits, Step Functions for long ones.

    Every scheduled task goes to the retry queue, so a retry backlog never
    delays first attempts.
    """

    def __init__(
        self,
        sqs: Any,
        sfn: Any,
        retry_queue_url: str,
        dead_letter_queue_url: str,
        state_machine_arn: str,
        sqs_max_delay_seconds: int,
        waits: WaitNotes | None = None,
        hops_up_to_seconds: int = 0,
    ):
        self._sqs = sqs
        self._sfn = sfn
        self._retry_url = retry_queue_url
        self._dlq_url = dead_letter_queue_url
        self._machine = state_machine_arn
        self._sqs_max = sqs_max_delay_seconds
        self._waits = waits
        self._hops_up_to = hops_up_to_seconds

    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str:
        """Returns the path taken: `sqs`, `hops` or `stepfunctions` (hookline.core.waits.how_to_wait).

        A retry whose delay is at most `sqs_max_delay_seconds` is one send with
        DelaySeconds. A longer one, up to `hops_up_to_seconds`, hops through the
        retry queue: sent with SQS's longest delay, it carries its due time, and
        the worker queues it again (`hop`) until then. A deferred task (breaker
        open, endpoint paused, limit spent) is planned again whenever it arrives,
        so a deferral of up to two hours (the longest breaker cooldown by
        default is one) hops with no due time. Longer waits are in Step
        Functions: a hop costs about $0.2 to $0.5 per million (send, shares of
        a receive, a delete and an invocation), a Step Functions wait $50 (two
        transitions).

        A wait in Step Functions is noted first (hookline.core.waits): should it
        never put the task back (stopped, failed, throttled, never started),
        the sweeper re-queues it once the note is overdue. The waiting task
        claims its attempt when it arrives, so a late one never sends twice.
        """
        plan = how_to_wait(delay_seconds, now.timestamp(), self._sqs_max, self._hops_up_to, deferred)
        if plan.path != "stepfunctions":
            body = replace(task, wait_until=0, due=plan.due).to_message()
            self._sqs.send_message(QueueUrl=self._retry_url, MessageBody=body, DelaySeconds=plan.delay)
            return plan.path
        # Step Functions waits to the whole second: round up, never wake early.
        due = math.ceil(now.timestamp() + delay_seconds)
        task = waiting(task, due)
        if self._waits is not None:
            self._waits.open(task)  # before the wait starts: a wait that never starts is noted too
        try:
            self._sfn.start_execution(
                stateMachineArn=self._machine,
                name=execution_name(task, due if deferred else None),
                input=json.dumps({"until": iso(datetime.fromtimestamp(due, UTC)), "task": task.to_message()}),
            )
        except self._sfn.exceptions.ExecutionAlreadyExists:
            pass  # the same wait was started before: nothing to do
        return "stepfunctions"

    def hop(self, tasks: list[DeliveryTask], delays: list[int]) -> None:
        """Queue tasks received before their due time on the retry queue again, each with its delay, ten to a request.
        Raises DependencyFailed when some could not be queued: the caller fails their records, and SQS hands them out
        again."""
        TaskQueue(self._sqs, self._retry_url).enqueue(tasks, delays=delays)

    def arrived(self, tasks: list[DeliveryTask]) -> None:
        """Tasks a batch received out of a wait in Step Functions are in SQS's hands again: drop their notes."""
        if self._waits is not None and any(t.wait_until for t in tasks):
            self._waits.close([t for t in tasks if t.wait_until])

    def dead_letter(self, task: DeliveryTask, reason: str, attributes: dict[str, str]) -> None:
        """Set an exhausted task aside on the DLQ, with why, for operators to inspect and redrive.

        The body is the task marked `dead_lettered`: moved back to any delivery
        queue, it is replayed with a fresh attempt budget.
        """
        self._to_dlq(replace(task, dead_lettered=reason, wait_until=0).to_message(), {"reason": reason, **attributes})

    def set_aside(self, body: str, reason: str) -> None:
        """A poison message (not a task, or a task for a delivery that no longer exists): kept for a human, never retried."""
        self._to_dlq(body or "(empty)", {"reason": "poison", "detail": reason[:250]})

    def _to_dlq(self, body: str, attributes: dict[str, str]) -> None:
        self._sqs.send_message(
            QueueUrl=self._dlq_url,
            MessageBody=body,
            MessageAttributes={k: {"DataType": "String", "StringValue": v} for k, v in attributes.items() if v},
        )


# SQS's longest visibility timeout is 12 hours; a hold stops a minute short (a longer wait comes back early and waits again).
MAX_HOLD_SECONDS = 43_200 - 60


@translate_failures
class OrderedScheduler:
    """The ordered lane's scheduler (hookline.services.delivery.ordered): a retry or a deferral queues nothing. The task's
    own message is held, its visibility the wait, so the endpoint's line waits behind it (SQS FIFO hands out none of
    a message group while one of its messages is in flight). What is given up or set aside goes to the lane's own
    FIFO dead-letter queue, in the endpoint's message group: an operator's redrive puts it back on the lane."""

    def __init__(self, sqs: Any, dead_letter_queue_url: str):
        self._sqs = sqs
        self._dlq_url = dead_letter_queue_url

    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str:
        return HELD

    def hop(self, tasks: list[DeliveryTask], delays: list[int]) -> None:
        """Nothing hops on this lane (its waits hold the message): a task carrying a due time runs when it arrives, so
        a call here is a wiring fault, refused rather than dropping the tasks."""
        raise RuntimeError("the ordered lane holds its waits: nothing hops on it")

    def arrived(self, tasks: list[DeliveryTask]) -> None:
        """Nothing waits in Step Functions on this lane."""

    def dead_letter(self, task: DeliveryTask, reason: str, attributes: dict[str, str]) -> None:
        """An exhausted task, marked `dead_lettered` (moved back, it is replayed with a fresh budget), with why."""
        self._to_dlq(replace(task, dead_lettered=reason, wait_until=0).to_message(), task.endpoint_id, {"reason": reason, **attributes})

    def set_aside(self, body: str, reason: str) -> None:
        """A poison message: kept for a human, never retried."""
        self._to_dlq(body or "(empty)", "poison", {"reason": "poison", "detail": reason[:250]})

    def _to_dlq(self, body: str, group: str, attributes: dict[str, str]) -> None:
        self._sqs.send_message(
            QueueUrl=self._dlq_url,
            MessageBody=body,
            MessageGroupId=group,
            MessageDeduplicationId=uuid.uuid4().hex,
            MessageAttributes={k: {"DataType": "String", "StringValue": v} for k, v in attributes.items() if v},
        )


@translate_failures
class MessageHolds:
    """The ordered lane's messages, by receipt handle: a task that must wait is held (invisible for the wait); the
    ones a batch brought behind it are let go at once, to come back in order after it."""

    def __init__(self, sqs: Any, queue_url: str):
        self._sqs = sqs
        self._url = queue_url

    def hold(self, receipt_handle: str, seconds: float) -> None:
        self._sqs.change_message_visibility(
            QueueUrl=self._url, ReceiptHandle=receipt_handle, VisibilityTimeout=min(MAX_HOLD_SECONDS, max(1, math.ceil(seconds)))
        )

    def let_go(self, receipt_handles: list[str]) -> None:
        for start in range(0, len(receipt_handles), MAX_BATCH_ENTRIES):
            chunk = receipt_handles[start : start + MAX_BATCH_ENTRIES]
            self._sqs.change_message_visibility_batch(
                QueueUrl=self._url, Entries=[{"Id": str(i), "ReceiptHandle": h, "VisibilityTimeout": 0} for i, h in enumerate(chunk)]
            )
