"""The sweeper: deliveries stored but never queued are found and queued (hookline.core.unqueued), and retries
whose wait in Step Functions never ended are queued again (hookline.core.waits).

A scheduled run (EventBridge Scheduler in the stack, a timer in local mode) reads
the notes of each minute past the grace period since its checkpoint: one Query per
minute and shard, so its cost follows the minutes, not the data, and a note exists
only for a request that failed after it may have stored its events. For
each note it queues the noted events' deliveries that are still pending and never
attempted, then drops the note. It reports how many events it found so (the
`UnqueuedFound` metric, with an alarm): in a healthy stack none.

Likewise for the long waits (`OverdueRetries`): the notes due in each minute more
than the margin ago since their own checkpoint, a page at a time and at most
MAX_NOTES_PER_SWEEP a run; a note still there is a wait whose task never came
back. Its task goes on the retry queue again while the delivery still waits for
that attempt, and the note is dropped (the `OverdueRetriesRequeued` metric: in a
healthy stack none).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hookline.core.clock import iso_epoch
from hookline.core.models import DeliveryTask
from hookline.core.sweeps import minutes_to_sweep
from hookline.core.waits import MAX_NOTES_PER_SWEEP, NOTES_PER_PAGE, minutes_due, overdue, rescued, verdict
from hookline.services.events import EventService
from hookline.services.ports import DeliveryReader, RetryWaitNotes, StalledJobs, TaskQueue, UnqueuedNotes

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OverdueRetries:
    """Retries whose wait in Step Functions never put them back (stopped, failed, throttled, never started): found
    by their notes once due more than `margin_seconds` ago, and queued again on the retry queue (hookline.core.waits)."""

    notes: RetryWaitNotes
    deliveries: DeliveryReader
    retry_queue: TaskQueue
    clock: Callable[[], datetime]
    margin_seconds: float
    shards: int
    max_notes: int = MAX_NOTES_PER_SWEEP

    def sweep(self) -> dict[str, int]:
        """One run: the due minutes since the checkpoint, each finished before the next; what it looked at and re-queued."""
        now = self.clock()
        margin = timedelta(seconds=self.margin_seconds)
        report = {"wait_minutes": 0, "wait_notes": 0, "overdue_retries_requeued": 0}
        for minute in minutes_due(self.notes.checkpoint(), now, margin):
            if not self._minute(minute, now, margin, report):
                break  # the run's bound: the next run starts again from this minute, whose settled notes are gone
            self.notes.save_checkpoint(minute)
            report["wait_minutes"] += 1
        return report

    def _minute(self, minute: str, now: datetime, margin: timedelta, report: dict[str, int]) -> bool:
        """Settle one due minute's notes, shard by shard and page by page; False if the run's bound stopped it first."""
        for shard in range(self.shards):
            cursor: str | None = None
            while True:
                room = self.max_notes - report["wait_notes"]
                if room <= 0:
                    return False
                page, cursor = self.notes.due_page(minute, shard, min(NOTES_PER_PAGE, room), cursor)
                report["wait_notes"] += len(page)
                requeued, settled = self._settle(page, now, margin)
                report["overdue_retries_requeued"] += requeued
                if settled < len(page):
                    return False  # a note not overdue yet (never, for a minute this old): this minute again next run
                if cursor is None:
                    break
        return True

    def _settle(self, page: list[DeliveryTask], now: datetime, margin: timedelta) -> tuple[int, int]:
        """Re-queue the page's tasks whose delivery still waits for them, then drop their notes and those of the retries
        that happened; (re-queued, settled). A run that dies in between re-queues again: the copy claims, so it is harmless."""
        again: list[DeliveryTask] = []
        settled: list[DeliveryTask] = []
        for task in page:
            delivery = self.deliveries.get_delivery(task.tenant, task.event_id, task.delivery_id) if overdue(task, now, margin) else None
            decided = verdict(task, delivery, now, margin)
            if decided == "wait":
                continue
            settled.append(task)
            if decided == "requeue":
                again.append(rescued(task))
                _log.warning(
                    "overdue retry re-queued: its wait in Step Functions never ended",
                    extra={
                        "tenant": task.tenant,
                        "event_id": task.event_id,
                        "delivery_id": task.delivery_id,
                        "attempt": task.attempt,
                        "generation": task.generation,
                        "due": iso_epoch(task.wait_until),
                    },
                )
        if again:
            self.retry_queue.enqueue(again)
        if settled:
            self.notes.close(settled)
        return len(again), len(settled)


@dataclass(frozen=True)
class Sweeper:
    unqueued: UnqueuedNotes
    events: EventService
    clock: Callable[[], datetime]
    grace_seconds: float
    shards: int
    jobs: StalledJobs | None = None  # resumes running jobs whose chain of steps was lost
    waits: OverdueRetries | None = None  # re-queues retries whose wait in Step Functions never ended

    def sweep(self) -> dict[str, Any]:
        """One run: the minutes due since the checkpoint; what it found and queued."""
        now = self.clock()
        minutes = minutes_to_sweep(self.unqueued.checkpoint(), now, timedelta(seconds=self.grace_seconds))
        found = queued = notes = 0
        for minute in minutes:
            for shard in range(self.shards):
                for note in self.unqueued.of_minute(minute, shard):
                    notes += 1
                    for event_id in note.event_ids:
                        n = self.events.queue_unsent(note.tenant, event_id)
                        if n:
                            found += 1
                            queued += n
                            _log.warning("stored event found unqueued", extra={"tenant": note.tenant, "event_id": event_id, "deliveries": n})
                    self.unqueued.close(note)
            self.unqueued.save_checkpoint(minute)  # a run that dies mid-way goes on from the last minute it finished
        waits = self.waits.sweep() if self.waits is not None else {"wait_minutes": 0, "wait_notes": 0, "overdue_retries_requeued": 0}
        resumed = self.jobs.resume_stalled() if self.jobs is not None else 0
        return {
            "minutes": len(minutes),
            "notes": notes,
            "unqueued_events": found,
            "queued_deliveries": queued,
            "stalled_jobs_resumed": resumed,
            **waits,
        }
