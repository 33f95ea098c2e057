"""Broadcasts over in-memory fakes: one event to every subscribed endpoint of the tenant, fanned out by a job (kind
`broadcast`) a page per step, each endpoint once however often a step runs (twice, after a crash, or beside a duplicate),
and its progress counted once, alike on the job and on the event's `broadcast` view."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from pydantic import ValidationError

from hookline.core.broadcast import fanout_job_id
from hookline.core.contract.events import BroadcastAccepted, CreateBroadcast, CreateEvent
from hookline.core.contract.jobs import JobSummary
from hookline.core.errors import Conflict, DependencyFailed, Unavailable, ValidationFailed
from hookline.core.jobs import BROADCAST_JOB, JOB_MESSAGE, Job
from hookline.core.models import Endpoint
from hookline.services.broadcast import PAGE, BroadcastFanout
from tests.fakes.queues import Sent
from tests.unit.services.conftest import World

BODY = {"type": "plan.changed", "data": {"plan": "pro"}, "id": "plans-2026-12"}
BROADCAST = CreateBroadcast.model_validate(BODY)


def _endpoints(world: World, customers: int, per_customer: int = 1) -> dict[str, list[Endpoint]]:
    """Subscribed endpoints of `customers` customers and of the tenant itself, and the ones that must get nothing."""
    subscribed = [world.add_endpoint(customer=f"c{i:04d}", event_types=("plan.changed",)) for i in range(customers) for _ in range(per_customer)]
    subscribed += [world.add_endpoint(), world.add_endpoint(event_types=("plan.changed", "other"))]  # the tenant's own
    disabled = [world.add_endpoint(customer="c0000", status="disabled", disabled_reason="manual")]
    others = [world.add_endpoint(customer="c0001", event_types=("invoice.paid",)), world.add_endpoint(tenant="globex")]
    return {"active": subscribed, "disabled": disabled, "none": others}


def _per_endpoint(world: World, event_id: str) -> Counter[str]:
    return Counter(d.endpoint_id for d in world.events.all_deliveries() if d.event_id == event_id)


def _reached(made: dict[str, list[Endpoint]]) -> dict[str, int]:
    """One delivery for each subscribed endpoint, the disabled one's included, and none for any other."""
    return {ep.id: 1 for ep in made["active"] + made["disabled"]}


def _take_step(world: World) -> Sent:
    """Receive the job queue's next message, as the jobs function would (its delay let pass), and run it."""
    message = world.jobs.sent.pop(0)
    _run(world, message)
    return message


def _run(world: World, message: Sent) -> None:
    body = json.loads(message.body)
    assert body["kind"] == JOB_MESSAGE
    world.job_runner().step(body["tenant"], body["job_id"], body.get("step"))


def _progress(world: World, answer: BroadcastAccepted) -> tuple[dict[str, Any], dict[str, Any]]:
    """The job as GET /v1/jobs/{id} shows it, and the fan-out as GET /v1/events/{id} does."""
    return world.job_runner().describe("acme", answer.job.id).model_dump(), world.event_service().describe("acme", answer.id, 1).model_dump()["broadcast"]


def _agree(job: dict[str, Any], fanout: dict[str, Any]) -> None:
    """The job and the event's view show the same progress."""
    assert job["steps"] == fanout["pages"]
    assert job["counts"] == {k: fanout[k] for k in ("endpoints_scanned", "deliveries", "paused")}
    assert (job["status"] == "done") == (fanout["status"] == "done")


def _for_a_while(world: World, owner: object, name: str, value: object, times: int) -> None:
    """`owner.name(...)` answers `value` for its next `times` calls, then as before (a read taken before another's write)."""
    real: Callable[..., Any] = getattr(owner, name)
    left = [times]

    def stale(*args: object, **kwargs: object) -> object:
        if left[0]:
            left[0] -= 1
            return value
        return real(*args, **kwargs)

    setattr(owner, name, stale)


def test_a_broadcast_reaches_every_subscribed_endpoint_once_a_page_per_step_of_its_job(world: World) -> None:
    # Given 250 customers with a subscribed endpoint each, the tenant's own two, a disabled one, and some that must get nothing
    made = _endpoints(world, 250)
    # When a broadcast is started
    answer = world.broadcast_service().start("acme", BROADCAST)
    # Then it answers at once with its job, having created no delivery and queued the job's first step
    job_id = fanout_job_id("acme", answer.id)
    assert answer == BroadcastAccepted(id=answer.id, status="fanning_out", job=JobSummary(id=job_id, status="running"))
    assert world.events.all_deliveries() == []
    assert [json.loads(b) for b in world.jobs.bodies()] == [{"kind": "job", "tenant": "acme", "job_id": job_id, "step": 0}]
    shown = world.job_runner().describe("acme", job_id)
    assert (shown.kind, shown.event_id, shown.status, shown.steps) == (BROADCAST_JOB, answer.id, "running", 0)
    # When the job's steps run, a page of endpoints each
    steps = world.run_jobs()
    # Then it took one step per page of the tenant's 254 endpoints
    assert steps == -(-254 // PAGE)
    # And every subscribed endpoint has exactly one delivery, the disabled one's paused, and no other endpoint has any
    assert _per_endpoint(world, answer.id) == _reached(made)
    statuses = {d.endpoint_id: d.status for d in world.events.all_deliveries()}
    assert statuses[made["disabled"][0].id] == "paused"
    assert Counter(statuses.values()) == {"pending": 252, "paused": 1}
    # And the active ones' first attempts are queued, once each
    assert Counter(t.endpoint_id for t in world.delivery_queue.tasks()) == {ep.id: 1 for ep in made["active"]}
    assert {(t.attempt, t.generation, t.event_id) for t in world.delivery_queue.tasks()} == {(1, 0, answer.id)}
    # And the progress reads back, counted once per page, alike on the job and on the event
    job, fanout = _progress(world, answer)
    assert fanout == {"status": "done", "pages": 3, "endpoints_scanned": 254, "deliveries": 253, "paused": 1}
    _agree(job, fanout)


def test_a_broadcast_to_3200_customer_endpoints_runs_as_a_job_to_completion_its_progress_readable_on_the_way(world: World) -> None:
    # Given seed 001's tenant: 3,200 customer endpoints (and the tenant's own, a disabled one, two that get nothing)
    made = _endpoints(world, 3200)
    answer = world.broadcast_service().start("acme", BROADCAST)
    # When its job runs ten steps
    for _ in range(10):
        _take_step(world)
    # Then both views show the same ten pages, still running
    job, fanout = _progress(world, answer)
    assert (job["status"], fanout["status"], fanout["pages"], fanout["endpoints_scanned"]) == ("running", "fanning_out", 10, 10 * PAGE)
    _agree(job, fanout)
    # When the rest run
    assert world.run_jobs() == -(-3204 // PAGE) - 10
    # Then it is done: every subscribed endpoint once, each active one's first attempt queued once
    job, fanout = _progress(world, answer)
    assert (job["status"], job["counts"]) == ("done", {"endpoints_scanned": 3204, "deliveries": 3203, "paused": 1})
    assert fanout == {"status": "done", "pages": 33, "endpoints_scanned": 3204, "deliveries": 3203, "paused": 1}
    _agree(job, fanout)
    assert _per_endpoint(world, answer.id) == _reached(made)
    assert len(world.delivery_queue.tasks()) == len({t.delivery_id for t in world.delivery_queue.tasks()}) == 3202


def test_repeating_a_broadcast_with_its_id_starts_no_second_job_and_another_body_is_a_conflict(world: World) -> None:
    _endpoints(world, 5)
    service = world.broadcast_service()
    first = service.start("acme", BROADCAST)
    # While its first step has not run, a repeat queues that step again (it may never have been queued): harmless
    assert service.start("acme", BROADCAST) == first
    assert [json.loads(s.body)["step"] for s in world.jobs.sent] == [0, 0]
    assert world.run_jobs() == 2  # the duplicate finds the step taken and ends
    created, tasks = world.events.all_deliveries(), world.delivery_queue.tasks()
    assert len(created) == 8
    # When it is repeated after the fan-out: the same broadcast, its job done, and no step, delivery or task
    assert service.start("acme", BROADCAST) == first.model_copy(update={"job": JobSummary(id=first.job.id, status="done")})
    assert world.jobs.sent == []
    assert (world.events.all_deliveries(), world.delivery_queue.tasks()) == (created, tasks)
    assert len(world.job_store.items) == 1
    # And the same id with another body, or as an ordinary event, is an idempotency conflict
    with pytest.raises(Conflict) as caught:
        service.start("acme", CreateBroadcast.model_validate({**BODY, "data": {"plan": "free"}}))
    assert caught.value.code == "idempotency_conflict"
    with pytest.raises(Conflict):
        world.event_service().accept("acme", CreateEvent.model_validate(BODY))
    world.event_service().accept("acme", CreateEvent.model_validate({**BODY, "id": "ordinary"}))
    with pytest.raises(Conflict):
        service.start("acme", CreateBroadcast.model_validate({**BODY, "id": "ordinary"}))
    # And another tenant's same id is a broadcast of its own, with a job of its own
    other = service.start("globex", BROADCAST)
    assert other.id != first.id and other.job.id != first.job.id


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
    # A field's rule refuses as a pydantic error carrying hookline's code (the API answers it by contract_error)
    with pytest.raises((ValidationFailed, ValidationError)):
        world.broadcast_service().start("acme", CreateBroadcast.model_validate(body))
    assert (world.events.events, world.jobs.sent, world.job_store.items) == ({}, [], {})


def test_without_an_id_each_broadcast_is_a_new_one_with_a_job_of_its_own(world: World) -> None:
    service = world.broadcast_service()
    body = CreateBroadcast(type="a.b", data={})
    first, second = service.start("acme", body), service.start("acme", body)
    assert first.id != second.id and first.job.id != second.job.id


def test_a_page_run_twice_for_one_step_creates_and_counts_nothing_twice(world: World) -> None:
    # Given a broadcast over 152 endpoints
    made = _endpoints(world, 148)
    answer = world.broadcast_service().start("acme", BROADCAST)
    kind = world.job_runner().kinds[BROADCAST_JOB]
    job = world.job_store.get("acme", answer.job.id)
    assert job is not None
    # When its kind runs the first step twice (the job not advanced in between)
    first = kind.step(job, world.clock())
    deliveries, tasks = world.events.all_deliveries(), world.delivery_queue.tasks()
    second = kind.step(job, world.clock())
    # Then the second took no page: it follows the fan-out state the first advanced, to the same cursor and counts
    assert second == first
    assert first.cursor and first.counts["endpoints_scanned"] == PAGE
    assert (world.events.all_deliveries(), world.delivery_queue.tasks()) == (deliveries, tasks)
    # And the job, run on, finishes with each endpoint once and the page counted once
    world.run_jobs()
    assert _per_endpoint(world, answer.id) == _reached(made)
    job_shown, fanout = _progress(world, answer)
    assert (fanout["status"], fanout["endpoints_scanned"], fanout["deliveries"]) == ("done", 152, 151)
    _agree(job_shown, fanout)


def test_two_runs_of_one_step_at_once_count_its_page_once_and_one_chain_goes_on(world: World) -> None:
    # Given a broadcast whose first step was queued twice (the API call was repeated before it ran)
    made = _endpoints(world, 300)
    service = world.broadcast_service()
    answer = service.start("acme", BROADCAST)
    service.start("acme", BROADCAST)
    [a, b] = world.jobs.take_due(world.clock())
    # When both copies run at once: both read the job at step 0, and the event before either advances it
    job = world.job_store.get("acme", answer.job.id)
    event = world.events.get_event("acme", answer.id)
    _for_a_while(world, world.job_store, "get", job, times=2)
    _for_a_while(world, world.events, "get_event", event, times=2)
    _run(world, a)
    _run(world, b)
    # Then the page's deliveries exist once and the second copy lost both advances; each queued step 1 (before its
    # advance), and the later of the two ends when it finds the job past it
    assert [json.loads(s.body)["step"] for s in world.jobs.sent] == [1, 1]
    job_shown, fanout = _progress(world, answer)
    assert (job_shown["steps"], fanout["pages"], fanout["endpoints_scanned"]) == (1, 1, PAGE)
    _agree(job_shown, fanout)
    world.run_jobs()
    # And each endpoint got its delivery once; a first page's task may be queued twice (the claim lets one deliver)
    assert _per_endpoint(world, answer.id) == _reached(made)
    assert {t.endpoint_id for t in world.delivery_queue.tasks()} == {ep.id for ep in made["active"]}
    job_shown, fanout = _progress(world, answer)
    assert (fanout["status"], fanout["pages"], fanout["deliveries"]) == ("done", 4, 303)
    _agree(job_shown, fanout)


def test_a_crash_between_the_deliveries_and_the_advance_is_finished_by_the_redelivered_step(world: World) -> None:
    # Given a broadcast whose first step dies after creating its page's deliveries and queueing their tasks
    made = _endpoints(world, 120)
    answer = world.broadcast_service().start("acme", BROADCAST)
    [message] = world.jobs.take_due(world.clock())
    world.events.faults.fail("advance_fanout", times=1)
    with pytest.raises(DependencyFailed):
        _run(world, message)
    first_page = sorted(ep.id for ep in world.endpoints.items.values() if ep.tenant == "acme")[:PAGE]
    assert len(world.events.all_deliveries()) == len(set(first_page) - {ep.id for ep in made["none"]})
    assert world.job_runner().describe("acme", answer.job.id).steps == 0
    # And one of them has been delivered meanwhile
    delivered = next(d for d in world.events.all_deliveries() if d.status == "pending")
    row = world.events.rows[("acme", delivered.event_id, delivered.id)]
    row.delivery = replace(row.delivery, status="succeeded", attempts_made=1)
    queued_first = Counter(t.delivery_id for t in world.delivery_queue.tasks())
    # When SQS redelivers the step and the job runs to the end
    world.jobs.enqueue_bodies([message.body])
    world.run_jobs()
    # Then nothing was created twice, the pending ones were queued again (duplicates are harmless), the delivered one was not
    assert _per_endpoint(world, answer.id) == _reached(made)
    again = Counter(t.delivery_id for t in world.delivery_queue.tasks()) - queued_first
    assert delivered.id not in again
    assert set(queued_first) - {delivered.id} <= set(again)
    # And the page was counted once, on the job as on the event
    job, fanout = _progress(world, answer)
    assert (fanout["status"], fanout["endpoints_scanned"], fanout["deliveries"], fanout["paused"]) == ("done", 124, 123, 1)
    _agree(job, fanout)


def test_a_crash_between_the_fanouts_advance_and_the_jobs_is_caught_up_without_taking_the_page_again(world: World) -> None:
    made = _endpoints(world, 150)
    answer = world.broadcast_service().start("acme", BROADCAST)
    [message] = world.jobs.take_due(world.clock())
    # When the first step advances the event's fan-out state, then dies before the job's advance
    world.job_store.faults.fail("advance", times=1)
    with pytest.raises(DependencyFailed):
        _run(world, message)
    job, fanout = _progress(world, answer)
    assert (job["steps"], fanout["pages"]) == (0, 1)
    deliveries, tasks = world.events.all_deliveries(), world.delivery_queue.tasks()
    # Then the redelivered step takes no page: it brings the job to the state, and queues the next step (the step 1 queued
    # before the failed advance comes early, and is handed out again)
    world.jobs.enqueue_bodies([message.body])
    assert world.run_jobs(max_steps=2) == 2
    assert (world.events.all_deliveries(), world.delivery_queue.tasks()) == (deliveries, tasks)
    job, fanout = _progress(world, answer)
    assert (job["steps"], fanout["pages"], job["status"]) == (1, 1, "running")
    _agree(job, fanout)
    # And the broadcast finishes whole, each page counted once
    world.run_jobs()
    assert _per_endpoint(world, answer.id) == _reached(made)
    job, fanout = _progress(world, answer)
    assert (fanout["status"], fanout["endpoints_scanned"]) == ("done", 154)
    _agree(job, fanout)


def test_a_step_whose_next_cannot_be_queued_fails_before_the_jobs_advance_and_its_redelivery_finishes(world: World) -> None:
    made = _endpoints(world, 150)
    answer = world.broadcast_service().start("acme", BROADCAST)
    [message] = world.jobs.take_due(world.clock())
    # When the next step cannot be queued after the first page advanced the fan-out
    world.jobs.faults.fail("enqueue", times=1)
    with pytest.raises(DependencyFailed):
        _run(world, message)
    job, fanout = _progress(world, answer)
    assert (job["steps"], fanout["pages"]) == (0, 1)  # the job is not advanced: no advanced job is ever left without its next step
    # Then SQS redelivers that step, which catches the job up and goes on
    world.jobs.enqueue_bodies([message.body])
    world.run_jobs()
    # And the broadcast finishes whole, each page counted once
    assert _per_endpoint(world, answer.id) == _reached(made)
    job, fanout = _progress(world, answer)
    assert (fanout["status"], fanout["endpoints_scanned"]) == ("done", 154)
    _agree(job, fanout)


def test_a_failed_start_answers_503_and_its_repeat_starts_the_job(world: World) -> None:
    _endpoints(world, 3)
    service = world.broadcast_service()
    # When the job cannot be stored, or its first step not queued, the request is refused; the event is stored
    for faults, call in ((world.job_store.faults, "create"), (world.jobs.faults, "enqueue")):
        faults.fail(call, times=1)
        with pytest.raises(Unavailable):
            service.start("acme", BROADCAST)
    assert len(world.events.events) == 1 and world.jobs.sent == []
    # When the request is repeated with its id, Then the job starts and the fan-out runs
    answer = service.start("acme", BROADCAST)
    assert answer.job.status == "running"
    world.run_jobs()
    assert len(_per_endpoint(world, answer.id)) == 6
    assert world.job_runner().describe("acme", answer.job.id).status == "done"


def test_the_job_of_an_event_that_is_gone_or_no_broadcast_is_cancelled_and_does_nothing(world: World) -> None:
    _endpoints(world, 3)
    ordinary = world.event_service().accept("acme", CreateEvent(type="plan.changed", data={}))
    before = (world.events.all_deliveries(), world.delivery_queue.tasks())
    # When broadcast jobs are started for an ordinary event and an unknown one (as a previous release's message could)
    gone = "evt_01kkntq2cne6s1c99tvp6dvkt6"
    for event_id in (ordinary.id, gone):
        world.broadcast_service().fan_out("acme", event_id)
    world.run_jobs()
    # Then both are cancelled, and nothing was created or queued
    for event_id, why in ((ordinary.id, "the event is not a broadcast"), (gone, "the broadcast's event is gone (expired)")):
        shown = world.job_runner().describe("acme", fanout_job_id("acme", event_id))
        assert (shown.status, shown.note) == ("cancelled", why)
    assert (world.events.all_deliveries(), world.delivery_queue.tasks()) == before


def test_a_broadcast_the_previous_release_began_is_finished_by_its_job_from_where_it_stands(world: World) -> None:
    # Given a broadcast stored, two of whose pages the previous release's one-page messages took (on the event alone)
    made = _endpoints(world, 450)
    answer = world.broadcast_service().start("acme", BROADCAST)
    world.jobs.sent.clear()
    world.job_store.items.clear()  # that release stored no job

    def previous_release_page() -> None:
        """What the previous release's step did: a page from the event's own cursor, advanced on the event."""
        event = world.events.get_event("acme", answer.id)
        assert event is not None and event.broadcast is not None
        state = event.broadcast
        as_job = Job(id="-", tenant="acme", kind=BROADCAST_JOB, params={"event_id": answer.id}, cursor=state.cursor, counts=state.counts())
        kind = world.job_runner().kinds[BROADCAST_JOB]
        assert isinstance(kind, BroadcastFanout)
        kind.step(as_job, world.clock())

    previous_release_page()
    previous_release_page()
    # When its next message reaches this release, which starts the broadcast's job (twice: SQS at least once)
    world.broadcast_service().fan_out("acme", answer.id)
    world.broadcast_service().fan_out("acme", answer.id)
    # And the previous release takes one more page meanwhile
    previous_release_page()
    world.run_jobs()
    # Then the job finishes the fan-out: each endpoint once, each page counted once, the job's counts the event's
    assert _per_endpoint(world, answer.id) == _reached(made)
    job, fanout = _progress(world, answer)
    assert fanout == {"status": "done", "pages": 5, "endpoints_scanned": 454, "deliveries": 453, "paused": 1}
    assert (job["status"], job["counts"]) == ("done", {"endpoints_scanned": 454, "deliveries": 453, "paused": 1})
    assert len(world.job_store.items) == 1


def test_a_broadcast_shows_its_progress_and_a_page_of_deliveries_an_ordinary_event_all_of_its_own(world: World) -> None:
    _endpoints(world, 7)
    answer = world.broadcast_service().start("acme", BROADCAST)
    events = world.event_service()
    # While it has not fanned out, it shows no delivery yet
    shown = events.describe("acme", answer.id, 4).model_dump()
    assert (shown["broadcast"]["status"], shown["deliveries"], shown["deliveries_next"]) == ("fanning_out", [], None)
    world.run_jobs()
    # Then its deliveries come a page at a time, each once
    seen, cursor = [], None
    while True:
        shown = events.describe("acme", answer.id, 4, cursor).model_dump()
        seen += [d["id"] for d in shown["deliveries"]]
        cursor = shown["deliveries_next"]
        if not cursor:
            break
    assert sorted(seen) == sorted(d.id for d in world.events.all_deliveries()) and len(seen) == len(set(seen)) == 10
    assert shown["broadcast"] == {"status": "done", "pages": 1, "endpoints_scanned": 11, "deliveries": 10, "paused": 1}
    assert (shown["id"], shown["type"], shown["customer"], shown["data"]) == (answer.id, "plan.changed", None, {"plan": "pro"})
    # And an ordinary event answers as it always did: all its deliveries, no progress, no cursor
    ordinary = events.accept("acme", CreateEvent(type="plan.changed", data={}))
    assert sorted(events.describe("acme", ordinary.id, 1).model_dump()) == ["created_at", "customer", "data", "deliveries", "id", "type", "version"]
    assert len(events.describe("acme", ordinary.id, 1).deliveries) == 2
