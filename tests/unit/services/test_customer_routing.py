"""Routing events by customer, over in-memory fakes: an event for a customer reaches that customer's
subscribed endpoints and no one else's; an event without one reaches only the tenant's own endpoints."""

from __future__ import annotations

import pytest

from hookline.core.contract.events import CreateEvent, CreateEventBatch, EventAccepted, EventBatchResult
from hookline.core.customers import Customer
from hookline.core.errors import Conflict, NotFound
from tests.unit.services.conftest import World


@pytest.fixture
def receivers(world: World) -> dict[str, str]:
    """Customers A and B of acme, and endpoints of A, of B, of acme itself and of another tenant's A, by name."""
    for tenant, uid in (("acme", "A"), ("acme", "B"), ("other", "A")):
        world.customers.put(Customer(tenant, uid, f"Customer {uid}"))
    owners: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
        "A1": ("acme", "A", ()),
        "A2": ("acme", "A", ("invoice.paid",)),
        "A-unsubscribed": ("acme", "A", ("user.created",)),
        "B1": ("acme", "B", ()),
        "own1": ("acme", None, ()),
        "own2": ("acme", None, ("invoice.paid",)),
        "other-A": ("other", "A", ()),
        "other-own": ("other", None, ()),
    }
    return {world.add_endpoint(tenant=tenant, customer=customer, event_types=types).id: name for name, (tenant, customer, types) in owners.items()}


def _received(world: World, receivers: dict[str, str], answer: EventAccepted | EventBatchResult) -> list[str]:
    """The names of the endpoints the event got a delivery (and a queued task) for."""
    assert answer.id is not None
    _, deliveries = world.events.event_with_deliveries("acme", answer.id)
    queued = {t.delivery_id for t in world.delivery_queue.tasks()}
    assert {d.id for d in deliveries} <= queued
    return sorted(receivers[d.endpoint_id] for d in deliveries)


@pytest.mark.parametrize(
    ("customer", "expected"),
    [
        ("A", ["A1", "A2"]),
        ("B", ["B1"]),
        (None, ["own1", "own2"]),
    ],
)
def test_an_event_reaches_exactly_its_owners_subscribed_endpoints(world: World, receivers: dict[str, str], customer: str | None, expected: list[str]) -> None:
    # Given endpoints of customers A and B, the tenant's own, and another tenant's customer A
    body = {"type": "invoice.paid", "data": {"n": 1}, **({"customer": customer} if customer else {})}
    # When an event is accepted for one owner
    answer = world.event_service().accept("acme", CreateEvent.model_validate(body))
    # Then exactly that owner's subscribed endpoints get a delivery
    assert _received(world, receivers, answer) == expected
    assert answer.deliveries == len(expected)
    assert world.event_service().describe("acme", answer.id, 50).customer == customer


def test_a_batch_routes_each_event_by_its_own_customer(world: World, receivers: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[tuple[str, str | None]] = []
    read_owner = world.endpoints.all_of_owner
    monkeypatch.setattr(world.endpoints, "all_of_owner", lambda tenant, customer: reads.append((tenant, customer)) or read_owner(tenant, customer))
    looked_up: list[str] = []
    get_customer = world.customers.get
    monkeypatch.setattr(world.customers, "get", lambda tenant, uid: looked_up.append(uid) or get_customer(tenant, uid))
    # Given a batch of events for A, B, nobody, an unknown customer, and A again
    events = [{"type": "invoice.paid", "data": {"n": i}, **({"customer": c} if c else {})} for i, c in enumerate(["A", "B", None, "nobody", "A", "nobody"])]
    results = world.event_service().accept_batch("acme", CreateEventBatch.model_validate({"events": events})).results
    # Then each event reached its own owner's endpoints, and the unknown customer's events were refused alone
    assert [r.status for r in results] == [202, 202, 202, 404, 202, 404]
    assert [r.error.code for r in (results[3], results[5]) if r.error] == ["customer_not_found"] * 2
    got = [_received(world, receivers, r) for r in results if r.status == 202]
    assert got == [["A1", "A2"], ["B1"], ["own1", "own2"], ["A1", "A2"]]
    # And each customer was looked up, and each known owner's endpoints read, once for the whole batch
    assert looked_up == ["A", "B", "nobody"]
    assert reads == [("acme", "A"), ("acme", "B"), ("acme", None)]


def test_an_unknown_customer_is_a_404_and_stores_nothing(world: World, receivers: dict[str, str]) -> None:
    for uid in ("nobody", "B"):
        with pytest.raises(NotFound) as missing:
            world.event_service().accept("other", CreateEvent.model_validate({"type": "invoice.paid", "data": {}, "customer": uid}))
        assert missing.value.code == "customer_not_found"
    assert world.events.all_deliveries() == []
    assert world.delivery_queue.sent == []


def test_a_known_customer_without_a_matching_endpoint_keeps_the_event_with_no_delivery(world: World, receivers: dict[str, str]) -> None:
    world.customers.put(Customer("acme", "C", "Customer C"))
    answer = world.event_service().accept("acme", CreateEvent.model_validate({"type": "invoice.paid", "data": {}, "customer": "C"}))
    assert answer.deliveries == 0
    assert world.event_service().describe("acme", answer.id, 50).customer == "C"
    assert world.delivery_queue.sent == []


def test_an_id_names_one_request_customer_included(world: World, receivers: dict[str, str]) -> None:
    body = {"id": "inv-1", "type": "invoice.paid", "data": {}, "customer": "A"}
    first = world.event_service().accept("acme", CreateEvent.model_validate(body))
    assert world.event_service().accept("acme", CreateEvent.model_validate(body)) == first
    with pytest.raises(Conflict):
        world.event_service().accept("acme", CreateEvent.model_validate({**body, "customer": "B"}))
    with pytest.raises(Conflict):
        world.event_service().accept("acme", CreateEvent.model_validate({k: v for k, v in body.items() if k != "customer"}))
    # A repeat is answered from the stored event, even after its customer is gone
    world.customers.delete("acme", "A")
    assert world.event_service().accept("acme", CreateEvent.model_validate(body)) == first
