"""The ordered lane: one endpoint's tasks, one after another, in the order SQS hands them out.

An ordered endpoint's tasks wait on an SQS FIFO queue, the endpoint their message group: SQS hands out a group's
messages in the order they were sent, and none while one of them is in flight. A task that must wait (a retry after
a failed attempt, or a deferral: the breaker, a Retry-After, the rate limit) is not queued again: the worker's
scheduler on this lane answers HELD (hookline.adapters.queues.OrderedScheduler), and the task's own message is held,
its visibility the wait. The records a batch brought behind it are let go at once; they stay on the queue and come
out after it, in order. The line waits until the held delivery succeeds or is given up (dead-lettered on the lane's
own FIFO dead-letter queue), then the next one goes. A record hookline itself fails on is held a short while
(`fault_hold_seconds`) the same way, so nothing behind it overtakes it. Poison is set aside and holds nothing.

While a delivery holds the line, its endpoint's line head says which (LineHeads): written only when a task waits,
dropped when the delivery that held the line moves on, so a line that flows writes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hookline.core.clock import iso
from hookline.core.models import DeliveryTask, LineHead, MalformedTask
from hookline.core.reports import HELD, SET_ASIDE, DeliveryReport
from hookline.services.delivery.ports import LineHeads, MessageHolder
from hookline.services.delivery.worker import DeliveryWorker

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LineRecord:
    """One message of the ordered lane, as its queue handed it out."""

    message_id: str
    receipt_handle: str
    body: str
    received_before: bool  # SQS handed it out before: it was held, or an invocation that had it died


@dataclass
class LineOutcome:
    """What became of one endpoint's records in a batch."""

    reports: list[DeliveryReport] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # message ids left on the queue (the held one and those behind it)
    failed: dict[str, BaseException] = field(default_factory=dict)  # message id -> what hookline itself failed on
    poison: list[tuple[str, str]] = field(default_factory=list)  # (message id, why) of what was set aside


@dataclass(frozen=True)
class OrderedLane:
    worker: DeliveryWorker
    holds: MessageHolder
    heads: LineHeads
    clock: Callable[[], datetime]
    fault_hold_seconds: float
    retention_days: int

    def run(self, records: list[LineRecord], deliver: Callable[[DeliveryTask], DeliveryReport] | None = None) -> LineOutcome:
        """One endpoint's records in order, up to the first that must wait. `deliver`: how one task is delivered (the
        entry point's, which adds the task's ids to every log line meanwhile); the worker's own by default."""
        deliver_one = deliver or self.worker.deliver
        out = LineOutcome()
        for i, record in enumerate(records):
            try:
                try:
                    received = DeliveryTask.from_message(record.body)
                except MalformedTask as exc:
                    self.worker.set_aside(record.body, str(exc))
                    out.poison.append((record.message_id, type(exc).__name__))
                    continue
                task = self.worker.resolve_ordered(received, record.received_before)
                if task is None:
                    continue
                report = deliver_one(task)
                out.reports.append(report)
                if report.path == SET_ASIDE:
                    out.poison.append((record.message_id, "DeliveryNotFound"))
                if report.path != HELD:
                    if record.received_before:
                        self._moved_on(task)
                    continue
                wait = report.next_in_seconds if report.next_in_seconds is not None else 1.0
                self._held(task, report, wait)
            except Exception as exc:  # hookline could not finish it: held a short while, then tried again
                _log.exception("ordered task failed", extra={"message_id": record.message_id})
                out.failed[record.message_id] = exc
                wait = self.fault_hold_seconds
            out.kept = self._hold(records[i:], wait)
            return out
        return out

    def _hold(self, records: list[LineRecord], seconds: float) -> list[str]:
        """Hold the first record for `seconds`, let the others go (they come out behind it); all of them stay on the queue."""
        try:
            self.holds.hold(records[0].receipt_handle, seconds)
            if len(records) > 1:
                self.holds.let_go([r.receipt_handle for r in records[1:]])
        except Exception:  # they come back after the queue's visibility timeout instead, still in order
            _log.exception("ordered records not held")
        return [r.message_id for r in records]

    def _held(self, task: DeliveryTask, report: DeliveryReport, wait: float) -> None:
        now = self.clock()
        head = LineHead(
            tenant=task.tenant,
            endpoint_id=task.endpoint_id,
            delivery_id=task.delivery_id,
            event_id=task.event_id,
            attempt=task.attempt + 1 if report.outcome == "retrying" else task.attempt,
            outcome=report.outcome,
            reason=report.reason,
            status_code=report.status_code,
            error=report.error,
            next_at=iso(now + timedelta(seconds=wait)),
            since=iso(now),
        )
        try:
            self.heads.held(head, int((now + timedelta(days=self.retention_days)).timestamp()))
        except Exception:  # what the portal shows; the line holds all the same
            _log.exception("line head not noted", extra={"endpoint_id": task.endpoint_id})

    def _moved_on(self, task: DeliveryTask) -> None:
        try:
            self.heads.moved_on(task.tenant, task.endpoint_id, task.delivery_id)
        except Exception:
            _log.exception("line head not dropped", extra={"endpoint_id": task.endpoint_id})
