"""The operators' DLQ drain as a bulk job, over the fakes on a fake clock: what it moves, leaves and sets aside, its
pace, its end, and what a step that dies half-way does."""

from __future__ import annotations

from itertools import pairwise

import pytest

from hookline.core.deadletters import RETRY_WAIT_FAILED, DeadLetter, verdict
from hookline.core.errors import DependencyFailed, ValidationFailed
from hookline.core.models import DeliveryTask
from hookline.core.waits import waiting
from hookline.services.drain import HIDE_SECONDS, IDLE_STEPS, OPERATORS, DrainControl, drain_params
from tests.unit.services.conftest import World


def _dead(world: World, count: int, tenant: str = "acme", endpoint_id: str = "ep_a", reason: str = "max_attempts") -> list[DeliveryTask]:
    tasks = [DeliveryTask(tenant, f"evt_{endpoint_id}_{i}", f"dlv_{endpoint_id}_{i}", endpoint_id, 12, 0, dead_lettered=reason) for i in range(count)]
    for task in tasks:
        world.dead_letters.put(task.to_message(), reason)
    return tasks


def _control(world: World) -> DrainControl:
    return DrainControl(world.job_runner(), default_rate=10.0, clock=world.clock)


def test_a_drain_moves_every_dead_letter_back_at_its_pace_page_by_page_and_ends_when_the_dlq_is_empty(world: World) -> None:
    moved = _dead(world, 250)
    started = world.clock()
    job = _control(world).start({"kind": "drain_dlq", "rate": 20})["job"]
    assert (job["status"], job["kind"], job["rate"]) == ("running", "drain_dlq", "20")
    steps = world.run_jobs_on_clock(120)
    # Three pages of 100, 100 and 50, each next one due when the page before it has gone out at 20 a second
    assert [s.delay for s in steps] == [0, 5, 5]
    # Every task is back on the retry queue, once, as one that claims its attempt before it sends; the DLQ is empty
    back = world.retry_queue.tasks()
    assert sorted(t.delivery_id for t in back) == sorted(t.delivery_id for t in moved) and not any(t.fresh for t in back)
    assert world.dead_letters.bodies() == []
    # At the pace: no second holds more than 20 of them (SQS delays are whole seconds), and the seconds run on
    visible = sorted((s.visible_at - started).total_seconds() for s in world.retry_queue.sent if s.visible_at)
    assert max(visible.count(v) for v in set(visible)) <= 20 and all(b - a <= 1 for a, b in pairwise(visible))
    ended = world.job_runner().find(OPERATORS, job["id"])  # as stored: the API answers no operators' job
    assert (ended.status, ended.counts) == ("done", {"moved": 250, "skipped": 0, "poison": 0})


def test_a_filtered_drain_leaves_others_letters_and_poison_where_they_are(world: World) -> None:
    mine = _dead(world, 3, endpoint_id="ep_a")
    others = _dead(world, 2, endpoint_id="ep_b")
    world.dead_letters.put("not a task", "poison")
    job = _control(world).start({"kind": "drain_dlq", "endpoint_id": "ep_a", "rate": 100})["job"]
    world.run_jobs_on_clock(30)
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == sorted(t.delivery_id for t in mine)
    assert sorted(world.dead_letters.bodies()) == sorted([t.to_message() for t in others] + ["not a task"])
    ended = world.job_runner().find(OPERATORS, job["id"])
    assert (ended.status, ended.counts) == ("done", {"moved": 3, "skipped": 2, "poison": 1})


def test_a_drain_stops_at_its_maximum(world: World) -> None:
    _dead(world, 30)
    job = _control(world).start({"kind": "drain_dlq", "max_messages": 12, "rate": 100})["job"]
    world.run_jobs_on_clock(30)
    assert (len(world.retry_queue.sent), len(world.dead_letters.bodies())) == (12, 18)
    assert world.job_runner().find(OPERATORS, job["id"]).counts["moved"] == 12


def test_a_step_that_dies_between_send_and_delete_leaves_a_copy_and_the_drain_still_ends(world: World) -> None:
    _dead(world, 4)
    job = _control(world).start({"kind": "drain_dlq", "rate": 100})["job"]
    world.dead_letters.faults.fail("delete", times=1)
    runner = world.job_runner()
    with pytest.raises(DependencyFailed):
        runner.step(OPERATORS, job["id"], 0)
    assert len(world.retry_queue.sent) == 4 and len(world.dead_letters.bodies()) == 4  # sent, not deleted
    # When its message comes back after the letters' hiding, they go again (a copy each: the claim lets one send)
    world.clock.advance(HIDE_SECONDS + 1)
    runner.step(OPERATORS, job["id"], 0)
    world.run_jobs_on_clock(30)
    assert len(world.retry_queue.sent) == 8 and len({t.delivery_id for t in world.retry_queue.tasks()}) == 4
    assert world.dead_letters.bodies() == [] and world.job_runner().find(OPERATORS, job["id"]).status == "done"


def test_a_long_filtered_drain_moves_all_its_own_letters_among_many_others_and_ends(world: World) -> None:
    # Given 400 of its own letters among 1,500 others', drained slowly (a page of 100 every 50 s): longer than the
    # others' letters stay hidden, so it sees them again
    mine = _dead(world, 400, endpoint_id="ep_a")
    _dead(world, 1500, endpoint_id="ep_b")
    job = _control(world).start({"kind": "drain_dlq", "endpoint_id": "ep_a", "rate": 2})["job"]
    world.run_jobs_on_clock(3 * 3600)
    # Then every one of its own went back, the others stay, and the drain ended
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == sorted(t.delivery_id for t in mine)
    assert len(world.dead_letters.bodies()) == 1500
    ended = world.job_runner().find(OPERATORS, job["id"])
    assert (ended.status, ended.counts["moved"]) == ("done", 400)
    assert ended.counts["skipped"] >= 1500  # letters looked at and left: some more than once


def test_a_drain_that_finds_none_of_its_own_ends_after_its_idle_steps(world: World) -> None:
    _dead(world, 6000, endpoint_id="ep_b")
    job = _control(world).start({"kind": "drain_dlq", "endpoint_id": "ep_a", "rate": 100})["job"]
    steps = world.run_jobs_on_clock(600)
    ended = world.job_runner().find(OPERATORS, job["id"])
    assert (ended.status, ended.step, len(steps), ended.counts["moved"]) == ("done", IDLE_STEPS, IDLE_STEPS, 0)
    assert world.retry_queue.sent == []


def test_the_same_drain_asked_again_while_it_runs_is_that_drain_and_after_it_ended_a_new_one(world: World) -> None:
    control = _control(world)
    first = control.start({"kind": "drain_dlq", "endpoint_id": "ep_a"})["job"]
    world.clock.advance(10)
    assert control.start({"kind": "drain_dlq", "endpoint_id": "ep_a"})["job"]["id"] == first["id"]  # a retried invoke
    assert control.start({"kind": "drain_dlq"})["job"]["id"] != first["id"]
    assert control.start({"kind": "drain_dlq", "endpoint_id": "ep_a", "rate": 50})["job"]["id"] != first["id"]  # another pace
    assert control.describe({"job_id": first["id"]})["job"]["rate"] == "10"
    world.run_jobs_on_clock(5)  # the DLQ is empty: it ends at its first step
    assert control.describe({"job_id": first["id"]})["job"]["status"] == "done"
    # New dead letters, and the operator drains again within the minute: a new drain moves them
    _dead(world, 2)
    again = control.start({"kind": "drain_dlq", "endpoint_id": "ep_a"})["job"]
    world.run_jobs_on_clock(5)
    assert again["id"] != first["id"] and control.describe({"job_id": again["id"]})["job"]["counts"]["moved"] == 2


@pytest.mark.parametrize(
    "bad", [{"rate": "fast"}, {"rate": 0}, {"rate": 5000}, {"rate": True}, {"max_messages": -1}, {"max_messages": 2.5}, {"endpoint_id": 7}, {"colour": "red"}]
)
def test_a_bad_drain_is_refused_and_starts_nothing(world: World, bad: dict[str, object]) -> None:
    with pytest.raises(ValidationFailed):
        drain_params({"kind": "drain_dlq", **bad}, 10.0)
    with pytest.raises(ValidationFailed):
        _control(world).start({"kind": "drain_dlq", **bad})
    assert world.job_store.items == {} and world.jobs.sent == []


def test_the_verdict_on_one_letter() -> None:
    task = DeliveryTask("acme", "evt_1", "dlv_1", "ep_a", 3, 1, fresh=True)
    letter = DeadLetter(task.to_message(), "max_attempts", "h")
    assert verdict(letter) == ("move", DeliveryTask("acme", "evt_1", "dlv_1", "ep_a", 3, 1, fresh=False))
    assert verdict(letter, tenant="other") == ("skip", None)
    assert verdict(letter, endpoint_id="ep_b") == ("skip", None)
    assert verdict(letter, tenant="acme", endpoint_id="ep_a")[0] == "move"
    assert verdict(DeadLetter(task.to_message(), "poison", "h")) == ("poison", None)
    assert verdict(DeadLetter("{}", "", "h")) == ("poison", None)


def test_a_task_the_retry_state_machine_could_not_queue_is_moved_back_as_a_claiming_task() -> None:
    # Given the letter the state machine's Catch sends: the waiting task as it was (claiming, with its due second)
    task = waiting(DeliveryTask("acme", "evt_1", "dlv_1", "ep_a", 3, 1, fresh=True), 1_796_000_000)
    letter = DeadLetter(task.to_message(), RETRY_WAIT_FAILED, "h")
    # Then the drain moves it like any other (not poison), claiming its attempt: a copy the sweeper re-queued meanwhile
    # made the attempt already, and the moved one then drops; its due second goes along, so its arrival drops its note
    decided, moved = verdict(letter)
    assert decided == "move" and moved == task
    assert moved is not None and (moved.fresh, moved.wait_until, moved.dead_lettered) == (False, 1_796_000_000, "")
    assert verdict(letter, endpoint_id="ep_b") == ("skip", None)
