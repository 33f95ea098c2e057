"""Retries waiting in Step Functions, their notes, and the sweeper's rule for a wait that never ended. Pure.

A retry whose delay is longer than SQS's (`sqs_max_delay_seconds`) waits in the
retry state machine (hookline.wiring.topology.RETRY_WAIT). If that wait is
stopped, fails, is throttled for long, or never starts, nothing else would
ever queue the retry. So the worker notes the waiting task, keyed by the minute
it is due, *before* it starts the wait, and drops the note when the task
arrives back on a queue (it is in SQS's hands again). A note still there
`margin` after its due time belongs to a wait that did not end as it should:
the sweeper re-queues its task on the retry queue while the delivery still
waits for that attempt, and drops the note either way.

The waiting task, the re-queued copy and any letter the state machine's Catch
puts on the DLQ all *claim* their attempt before sending (never *fresh*,
hookline.core.claims): whichever copy arrives first makes the attempt, every
other finds it made (or in hand) and is dropped. A wait that was merely late
therefore never sends twice, and the sweeper's re-queue is safe to repeat.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from hookline.core.models import Delivery, DeliveryTask
from hookline.core.sweeps import minute_of, minutes_to_sweep

# One sweep's bound on the notes it looks at: a sweeper that fell behind (or a wide outage of the state machine)
# catches up over a few runs, each within the function's timeout.
MAX_NOTES_PER_SWEEP = 1000
NOTES_PER_PAGE = 100  # one Query's page

WaitVerdict = Literal["wait", "requeue", "drop"]


def waiting(task: DeliveryTask, until_epoch: int) -> DeliveryTask:
    """The task as it waits in Step Functions until `until_epoch`: it carries its due time (which names its note)
    and claims its attempt when it arrives, since the sweeper may have re-queued a copy."""
    return replace(task, fresh=False, wait_until=until_epoch)


def due_minute(task: DeliveryTask) -> str:
    """The minute (yyyy-mm-ddThh:mm, UTC) a waiting task is due in: its note's bucket."""
    return minute_of(datetime.fromtimestamp(task.wait_until, UTC))


def minutes_due(checkpoint: str | None, now: datetime, margin: timedelta) -> list[str]:
    """The buckets after `checkpoint` whose every note is overdue by `margin` at `now`, oldest first (bounded)."""
    return minutes_to_sweep(checkpoint, now, margin)


def overdue(task: DeliveryTask, now: datetime, margin: timedelta) -> bool:
    """Its wait should have ended, and its task reached a worker, more than `margin` ago."""
    return now.timestamp() >= task.wait_until + margin.total_seconds()


def still_waiting(delivery: Delivery | None, task: DeliveryTask, now_epoch: float) -> bool:
    """The delivery still waits for the task's attempt: pending in the task's generation, the attempt not made,
    and no copy holding it right now (a live lease: that copy is on a queue, SQS brings it back if it dies)."""
    if delivery is None or delivery.status != "pending" or delivery.generation != task.generation:
        return False
    if delivery.attempts_made >= task.attempt:
        return False
    return delivery.lease_until is None or delivery.lease_until < round(now_epoch, 3)


def verdict(task: DeliveryTask, delivery: Delivery | None, now: datetime, margin: timedelta) -> WaitVerdict:
    """What the sweeper does with one note: leave it (`wait`: not overdue yet), re-queue its task and drop it
    (`requeue`), or only drop it (`drop`: the retry happened, the delivery moved on to another generation or
    ended, or its event expired)."""
    if not overdue(task, now, margin):
        return "wait"
    return "requeue" if still_waiting(delivery, task, now.timestamp()) else "drop"


def rescued(task: DeliveryTask) -> DeliveryTask:
    """The copy the sweeper queues: the same attempt and generation, claiming before it sends, with no note of its own."""
    return replace(task, fresh=False, wait_until=0)
