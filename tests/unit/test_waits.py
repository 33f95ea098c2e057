"""How a task waits (hops, Step Functions), and the sweeper's rule for retries waiting in Step Functions (hookline.core.waits): which notes are overdue, and whether
the delivery still waits for the noted attempt."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from hookline.core.models import Delivery, DeliveryTask
from hookline.core.settings import Settings
from hookline.core.waits import WaitPlan, due_minute, hopped, hops, how_to_wait, minutes_due, next_hop, overdue, rescued, still_waiting, verdict, waiting

DUE = datetime(2026, 11, 29, 12, 30, 15, tzinfo=UTC)
MARGIN = timedelta(minutes=15)
TASK = waiting(DeliveryTask("acme", "evt_1", "dlv_1", "ep_1", attempt=3, generation=1, fresh=True), int(DUE.timestamp()))


def _delivery(**changes: object) -> Delivery:
    base = Delivery("dlv_1", "acme", "evt_1", "ep_1", status="pending", attempts_made=2, generation=1, generation_first_attempt=1)
    return replace(base, **changes)  # type: ignore[arg-type]


def test_a_waiting_task_claims_and_carries_its_due_second_across_the_queue() -> None:
    # Given a retry's task, fresh as the worker makes it, put into a wait in Step Functions
    assert (TASK.fresh, TASK.wait_until) == (False, int(DUE.timestamp()))
    # Then its message keeps the due second, and a task without one writes none (older readers see the same fields)
    assert DeliveryTask.from_message(TASK.to_message()).wait_until == TASK.wait_until
    assert "wait_until" not in DeliveryTask("acme", "evt_1", "dlv_1", "ep_1").to_message()
    # And it is the same task as the one not waiting (a wait is not part of a task's identity), whose next attempt waits for nothing
    assert replace(TASK, wait_until=0) == TASK and TASK.next_attempt().wait_until == 0
    # And it is noted in the minute it is due
    assert due_minute(TASK) == "2026-11-29T12:30"


def test_the_copy_the_sweeper_queues_is_the_same_attempt_claiming_with_no_note() -> None:
    again = rescued(TASK)
    assert (again.attempt, again.generation, again.fresh, again.wait_until) == (3, 1, False, 0)
    assert again == TASK


def test_a_note_is_overdue_only_once_its_margin_has_passed() -> None:
    assert not overdue(TASK, DUE + MARGIN - timedelta(seconds=1), MARGIN)
    assert overdue(TASK, DUE + MARGIN, MARGIN)


def test_the_due_minutes_swept_are_those_whose_every_note_is_overdue() -> None:
    # Given the sweeper finished 12:29
    # When it runs just before the 12:30 notes' margin has passed for all of them, Then it leaves 12:30 for later
    assert minutes_due("2026-11-29T12:29", datetime(2026, 11, 29, 12, 45, 59, tzinfo=UTC), MARGIN) == []
    # When the last second of 12:30 is overdue too, Then 12:30 is due
    assert minutes_due("2026-11-29T12:29", datetime(2026, 11, 29, 12, 46, 0, tzinfo=UTC), MARGIN) == ["2026-11-29T12:30"]


@pytest.mark.parametrize(
    ("delivery", "waits"),
    [
        (_delivery(), True),  # pending in its generation, attempt 3 not made: re-queue
        (_delivery(lease_attempt=2, lease_until=DUE.timestamp() - 1), True),  # an expired lease holds nothing
        (_delivery(attempts_made=3), False),  # the retry happened
        (_delivery(attempts_made=5), False),  # and more after it
        (_delivery(lease_attempt=3, lease_until=(DUE + MARGIN).timestamp() + 60), False),  # a copy holds it right now (SQS brings it back if it dies)
        (_delivery(status="succeeded"), False),
        (_delivery(status="failed"), False),
        (_delivery(status="paused"), False),  # its task was parked: re-enabling the endpoint requeues it
        (_delivery(generation=2), False),  # replayed: a new generation with tasks of its own
        (None, False),  # its event expired
    ],
)
def test_whether_the_delivery_still_waits_for_the_noted_attempt(delivery: Delivery | None, waits: bool) -> None:
    assert still_waiting(delivery, TASK, DUE.timestamp()) is waits
    assert verdict(TASK, delivery, DUE + MARGIN, MARGIN) == ("requeue" if waits else "drop")
    assert verdict(TASK, delivery, DUE + MARGIN - timedelta(seconds=1), MARGIN) == "wait"


# -- how a task waits: one SQS delay, hops through the retry queue, or Step Functions --------------------------------

NOW = 1_750_000_000.0


@pytest.mark.parametrize(
    ("delay", "sqs_max", "hops_up_to", "deferred", "expected"),
    [
        (0.0, 900, 21600, False, WaitPlan("sqs", 0)),
        (30.4, 900, 21600, False, WaitPlan("sqs", 31)),
        (900.0, 900, 21600, False, WaitPlan("sqs", 900)),
        # longer than SQS's delay: hops, the first at SQS's longest, the task carrying its due second (rounded up)
        (900.5, 900, 21600, False, WaitPlan("hops", 900, 1_750_000_901)),
        (21600.0, 900, 21600, False, WaitPlan("hops", 900, 1_750_021_600)),
        # a shorter HOOKLINE_SQS_MAX_DELAY_SECONDS: the wait still hops, its first hop as long as it can be
        (10.0, 3, 21600, False, WaitPlan("hops", 10, 1_750_000_010)),
        # past the bound, or with hops off: Step Functions
        (21600.5, 900, 21600, False, WaitPlan("stepfunctions", 0)),
        (901.0, 900, 0, False, WaitPlan("stepfunctions", 0)),
        # a deferral up to two hours hops with no due time (it is planned again on arrival), even with hops off
        (3600.0, 900, 0, True, WaitPlan("sqs", 900)),
        (7200.0, 900, 21600, True, WaitPlan("sqs", 900)),
        # a longer deferral hops to its due time, or waits in Step Functions past the bound
        (10800.0, 900, 21600, True, WaitPlan("hops", 900, 1_750_010_800)),
        (10800.0, 900, 0, True, WaitPlan("stepfunctions", 0)),
    ],
)
def test_how_to_wait(delay: float, sqs_max: int, hops_up_to: int, deferred: bool, expected: WaitPlan) -> None:
    # Given a wait, SQS's delay, the hops' bound and whether it is a deferral
    # When the path is chosen
    # Then it is the cheapest that never runs early
    assert how_to_wait(delay, NOW, sqs_max, hops_up_to, deferred) == expected


@pytest.mark.parametrize(
    ("due", "now", "expected"),
    [
        (0, NOW, None),  # carries no due time: runs
        (1_750_000_000, NOW, None),  # due now: runs
        (1_749_999_000, NOW, None),  # late: runs
        (1_750_000_001, NOW, 1),  # a second early: hops for that second
        (1_750_000_001, NOW + 0.5, 1),  # half a second early: a whole second (never early)
        (1_750_000_900, NOW, 900),
        (1_750_005_000, NOW, 900),  # more than SQS's delay away: the longest hop
    ],
)
def test_next_hop(due: int, now: float, expected: int | None) -> None:
    # Given a task's due time and when it arrived
    # When the worker looks at it
    # Then it runs, or hops again for what remains (at most 900 s)
    assert next_hop(due, now) == expected


@pytest.mark.parametrize(("delay", "expected"), [(1, 1), (900, 1), (901, 2), (1800, 2), (21600, 24)])
def test_hops_counts_the_sends_of_a_hopping_wait(delay: float, expected: int) -> None:
    assert hops(delay) == expected


def test_a_hopped_copy_claims_its_attempt_and_keeps_its_due_time() -> None:
    # Given a fresh retry task hopping to its due time
    task = DeliveryTask("t", "evt_1", "dlv_1", "ep_1", attempt=3, fresh=True, due=1_750_000_900)
    # When a worker queues it again
    copy = hopped(task)
    # Then the copy claims (another copy may hop beside it) and keeps its due time, across the queue
    assert (copy.fresh, copy.due) == (False, 1_750_000_900)
    assert DeliveryTask.from_message(copy.to_message()).due == 1_750_000_900
    assert task.next_attempt().due == 0


def test_by_default_every_wait_of_the_schedule_hops_and_none_waits_in_step_functions() -> None:
    # Given the default settings: the hops' bound is the backoff cap, which also bounds a Retry-After
    s = Settings()
    assert s.sqs_hops_up_to_seconds == s.retry_max_delay_seconds
    # Then the longest retry wait the schedule draws hops
    assert how_to_wait(s.retry_max_delay_seconds, NOW, s.sqs_max_delay_seconds, s.sqs_hops_up_to_seconds).path == "hops"
