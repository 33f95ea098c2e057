"""The DeliveryWorker's single-flight claim in virtual time: what a duplicate, a crash and a redrive lead to."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hookline.core.models import Delivery, DeliveryTask
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.unit.services.pipeline import Pipeline

LEASE = 120


def _one_task(lease_seconds: int = LEASE) -> tuple[DeliveryRig, Pipeline, DeliveryTask]:
    rig = delivery_rig(lease_seconds=lease_seconds)
    pipe = Pipeline(rig)
    task = pipe.event(pipe.endpoint(endpoint()), 0)
    return rig, pipe, task


def test_a_task_whose_worker_died_mid_attempt_is_sent_again_only_once_the_lease_has_run_out() -> None:
    rig, pipe, task = _one_task()
    # Given a worker that claimed attempt 1 and died before recording it (SQS hides the task for its visibility timeout)
    assert rig.events.claim_attempt(task.tenant, task.event_id, task.delivery_id, 1, rig.clock.timestamp(), LEASE).delivery is not None
    # When a copy of the task runs while the lease lives (SQS delivered it twice), Then nothing is sent
    rig.clock.advance(LEASE - 1)
    report = rig.worker.deliver(task)
    assert (report.outcome, report.reason) == ("skipped", "attempt already claimed or delivery finished")
    assert pipe.sent == []
    # When the task comes back after the lease (the visibility timeout is longer), Then the attempt is made, once, as the same webhook
    rig.clock.advance(2)
    assert rig.worker.deliver(task).outcome == "succeeded"
    assert [s.webhook_id for s in pipe.sent] == [task.event_id]
    assert rig.worker.deliver(task).outcome == "skipped"
    assert (pipe.delivery(task).status, pipe.delivery(task).attempts_made, len(pipe.sent)) == ("succeeded", 1, 1)


def test_the_next_attempt_waits_while_the_previous_one_is_still_being_recorded() -> None:
    rig, pipe, task = _one_task()
    # Given attempt 1 claimed and not yet recorded
    assert rig.events.claim_attempt(task.tenant, task.event_id, task.delivery_id, 1, rig.clock.timestamp(), LEASE).delivery is not None
    # When attempt 2's task arrives meanwhile, Then it comes back in five seconds, with no request made
    report = rig.worker.deliver(task.next_attempt())
    assert (report.outcome, report.next_in_seconds) == ("deferred", 5.0)
    assert rig.scheduler.scheduled == [(task.next_attempt(), 5.0, True)]
    assert pipe.sent == []


def test_a_duplicate_of_a_recorded_attempt_is_skipped() -> None:
    _, pipe, task = _one_task()
    pipe.run(1)
    assert len(pipe.sent) == 1
    pipe.submit(task)
    pipe.run(LEASE * 2)
    assert len(pipe.sent) == 1
    assert pipe.reports[-1].outcome == "skipped"


def test_a_task_for_a_delivery_that_is_gone_is_set_aside_as_poison() -> None:
    rig, pipe, _ = _one_task()
    ghost = DeliveryTask("acme", "evt_gone", "dlv_gone", "ep_01")
    report = rig.worker.deliver(ghost)
    assert (report.outcome, report.reason) == ("skipped", "poison: delivery not found")
    assert rig.scheduler.aside == [(ghost.to_message(), "delivery not found: its event expired or never existed")]
    assert pipe.sent == []


def test_a_redriven_dead_letter_restarts_its_delivery_once_with_a_fresh_budget() -> None:
    rig, pipe, task = _one_task()
    # Given a delivery that failed for good on its 12th attempt
    row = rig.events.rows[(task.tenant, task.event_id, task.delivery_id)]
    row.delivery = replace(row.delivery, status="failed", attempts_made=12)
    dead = replace(task, attempt=12, dead_lettered="max_attempts")
    # When an operator moves its dead-lettered task back, twice (a duplicate)
    resolved = rig.worker.resolve(dead)
    duplicate = rig.worker.resolve(dead)
    # Then it restarts once, as manual attempt 13 of generation 1; the duplicate, before that attempt is made, resumes
    # the same attempt (the first copy may have died), and both claim it, so it is made once
    assert resolved == DeliveryTask(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, 13, 1, trigger="manual")
    assert duplicate == resolved
    assert rig.worker.deliver(resolved).outcome == "succeeded"
    assert rig.worker.deliver(duplicate).outcome == "skipped"
    assert len(pipe.sent) == 1
    # And a copy after the attempt was made restarts nothing
    assert rig.worker.resolve(dead) is None
    delivered: Delivery = pipe.delivery(task)
    assert (delivered.status, delivered.generation, delivered.attempts_made, delivered.budget_attempt(13)) == ("succeeded", 1, 13, 1)
    assert [(a.number, a.trigger) for a in delivered.attempts] == [(13, "manual")]


def test_a_redriven_dead_letter_whose_run_failed_after_its_restart_makes_its_attempt_on_the_next_receive() -> None:
    rig, pipe, task = _one_task()
    row = rig.events.rows[(task.tenant, task.event_id, task.delivery_id)]
    row.delivery = replace(row.delivery, status="failed", attempts_made=12)
    dead = replace(task, attempt=12, fresh=False, dead_lettered="max_attempts")
    # Given the letter's first receive restarted the delivery and claimed attempt 13, then died before recording it
    first = rig.worker.resolve(dead)
    assert first == DeliveryTask(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, 13, 1, trigger="manual")
    assert rig.events.claim_attempt(task.tenant, task.event_id, task.delivery_id, 13, rig.clock.timestamp(), LEASE, generation=1).delivery is not None
    # When SQS hands the letter out again: its restart is refused (already made), and it resumes that generation
    again = rig.worker.resolve(dead, received_before=True)
    assert again == first
    # Then it sends nothing while the first run's claim lives, and makes the attempt once it has run out
    assert rig.worker.deliver(again).outcome == "skipped"
    rig.clock.advance(LEASE + 1)
    assert rig.worker.resolve(dead, received_before=True) == first
    assert rig.worker.deliver(first).outcome == "succeeded"
    delivered: Delivery = pipe.delivery(task)
    assert (delivered.status, delivered.generation, delivered.attempts_made, len(pipe.sent)) == ("succeeded", 1, 13, 1)
    # And once the attempt is recorded, another copy of the letter restarts and resumes nothing
    assert rig.worker.resolve(dead, received_before=True) is None


def test_a_fresh_task_sends_without_a_claim_and_a_claiming_copy_of_it_then_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    rig, pipe, task = _one_task()
    claims: list[int] = []
    claim = rig.events.claim_attempt
    monkeypatch.setattr(rig.events, "claim_attempt", lambda *a, **k: claims.append(a[3]) or claim(*a, **k))
    # Given the new event's only task, fresh: it reads its delivery with the batch and writes no claim
    assert task.fresh
    assert rig.worker.deliver(task).outcome == "succeeded"
    assert (claims, len(pipe.sent)) == ([], 1)
    # When SQS hands the same message out again, it is no longer fresh: it claims, finds the attempt recorded, sends nothing
    assert rig.worker.deliver(replace(task, fresh=False)).outcome == "skipped"
    assert (claims, len(pipe.sent)) == ([1], 1)
    # And a fresh copy that comes after the record is skipped by the same rule, without a claim
    assert rig.worker.deliver(task).outcome == "skipped"
    assert (claims, len(pipe.sent)) == ([1], 1)


def test_a_scheduled_retry_is_fresh_and_survives_the_queue() -> None:
    task = DeliveryTask("acme", "evt_1", "dlv_1", "ep_1", attempt=1, trigger="manual")
    retry = task.next_attempt()
    assert (retry.fresh, retry.trigger, retry.attempt) == (True, "scheduled", 2)
    assert DeliveryTask.from_message(retry.to_message()).fresh
    assert not DeliveryTask.from_message(task.to_message()).fresh
    # Freshness is no part of a task's identity: a batch's two copies of one attempt are one task
    assert retry == replace(retry, fresh=False) and len({retry, replace(retry, fresh=False)}) == 1
