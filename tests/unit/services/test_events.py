"""EventService over in-memory fakes: idempotent ingest, fan-out, paused deliveries, failures that lose nothing, retries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import ValidationError

from hookline.core.contract.events import CreateEvent, CreateEventBatch, DeliveryPage, EventAccepted, RetryAccepted, status_value
from hookline.core.errors import Conflict, NotFound, PayloadTooLarge, Unavailable, ValidationFailed
from hookline.core.models import Delivery
from hookline.services.events import EventService
from tests.fakes.contracts import attempt
from tests.unit.services.conftest import World

BODY = {"id": "order-1001", "type": "invoice.paid", "data": {"amount": 42}}


def _event(**changes: object) -> CreateEvent:
    return CreateEvent.model_validate({**BODY, **changes})


def _batch(*events: Mapping[str, object]) -> CreateEventBatch:
    return CreateEventBatch.model_validate({"events": list(events)})


EVENT = _event()


def _attempted_once(world: World, d: Delivery, status: str) -> None:
    """As the delivery side would leave it: attempt 1 claimed, made and recorded with `status`."""
    claimed = world.events.claim_attempt(d.tenant, d.event_id, d.id, 1, world.clock.timestamp(), 120).delivery
    assert claimed is not None
    world.events.record_attempt(claimed, attempt(1, status, 200 if status == "succeeded" else 500), status, "2026-11-29T12:00:01.000Z", 0)


def _one_failed_delivery(world: World) -> tuple[EventService, EventAccepted, Delivery]:
    """An event for one endpoint whose delivery failed for good on its first attempt."""
    world.add_endpoint()
    service = world.event_service()
    answer = service.accept("acme", EVENT)
    [d] = world.events.all_deliveries()
    _attempted_once(world, d, "failed")
    return service, answer, d


def test_an_event_is_stored_with_one_pending_delivery_and_one_queued_task_per_subscriber(world: World) -> None:
    # Given two endpoints of the tenant, one of them for every type
    billing = world.add_endpoint(event_types=("invoice.paid",))
    everything = world.add_endpoint()
    # When an event is accepted
    answer = world.event_service().accept("acme", EVENT)
    # Then it is stored with a delivery for each endpoint, each queued once as attempt 1
    assert answer.deliveries == 2
    event, deliveries = world.events.event_with_deliveries("acme", answer.id)
    assert event is not None and event.data == {"amount": 42}
    assert sorted(d.endpoint_id for d in deliveries) == sorted([billing.id, everything.id])
    assert {d.status for d in deliveries} == {"pending"}
    tasks = world.delivery_queue.tasks()
    assert sorted(t.delivery_id for t in tasks) == sorted(d.id for d in deliveries)
    assert {(t.attempt, t.generation, t.trigger) for t in tasks} == {(1, 0, "scheduled")}
    # And it expires after the retention period
    assert world.events.event_expiry[("acme", answer.id)] == int(world.clock.timestamp()) + world.settings.retention_days * 86_400


def test_fan_out_reaches_only_subscribed_endpoints_of_the_tenant(world: World) -> None:
    subscribed = world.add_endpoint(event_types=("invoice.paid", "invoice.void"))
    world.add_endpoint(event_types=("user.created",))
    world.add_endpoint(tenant="other")  # every type, but another tenant's
    answer = world.event_service().accept("acme", EVENT)
    _, deliveries = world.events.event_with_deliveries("acme", answer.id)
    assert [d.endpoint_id for d in deliveries] == [subscribed.id]
    assert [t.endpoint_id for t in world.delivery_queue.tasks()] == [subscribed.id]


def test_an_event_nobody_subscribes_to_is_stored_with_no_delivery(world: World) -> None:
    world.add_endpoint(event_types=("user.created",))
    answer = world.event_service().accept("acme", EVENT)
    assert answer.deliveries == 0
    assert world.events.get_event("acme", answer.id) is not None
    assert world.delivery_queue.sent == []


def test_a_disabled_endpoints_delivery_is_stored_paused_and_not_queued(world: World) -> None:
    active = world.add_endpoint()
    disabled = world.add_endpoint(status="disabled", disabled_reason="failing")
    answer = world.event_service().accept("acme", EVENT)
    _, deliveries = world.events.event_with_deliveries("acme", answer.id)
    assert {d.endpoint_id: d.status for d in deliveries} == {active.id: "pending", disabled.id: "paused"}
    assert [t.endpoint_id for t in world.delivery_queue.tasks()] == [active.id]
    # And re-enabling finds it in the paused index
    paused, _ = world.events.deliveries_by_status("acme", disabled.id, "paused")
    assert [d.event_id for d in paused] == [answer.id]


def test_the_same_id_and_body_answers_the_same_and_stores_nothing_new(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    first = service.accept("acme", EVENT)
    stored = world.events.all_deliveries()
    queued_first = world.delivery_queue.tasks()
    # When the same request comes again (a client retrying after a timeout)
    world.clock.advance(30)
    again = service.accept("acme", _event())
    # Then the answer is the same, no event or delivery is added, and only the same tasks go out again (the claim drops duplicates)
    assert again == first
    assert world.events.all_deliveries() == stored
    assert len(world.events.events) == 1
    assert world.delivery_queue.tasks()[len(queued_first) :] == queued_first
    # And the first request's tasks are fresh and leave at once; the repeat's copies claim, and wait first (the delivery
    # function's timeout), so a fresh task still on its way has recorded its attempt when its copy looks (it then sends nothing)
    sent = world.delivery_queue.sent
    assert [(s.task.fresh, s.delay) for s in sent] == [(True, 0)] * len(queued_first) + [(False, world.settings.repeat_requeue_delay_seconds)] * len(
        queued_first
    )
    # And once a delivery has been attempted, a repeat queues nothing for it
    [d] = stored
    _attempted_once(world, d, "succeeded")
    sent_before = len(world.delivery_queue.sent)
    assert service.accept("acme", _event()) == first
    assert len(world.delivery_queue.sent) == sent_before


def test_the_same_id_with_another_body_is_a_conflict_that_changes_nothing(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    first = service.accept("acme", EVENT)
    before = (dict(world.events.events), world.events.all_deliveries(), len(world.delivery_queue.sent))
    with pytest.raises(Conflict) as err:
        service.accept("acme", _event(data={"amount": 43}))
    assert (err.value.status, err.value.code) == (409, "idempotency_conflict")
    assert (dict(world.events.events), world.events.all_deliveries(), len(world.delivery_queue.sent)) == before
    # Another tenant may use the same id for its own event
    assert service.accept("other", _event(data={"amount": 43})).id != first.id


def test_a_queue_failure_answers_unavailable_and_the_repeat_finishes_the_job(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    # Given SQS refusing the send once
    world.delivery_queue.faults.fail("enqueue", times=1)
    # When the event comes in, Then the caller is told to repeat it
    with pytest.raises(Unavailable) as err:
        service.accept("acme", EVENT)
    assert err.value.status == 503
    assert world.delivery_queue.sent == []
    # And nothing was lost: the event and its delivery are stored
    [(_, event_id)] = world.events.events
    [d] = world.events.all_deliveries()
    assert d.status == "pending"
    # When the caller repeats the request, Then the task goes out and the answer names the same event
    assert service.accept("acme", EVENT) == EventAccepted(id=event_id, deliveries=1)
    assert [t.delivery_id for t in world.delivery_queue.tasks()] == [d.id]


def test_a_storage_failure_answers_unavailable_and_the_repeat_creates_the_missing_deliveries(world: World) -> None:
    world.add_endpoint()
    world.add_endpoint(status="disabled")
    service = world.event_service()
    world.events.faults.fail("create_deliveries", times=1)
    with pytest.raises(Unavailable):
        service.accept("acme", EVENT)
    # The event names its two deliveries; the pending one lives on the event's plan, the paused one (which the
    # endpoint-deliveries index must hold) was not written
    assert len(world.events.events) == 1 and list(world.events.rows) == []
    answer = service.accept("acme", EVENT)
    assert answer.deliveries == 2
    assert [row.delivery.status for row in world.events.rows.values()] == ["paused"]
    assert sorted(d.status for d in world.events.all_deliveries()) == ["paused", "pending"]
    assert len(world.delivery_queue.tasks()) == 1


def test_a_batch_answers_each_event_and_a_failed_chunk_only_fails_its_own(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    events = [{"id": f"e-{i}", "type": "a.b", "data": {"n": i}} for i in range(12)]
    # Given SQS refusing the first chunk of ten tasks
    world.delivery_queue.faults.fail("enqueue", times=1)
    answer = service.accept_batch("acme", _batch(*events))
    results = answer.results
    assert [r.status for r in results] == [503] * 10 + [202] * 2 and (answer.accepted, answer.failed) == (2, 10)
    assert {r.error.code for r in results[:10] if r.error} == {"unavailable"}
    # When the batch is repeated, Then every event answers 202 with the same ids as before, and nothing is stored twice
    again = service.accept_batch("acme", _batch(*events)).results
    assert [r.status for r in again] == [202] * 12
    assert [r.id for r in again[10:]] == [r.id for r in results[10:]]
    assert len(world.events.events) == 12 and len(world.events.all_deliveries()) == 12


def test_a_fault_midway_through_a_batch_notes_the_events_already_stored_for_the_sweeper(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.add_endpoint()
    service = world.event_service()
    stage, staged = service._stage, [0]

    def failing(*args: Any, **kwargs: Any) -> Any:
        staged[0] += 1
        if staged[0] == 3:
            raise RuntimeError("a fault of hookline's own")
        return stage(*args, **kwargs)

    monkeypatch.setattr(service, "_stage", failing)
    # When the third event of a batch meets a fault that is no refusal (the request fails as a whole)
    with pytest.raises(RuntimeError):
        service.accept_batch("acme", _batch(*({"type": "a.b", "data": {"n": i}} for i in range(4))))
    # Then the two stored before it, never queued, are noted for the sweeper (without an id, a repeat makes new events)
    assert world.delivery_queue.sent == []
    [note] = world.unqueued.notes.values()
    assert sorted(note.event_ids) == sorted(event_id for _, event_id in world.events.events) and len(note.event_ids) == 2


def test_an_id_repeated_within_a_batch_is_queued_once(world: World) -> None:
    world.add_endpoint()
    results = world.event_service().accept_batch("acme", _batch(BODY, BODY)).results
    assert [r.status for r in results] == [202, 202]
    assert results[0].id == results[1].id
    assert len(world.delivery_queue.tasks()) == 1


def test_a_bad_batch_stores_nothing(world: World) -> None:
    world.add_endpoint()
    # (the event's refusal comes as pydantic's error carrying hookline's code, which the API answers by contract_error)
    with pytest.raises(ValidationError) as err:
        _batch(BODY, {"type": "a.b"})
    first = err.value.errors()[0]
    assert (first["type"], first["msg"]) == ("hookline.missing_field", "events[1]: 'data' is required")
    # An event above the event limit (the settings') refuses the whole batch
    with pytest.raises(PayloadTooLarge) as too_large:
        world.event_service().accept_batch("acme", _batch(BODY, {"type": "a.b", "data": {"blob": "x" * world.settings.max_event_bytes}}))
    assert "events[1] is" in too_large.value.message
    assert world.events.events == {} and world.delivery_queue.sent == []


def test_a_manual_retry_restarts_a_finished_delivery_once_and_queues_it_on_the_retry_queue(world: World) -> None:
    # Given the delivery failed for good after its first attempt
    service, answer, d = _one_failed_delivery(world)
    # When the customer retries it
    world.clock.advance(60)
    out = service.retry("acme", answer.id, d.id)
    # Then it is pending in a new generation, and attempt 2 is queued as a manual one on the retry queue
    assert out == RetryAccepted(id=d.id, event_id=answer.id, status="pending", generation=1)
    [task] = world.retry_queue.tasks()
    assert (task.delivery_id, task.attempt, task.generation, task.trigger) == (d.id, 2, 1, "manual")
    # And a repeat before that attempt is made (the first answer may have been a 503, or lost) queues it again in the
    # same generation: every copy claims its attempt, so one is made
    assert service.retry("acme", answer.id, d.id) == out
    assert [(t.attempt, t.generation, t.fresh) for t in world.retry_queue.tasks()] == [(2, 1, False), (2, 1, False)]
    # Once the attempt is made and the delivery waits for its next one, a retry is refused: it will be attempted anyway
    claimed = world.events.claim_attempt("acme", answer.id, d.id, 2, world.clock.timestamp(), 120, generation=1).delivery
    assert claimed is not None
    world.events.record_attempt(claimed, attempt(2), "pending", "2026-11-29T12:01:01.000Z", 0)
    with pytest.raises(Conflict) as err:
        service.retry("acme", answer.id, d.id)
    assert err.value.code == "delivery_in_progress"
    with pytest.raises(NotFound):
        service.retry("other", answer.id, d.id)


def test_a_delivery_not_attempted_yet_is_not_retried_by_hand(world: World) -> None:
    # Given a new event's delivery, pending in its first generation: its first task is fresh and does not claim
    world.add_endpoint()
    service = world.event_service()
    answer = service.accept("acme", EVENT)
    [d] = world.events.all_deliveries()
    # Then a manual retry is refused, and nothing more is queued (a claiming copy beside a fresh task could send twice)
    with pytest.raises(Conflict) as err:
        service.retry("acme", answer.id, d.id)
    assert err.value.code == "delivery_in_progress"
    assert world.retry_queue.sent == []


def test_a_retry_answered_unavailable_is_queued_by_its_repeat(world: World) -> None:
    # Given a retry whose task SQS refused after the delivery was restarted (503: repeat the request)
    service, answer, d = _one_failed_delivery(world)
    world.retry_queue.faults.fail("enqueue", times=1)
    with pytest.raises(Unavailable):
        service.retry("acme", answer.id, d.id)
    assert world.events.get_delivery("acme", answer.id, d.id).generation == 1
    # When the client repeats it, as told
    out = service.retry("acme", answer.id, d.id)
    # Then the new generation's attempt is queued (it was stuck pending with no task before), and no second restart made
    assert out == RetryAccepted(id=d.id, event_id=answer.id, status="pending", generation=1)
    [task] = world.retry_queue.tasks()
    assert (task.attempt, task.generation, task.trigger, task.fresh) == (2, 1, "manual", False)


def test_a_retry_that_cannot_be_queued_answers_unavailable(world: World) -> None:
    service, answer, d = _one_failed_delivery(world)
    world.retry_queue.faults.fail("enqueue", times=1)
    with pytest.raises(Unavailable):
        service.retry("acme", answer.id, d.id)
    assert world.retry_queue.sent == []


def test_describe_shows_deliveries_and_attempts_and_hides_other_tenants(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    answer = service.accept("acme", EVENT)
    shown = service.describe("acme", answer.id, 50)
    assert (shown.id, shown.type, shown.data) == (answer.id, "invoice.paid", {"amount": 42})
    assert [d.status for d in shown.deliveries] == ["pending"]
    for tenant, event_id in (("other", answer.id), ("acme", "evt_nope"), ("acme", "not an id")):
        with pytest.raises(NotFound):
            service.describe(tenant, event_id, 50)


def test_an_endpoints_failed_deliveries_are_listed_in_pages(world: World) -> None:
    ep = world.add_endpoint()
    service = world.event_service()
    for i in range(3):
        world.clock.advance(1)
        service.accept("acme", CreateEvent(type="a.b", data={"n": i}))
    for d in world.events.all_deliveries():
        _attempted_once(world, d, "failed")
    first = service.deliveries_of("acme", ep.id, limit=2)
    rest = service.deliveries_of("acme", ep.id, limit=2, cursor=first.next)
    assert len(first.items) == 2 and len(rest.items) == 1 and rest.next is None
    assert {i.status for i in first.items + rest.items} == {"failed"}
    assert service.deliveries_of("acme", ep.id, status="paused", limit=2) == DeliveryPage(items=[], next=None)
    with pytest.raises(ValidationFailed):
        status_value("succeeded")
    with pytest.raises(NotFound):
        service.deliveries_of("other", ep.id, limit=2)


def test_an_event_reads_back_by_its_id_or_by_the_producers_idempotency_key(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    answer = service.accept("acme", EVENT)
    # The id the producer sent (its idempotency key) names the same event as the evt_ id hookline answered
    assert service.describe("acme", "order-1001", 50) == service.describe("acme", answer.id, 50)
    # Scoped to the tenant, and only a key that was sent names an event
    for tenant, named in (("other", "order-1001"), ("acme", "order-1002"), ("acme", "not a key!")):
        with pytest.raises(NotFound):
            service.describe(tenant, named, 50)


def test_a_key_that_looks_like_an_event_id_still_names_its_event(world: World) -> None:
    world.add_endpoint()
    service = world.event_service()
    lookalike = "evt_01kkntq2cne6s1c99tvp6dvkt6"
    answer = service.accept("acme", _event(id=lookalike))
    assert answer.id != lookalike
    assert service.describe("acme", lookalike, 50).id == answer.id
