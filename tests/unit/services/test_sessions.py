"""Portal sessions and the access guard over the in-memory fakes: issue, revoke, authenticate, and what a session sees."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hookline.core.access import Principal
from hookline.core.contract.events import CreateEvent
from hookline.core.contract.portal import CreatePortalSession
from hookline.core.errors import NotFound, Unauthorized
from hookline.core.models import Delivery, Event
from hookline.core.sessions import hash_token
from hookline.services.access import AccessGuard
from hookline.services.sessions import PortalSessionService
from tests.fakes.contracts import customer
from tests.fakes.sessions import FakeSessionStore
from tests.unit.services.conftest import World


class NothingSent:
    def sent_to(self, tenant: str, customer: str) -> list[str]:
        return []


def _service(world: World) -> tuple[PortalSessionService, FakeSessionStore]:
    store = FakeSessionStore()
    return PortalSessionService(store, world.customers, world.clock), store


def test_a_session_is_stored_by_hash_and_authenticates_as_its_customer(world: World) -> None:
    # Given a customer and a read-only session of it
    world.customers.put(customer("cus-1"))
    service, store = _service(world)
    issued = service.issue("acme", "cus-1", CreatePortalSession(ttl_seconds=120, read_only=True), "https://api.example.com")
    # Then the token is shown once, in the link's fragment, and stored only as its hash
    token = issued.token
    assert issued.url == f"https://api.example.com/portal?t=acme#token={token}"
    assert issued.expires_at == "2026-11-29T12:02:00.000Z" and issued.read_only is True
    assert list(store.items) == [hash_token(token)] and token not in repr(store.items)
    # And it authenticates as that customer (the one made at its creation time, not an earlier one of the uid), read-only, until it expires
    made = world.customers.get("acme", "cus-1").created_at
    assert service.authenticate(token) == Principal("acme", "cus-1", True, world.clock.timestamp() + 120, since=made)
    world.clock.advance(120)
    assert service.authenticate(token) is None


def test_revoking_refuses_every_earlier_session_and_none_issued_after(world: World) -> None:
    # Given two sessions of one customer and one of another
    world.customers.put(customer("cus-1"))
    world.customers.put(customer("cus-2"))
    service, _ = _service(world)
    first, second = (service.issue("acme", "cus-1", CreatePortalSession(), "o").token for _ in range(2))
    other = service.issue("acme", "cus-2", CreatePortalSession(), "o").token
    # When cus-1's sessions are revoked and a new one is issued
    service.revoke("acme", "cus-1")
    after = service.issue("acme", "cus-1", CreatePortalSession(), "o").token
    # Then both earlier ones are refused, the new one and the other customer's work
    assert service.authenticate(first) is None and service.authenticate(second) is None
    assert service.authenticate(after) is not None and service.authenticate(other) is not None


def test_a_deleted_customer_made_again_does_not_inherit_old_sessions(world: World) -> None:
    world.customers.put(customer("cus-1"))
    service, _ = _service(world)
    token = service.issue("acme", "cus-1", CreatePortalSession(), "o").token
    world.customers.delete("acme", "cus-1")
    assert service.authenticate(token) is None
    world.customers.put(customer("cus-1", created_at="2026-11-30T00:00:00.000Z"))
    assert service.authenticate(token) is None


def test_every_request_of_a_session_is_checked_against_the_customer_under_its_uid_now(world: World) -> None:
    # Given a customer's session, authenticated (what the authorizer answers, and API Gateway may cache)
    world.customers.put(customer("cus-1"))
    service, _ = _service(world)
    token = service.issue("acme", "cus-1", CreatePortalSession(), "o").token
    who = service.authenticate(token)
    assert who is not None and service.confirm(who, token) == who
    # When the customer is deleted, then made again under its uid
    world.customers.delete("acme", "cus-1")
    with pytest.raises(Unauthorized, match="no longer exists"):
        service.confirm(who, token)
    world.customers.put(customer("cus-1", created_at="2026-11-30T00:00:00.000Z"))
    # Then the earlier session's principal is refused, with or without its token
    for given in (token, None):
        with pytest.raises(Unauthorized):
            service.confirm(who, given)
    # And the producer is not checked at all (no read)
    world.customers.faults.fail("current")
    assert service.confirm(Principal("acme"), None) == Principal("acme")


def test_the_check_reads_the_customer_strongly_consistent(world: World) -> None:
    # Given a session, and a customer store whose eventually consistent read still shows the deleted customer
    world.customers.put(customer("cus-1"))
    service, _ = _service(world)
    token = service.issue("acme", "cus-1", CreatePortalSession(), "o").token
    who = service.authenticate(token)
    assert who is not None
    earlier = world.customers.get("acme", "cus-1")
    world.customers.delete("acme", "cus-1")
    world.customers.put(customer("cus-1", created_at="2026-11-30T00:00:00.000Z"))
    world.customers.get = lambda tenant, uid: earlier  # type: ignore[method-assign]
    # Then the check is not fooled by it
    with pytest.raises(Unauthorized):
        service.confirm(who, token)


def test_a_principal_of_the_previous_release_is_authenticated_again_by_its_token(world: World) -> None:
    # Given the previous release's authorizer answer for a live session: no creation time of its customer
    world.customers.put(customer("cus-1"))
    world.customers.put(customer("cus-2"))
    service, _ = _service(world)
    token = service.issue("acme", "cus-1", CreatePortalSession(read_only=True), "o").token
    other = service.issue("acme", "cus-2", CreatePortalSession(), "o").token
    previous = replace(service.authenticate(token), since="")  # type: ignore[arg-type]
    # Then it goes on as the session its token authenticates, bound to its customer
    assert service.confirm(previous, token) == service.authenticate(token)
    # And without a token, or with another customer's, it is refused
    for given in (None, other, "hk_producer"):
        with pytest.raises(Unauthorized):
            service.confirm(previous, given)


@pytest.mark.parametrize("uid", ["nobody", "bad uid!"])
def test_sessions_of_an_unknown_customer_are_404_and_store_nothing(world: World, uid: str) -> None:
    service, store = _service(world)
    for call in (lambda: service.issue("acme", uid, CreatePortalSession(), "o"), lambda: service.revoke("acme", uid)):
        with pytest.raises(NotFound) as raised:
            call()
        assert raised.value.code == "customer_not_found"
    assert store.items == {}


def test_unknown_and_api_key_shaped_tokens_authenticate_nobody(world: World) -> None:
    service, _ = _service(world)
    assert service.authenticate("hps_never-issued") is None
    assert service.authenticate("hk_an-api-key") is None


def test_the_guard_lets_a_session_reach_only_its_customers_things(world: World) -> None:
    # Given an endpoint of customer a, one of customer b and one of the tenant's own, with an event and delivery each
    mine, theirs, tenants = (world.add_endpoint(customer=c) for c in ("a", "b", None))
    for n, ep in enumerate((mine, theirs, tenants)):
        world.events.create_event(Event(f"evt_{n}", "acme", "t", "now", '{"data":{}}', "h", customer=ep.customer), 0)
        world.events.create_deliveries([Delivery(f"dlv_{n}", "acme", f"evt_{n}", ep.id)], 0)
    guard = AccessGuard(world.endpoints, world.events, world.replays, world.job_store, NothingSent())
    session, producer = Principal("acme", "a"), Principal("acme")
    # Then customer a's session passes for its own endpoint only
    guard.endpoint(session, mine.id)
    for other in (theirs.id, tenants.id, "ep_missing"):
        with pytest.raises(NotFound, match="endpoint"):
            guard.endpoint(session, other)
    # And the producer passes for all, without a read
    for ep in (mine, theirs, tenants):
        guard.endpoint(producer, ep.id)
    # And a request naming another customer is one for an unknown customer; naming none means its own
    assert guard.owner(session, None) == guard.owner(session, "a") == "a"
    assert guard.owner(producer, None) is None and guard.owner(producer, "b") == "b"
    with pytest.raises(NotFound) as raised:
        guard.owner(session, "b")
    assert raised.value.code == "customer_not_found"


def test_the_guard_finds_an_event_by_the_producers_key_as_the_read_does(world: World) -> None:
    # Given customer a's event, sent with the key "order-7", and customer b's, sent with "order-8"
    for key, owner in (("order-7", "a"), ("order-8", "b")):
        world.add_endpoint(customer=owner)
        world.customers.put(customer(owner))
        world.event_service().accept("acme", CreateEvent.model_validate({"id": key, "type": "t", "data": {}, "customer": owner}))
    guard = AccessGuard(world.endpoints, world.events, world.replays, world.job_store, NothingSent())
    # Then a's session passes for its own event named by its key, and not for b's
    guard.event(Principal("acme", "a"), "order-7")
    with pytest.raises(NotFound, match="event"):
        guard.event(Principal("acme", "a"), "order-8")
