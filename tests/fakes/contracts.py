"""The contracts of the storage ports, as checks that any implementation must pass.

Each check takes a `Stores` (the five stores of one table) and states one
contract in Given/When/Then form. tests/unit/services runs them against the
in-memory fakes; tests/integration/test_port_contracts.py runs them against the
DynamoDB adapters over moto. A fake that drifts from its adapter fails here,
before a service test can trust it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hookline.core.auth import EndpointAuth
from hookline.core.breaker import Breaker
from hookline.core.broadcast import Fanout
from hookline.core.conflicts import Lost
from hookline.core.customers import Customer, CustomerLimits
from hookline.core.destinations import Destination
from hookline.core.errors import DependencyFailed, InvalidCursor
from hookline.core.models import LAYOUT_EVENT_KEYED, Attempt, Delivery, Endpoint, Event, PlannedDelivery
from hookline.core.ratelimit import Limiter, TokenLease
from hookline.core.replay import ReplayWindow
from hookline.core.rotation import LiveSecret, PreviousSecret, Rotation
from hookline.core.schemes import DEFAULT as DEFAULT_SIGNING
from hookline.core.schemes import parse_signing
from hookline.core.stats import Carried

NOW = 1_795_953_600.0  # 2026-11-29T12:00:00Z, as T0
T0 = "2026-11-29T12:00:00.000Z"
LEASE = 120
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"  # base64, as signing needs


@dataclass(frozen=True)
class Stores:
    """The storage ports of one table, however implemented."""

    endpoints: Any  # EndpointStore, TenantEndpoints, EndpointControl
    states: Any  # EndpointHealthStore, EndpointStates
    events: Any  # EventStore, DeliveryLog
    replays: Any  # ReplayStore, ReplayProgress
    customers: Any  # CustomerStore
    stats: Any  # StatsSink, StatsReader (an endpoint's latest hour carried on its limiter, read from `states`)


def endpoint(endpoint_id: str = "ep_01", tenant: str = "acme", **changes: Any) -> Endpoint:
    base = Endpoint(id=endpoint_id, tenant=tenant, url="https://example.com/hook", secret=SECRET, created_at=T0, updated_at=T0)
    return replace(base, **changes)


def event(event_id: str = "evt_01", tenant: str = "acme", body: str = '{"data":{}}', deliveries: tuple[PlannedDelivery, ...] = ()) -> Event:
    return Event(id=event_id, tenant=tenant, type="a.b", created_at=T0, body=body, request_hash="h", deliveries=deliveries)


def delivery(delivery_id: str = "dlv_01", event_id: str = "evt_01", endpoint_id: str = "ep_01", **changes: Any) -> Delivery:
    base = Delivery(id=delivery_id, tenant="acme", event_id=event_id, endpoint_id=endpoint_id, created_at=T0, updated_at=T0)
    return replace(base, **changes)


def attempt(number: int, outcome: str = "failed", status_code: int | None = 500) -> Attempt:
    return Attempt(number=number, at=T0, status_code=status_code, error=None, duration_ms=7, outcome=outcome)


def every_page(fetch: Callable[[str | None], tuple[list[Any], str | None]]) -> list[list[Any]]:
    """Each page `fetch` hands out, from the first until one comes without a cursor."""
    pages, cursor = [], None
    while True:
        items, cursor = fetch(cursor)
        pages.append(items)
        if not cursor:
            return pages


# -- endpoints ----------------------------------------------------------------------------------


def endpoint_create_is_once_and_reads_back(s: Stores) -> None:
    # Given an endpoint created
    ep = endpoint(headers=(("x-team", "billing"),), event_types=("a.b", "c.d"), rate_limit_per_second=2.5)
    s.endpoints.create(ep, most=100)
    # Then it reads back as written, and creating the same id again is refused
    assert s.endpoints.get("acme", "ep_01") == ep
    with pytest.raises(DependencyFailed):
        s.endpoints.create(replace(ep, url="https://example.com/other"), most=100)
    assert s.endpoints.get("acme", "ep_01") == ep
    # And another tenant cannot see it
    assert s.endpoints.get("other", "ep_01") is None


def endpoint_destination_reads_back_and_a_save_moves_it(s: Stores) -> None:
    # Given an endpoint that delivers into a customer's FIFO queue through a role
    queue = Destination("sqs", "https://sqs.eu-west-1.amazonaws.com/111122223333/orders.fifo", "arn:aws:iam::111122223333:role/hookline-delivery-o")
    ep = endpoint(url="", destination=queue, external_id="hookline-0123")
    s.endpoints.create(ep, most=100)
    # Then it reads back as written, external id included
    assert s.endpoints.get("acme", "ep_01") == ep
    # And a save moves it to another destination, then back to HTTP
    bucket = Destination("s3", "acme-archive", prefix="hooks/in")
    assert s.endpoints.save(replace(ep, destination=bucket))
    assert s.endpoints.get("acme", "ep_01") == replace(ep, destination=bucket)
    assert s.endpoints.save(replace(ep, destination=None, url="https://example.com/back"))
    back = s.endpoints.get("acme", "ep_01")
    assert (back.destination, back.url, back.external_id) == (None, "https://example.com/back", "hookline-0123")


def endpoint_auth_reads_back_sealed_and_a_save_replaces_or_removes_it(s: Stores) -> None:
    # Given an endpoint with `auth` (its secrets sealed: the store keeps the text it is given)
    basic = EndpointAuth("basic", (("username", "hookline"),), "v1.sealed-basic")
    s.endpoints.create(endpoint(auth=basic), most=100)
    # Then it reads back as written
    assert s.endpoints.get("acme", "ep_01") == endpoint(auth=basic)
    # And a save replaces it, and one without it removes it
    bearer = EndpointAuth("bearer", (), "v1.sealed-bearer")
    assert s.endpoints.save(endpoint(auth=bearer))
    assert s.endpoints.get("acme", "ep_01").auth == bearer
    assert s.endpoints.save(endpoint())
    assert s.endpoints.get("acme", "ep_01").auth is None


def endpoint_save_keeps_what_others_own(s: Stores) -> None:
    # Given an endpoint with a rotated secret and a Retry-After pause
    s.endpoints.create(endpoint(), most=100)
    assert s.endpoints.rotate_secret("acme", "ep_01", _rotation(SECRET, "whsec_two")) == (True, None)
    s.endpoints.pause("acme", "ep_01", NOW + 60)
    # When a caller saves a copy read before either
    assert s.endpoints.save(endpoint(url="https://example.com/new", description="d", max_concurrency=3))
    # Then its fields changed and the secret, the rotation and the pause stayed
    got = s.endpoints.get("acme", "ep_01")
    assert (got.url, got.description, got.max_concurrency) == ("https://example.com/new", "d", 3)
    assert (got.secret, got.previous_secrets, got.rotated_at, got.paused_until) == ("whsec_two", (PreviousSecret(SECRET, NOW + 86400),), NOW, NOW + 60)


def _rotation(replaced: str, new: str, *earlier: LiveSecret, at: float = NOW) -> Rotation:
    return Rotation(replaced, new, (LiveSecret(replaced, at + 86400), *earlier), at, T0)


def endpoint_rotation_lands_only_on_the_secret_it_read(s: Stores) -> None:
    # Given an endpoint rotated once
    s.endpoints.create(endpoint(), most=100)
    assert s.endpoints.rotate_secret("acme", "ep_01", _rotation(SECRET, "whsec_two")) == (True, None)
    # When a second rotation keeps the first one's previous secret beside the one it replaces
    first = LiveSecret(SECRET, NOW + 86400)
    assert s.endpoints.rotate_secret("acme", "ep_01", _rotation("whsec_two", "whsec_three", first, at=NOW + 1)) == (True, None)
    after = s.endpoints.get("acme", "ep_01")
    assert (after.secret, after.previous_secrets) == ("whsec_three", (PreviousSecret("whsec_two", NOW + 86401), PreviousSecret(SECRET, NOW + 86400)))
    # Then a rotation that read an earlier secret changes nothing and is answered with the endpoint as it is now
    assert s.endpoints.rotate_secret("acme", "ep_01", _rotation("whsec_two", "whsec_late", at=NOW + 2)) == (False, after)
    assert s.endpoints.get("acme", "ep_01") == after


def endpoint_signing_and_its_keys_round_trip_and_rotate_with_the_secret(s: Stores) -> None:
    # Given an endpoint signing with Ed25519 and GitHub's format until a date, with its private key
    migrating = parse_signing({"scheme": "standard-webhooks", "algorithm": "ed25519", "also": [{"scheme": "hmac", "preset": "github"}], "also_until": T0})
    s.endpoints.create(endpoint(signing=migrating, signing_key="whsk_one"), most=100)
    assert s.endpoints.get("acme", "ep_01") == endpoint(signing=migrating, signing_key="whsk_one")
    # When a rotation replaces the secret and the key together
    rotation = replace(_rotation(SECRET, "whsec_two"), new_key="whsk_two", previous_keys=(LiveSecret("whsk_one", NOW + 86400),))
    assert s.endpoints.rotate_secret("acme", "ep_01", rotation) == (True, None)
    got = s.endpoints.get("acme", "ep_01")
    assert (got.signing_key, got.previous_keys) == ("whsk_two", (PreviousSecret("whsk_one", NOW + 86400),))
    # Then a save of a copy read before the rotation keeps the rotated key, and a save back to the default signing keeps it too
    assert s.endpoints.save(endpoint(signing=migrating, signing_key="whsk_one", description="d"))
    assert s.endpoints.save(endpoint(description="e"))
    got = s.endpoints.get("acme", "ep_01")
    assert (got.signing, got.signing_key, got.previous_keys, got.description) == (DEFAULT_SIGNING, "whsk_two", (PreviousSecret("whsk_one", NOW + 86400),), "e")


def endpoint_writes_answer_false_when_it_is_gone(s: Stores) -> None:
    s.endpoints.create(endpoint(), most=100)
    assert s.endpoints.delete("acme", "ep_01")
    assert not s.endpoints.delete("acme", "ep_01")
    assert not s.endpoints.save(endpoint())
    assert s.endpoints.rotate_secret("acme", "ep_01", _rotation(SECRET, "whsec_two")) == (False, None)
    # pause and disable of a missing endpoint change nothing (and create nothing)
    s.endpoints.pause("acme", "ep_01", NOW + 60)
    s.endpoints.disable("acme", "ep_01", "failing", T0)
    assert s.endpoints.get("acme", "ep_01") is None


def endpoint_pause_keeps_the_later_one(s: Stores) -> None:
    s.endpoints.create(endpoint(), most=100)
    s.endpoints.pause("acme", "ep_01", NOW + 300)
    s.endpoints.pause("acme", "ep_01", NOW + 60)
    assert s.endpoints.get("acme", "ep_01").paused_until == NOW + 300
    s.endpoints.pause("acme", "ep_01", NOW + 900)
    assert s.endpoints.get("acme", "ep_01").paused_until == NOW + 900
    s.endpoints.disable("acme", "ep_01", "failing", "2026-11-29T12:05:00.000Z")
    got = s.endpoints.get("acme", "ep_01")
    assert (got.status, got.disabled_reason, got.updated_at) == ("disabled", "failing", "2026-11-29T12:05:00.000Z")


def endpoint_pages_visit_each_once(s: Stores) -> None:
    # Given five endpoints of one tenant and one of another
    for i in range(5):
        s.endpoints.create(endpoint(f"ep_0{i}"), most=100)
    s.endpoints.create(endpoint("ep_09", tenant="other"), most=100)
    # When the tenant's endpoints are paged two at a time
    pages = every_page(lambda cursor: s.endpoints.page("acme", 2, cursor))
    # Then each came once, in id order, in pages of at most two, and the last page has no cursor
    seen = [e.id for page in pages for e in page]
    assert seen == [f"ep_0{i}" for i in range(5)]
    assert len(pages) == 3
    assert [e.id for e in s.endpoints.all_of_owner("acme", None)] == seen


def endpoint_create_stops_at_its_owners_most(s: Stores) -> None:
    # Given customer "a" with two endpoints, the most it may have here
    assert s.endpoints.create(endpoint("ep_01", customer="a"), most=2)
    assert s.endpoints.create(endpoint("ep_02", customer="a"), most=2)
    # Then a third is refused and not stored
    assert s.endpoints.create(endpoint("ep_03", customer="a"), most=2) is False
    assert s.endpoints.get("acme", "ep_03") is None
    # And every other owner counts apart: customer "b", the tenant's own, another tenant's "a"
    assert s.endpoints.create(endpoint("ep_04", customer="b"), most=2)
    assert s.endpoints.create(endpoint("ep_05"), most=2)
    assert s.endpoints.create(endpoint("ep_06", tenant="other", customer="a"), most=2)
    # And a deleted endpoint makes room; deleting it again frees nothing more
    assert s.endpoints.delete("acme", "ep_01")
    assert not s.endpoints.delete("acme", "ep_01")
    assert s.endpoints.create(endpoint("ep_03", customer="a"), most=2)
    assert s.endpoints.create(endpoint("ep_07", customer="a"), most=2) is False
    assert [e.id for e in s.endpoints.all_of_owner("acme", "a")] == ["ep_02", "ep_03"]


def endpoints_are_read_by_owner_and_no_other(s: Stores) -> None:
    # Given endpoints of customers "a" and "a.b", the tenant's own, and another tenant's under the same uid
    for ep_id, customer in (("ep_01", "a"), ("ep_02", None), ("ep_03", "a.b"), ("ep_04", "a"), ("ep_05", None), ("ep_06", "a")):
        s.endpoints.create(endpoint(ep_id, customer=customer), most=100)
    s.endpoints.create(endpoint("ep_07", tenant="other", customer="a"), most=100)
    s.endpoints.create(endpoint("ep_08", tenant="other"), most=100)
    # Then each owner's endpoints come back whole, in id order, and only those
    assert [e.id for e in s.endpoints.all_of_owner("acme", "a")] == ["ep_01", "ep_04", "ep_06"]
    assert [e.id for e in s.endpoints.all_of_owner("acme", "a.b")] == ["ep_03"]
    assert [e.id for e in s.endpoints.all_of_owner("acme", None)] == ["ep_02", "ep_05"]
    assert list(s.endpoints.all_of_owner("acme", "nobody")) == []
    assert s.endpoints.get("acme", "ep_01") == endpoint("ep_01", customer="a")
    # And paged, they come once each, with cursors that belong to their owner
    pages = every_page(lambda cursor: s.endpoints.page_of_owner("acme", "a", 2, cursor))
    assert [[e.id for e in page] for page in pages] == [["ep_01", "ep_04"], ["ep_06"]]
    _, cursor = s.endpoints.page_of_owner("acme", "a", 1, None)
    for owner in (("acme", None), ("acme", "a.b"), ("other", "a")):
        with pytest.raises(InvalidCursor):
            s.endpoints.page_of_owner(*owner, 1, cursor)
    # And a save keeps the endpoint with its owner
    assert s.endpoints.save(endpoint("ep_04", customer="a", description="changed"))
    assert [e.description for e in s.endpoints.all_of_owner("acme", "a")] == ["", "changed", ""]
    assert s.endpoints.delete("acme", "ep_01")
    assert [e.id for e in s.endpoints.all_of_owner("acme", "a")] == ["ep_04", "ep_06"]
    # And the tenant's own, read again (the adapter's first read of them marks the tenant, and later ones read the
    # index), are still its own, without one deleted
    assert s.endpoints.delete("acme", "ep_05")
    assert [e.id for e in s.endpoints.all_of_owner("acme", None)] == ["ep_02"]
    assert [e.id for e in s.endpoints.all_of_owner("other", None)] == ["ep_08"]


def endpoint_cursor_of_another_tenant_is_refused(s: Stores) -> None:
    for i in range(3):
        s.endpoints.create(endpoint(f"ep_0{i}"), most=100)
    _, cursor = s.endpoints.page("acme", 1, None)
    assert cursor
    with pytest.raises(InvalidCursor):
        s.endpoints.page("other", 1, cursor)
    with pytest.raises(InvalidCursor):
        s.endpoints.page("acme", 1, "not-a-cursor")


# -- customers ----------------------------------------------------------------------------------


def customer(uid: str = "cus-1", tenant: str = "acme", **changes: Any) -> Customer:
    base = Customer(tenant=tenant, uid=uid, name="Customer One", created_at=T0, updated_at=T0)
    return replace(base, **changes)


def customer_put_creates_then_replaces_keeping_its_creation(s: Stores) -> None:
    # Given a customer created with every field
    full = customer(email="ops@example.com", metadata=(("plan", "pro"), ("region", "eu")), limits=CustomerLimits(12.5, 7))
    stored, created = s.customers.put(full)
    assert created and stored == full
    assert s.customers.get("acme", "cus-1") == full
    # When it is put again with fewer fields, later
    later = customer(name="Renamed", created_at="2026-11-30T00:00:00.000Z", updated_at="2026-11-30T00:00:00.000Z")
    stored, created = s.customers.put(later)
    # Then it was replaced, not created: the email and metadata are gone, the creation time stays
    assert not created
    assert stored == s.customers.get("acme", "cus-1") == replace(later, created_at=T0)
    assert (stored.email, stored.metadata, stored.limits) == (None, (), CustomerLimits())
    # And another tenant's customer of the same uid is another customer
    assert s.customers.get("other", "cus-1") is None
    assert s.customers.put(customer(tenant="other"))[1]


def customer_session_epoch_is_bumped_and_survives_a_put(s: Stores) -> None:
    # Given a customer, whose sessions start at epoch 0
    s.customers.put(customer())
    assert s.customers.get("acme", "cus-1").session_epoch == 0
    # When its sessions are revoked twice, and it is replaced by a PUT meanwhile
    assert s.customers.bump_session_epoch("acme", "cus-1")
    s.customers.put(customer(name="Renamed"))
    assert s.customers.bump_session_epoch("acme", "cus-1")
    # Then the epoch counted both, the PUT left it alone, and a customer that is not there is not bumped
    assert s.customers.get("acme", "cus-1").session_epoch == 2
    assert not s.customers.bump_session_epoch("acme", "nobody")
    assert not s.customers.bump_session_epoch("other", "cus-1")
    assert s.customers.get("other", "cus-1") is None


def customer_current_is_the_one_under_the_uid_now(s: Stores) -> None:
    # Given a customer, deleted and made again under its uid
    s.customers.put(customer())
    assert s.customers.current("acme", "cus-1") == s.customers.get("acme", "cus-1") == customer()
    s.customers.delete("acme", "cus-1")
    assert s.customers.current("acme", "cus-1") is None
    s.customers.put(customer(created_at="2026-11-30T00:00:00.000Z"))
    # Then the current one is the new one, and no other tenant's
    assert s.customers.current("acme", "cus-1").created_at == "2026-11-30T00:00:00.000Z"
    assert s.customers.current("other", "cus-1") is None


def customer_delete_answers_false_when_it_is_gone(s: Stores) -> None:
    s.customers.put(customer())
    assert not s.customers.delete("other", "cus-1")
    assert s.customers.delete("acme", "cus-1")
    assert not s.customers.delete("acme", "cus-1")
    assert s.customers.get("acme", "cus-1") is None


def customer_pages_visit_each_once_within_the_tenant(s: Stores) -> None:
    # Given five customers of one tenant and one of another
    for uid in ("b", "a:2", "a.1", "c_3", "Z-9"):
        s.customers.put(customer(uid))
    s.customers.put(customer("a.0", tenant="other"))
    # When they are paged two at a time
    pages = every_page(lambda cursor: s.customers.page("acme", 2, cursor))
    # Then each came once, in uid order, and the cursor belongs to the tenant
    assert [c.uid for page in pages for c in page] == sorted(["b", "a:2", "a.1", "c_3", "Z-9"])
    assert len(pages) == 3
    _, cursor = s.customers.page("acme", 1, None)
    with pytest.raises(InvalidCursor):
        s.customers.page("other", 1, cursor)
    with pytest.raises(InvalidCursor):
        s.customers.page("acme", 1, "not-a-cursor")


# -- breaker and limiter ------------------------------------------------------------------------------


def state_saves_are_conditional_on_the_version(s: Stores) -> None:
    s.endpoints.create(endpoint(), most=100)
    # Given nothing stored yet: any expected version wins the first write
    opened = Breaker(state="open", consecutive_failures=10, open_until=NOW + 60, open_since=NOW, cooldown_seconds=60.0, trips=1, version=1)
    assert s.states.save_breaker("acme", "ep_01", opened, 0)
    # When a writer that read version 0 writes again, it loses, and its refusal returns the breaker that won; one that read version 1 wins
    lost = s.states.save_breaker("acme", "ep_01", replace(opened, trips=9, version=1), 0)
    assert isinstance(lost, Lost) and lost.current == opened and not lost
    assert s.states.save_breaker("acme", "ep_01", replace(opened, state="half_open", probe_until=NOW + 70, version=2), 1)
    # Then the state reads back as the winner wrote it, alone and with the endpoint
    got = s.states.breaker("acme", "ep_01")
    assert (got.state, got.trips, got.probe_until, got.version) == ("half_open", 1, NOW + 70, 2)
    ep, breaker, limiter = s.states.load("acme", "ep_01")
    assert (ep.id, breaker, limiter) == ("ep_01", got, Limiter())
    # And the limiter has a version of its own
    assert s.states.save_limiter("acme", "ep_01", Limiter(tat=NOW, leases=(NOW + LEASE,), version=1), 0)
    lost_limiter = s.states.save_limiter("acme", "ep_01", Limiter(tat=NOW + 1, version=1), 0)
    assert isinstance(lost_limiter, Lost) and lost_limiter.current == Limiter(tat=NOW, leases=(NOW + LEASE,), version=1)
    assert s.states.limiter("acme", "ep_01").leases == (NOW + LEASE,)


def state_floats_are_kept_to_six_places(s: Stores) -> None:
    # A lease expiry read back must equal the one a release names, so what is stored is what a reader gets
    tat = NOW + 1 / 3
    assert s.states.save_limiter("acme", "ep_01", Limiter(tat=tat, leases=(NOW + 0.1234567,), effective_rate=10 / 3, adjusted_at=NOW, version=1), 0)
    got = s.states.limiter("acme", "ep_01")
    assert (got.tat, got.leases, got.effective_rate) == (round(tat, 6), (round(NOW + 0.1234567, 6),), round(10 / 3, 6))


def state_token_leases_read_back_as_written(s: Stores) -> None:
    # A hot endpoint's limiter records its holders' token leases (hookline.core.leases): they read back exactly
    held = (
        TokenLease("p_a", 454.545455, 250, NOW, NOW + 1, NOW + 27),
        TokenLease("p_b", 100.0, 10, NOW + 0.5, NOW + 1.5, NOW + 27.5),
    )
    assert s.states.save_limiter("acme", "ep_01", Limiter(tat=NOW, token_leases=held, version=1), 0)
    got = s.states.limiter("acme", "ep_01")
    assert got.token_leases == held
    assert s.states.load("acme", "ep_01")[2].token_leases == held
    # And a limiter without any writes none (an earlier release's reader sees the item it knew)
    assert s.states.save_limiter("acme", "ep_01", replace(got, token_leases=(), version=2), 1)
    assert s.states.limiter("acme", "ep_01").token_leases == ()


def state_reset_keeps_the_trip_count(s: Stores) -> None:
    opened = Breaker(state="open", consecutive_failures=10, open_until=NOW + 60, open_since=NOW, cooldown_seconds=60.0, trips=3, version=4)
    assert s.states.save_breaker("acme", "ep_01", opened, 0)
    s.states.reset_breaker("acme", "ep_01")
    assert s.states.breaker("acme", "ep_01") == Breaker(trips=3, version=5)
    # A missing endpoint loads as None beside default states
    assert s.states.load("acme", "ep_nope") == (None, Breaker(), Limiter())
    # A batch's endpoints load at once as each alone, a missing one included, a repeated one once
    s.endpoints.create(endpoint("ep_02"), most=100)
    both = s.states.load_many([("acme", "ep_01"), ("acme", "ep_nope"), ("acme", "ep_01"), ("acme", "ep_02")])
    assert both == {k: s.states.load(*k) for k in (("acme", "ep_01"), ("acme", "ep_nope"), ("acme", "ep_02"))}
    assert both[("acme", "ep_01")][1] == Breaker(trips=3, version=5) and both[("acme", "ep_02")][0] is not None


def carried_statistics_read_with_their_hour_and_move_once(s: Stores) -> None:
    s.endpoints.create(endpoint(), most=100)
    ten, eleven = datetime(2026, 11, 29, 10, 30, tzinfo=UTC), datetime(2026, 11, 29, 11, 5, tzinfo=UTC)
    # Given an hour's counters added to its item, and the next hour's carried on the limiter
    s.stats.add("acme", "ep_01", "2026-11-29T10", {"attempts": 2, "succeeded": 2})
    carried = Carried("2026-11-29T11", (("attempts", 3), ("failed", 1), ("succeeded", 2)), "7")
    assert s.states.save_limiter("acme", "ep_01", Limiter(tat=NOW, carried=carried, version=7), 0)
    # Then the limiter reads back with them, and a reader sees both hours
    assert s.states.limiter("acme", "ep_01").carried == carried
    assert s.stats.hours("acme", "ep_01", ten, eleven) == [
        ("2026-11-29T10", {"attempts": 2, "succeeded": 2}),
        ("2026-11-29T11", {"attempts": 3, "failed": 1, "succeeded": 2}),
    ]
    # When the carried counters are moved (twice: a retried give-back), they count once, however the reader finds them
    s.stats.move("acme", "ep_01", carried)
    s.stats.move("acme", "ep_01", carried)
    assert s.stats.window("acme", "ep_01", eleven, eleven) == {"attempts": 3, "failed": 1, "succeeded": 2}
    assert s.states.save_limiter("acme", "ep_01", Limiter(tat=NOW, carried=Carried("2026-11-29T12", (("attempts", 1),), "8"), version=8), 7)
    assert s.stats.window("acme", "ep_01", ten, eleven + timedelta(hours=1)) == {"attempts": 6, "failed": 1, "succeeded": 4}
    # And a window that leaves the carried hour out leaves its counters out; an endpoint with none has none
    assert s.stats.window("acme", "ep_01", ten, ten) == {"attempts": 2, "succeeded": 2}
    assert s.stats.hours("acme", "ep_02", ten, eleven) == []


# -- events and deliveries ----------------------------------------------------------------------------


def event_create_is_once_and_bodies_read_back(s: Stores) -> None:
    # Given an event with a body large enough to be stored compressed
    big = event(body='{"data":{"text":"' + "x" * 4000 + '"}}', deliveries=(PlannedDelivery("dlv_01", "ep_01"), PlannedDelivery("dlv_02", "ep_02", paused=True)))
    assert s.events.create_event(big, 2_000_000_000)
    # Then a second create of the id is refused and the first stands, whole
    assert not s.events.create_event(replace(big, body='{"data":{}}'), 2_000_000_000)
    assert s.events.get_event("acme", "evt_01") == big
    assert s.events.get_event("acme", "evt_01", consistent=True) == big
    assert s.events.get_event("other", "evt_01") is None
    assert s.events.get_events([("acme", "evt_01"), ("acme", "evt_01"), ("acme", "evt_nope")]) == {("acme", "evt_01"): big}


def deliveries_read_back_with_their_attempts(s: Stores) -> None:
    planned = (PlannedDelivery("dlv_01", "ep_01", paused=True), PlannedDelivery("dlv_02", "ep_01"), PlannedDelivery("dlv_03", "ep_01"))
    s.events.create_event(event(deliveries=planned), 2_000_000_000)
    s.events.create_deliveries([delivery("dlv_02"), delivery("dlv_01", status="paused")], 2_000_000_000)
    # ensure_delivery creates only what is missing
    s.events.ensure_delivery(delivery("dlv_01"), 2_000_000_000)
    s.events.ensure_delivery(delivery("dlv_03"), 2_000_000_000)
    claim = s.events.claim_attempt("acme", "evt_01", "dlv_02", 1, NOW, LEASE)
    assert claim.delivery is not None
    s.events.record_attempt(claim.delivery, attempt(1), "pending", T0, 2_000_000_000)
    found, deliveries = s.events.event_with_deliveries("acme", "evt_01")
    assert found == event(deliveries=planned)
    assert [(d.id, d.status, d.attempts_made, len(d.attempts)) for d in deliveries] == [
        ("dlv_01", "paused", 0, 0),
        ("dlv_02", "pending", 1, 1),
        ("dlv_03", "pending", 0, 0),
    ]
    assert deliveries[1].attempts[0] == attempt(1)
    assert s.events.get_delivery("acme", "evt_01", "dlv_02").attempts_made == 1
    assert s.events.get_delivery("acme", "evt_01", "dlv_nope") is None
    # And one delivery reads back alone with its attempts, another's (even one whose id it prefixes) left out
    s.events.ensure_delivery(delivery("dlv_021"), 2_000_000_000)
    alone = s.events.delivery_with_attempts("acme", "evt_01", "dlv_02")
    assert (alone.id, alone.attempts) == ("dlv_02", (attempt(1),))
    assert s.events.delivery_with_attempts("acme", "evt_01", "dlv_nope") is None


def claims_are_single_flight_with_a_lease(s: Stores) -> None:
    s.events.create_deliveries([delivery()], 2_000_000_000)
    # Given attempt 1 claimed
    first = s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW, LEASE)
    assert first.delivery is not None and first.delivery.status == "pending"
    # Then a second claim of it while the lease lives fails and is not busy; attempt 2 meanwhile is busy (come back)
    again = s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW + 1, LEASE)
    assert (again.delivery, again.busy, again.missing) == (None, False, False)
    assert s.events.claim_attempt("acme", "evt_01", "dlv_01", 2, NOW + 1, LEASE).busy
    # And once the lease has run out (a crashed worker), the attempt can be claimed again
    assert s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW + LEASE + 0.01, LEASE).delivery is not None
    # A claim in another generation, or of a delivery that does not exist, says so
    other_generation = s.events.claim_attempt("acme", "evt_01", "dlv_01", 2, NOW + 3 * LEASE, LEASE, generation=1)
    assert (other_generation.delivery, other_generation.busy, other_generation.missing) == (None, False, False)
    assert s.events.claim_attempt("acme", "evt_01", "dlv_nope", 1, NOW, LEASE).missing


def a_recorded_attempt_ends_the_lease_and_later_ones_win(s: Stores) -> None:
    s.events.create_deliveries([delivery()], 2_000_000_000)
    claimed = s.events.claim_attempt("acme", "evt_01", "dlv_01", 2, NOW, LEASE).delivery
    assert claimed is not None
    s.events.record_attempt(claimed, attempt(2), "pending", T0, 2_000_000_000)
    # The next attempt can be claimed at once: the record ended the lease
    assert s.events.claim_attempt("acme", "evt_01", "dlv_01", 3, NOW + 1, LEASE).delivery is not None
    # A record of an earlier attempt arriving late changes nothing
    s.events.record_attempt(claimed, attempt(1), "failed", T0, 2_000_000_000)
    assert s.events.get_delivery("acme", "evt_01", "dlv_01").attempts_made == 2
    # Nor does one for a delivery that is gone create it
    s.events.record_attempt(delivery("dlv_gone"), attempt(1), "failed", T0, 2_000_000_000)
    assert s.events.get_delivery("acme", "evt_01", "dlv_gone") is None
    # A finished delivery cannot be claimed
    s.events.record_attempt(claimed, attempt(3, "succeeded", 200), "succeeded", T0, 2_000_000_000)
    assert s.events.claim_attempt("acme", "evt_01", "dlv_01", 4, NOW + 2, LEASE).delivery is None


def a_delivery_only_planned_on_its_event_reads_and_acts_as_stored(s: Stores) -> None:
    """A new event's pending deliveries have no item until something is stored about them."""
    plan = tuple(PlannedDelivery(f"dlv_0{i}", f"ep_0{i}") for i in range(1, 5))
    assert s.events.create_event(event(deliveries=plan), 2_000_000_000)
    planned = delivery("dlv_01", created_at=T0, generation_started_at=T0)
    # It reads as pending, whole or alone, and in the batch read for sending
    _, whole = s.events.event_with_deliveries("acme", "evt_01")
    assert [(d.id, d.status, d.attempts_made) for d in whole] == [(p.id, "pending", 0) for p in plan]
    assert s.events.get_delivery("acme", "evt_01", "dlv_01") == planned
    assert s.events.delivery_with_attempts("acme", "evt_01", "dlv_01") == planned
    for consistent in (True, False):  # the batch read for sending reads eventually consistent: the same answer here
        assert s.events.read_for_sending([("acme", "evt_01")], [("acme", "evt_01", "dlv_01"), ("acme", "evt_01", "dlv_nope")], consistent=consistent)[1] == {
            ("acme", "evt_01", "dlv_01"): planned
        }
    assert s.events.get_delivery("acme", "evt_01", "dlv_nope") is None
    # Its first recorded attempt (a fresh task's: no claim) stores it
    s.events.record_attempt(whole[0], attempt(1, "succeeded", 200), "succeeded", T0, 2_000_000_000)
    done = s.events.delivery_with_attempts("acme", "evt_01", "dlv_01")
    assert done is not None and (done.status, done.attempts_made, [a.number for a in done.attempts]) == ("succeeded", 1, [1])
    # A claim, a park and a failure work on one as on a stored delivery
    assert s.events.claim_attempt("acme", "evt_01", "dlv_02", 1, NOW, LEASE).delivery is not None
    assert s.events.park("acme", "evt_01", "dlv_03", "ep_03", T0)
    assert [d.id for d in s.events.deliveries_by_status("acme", "ep_03", "paused")[0]] == ["dlv_03"]
    s.events.record_attempt(whole[3], attempt(1), "failed", T0, 2_000_000_000)
    assert [d.id for d in s.events.deliveries_by_status("acme", "ep_04", "failed")[0]] == ["dlv_04"]
    _, after = s.events.event_with_deliveries("acme", "evt_01")
    assert [(d.id, d.status) for d in after] == [("dlv_01", "succeeded"), ("dlv_02", "pending"), ("dlv_03", "paused"), ("dlv_04", "failed")]


def every_attempt_reads_back_in_order_across_generations(s: Stores) -> None:
    """A failure, a success, and after a replay another success (the adapter keeps a delivery's first success on its own item)."""
    s.events.create_event(event(deliveries=(PlannedDelivery("dlv_01", "ep_01"),)), 2_000_000_000)
    s.events.create_deliveries([delivery()], 2_000_000_000)
    first = s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW, LEASE).delivery
    assert first is not None
    s.events.record_attempt(first, attempt(1), "pending", T0, 2_000_000_000)
    s.events.record_attempt(first, attempt(2, "succeeded", 200), "succeeded", T0, 2_000_000_000)
    s.events.record_attempt(first, attempt(2, "succeeded", 200), "succeeded", T0, 2_000_000_000)  # recorded twice (a redelivery): kept once
    restarted = s.events.restart("acme", "evt_01", "dlv_01", 0, ("succeeded",), T0)
    assert restarted is not None
    s.events.record_attempt(restarted, attempt(3, "succeeded", 201), "succeeded", T0, 2_000_000_000)
    expected = [(1, "failed", 500), (2, "succeeded", 200), (3, "succeeded", 201)]
    alone = s.events.delivery_with_attempts("acme", "evt_01", "dlv_01")
    assert alone is not None and (alone.status, alone.attempts_made) == ("succeeded", 3)
    assert [(a.number, a.outcome, a.status_code) for a in alone.attempts] == expected
    _, [whole] = s.events.event_with_deliveries("acme", "evt_01")
    [by_id] = s.events.deliveries_with_attempts("acme", "evt_01", ["dlv_01"])
    assert whole.attempts == by_id.attempts == alone.attempts


def restarts_happen_once_per_generation(s: Stores) -> None:
    s.events.create_deliveries([delivery(status="failed", attempts_made=12)], 2_000_000_000)
    # A restart from a status not named changes nothing
    assert s.events.restart("acme", "evt_01", "dlv_01", 0, ("succeeded",), T0) is None
    restarted = s.events.restart("acme", "evt_01", "dlv_01", 0, ("failed",), "2026-11-29T12:01:00.000Z", "rpl_x")
    assert restarted is not None
    assert (restarted.status, restarted.generation, restarted.generation_first_attempt, restarted.replay_id) == ("pending", 1, 13, "rpl_x")
    assert restarted.generation_started_at == "2026-11-29T12:01:00.000Z"
    # A duplicate request (same expected generation) restarts nothing
    assert s.events.restart("acme", "evt_01", "dlv_01", 0, ("failed", "pending"), T0) is None
    assert s.events.restart("acme", "evt_01", "dlv_nope", 0, ("failed",), T0) is None


def parking_pauses_only_a_pending_delivery(s: Stores) -> None:
    s.events.create_deliveries([delivery(), delivery("dlv_02", status="succeeded")], 2_000_000_000)
    assert s.events.park("acme", "evt_01", "dlv_01", "ep_01", T0)
    assert s.events.get_delivery("acme", "evt_01", "dlv_01").status == "paused"
    assert not s.events.park("acme", "evt_01", "dlv_01", "ep_01", T0)
    assert not s.events.park("acme", "evt_01", "dlv_02", "ep_01", T0)
    assert not s.events.park("acme", "evt_01", "dlv_nope", "ep_01", T0)
    # A parked delivery's task, back again, claims it (pending once more)
    claimed = s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW, LEASE).delivery
    assert claimed is not None and claimed.status == "pending"


def the_index_holds_failed_and_paused_deliveries_by_time(s: Stores) -> None:
    # Given deliveries of one endpoint created a minute apart, in every status, and one of another endpoint
    statuses = ["failed", "paused", "failed", "succeeded", "pending", "failed"]
    made = [delivery(f"dlv_0{i}", f"evt_0{i}", created_at=f"2026-11-29T12:0{i}:00.000Z", status=st) for i, st in enumerate(statuses)]
    s.events.create_deliveries([*made, delivery("dlv_09", "evt_09", endpoint_id="ep_02", status="failed")], 2_000_000_000)
    # When the failed ones from 12:01 on are paged two at a time
    seen, cursor = [], None
    while True:
        items, cursor = s.events.deliveries_by_status("acme", "ep_01", "failed", "2026-11-29T12:01", "~", 2, cursor)
        seen += [d.id for d in items]
        if not cursor:
            break
    # Then they come oldest first, each once, and only failed ones of that endpoint within the window
    assert seen == ["dlv_02", "dlv_05"]
    # And newest first, paged one at a time, they come in the reverse order
    newest, cursor = [], None
    while True:
        items, cursor = s.events.deliveries_by_status("acme", "ep_01", "failed", "", "~", 1, cursor, newest_first=True)
        newest += [d.id for d in items]
        if not cursor:
            break
    assert newest == ["dlv_05", "dlv_02", "dlv_00"]
    everything, _ = s.events.deliveries_by_status("acme", "ep_01", "paused")
    assert [d.id for d in everything] == ["dlv_01"]
    until_noon_two, _ = s.events.deliveries_by_status("acme", "ep_01", "failed", "", "2026-11-29T12:02~")
    assert [d.id for d in until_noon_two] == ["dlv_00", "dlv_02"]
    # And a paused delivery leaves the index when its task claims it, and joins the failed ones when it fails for good
    claimed = s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW, LEASE).delivery
    assert claimed is not None
    assert s.events.deliveries_by_status("acme", "ep_01", "paused") == ([], None)
    s.events.record_attempt(claimed, attempt(1), "failed", T0, 2_000_000_000)
    assert [d.id for d in s.events.deliveries_by_status("acme", "ep_01", "failed")[0]] == ["dlv_00", "dlv_01", "dlv_02", "dlv_05"]
    with pytest.raises(ValueError, match="not indexed"):
        s.events.deliveries_by_status("acme", "ep_01", "succeeded")


def index_cursors_stay_in_their_endpoint(s: Stores) -> None:
    s.events.create_deliveries([delivery(f"dlv_0{i}", status="failed") for i in range(3)], 2_000_000_000)
    _, cursor = s.events.deliveries_by_status("acme", "ep_01", "failed", limit=1)
    assert cursor
    with pytest.raises(InvalidCursor):
        s.events.deliveries_by_status("acme", "ep_02", "failed", limit=1, cursor=cursor)
    with pytest.raises(InvalidCursor):
        s.events.deliveries_by_status("other", "ep_01", "failed", limit=1, cursor=cursor)


def ensure_delivery_answers_the_delivery_as_stored(s: Stores) -> None:
    # Given a delivery that has been attempted once
    s.events.create_deliveries([delivery("dlv_01")], 2_000_000_000)
    claim = s.events.claim_attempt("acme", "evt_01", "dlv_01", 1, NOW, LEASE)
    assert claim.delivery is not None
    s.events.record_attempt(claim.delivery, attempt(1), "pending", T0, 2_000_000_000)
    # When it is ensured again (a re-run), Then the stored one comes back, unchanged
    again = s.events.ensure_delivery(delivery("dlv_01", status="paused"), 2_000_000_000)
    assert (again.id, again.status, again.attempts_made, again.attempts) == ("dlv_01", "pending", 1, ())
    # And a new one is created and comes back as written
    made = s.events.ensure_delivery(delivery("dlv_02", status="paused"), 2_000_000_000)
    assert made == delivery("dlv_02", status="paused", generation_started_at=T0)
    assert s.events.get_delivery("acme", "evt_01", "dlv_02") == made


def a_broadcasts_fanout_advances_once_per_step(s: Stores) -> None:
    # Given a broadcast at step 0 and an ordinary event
    started = replace(event("evt_02"), broadcast=Fanout())
    assert s.events.create_event(started, 2_000_000_000)
    s.events.create_event(event(), 2_000_000_000)
    assert s.events.get_event("acme", "evt_02", consistent=True) == started
    # When two runs of step 0 advance it, Then only the first counts
    first = Fanout().advanced("cursor-1", 100, 40, 3)
    assert s.events.advance_fanout("acme", "evt_02", Fanout(), first)
    assert not s.events.advance_fanout("acme", "evt_02", Fanout(), Fanout().advanced("cursor-x", 100, 99, 0))
    assert s.events.get_event("acme", "evt_02", consistent=True) == replace(started, broadcast=first)
    # And the last page marks it done, with an empty cursor
    last = first.advanced(None, 20, 5, 0)
    assert s.events.advance_fanout("acme", "evt_02", first, last)
    got = s.events.get_event("acme", "evt_02", consistent=True).broadcast
    assert (got.status, got.step, got.cursor, got.endpoints_scanned, got.deliveries, got.paused) == ("done", 2, "", 120, 45, 3)
    # And neither an ordinary event nor a missing one has a fan-out to advance
    assert not s.events.advance_fanout("acme", "evt_01", Fanout(), first)
    assert not s.events.advance_fanout("acme", "evt_nope", Fanout(), first)
    assert s.events.get_event("acme", "evt_01") == event()


def an_events_deliveries_come_in_pages_each_with_its_attempts(s: Stores) -> None:
    # Given a broadcast an earlier release accepted (its deliveries kept in its partition) with five deliveries, some
    # attempted several times, and another event's delivery
    s.events.create_event(replace(event(), broadcast=Fanout(), layout=LAYOUT_EVENT_KEYED), 2_000_000_000)
    earlier = [delivery(f"dlv_0{i}", layout=LAYOUT_EVENT_KEYED) for i in range(5)] + [delivery("dlv_09", "evt_09", layout=LAYOUT_EVENT_KEYED)]
    s.events.create_deliveries(earlier, 2_000_000_000)
    for delivery_id, attempts in (("dlv_01", 3), ("dlv_02", 1), ("dlv_04", 2)):
        for n in range(1, attempts + 1):
            claim = s.events.claim_attempt("acme", "evt_01", delivery_id, n, NOW + n * LEASE, LEASE)
            assert claim.delivery is not None, (delivery_id, n)
            s.events.record_attempt(claim.delivery, attempt(n), "pending", T0, 2_000_000_000)
    # When they are paged two at a time
    pages = every_page(lambda cursor: s.events.deliveries_page("acme", "evt_01", 2, cursor))
    # Then each comes once, in id order, at most two a page, with all of its attempts
    seen = [(d.id, [a.number for a in d.attempts]) for page in pages for d in page]
    assert seen == [("dlv_00", []), ("dlv_01", [1, 2, 3]), ("dlv_02", [1]), ("dlv_03", []), ("dlv_04", [1, 2])]
    assert all(len(page) <= 2 for page in pages)
    # And a cursor belongs to its event
    _, cursor = s.events.deliveries_page("acme", "evt_01", 1, None)
    assert cursor
    for other in (("acme", "evt_09"), ("other", "evt_01")):
        with pytest.raises(InvalidCursor):
            s.events.deliveries_page(*other, 1, cursor)
    assert s.events.deliveries_page("acme", "evt_nope", 10, None) == ([], None)


def a_broadcasts_deliveries_are_read_by_id_each_with_its_attempts(s: Stores) -> None:
    # Given a broadcast's deliveries to three endpoints, one attempted twice, one succeeding at once
    broadcast = replace(event(), broadcast=Fanout())
    s.events.create_event(broadcast, 2_000_000_000)
    made = {ep: s.events.ensure_delivery(delivery(broadcast.broadcast_delivery_id(ep), endpoint_id=ep), 2_000_000_000) for ep in ("ep_01", "ep_02", "ep_03")}
    for n in (1, 2):
        claim = s.events.claim_attempt("acme", "evt_01", made["ep_01"].id, n, NOW + n * LEASE, LEASE)
        assert claim.delivery is not None
        s.events.record_attempt(claim.delivery, attempt(n), "pending", T0, 2_000_000_000)
    claim = s.events.claim_attempt("acme", "evt_01", made["ep_03"].id, 1, NOW, LEASE)
    assert claim.delivery is not None
    s.events.record_attempt(claim.delivery, attempt(1, "succeeded", 200), "succeeded", T0, 2_000_000_000)
    # When read by their ids, one that none has among them, in an order of the caller's
    wanted = [made["ep_03"].id, broadcast.broadcast_delivery_id("ep_09"), made["ep_01"].id, made["ep_02"].id]
    read = s.events.deliveries_with_attempts("acme", "evt_01", wanted)
    # Then the stored ones come back in that order, each with all of its attempts
    assert [(d.endpoint_id, d.status, [a.number for a in d.attempts]) for d in read] == [
        ("ep_03", "succeeded", [1]),
        ("ep_01", "pending", [1, 2]),
        ("ep_02", "pending", []),
    ]
    assert s.events.deliveries_with_attempts("other", "evt_01", wanted) == []


# -- replays -----------------------------------------------------------------------------------


def replay_pages_are_counted_once(s: Stores) -> None:
    window = ReplayWindow("2026-11-29T11:00:00.000Z", "2026-11-29T12:00:00.000Z", "failed")
    assert s.replays.create("acme", "rpl_1", "ep_01", window, T0, 2_000_000_000, "job_1")
    assert not s.replays.create("acme", "rpl_1", "ep_02", window, T0, 2_000_000_000, "job_2")
    item = s.replays.get("acme", "rpl_1")
    assert (item["endpoint_id"], item["job_id"], item["step"], item["matched"], item["done_paging"], item["status_filter"]) == (
        "ep_01",
        "job_1",
        0,
        0,
        False,
        "failed",
    )
    # A page is counted once: its step repeated, or an earlier step arriving after a later one, counts nothing
    s.replays.record_page("acme", "rpl_1", 1, 2, done=False)
    s.replays.record_page("acme", "rpl_1", 1, 2, done=False)
    s.replays.record_page("acme", "rpl_1", 3, 5, done=True)
    s.replays.record_page("acme", "rpl_1", 2, 7, done=False)
    item = s.replays.get("acme", "rpl_1")
    assert (item["matched"], item["queued"], item["done_paging"]) == (7, 7, True)
    # A missing replay is not created by it
    s.replays.record_page("acme", "rpl_nope", 1, 1, done=True)
    assert s.replays.get("acme", "rpl_nope") is None


def replay_outcomes_are_counted(s: Stores) -> None:
    window = ReplayWindow("2026-11-29T11:00:00.000Z", "2026-11-29T12:00:00.000Z", "paused")
    s.replays.create("acme", "rpl_1", "ep_01", window, T0, 2_000_000_000, "job_1")
    for outcome in ("delivered", "delivered", "failed"):
        s.replays.count("acme", "rpl_1", outcome)
    item = s.replays.get("acme", "rpl_1")
    assert (item["delivered"], item["failed"]) == (2, 1)
    assert s.replays.get("other", "rpl_1") is None


CHECKS: list[Callable[[Stores], None]] = [
    endpoint_create_is_once_and_reads_back,
    endpoint_destination_reads_back_and_a_save_moves_it,
    endpoint_auth_reads_back_sealed_and_a_save_replaces_or_removes_it,
    endpoint_save_keeps_what_others_own,
    endpoint_signing_and_its_keys_round_trip_and_rotate_with_the_secret,
    endpoint_writes_answer_false_when_it_is_gone,
    endpoint_rotation_lands_only_on_the_secret_it_read,
    endpoint_pause_keeps_the_later_one,
    endpoint_pages_visit_each_once,
    endpoint_cursor_of_another_tenant_is_refused,
    endpoint_create_stops_at_its_owners_most,
    endpoints_are_read_by_owner_and_no_other,
    customer_put_creates_then_replaces_keeping_its_creation,
    customer_session_epoch_is_bumped_and_survives_a_put,
    customer_delete_answers_false_when_it_is_gone,
    customer_current_is_the_one_under_the_uid_now,
    customer_pages_visit_each_once_within_the_tenant,
    state_saves_are_conditional_on_the_version,
    state_token_leases_read_back_as_written,
    state_floats_are_kept_to_six_places,
    state_reset_keeps_the_trip_count,
    carried_statistics_read_with_their_hour_and_move_once,
    event_create_is_once_and_bodies_read_back,
    deliveries_read_back_with_their_attempts,
    claims_are_single_flight_with_a_lease,
    a_recorded_attempt_ends_the_lease_and_later_ones_win,
    a_delivery_only_planned_on_its_event_reads_and_acts_as_stored,
    every_attempt_reads_back_in_order_across_generations,
    restarts_happen_once_per_generation,
    parking_pauses_only_a_pending_delivery,
    the_index_holds_failed_and_paused_deliveries_by_time,
    index_cursors_stay_in_their_endpoint,
    ensure_delivery_answers_the_delivery_as_stored,
    a_broadcasts_fanout_advances_once_per_step,
    an_events_deliveries_come_in_pages_each_with_its_attempts,
    a_broadcasts_deliveries_are_read_by_id_each_with_its_attempts,
    replay_pages_are_counted_once,
    replay_outcomes_are_counted,
]
