"""ReplayService over in-memory fakes, on a fake clock: the window's deliveries are restarted once each and
queued at the endpoint's rate (the SQS delays, read off the fake queue), page after page; progress is reported."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from itertools import pairwise

import pytest

from hookline.core.errors import DependencyFailed, NotFound, ValidationFailed
from hookline.core.models import Endpoint
from tests.fakes.contracts import delivery
from tests.fakes.queues import Sent
from tests.unit.services.conftest import World

WINDOW = {"since": "2026-11-29T10:00:00Z", "until": "2026-11-29T11:00:00Z"}


def _failed(world: World, ep: Endpoint, count: int, minute: int = 0, status: str = "failed") -> list[str]:
    """`count` deliveries to `ep` that ended `status`, created a second apart from 10:<minute>."""
    made, first = [], len(world.events.rows)
    for i in range(count):
        created = (datetime.fromisoformat("2026-11-29T10:00:00+00:00") + timedelta(minutes=minute, seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        made.append(delivery(f"dlv_{first + i:05d}", f"evt_{first + i:05d}", ep.id, status=status, attempts_made=12, created_at=created))
    world.events.create_deliveries(made, 0)
    return [d.id for d in made]


def _run_jobs(world: World, until_seconds: float) -> list[Sent]:
    """Play the replay queue's consumer on the fake clock: run each job when it becomes visible; returns the jobs run."""
    service, ran = world.replay_service(), []
    deadline = world.clock() + timedelta(seconds=until_seconds)
    while world.clock() <= deadline:
        for job in world.jobs.take_due(world.clock()):
            body = json.loads(job.body)
            service.step(body["tenant"], body["replay_id"])
            ran.append(job)
        world.clock.advance(1)
    return ran


def test_a_window_replay_restarts_each_failed_delivery_once_paced_at_the_endpoints_rate_across_pages(world: World) -> None:
    # Given an endpoint limited to one request every ten seconds, and 130 failed deliveries in the window
    ep = world.add_endpoint(rate_limit_per_second=0.1)
    failed = _failed(world, ep, 130)
    # When a replay of the window is started and its jobs run as they come due
    started = world.clock()
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    jobs = _run_jobs(world, until_seconds=3 * 3600)
    # Then it took three pages (ten minutes' worth each, at 0.1/s: 60 tasks), each next one due once the last had drained
    assert [job.delay for job in jobs] == [0, 600, 600]
    # And every delivery was restarted once, as a manual attempt 13 in generation 1 tagged with the replay
    tasks = world.retry_queue.tasks()
    assert sorted(t.delivery_id for t in tasks) == sorted(failed)
    assert {(t.attempt, t.generation, t.trigger, t.replay_id) for t in tasks} == {(13, 1, "manual", replay["id"])}
    assert {(d.status, d.generation, d.replay_id) for d in world.events.all_deliveries()} == {("pending", 1, replay["id"])}
    # And the tasks become visible ten seconds apart, one after the other, across the page boundaries too
    visible = sorted((s.visible_at - started).total_seconds() for s in world.retry_queue.sent if s.visible_at)
    assert visible == [10.0 * i for i in range(130)]
    # And the replay reports what it matched and queued
    shown = world.replay_service().describe("acme", replay["id"])
    assert (shown["matched"], shown["queued"], shown["delivered"], shown["failed"], shown["status"]) == (130, 130, 0, 0, "running")


@pytest.mark.parametrize(("rate", "page"), [(2.0, 100), (0.5, 100), (3.0, 100)])
def test_one_pages_delays_keep_every_second_within_the_rate(world: World, rate: float, page: int) -> None:
    ep = world.add_endpoint(rate_limit_per_second=rate)
    _failed(world, ep, 120)
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    world.replay_service().step("acme", replay["id"])
    delays = [s.delay for s in world.retry_queue.sent]
    # A page is at most 100 tasks, their delays never decrease, and no second holds more than the rate allows
    assert len(delays) == page
    assert all(a <= b for a, b in pairwise(delays))
    per_second = [delays.count(second) for second in range(max(delays) + 1)]
    assert max(per_second) <= max(1, rate)
    assert delays[-1] == int((page - 1) / rate)
    # And the next page's job comes due once this page has drained at the rate
    [next_job] = world.jobs.sent[1:]
    assert next_job.delay == min(900, -(-page // rate))


def test_progress_is_running_until_every_queued_delivery_has_ended(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    _failed(world, ep, 3)
    service = world.replay_service()
    replay = service.start("acme", ep.id, {**WINDOW, "status": "failed"})
    assert service.describe("acme", replay["id"])["status"] == "running"
    _run_jobs(world, until_seconds=5)
    assert (service.describe("acme", replay["id"])["queued"], service.describe("acme", replay["id"])["status"]) == (3, "running")
    # When the delivery side counts each replayed delivery's end
    for outcome in ("delivered", "delivered", "failed"):
        world.replays.count("acme", replay["id"], outcome)
    # Then the replay is completed, with the counts
    shown = service.describe("acme", replay["id"])
    assert (shown["status"], shown["delivered"], shown["failed"]) == ("completed", 2, 1)


def test_only_the_window_and_the_chosen_status_are_replayed(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    inside = _failed(world, ep, 2, minute=30)
    _failed(world, ep, 2, minute=70)  # 11:10, after the window
    paused = _failed(world, ep, 2, minute=40, status="paused")
    other = world.add_endpoint()
    _failed(world, other, 2, minute=30)
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    _run_jobs(world, until_seconds=5)
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == inside
    replay_paused = world.replay_service().start("acme", ep.id, {**WINDOW, "status": "paused"})
    assert replay_paused["id"] != replay["id"]
    _run_jobs(world, until_seconds=5)
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == sorted(inside + paused)


def test_the_same_request_within_a_minute_names_the_same_replay_and_a_duplicate_job_takes_no_step(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    _failed(world, ep, 5)
    service = world.replay_service()
    first = service.start("acme", ep.id, WINDOW)
    world.clock.advance(20)
    again = service.start("acme", ep.id, WINDOW)
    assert again == first
    # Its job was queued again (the first may have been lost), and running both restarts each delivery once
    assert len(world.jobs.sent) == 2
    _run_jobs(world, until_seconds=5)
    assert len(world.retry_queue.sent) == 5
    # A minute later the same request is a new replay
    world.clock.advance(60)
    assert service.start("acme", ep.id, WINDOW)["id"] != first["id"]


def test_a_step_that_dies_after_taking_its_page_is_finished_by_the_jobs_redelivery(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    failed = _failed(world, ep, 4)
    service = world.replay_service()
    replay = service.start("acme", ep.id, WINDOW)
    # Given SQS failing the page's send once: the step has recorded its tasks, then dies
    world.retry_queue.faults.fail("send", times=1)
    with pytest.raises(DependencyFailed):
        service.step("acme", replay["id"])
    assert world.retry_queue.sent == []
    assert len(world.replays.get("acme", replay["id"])["pending_tasks"]) == 4
    # When the job comes back, Then the recorded tasks go out, once, and no delivery is restarted twice
    service.step("acme", replay["id"])
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == failed
    assert {d.generation for d in world.events.all_deliveries()} == {1}
    assert "pending_tasks" not in world.replays.get("acme", replay["id"])


def test_starting_needs_an_endpoint_of_the_tenant_and_a_valid_window(world: World) -> None:
    ep = world.add_endpoint()
    service = world.replay_service()
    with pytest.raises(NotFound):
        service.start("other", ep.id, WINDOW)
    for bad in ({"since": WINDOW["until"], "until": WINDOW["since"]}, {**WINDOW, "status": "succeeded"}, {"since": WINDOW["since"]}):
        with pytest.raises(ValidationFailed):
            service.start("acme", ep.id, bad)
    assert world.jobs.sent == [] and world.replays.items == {}
    with pytest.raises(NotFound):
        service.describe("acme", "rpl_nope")
