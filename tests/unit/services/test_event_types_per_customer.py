"""Event types per customer, over the in-memory fakes: a portal session sees the types its customer's endpoints name
and those sent to its customer (addressed to it, or broadcast), never another customer's; the producer sees all."""

from __future__ import annotations

from collections import defaultdict

import pytest

from hookline.core.access import Principal, customer_event_types, names_page
from hookline.core.contract.catalog import PutEventType
from hookline.core.contract.events import CreateBroadcast, CreateEvent, CreateEventBatch
from hookline.core.errors import InvalidCursor, NotFound
from hookline.core.portal import PortalSettings
from hookline.services.access import AccessGuard
from hookline.services.broadcast import BroadcastService
from hookline.services.catalog import CatalogService
from hookline.services.events import EventService
from hookline.services.portal import SentEventTypes
from tests.fakes.contracts import customer
from tests.unit.services.conftest import World

SCHEMA = {"versions": {"2026-01-01": {"schema": {"type": "object", "required": ["invoice"]}}}}


class MemoryPortalStore:
    """PortalStore's sets of sent types, in memory, with every write counted."""

    def __init__(self) -> None:
        self.sets: dict[str, set[str]] = defaultdict(set)
        self.writes = 0

    def _add(self, key: str, types: set[str]) -> None:
        self.writes += 1
        self.sets[key] |= types

    def remember_types(self, tenant: str, types: set[str]) -> None:
        self._add(tenant, types)

    def remember_customer_types(self, tenant: str, customer: str, types: set[str]) -> None:
        self._add(f"{tenant}/{customer}", types)

    def remember_broadcast_types(self, tenant: str, types: set[str]) -> None:
        self._add(f"{tenant}/*", types)

    def types(self, tenant: str) -> list[str]:
        return sorted(self.sets[tenant])

    def types_sent_to(self, tenant: str, customer: str) -> list[str]:
        return sorted(self.sets[f"{tenant}/{customer}"] | self.sets[f"{tenant}/*"])

    def settings(self, tenant: str) -> PortalSettings | None:
        return None

    def save_settings(self, settings: PortalSettings) -> None: ...


class Tenant:
    """One tenant's services over the world's fakes, sharing one per-process set of noted types."""

    def __init__(self, world: World) -> None:
        self.store = MemoryPortalStore()
        self.sent = SentEventTypes(self.store)
        w = world
        self.events = EventService(
            w.events, w.endpoints, w.customers, w.delivery_queue, w.settings, w.clock, catalog=w.catalog, retry_queue=w.retry_queue, types=self.sent
        )
        self.broadcasts = BroadcastService(w.events, w.job_runner(), w.settings, w.clock, w.catalog, w.endpoints, types=self.sent)
        self.catalog = CatalogService(w.catalog, w.endpoints, w.usage, self.sent, w.clock)
        self.guard = AccessGuard(w.endpoints, w.events, w.replays, w.job_store, self.sent)

    def listed(self, who: Principal, limit: int = 100) -> tuple[list[str], list[str]]:
        """Every page's registered names, and the first page's `sent`."""
        only = self.guard.event_types(who)
        first = self.catalog.list_types("acme", limit, None, only)
        pages, names = [first], [t.name for t in first.items]
        while pages[-1].next:
            pages.append(self.catalog.list_types("acme", limit, pages[-1].next, only))
            names += [t.name for t in pages[-1].items]
        assert all(p.sent is None for p in pages[1:])
        assert first.sent is not None
        return names, first.sent


@pytest.fixture
def tenant(world: World) -> Tenant:
    # Given customers a and b:
    for uid in ("a", "b"):
        world.customers.put(customer(uid))
    t = Tenant(world)
    # a's endpoints: one names order.shipped, one takes every type
    world.add_endpoint(customer="a", event_types=("order.shipped",))
    world.add_endpoint(customer="a")
    # b's: one names refund.issued (never sent), one takes every type
    world.add_endpoint(customer="b", event_types=("refund.issued",))
    world.add_endpoint(customer="b")
    # registered types: invoice.created (with a schema) and order.shipped, and tenant.audit no customer ever got
    for name, body in (("invoice.created", SCHEMA), ("order.shipped", {}), ("tenant.audit", {})):
        t.catalog.put_type("acme", name, PutEventType.model_validate({"description": name, **body}))
    # sent: invoice.created and payment.failed to b only, welcome.sent to a, tenant.audit to the tenant's own, news.posted to all
    t.events.accept("acme", CreateEvent.model_validate({"type": "invoice.created", "data": {"invoice": "in_1"}, "customer": "b"}))
    t.events.accept_batch(
        "acme",
        CreateEventBatch.model_validate(
            {"events": [{"type": "payment.failed", "data": {}, "customer": "b"}, {"type": "welcome.sent", "data": {}, "customer": "a"}]}
        ),
    )
    t.events.accept("acme", CreateEvent.model_validate({"type": "tenant.audit", "data": {}}))
    t.broadcasts.start("acme", CreateBroadcast.model_validate({"type": "news.posted", "data": {}}))
    return t


def test_a_session_lists_its_endpoints_types_and_those_sent_to_its_customer_only(tenant: Tenant) -> None:
    # Then a's session lists what its endpoints name and what was sent to a (or broadcast), registered or not
    assert tenant.listed(Principal("acme", "a")) == (["order.shipped"], ["news.posted", "welcome.sent"])
    # And b's its own: the type with a schema sent to it only, the one its endpoint names, never a's
    assert tenant.listed(Principal("acme", "b")) == (["invoice.created"], ["news.posted", "payment.failed", "refund.issued"])
    # And read-only sessions see the same
    assert tenant.listed(Principal("acme", "a", read_only=True)) == tenant.listed(Principal("acme", "a"))
    # And the producer still sees the whole catalog and everything sent
    assert tenant.listed(Principal("acme")) == (["invoice.created", "order.shipped", "tenant.audit"], ["news.posted", "payment.failed", "welcome.sent"])


def test_a_session_reads_one_type_only_if_it_sees_it_and_is_told_no_more_than_for_an_unknown_one(tenant: Tenant) -> None:
    a, b, producer = Principal("acme", "a"), Principal("acme", "b"), Principal("acme")
    unknown = _refusal(tenant, a, "no.such.type")
    for name in ("invoice.created", "payment.failed", "refund.issued", "tenant.audit"):
        refused = _refusal(tenant, a, name)
        assert (refused.code, refused.status) == (unknown.code, unknown.status) == ("event_type_not_found", 404)
        assert str(refused) == str(unknown).replace("no.such.type", name)
    for who, name in ((a, "order.shipped"), (a, "news.posted"), (b, "invoice.created"), (producer, "tenant.audit"), (producer, "no.such.type")):
        tenant.guard.event_type(who, name)  # passes (the producer's unknown type is then the catalog's 404)


def _refusal(tenant: Tenant, who: Principal, name: str) -> NotFound:
    with pytest.raises(NotFound) as raised:
        tenant.guard.event_type(who, name)
    return raised.value


def test_a_customer_subscribing_to_a_type_sees_it_and_no_other_customers_filter_changes_what_it_sees(world: World, tenant: Tenant) -> None:
    # When a's endpoint names invoice.created too (b's type, registered with a schema)
    world.add_endpoint(customer="a", event_types=("invoice.created",))
    # Then a sees it, with its catalog entry, as what its endpoint can receive
    assert tenant.listed(Principal("acme", "a")) == (["invoice.created", "order.shipped"], ["news.posted", "welcome.sent"])
    # And b's list is as it was
    assert tenant.listed(Principal("acme", "b")) == (["invoice.created"], ["news.posted", "payment.failed", "refund.issued"])


def test_each_new_customer_and_type_pair_costs_one_write_and_a_known_one_none(tenant: Tenant) -> None:
    before = tenant.store.writes
    for _ in range(3):
        tenant.events.accept("acme", CreateEvent.model_validate({"type": "welcome.sent", "data": {}, "customer": "a"}))
        tenant.broadcasts.start("acme", CreateBroadcast.model_validate({"type": "news.posted", "data": {}}))
    assert tenant.store.writes == before
    tenant.events.accept("acme", CreateEvent.model_validate({"type": "welcome.sent", "data": {}, "customer": "b"}))  # known to the tenant, new to b
    assert tenant.store.writes == before + 1


def test_a_customer_made_again_under_its_uid_gets_its_types_noted_again(world: World, tenant: Tenant) -> None:
    # Given welcome.sent noted for customer a in this process
    assert "welcome.sent" in tenant.store.types_sent_to("acme", "a")
    # When a is deleted (its noted types with it) and made again under the uid, and sent welcome.sent once more
    world.customers.delete("acme", "a")
    tenant.store.sets.pop("acme/a")
    world.clock.advance(1)
    world.customers.put(customer("a", created_at="2026-11-29T12:00:01.000Z"))
    tenant.events.accept("acme", CreateEvent.model_validate({"type": "welcome.sent", "data": {}, "customer": "a"}))
    # Then the type is noted for the new a: this process's note of it for the earlier a does not stand for it
    assert tenant.store.types_sent_to("acme", "a") == ["news.posted", "welcome.sent"]


def test_a_sessions_types_page_in_name_order_with_a_cursor_of_its_own(tenant: Tenant) -> None:
    # A page of one at a time gives the same names as one page of all
    assert tenant.listed(Principal("acme", "b"), limit=1) == tenant.listed(Principal("acme", "b"))
    # And a cursor that is not one of its pages' is refused
    for cursor in ("%%%", "bm8gc3VjaCB0eXBl", "eyJwayI6IkNBVCNhY21lIn0", "aW52b2ljZS5jcmVhdGVk="):
        with pytest.raises(InvalidCursor):
            names_page(["a"], 1, cursor)


def test_a_customers_types_are_its_filters_and_what_was_sent_to_it() -> None:
    assert customer_event_types([("x.y",), (), ("x.y", "z")], ["sent"]) == {"x.y", "z", "sent"}
    assert customer_event_types([(), ()], []) == frozenset()  # endpoints taking every type name none
    page, nxt = names_page({"c", "a", "b"}, 2, None)
    assert page == ["a", "b"] and nxt is not None and names_page(["a", "b", "c"], 2, nxt) == (["c"], None)
