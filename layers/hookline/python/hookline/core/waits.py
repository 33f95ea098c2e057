"""How a task waits (`how_to_wait`: one SQS delay, hops through the retry queue, or the retry state machine), and
retries waiting in Step Functions, their notes, and the sweeper's rule for a wait that never ended. Pure.

A retry whose delay is at most SQS's (`sqs_max_delay_seconds`, 900 s at most) is one send with DelaySeconds. A
longer one, up to `hops_up_to_seconds` (HOOKLINE_SQS_HOPS_UP_TO_SECONDS, six hours by default: the default backoff
cap), hops through the retry queue: its task carries its due time (`DeliveryTask.due`) and goes out with the
longest delay SQS allows (900 s); a worker that receives it before that time queues it again for the rest (`next_hop`),
with no attempt, no claim and no read, until it is due. A hop costs a send, a share of a receive, of a delete and
of an invocation (about $0.2 to $0.5 per million, bench's prices), where a wait in Step Functions costs two state
transitions ($50 per million): a wait of six hours is 24 hops. A hop that cannot be queued fails its record, so
SQS hands the message out again (never lost); a hop never runs early (it is re-queued for whatever remains).
A hopped copy claims its attempt (never *fresh*, hookline.core.claims): a hop queued by a receive whose
invocation then failed leaves two copies, and only one may send.

A retry longer than that waits in the
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

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from hookline.core.models import Delivery, DeliveryTask
from hookline.core.sqs import MAX_DELAY_SECONDS
from hookline.core.sweeps import minute_of, minutes_to_sweep

# One sweep's bound on the notes it looks at: a sweeper that fell behind (or a wide outage of the state machine)
# catches up over a few runs, each within the function's timeout.
MAX_NOTES_PER_SWEEP = 1000
NOTES_PER_PAGE = 100  # one Query's page

WaitVerdict = Literal["wait", "requeue", "drop"]
WaitPath = Literal["sqs", "hops", "stepfunctions"]

# A deferred task (breaker open, endpoint paused, limit spent) is planned again whenever it arrives, so it hops
# (with no due time) for up to this long: the longest default breaker cooldown (1 h) and its jitter, with room.
DEFER_HOPS_UP_TO_SECONDS = 7200


@dataclass(frozen=True)
class WaitPlan:
    """How one wait goes: `path`; the first send's DelaySeconds (`delay`, 0 for Step Functions); `due`: the epoch
    second before which the task must not run (hops only; 0: whenever it arrives)."""

    path: WaitPath
    delay: int
    due: int = 0


def how_to_wait(delay_seconds: float, now_epoch: float, sqs_max: int, hops_up_to_seconds: float, deferred: bool = False) -> WaitPlan:
    """The cheapest wait of `delay_seconds` from `now_epoch` that never runs early: one SQS delay when it fits
    (`sqs_max`); hops through the retry queue up to `hops_up_to_seconds` (a deferral, which is planned again on
    arrival anyway, up to DEFER_HOPS_UP_TO_SECONDS, with no due time); Step Functions beyond."""
    wait = max(0, math.ceil(delay_seconds))
    if delay_seconds <= sqs_max:
        return WaitPlan("sqs", wait)
    if deferred and delay_seconds <= DEFER_HOPS_UP_TO_SECONDS:
        return WaitPlan("sqs", min(MAX_DELAY_SECONDS, wait))
    if delay_seconds <= hops_up_to_seconds:
        return WaitPlan("hops", min(MAX_DELAY_SECONDS, wait), math.ceil(now_epoch + delay_seconds))
    return WaitPlan("stepfunctions", 0)


def next_hop(due: int, now_epoch: float) -> int | None:
    """A task carrying `due` received at `now_epoch`: None when it may run now, or the DelaySeconds of its next hop
    (what remains, rounded up, at most SQS's 900 s): early by any amount, it is queued again, never run."""
    if not due or now_epoch >= due:
        return None
    return min(MAX_DELAY_SECONDS, math.ceil(due - now_epoch))


def hops(delay_seconds: float) -> int:
    """The sends a wait of `delay_seconds` takes when it hops (the first included): one per 900 s begun."""
    return max(1, math.ceil(delay_seconds / MAX_DELAY_SECONDS))


def hopped(task: DeliveryTask) -> DeliveryTask:
    """The copy a hop queues: the same task and due time, claiming its attempt (a failed invocation's message may
    hop again beside it)."""
    return replace(task, fresh=False)


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
