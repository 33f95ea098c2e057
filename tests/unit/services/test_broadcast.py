"""BroadcastService over in-memory fakes: one event to every subscribed endpoint of the tenant, a page per job, each
endpoint once however often a step runs (twice, after a crash, or in a duplicate job chain), and progress counted once."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest

from hookline.core.broadcast import BROADCAST_JOB
from hookline.core.errors import Conflict, DependencyFailed, Unavailable, ValidationFailed
from hookline.core.models import Endpoint
from hookline.services.broadcast import PAGE
from tests.fakes.queues import Sent
from tests.unit.services.conftest import World

BODY = {"type": "plan.changed", "data": {"plan": "pro"}, "id": "plans-2026-12"}


def _endpoints(world: World, customers: int, per_customer: int = 1) -> dict[str, list[Endpoint]]:
    """Subscribed endpoints of `customers` customers and of the tenant itself, and the ones that must get nothing."""
    subscribed = [world.add_endpoint(customer=f"c{i:04d}", event_types=("plan.changed",)) for i in range(customers) for _ in range(per_customer)]
    subscribed += [world.add_endpoint(), world.add_endpoint(event_types=("plan.changed", "other"))]  # the tenant's own
    disabled = [world.add_endpoint(customer="c0000", status="disabled", disabled_reason="manual")]
    others = [world.add_endpoint(customer="c0001", event_types=("invoice.paid",)), world.add_endpoint(tenant="globex")]
    return {"active": subscribed, "disabled": disabled, "none": others}


def _run_jobs(world: World, limit: int = 1000) -> list[Sent]:
    """Play the replay function on the job queue until it is empty; returns the jobs run."""
    service, ran = world.broadcast_service(), []
    while jobs := world.jobs.take_due(world.clock()):
        for job in jobs:
            body = json.loads(job.body)
            assert body["kind"] == BROADCAST_JOB
            service.step(body["tenant"], body["event_id"])
            ran.append(job)
        assert len(ran) < limit
    return ran


def _per_endpoint(world: World, event_id: str) -> Counter[str]:
    return Counter(d.endpoint_id for d in world.events.all_deliveries() if d.event_id == event_id)


def test_a_broadcast_reaches_every_subscribed_endpoint_once_a_page_per_job(world: World) -> None:
    # Given 250 customers with a subscribed endpoint each, the tenant's own two, a disabled one, and some that must get nothing
    made = _endpoints(world, 250)
    # When a broadcast is started
    answer = world.broadcast_service().start("acme", BODY)
    # Then it answers at once, having created no delivery and queued one job
    assert answer == {"id": answer["id"], "status": "fanning_out"}
    assert world.events.all_deliveries() == []
    assert [json.loads(b) for b in world.jobs.bodies()] == [{"kind": "broadcast", "tenant": "acme", "event_id": answer["id"]}]
    # When the jobs run, a page of endpoints each
    jobs = _run_jobs(world)
    # Then it took one job per page of the tenant's 254 endpoints
    assert len(jobs) == -(-254 // PAGE)
    # And every subscribed endpoint has exactly one delivery, the disabled one's paused, and no other endpoint has any
    expected = {ep.id: 1 for ep in made["active"] + made["disabled"]}
    assert _per_endpoint(world, answer["id"]) == expected
    statuses = {d.endpoint_id: d.status for d in world.events.all_deliveries()}
    assert statuses[made["disabled"][0].id] == "paused"
    assert Counter(statuses.values()) == {"pending": 252, "paused": 1}
    # And the active ones' first attempts are queued, once each
    assert Counter(t.endpoint_id for t in world.delivery_queue.tasks()) == {ep.id: 1 for ep in made["active"]}
    assert {(t.attempt, t.generation, t.event_id) for t in world.delivery_queue.tasks()} == {(1, 0, answer["id"])}
    # And the progress reads back, counted once per page
    fanout = world.events.get_event("acme", answer["id"]).broadcast
    assert fanout.public() == {"status": "done", "pages": 3, "endpoints_scanned": 254, "deliveries": 253, "paused": 1}


def test_repeating_a_broadcast_with_its_id_creates_nothing_and_another_body_is_a_conflict(world: World) -> None:
    _endpoints(world, 5)
    service = world.broadcast_service()
    first = service.start("acme", BODY)
    # While its first job has not run, a repeat queues the job again (it may never have been queued): harmless
    assert service.start("acme", BODY) == first
    assert len(world.jobs.sent) == 2
    _run_jobs(world)
    created, tasks = world.events.all_deliveries(), world.delivery_queue.tasks()
    assert len(created) == 8
    # When it is repeated after the fan-out: the same answer, no job, no delivery, no task
    assert service.start("acme", BODY) == first
    assert world.jobs.sent == []
    assert (world.events.all_deliveries(), world.delivery_queue.tasks()) == (created, tasks)
    # And the same id with another body, or as an ordinary event, is an idempotency conflict
    with pytest.raises(Conflict) as caught:
        service.start("acme", {**BODY, "data": {"plan": "free"}})
    assert caught.value.code == "idempotency_conflict"
    with pytest.raises(Conflict):
        world.event_service().accept("acme", BODY)
    world.event_service().accept("acme", {**BODY, "id": "ordinary"})
    with pytest.raises(Conflict):
        service.start("acme", {**BODY, "id": "ordinary"})
    # And another tenant's same id is a broadcast of its own
    assert service.start("globex", BODY)["id"] != first["id"]


@pytest.mark.parametrize(
    "body",
    [
        {**BODY, "customer": "c0001"},
        {**BODY, "customer": None},
        {**BODY, "priority": 1},
        {"data": {}},
        {"type": "a.b", "data": []},
        {"type": "a b", "data": {}},
    ],
)
def test_a_broadcast_is_validated_as_an_event_but_names_no_customer(world: World, body: dict[str, object]) -> None:
    with pytest.raises(ValidationFailed):
        world.broadcast_service().start("acme", body)
    assert (world.events.events, world.jobs.sent) == ({}, [])


def test_without_an_id_each_broadcast_is_a_new_one(world: World) -> None:
    service = world.broadcast_service()
    body = {"type": "a.b", "data": {}}
    assert service.start("acme", body)["id"] != service.start("acme", body)["id"]


def test_a_step_run_twice_creates_and_counts_nothing_twice(world: World) -> None:
    # Given a broadcast over 152 endpoints, its first job taken
    made = _endpoints(world, 148)
    answer = world.broadcast_service().start("acme", BODY)
    assert len(world.jobs.take_due(world.clock())) == 1
    # When that one message is delivered twice, one after the other (SQS at least once)
    service = world.broadcast_service()
    service.step("acme", answer["id"])
    service.step("acme", answer["id"])
    # Then the second run found the first page taken and took the last one; the job the first queued finds it done
    _run_jobs(world)
    assert _per_endpoint(world, answer["id"]) == {ep.id: 1 for ep in made["active"] + made["disabled"]}
    fanout = world.events.get_event("acme", answer["id"]).broadcast
    assert (fanout.status, fanout.endpoints_scanned, fanout.deliveries) == ("done", 152, 151)


def test_a_duplicate_job_chain_loses_the_advance_and_stops(world: World) -> None:
    # Given a broadcast whose first job was queued twice (the API call was repeated before it ran)
    made = _endpoints(world, 300)
    service = world.broadcast_service()
    answer = service.start("acme", BODY)
    service.start("acme", BODY)
    # When both copies run the same step concurrently: both read step 0 before either advances
    read = world.events.get_event
    stale = read("acme", answer["id"])
    world.events.get_event = lambda *a, **k: stale  # type: ignore[method-assign]
    for job in world.jobs.take_due(world.clock()):
        service.step("acme", json.loads(job.body)["event_id"])
    world.events.get_event = read  # type: ignore[method-assign]
    # Then only the winner queued the next step: one chain goes on
    assert len(world.jobs.sent) == 1
    _run_jobs(world)
    # And each endpoint got its delivery once; a first page's task may be queued twice (the claim lets one deliver)
    assert _per_endpoint(world, answer["id"]) == {ep.id: 1 for ep in made["active"] + made["disabled"]}
    assert {t.endpoint_id for t in world.delivery_queue.tasks()} == {ep.id for ep in made["active"]}
    fanout = world.events.get_event("acme", answer["id"]).broadcast
    assert (fanout.status, fanout.step, fanout.deliveries) == ("done", 4, 303)


def test_a_crash_between_the_deliveries_and_the_advance_is_finished_by_the_redelivered_job(world: World) -> None:
    # Given a broadcast whose first step dies after creating its page's deliveries and queueing their tasks
    made = _endpoints(world, 120)
    answer = world.broadcast_service().start("acme", BODY)
    [job] = world.jobs.take_due(world.clock())
    world.events.faults.fail("advance_fanout", times=1)
    with pytest.raises(DependencyFailed):
        world.broadcast_service().step("acme", answer["id"])
    first_page = sorted(ep.id for ep in world.endpoints.items.values() if ep.tenant == "acme")[:PAGE]
    assert len(world.events.all_deliveries()) == len(set(first_page) - {ep.id for ep in made["none"]})
    # And one of them has been delivered meanwhile
    delivered = next(d for d in world.events.all_deliveries() if d.status == "pending")
    row = world.events.rows[("acme", delivered.event_id, delivered.id)]
    row.delivery = replace(row.delivery, status="succeeded", attempts_made=1)
    queued_first = Counter(t.delivery_id for t in world.delivery_queue.tasks())
    # When SQS redelivers the job and the jobs run to the end
    world.jobs.send_bodies([job.body])
    _run_jobs(world)
    # Then nothing was created twice, the pending ones were queued again (duplicates are harmless), the delivered one was not
    assert _per_endpoint(world, answer["id"]) == {ep.id: 1 for ep in made["active"] + made["disabled"]}
    again = Counter(t.delivery_id for t in world.delivery_queue.tasks()) - queued_first
    assert delivered.id not in again
    assert set(queued_first) - {delivered.id} <= set(again)
    # And the page was counted once
    fanout = world.events.get_event("acme", answer["id"]).broadcast
    assert (fanout.status, fanout.endpoints_scanned, fanout.deliveries, fanout.paused) == ("done", 124, 123, 1)


def test_a_crash_after_the_advance_takes_the_next_page_when_redelivered(world: World) -> None:
    made = _endpoints(world, 150)
    answer = world.broadcast_service().start("acme", BODY)
    [job] = world.jobs.take_due(world.clock())
    # When the next job cannot be queued after the first page advanced
    world.jobs.faults.fail("send", times=1)
    with pytest.raises(DependencyFailed):
        world.broadcast_service().step("acme", answer["id"])
    assert world.events.get_event("acme", answer["id"]).broadcast.step == 1
    # Then the redelivered job takes the second page, and the broadcast finishes whole
    world.jobs.send_bodies([job.body])
    _run_jobs(world)
    assert _per_endpoint(world, answer["id"]) == {ep.id: 1 for ep in made["active"] + made["disabled"]}
    assert world.events.get_event("acme", answer["id"]).broadcast.public()["endpoints_scanned"] == 154


def test_a_failed_start_answers_503_and_its_repeat_queues_the_job(world: World) -> None:
    _endpoints(world, 3)
    service = world.broadcast_service()
    world.jobs.faults.fail("send", times=1)
    with pytest.raises(Unavailable):
        service.start("acme", BODY)
    assert world.jobs.sent == []
    # When the request is repeated with its id, Then the job is queued and the fan-out runs
    answer = service.start("acme", BODY)
    _run_jobs(world)
    assert len(_per_endpoint(world, answer["id"])) == 6


def test_a_step_for_an_unknown_finished_or_ordinary_event_does_nothing(world: World) -> None:
    _endpoints(world, 3)
    service = world.broadcast_service()
    ordinary = world.event_service().accept("acme", {"type": "plan.changed", "data": {}})
    before = (world.events.all_deliveries(), world.delivery_queue.tasks())
    service.step("acme", ordinary["id"])
    service.step("acme", "evt_nope")
    answer = service.start("acme", BODY)
    _run_jobs(world)
    done = (world.events.all_deliveries(), world.delivery_queue.tasks())
    service.step("acme", answer["id"])
    assert (world.events.all_deliveries(), world.delivery_queue.tasks()) == done
    assert len(done[0]) == len(before[0]) + 6


def test_a_broadcast_shows_its_progress_and_a_page_of_deliveries_an_ordinary_event_all_of_its_own(world: World) -> None:
    _endpoints(world, 7)
    answer = world.broadcast_service().start("acme", BODY)
    events = world.event_service()
    # While it has not fanned out, it shows no delivery yet
    shown = events.describe("acme", answer["id"], 4)
    assert (shown["broadcast"]["status"], shown["deliveries"], shown["deliveries_next"]) == ("fanning_out", [], None)
    _run_jobs(world)
    # Then its deliveries come a page at a time, each once
    seen, cursor = [], None
    while True:
        shown = events.describe("acme", answer["id"], 4, cursor)
        seen += [d["id"] for d in shown["deliveries"]]
        cursor = shown["deliveries_next"]
        if not cursor:
            break
    assert sorted(seen) == sorted(d.id for d in world.events.all_deliveries()) and len(seen) == len(set(seen)) == 10
    assert shown["broadcast"] == {"status": "done", "pages": 1, "endpoints_scanned": 11, "deliveries": 10, "paused": 1}
    assert (shown["id"], shown["type"], shown["customer"], shown["data"]) == (answer["id"], "plan.changed", None, {"plan": "pro"})
    # And an ordinary event answers as it always did: all its deliveries, no progress, no cursor
    ordinary = events.accept("acme", {"type": "plan.changed", "data": {}})
    assert sorted(events.describe("acme", ordinary["id"], 1)) == ["created_at", "customer", "data", "deliveries", "id", "type", "version"]
    assert len(events.describe("acme", ordinary["id"], 1)["deliveries"]) == 2
