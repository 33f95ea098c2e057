"""May attempt `number` be made now? The single-flight claim's rule, as a pure function of the delivery as read.

The claim (a conditional write, hookline.adapters.dynamo.events) takes an
attempt only while the delivery is pending or paused, in the task's
generation, the attempt not yet recorded, and no live lease held. A task that
finds a live lease on an *earlier* attempt comes back shortly: that attempt is
still being recorded (`busy`).

A fresh task (the only one queued for its attempt: a new event's first, or a
scheduled retry, on its first receive) checks the same rule on the delivery as
read in the batch's one read (eventually consistent: a delivery read stale
only looks earlier than it is), and writes nothing before sending. Only
copies of it near each other can then both send, which at-least-once allows:
SQS handing one message to two consumers (the later within DynamoDB's
replication lag of the other's record), a worker dying between queueing the
retry and recording the attempt, or an ingest request repeated (or an
unqueued event swept) while the first request's fresh task is still on its
way: the re-queued copy claims, but the fresh task wrote no claim for it to
meet. A repeat's copy waits out the claim's lease in the queue first
(hookline.services.events), and the sweeper's comes after its grace period,
so only a fresh task held back longer (a backlog) meets one. Both copies carry
the same `webhook-id`.
Every other task (a redelivery, a replay, an operator's redrive, a re-queue)
claims.
"""

from __future__ import annotations

from typing import Literal

from hookline.core.models import LIVE_STATUSES, Delivery

ClaimVerdict = Literal["go", "busy", "missing", "done"]


def claim_verdict(d: Delivery | None, number: int, generation: int, now: float) -> ClaimVerdict:
    """go: make the attempt; busy: an earlier attempt is still being recorded; missing: no such delivery; done: nothing to do."""
    if d is None:
        return "missing"
    open_for_it = d.status in LIVE_STATUSES and d.generation == generation and d.attempts_made < number
    leased = d.lease_until is not None and not d.lease_until < round(now, 3)
    if open_for_it and not leased:
        return "go"
    earlier = d.lease_attempt is not None and d.lease_attempt < number
    return "busy" if open_for_it and earlier else "done"


def unsent_restart(d: Delivery | None, from_generation: int | None = None) -> bool:
    """A delivery restarted into a new generation (a manual retry, an operator's redrive, a replay; from
    `from_generation`, when given) that has made no attempt of it yet: the work that restarted it may have stopped
    before its task was queued, or before that task's attempt was recorded, so whoever repeats that work queues its
    task again. Such a task claims (every task of a restarted generation does), so at most one copy sends."""
    if d is None or d.status != "pending" or d.generation == 0 or d.attempts_made >= d.generation_first_attempt:
        return False
    return from_generation is None or d.generation == from_generation + 1
