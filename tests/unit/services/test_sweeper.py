"""The sweeper over the fakes: an event stored but never queued is queued once after the grace period, and nothing else is."""

from __future__ import annotations

import pytest

from hookline.core.contract.events import CreateEvent, CreateEventBatch
from hookline.core.errors import Unavailable
from tests.fakes.contracts import delivery
from tests.unit.services.conftest import World


def test_an_event_whose_queueing_failed_is_queued_by_the_sweeper_after_the_grace_period(world: World) -> None:
    ep = world.add_endpoint()
    # Given an event without an id whose tasks could not be queued (the producer got a 503 and never came back)
    world.delivery_queue.faults.fail("enqueue", times=1)
    with pytest.raises(Unavailable):
        world.event_service().accept("acme", CreateEvent.model_validate({"type": "a.b", "data": {"n": 1}}))
    [stored] = list(world.events.events.values())
    assert world.delivery_queue.sent == [] and len(world.unqueued.notes) == 1
    # When the sweeper runs within the grace period, Then it leaves it alone (the request may still be finishing)
    assert world.sweeper().sweep()["unqueued_events"] == 0 and world.delivery_queue.sent == []
    # When it runs after the grace period, Then the delivery is queued once, and the note is gone
    world.clock.advance(world.settings.sweep_grace_seconds + 60)
    report = world.sweeper().sweep()
    assert (report["unqueued_events"], report["queued_deliveries"]) == (1, 1)
    [task] = world.delivery_queue.tasks()
    assert (task.event_id, task.endpoint_id, task.attempt) == (stored.id, ep.id, 1)
    assert world.unqueued.notes == {}
    # And a later run finds nothing more
    world.clock.advance(120)
    assert world.sweeper().sweep()["unqueued_events"] == 0 and len(world.delivery_queue.sent) == 1


def test_a_request_that_queued_its_events_leaves_no_note_and_a_refused_one_neither(world: World) -> None:
    world.add_endpoint()
    world.event_service().accept("acme", CreateEvent.model_validate({"type": "a.b", "data": {}}))
    world.event_service().accept_batch("acme", CreateEventBatch.model_validate({"events": [{"type": "a.b", "data": {"n": i}} for i in range(3)]}))
    with pytest.raises(Exception, match="customer"):
        world.event_service().accept("acme", CreateEvent.model_validate({"type": "a.b", "data": {}, "customer": "nobody"}))
    assert world.unqueued.notes == {}
    world.clock.advance(600)
    assert world.sweeper().sweep()["unqueued_events"] == 0


def test_a_batch_with_a_failed_chunk_notes_those_events_and_the_sweeper_queues_them_alone(world: World) -> None:
    world.add_endpoint()
    world.delivery_queue.faults.fail("enqueue", times=1)
    results = (
        world.event_service().accept_batch("acme", CreateEventBatch.model_validate({"events": [{"type": "a.b", "data": {"n": i}} for i in range(12)]})).results
    )
    assert [r.status for r in results] == [503] * 10 + [202] * 2  # the first SQS batch of ten failed
    world.clock.advance(world.settings.sweep_grace_seconds + 60)
    report = world.sweeper().sweep()
    assert report["unqueued_events"] == 10
    # Every stored event has one task now: the two that went at once, and the ten the sweeper queued
    assert sorted(t.event_id for t in world.delivery_queue.tasks()) == sorted(e.id for e in world.events.events.values())


def test_an_event_with_an_id_is_noted_only_when_its_request_fails(world: World) -> None:
    world.add_endpoint()
    world.event_service().accept("acme", CreateEvent.model_validate({"type": "a.b", "id": "order-1", "data": {}}))
    assert world.unqueued.notes == {}  # the happy path writes no note
    world.delivery_queue.faults.fail("enqueue", times=1)
    with pytest.raises(Unavailable):
        world.event_service().accept("acme", CreateEvent.model_validate({"type": "a.b", "id": "order-2", "data": {}}))
    assert len(world.unqueued.notes) == 1  # noted on the way out, should the producer never repeat it
    world.clock.advance(world.settings.sweep_grace_seconds + 60)
    assert world.sweeper().sweep()["unqueued_events"] == 1


def test_a_job_whose_chain_of_steps_was_lost_is_resumed_by_the_sweeper_and_finishes(world: World) -> None:
    ep = world.add_endpoint(status="disabled", disabled_reason="failing")
    world.events.create_deliveries([delivery(f"dlv_{i:03d}", f"evt_{i:03d}", ep.id, status="paused") for i in range(150)], 0)
    job = world.endpoint_service().enable("acme", ep.id).requeue
    assert world.run_jobs(max_steps=1) == 1
    world.jobs.sent.clear()  # its next step's message is lost (dropped by a release that knew no jobs, or dead-lettered)
    # When the sweeper runs while the job is still fresh, Then it leaves it alone
    assert world.sweeper().sweep()["stalled_jobs_resumed"] == 0 and world.jobs.sent == []
    # When the job has not moved for 20 minutes, Then the sweeper resumes it, and it finishes
    world.clock.advance(20 * 60)
    assert world.sweeper().sweep()["stalled_jobs_resumed"] == 1
    world.run_jobs()
    progress = world.job_runner().describe("acme", job.id)
    assert (progress.status, progress.counts) == ("done", {"requeued": 150})
    # And a finished job is no longer among the running: the next sweep resumes nothing
    world.clock.advance(30 * 60)
    assert world.sweeper().sweep()["stalled_jobs_resumed"] == 0 and world.job_store.marks == set()
