"""A batch's statistics ride on the write that gives its concurrency leases back (hookline.core.stats.carry)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from hookline.core.breaker import Breaker
from hookline.core.ratelimit import Limiter
from hookline.core.stats import hour_of
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.unit.services.pipeline import Pipeline


def _limiter_writes(rig: DeliveryRig) -> int:
    return sum(1 for kind, _, _ in rig.states.writes if kind == "limiter")


def _window(rig: DeliveryRig, hours: int = 2) -> dict[str, int]:
    now = rig.clock()
    return rig.stats.window("acme", "ep_01", now - timedelta(hours=hours), now)


def test_a_batch_writes_its_endpoints_statistics_with_its_give_back_and_an_hour_later_they_move_to_their_item() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    # Given three webhooks delivered in one batch
    for n in range(3):
        pipe.event(ep, n)
    pipe.run(1)
    first_hour = hour_of(rig.clock())
    # Then the limiter was written twice (the grant, and the give-back with the statistics) and no statistics item at all
    assert (len(pipe.sent), _limiter_writes(rig), dict(rig.stats.slots)) == (3, 2, {})
    assert rig.states.limiter("acme", "ep_01").carried.hour == first_hour
    assert _window(rig) == {"attempts": 3, "succeeded": 3, "first_attempts": 3, "first_attempt_succeeded": 3, "ended_succeeded": 3, "l01": 3}
    # When a batch runs an hour later
    rig.clock.advance(3600)
    pipe.event(ep, 3)
    pipe.run(1)
    # Then the first hour's counters are in their own item, the new hour's carried, and a window sees both once
    assert rig.stats.slots[("acme", "ep_01", first_hour)]["attempts"] == 3
    assert rig.states.limiter("acme", "ep_01").carried.as_dict()["attempts"] == 1
    assert _window(rig)["attempts"] == 4
    assert _limiter_writes(rig) == 4


def test_a_give_back_that_loses_its_write_and_tries_again_moves_the_earlier_hour_once() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    pipe.event(ep, 0)
    pipe.run(1)
    rig.clock.advance(3600)
    # Given another instance writes the limiter between this batch's grant and its give-back: the give-back, which
    # proposes from the grant's state, loses its first write
    save = rig.states.save_limiter
    calls = [0]

    def save_limiter(tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool:
        calls[0] += 1
        if calls[0] == 2:
            current = rig.states.limiters[(tenant, endpoint_id)]
            rig.states.limiters[(tenant, endpoint_id)] = replace(current, version=current.version + 1)
        return save(tenant, endpoint_id, state, expected_version)

    rig.states.save_limiter = save_limiter  # type: ignore[method-assign]
    conflicts = rig.states.conflicts
    pipe.event(ep, 1)
    pipe.run(1)
    # Then it moved the earlier hour twice (before each try) and it counts once; the new hour is carried
    assert (calls[0], rig.states.conflicts - conflicts) == (3, 1)  # the grant, the lost give-back, its retry
    assert [hour for (_, _, hour) in rig.stats.slots] == [hour_of(rig.clock() - timedelta(hours=1))]
    assert _window(rig, hours=3)["attempts"] == 2
    assert rig.stats.window("acme", "ep_01", rig.clock() - timedelta(hours=1), rig.clock() - timedelta(hours=1))["attempts"] == 1


def test_when_the_give_back_fails_the_statistics_are_added_on_their_own() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    pipe.event(ep, 0)
    # Given the limiter cannot be written when the batch gives its leases back (they expire on their own)
    save = rig.states.save_limiter
    calls = [0]

    def save_limiter(tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool:
        calls[0] += 1
        if calls[0] > 1:
            raise RuntimeError("DynamoDB is down")
        return save(tenant, endpoint_id, state, expected_version)

    rig.states.save_limiter = save_limiter  # type: ignore[method-assign]
    pipe.run(1)
    # Then the webhook was delivered and its statistics went to their hour's item instead
    assert len(pipe.sent) == 1
    assert rig.stats.slots[("acme", "ep_01", hour_of(rig.clock()))]["attempts"] == 1
    assert _window(rig)["attempts"] == 1


def test_a_half_open_probe_holds_no_lease_and_its_statistics_are_added_on_their_own() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    now = rig.clock.timestamp()
    # Given an open breaker whose cooldown has run out: the next task is its half-open probe, sent outside any grant
    opened = Breaker(state="open", consecutive_failures=10, open_until=now - 1, open_since=now - 61, cooldown_seconds=60.0, trips=1, version=1)
    assert rig.states.save_breaker("acme", "ep_01", opened, 0)
    pipe.event(ep, 0)
    pipe.run(1)
    # Then the probe was sent, and counted in its hour's item (the limiter carries nothing of it)
    assert len(pipe.sent) == 1
    assert rig.stats.slots[("acme", "ep_01", hour_of(rig.clock()))]["attempts"] == 1
    assert rig.states.limiter("acme", "ep_01").carried.counts == ()


def _counting_limiter_reads(rig: DeliveryRig) -> list[str]:
    read, reads = rig.states.limiter, []

    def limiter(tenant: str, endpoint_id: str) -> Limiter:
        reads.append(endpoint_id)
        return read(tenant, endpoint_id)

    rig.states.limiter = limiter  # type: ignore[method-assign]
    return reads


def test_a_batch_alone_on_its_endpoint_gives_back_from_its_grant_without_reading_the_limiter() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    reads = _counting_limiter_reads(rig)
    conflicts = rig.states.conflicts
    # Given nothing else in flight on the endpoint, when a batch delivers two webhooks
    for n in range(2):
        pipe.event(ep, n)
    pipe.run(1)
    # Then its give-back wrote on the state its grant wrote: no read of the limiter, no lost write, the leases back
    assert len(pipe.sent) == 2
    assert (reads, rig.states.conflicts - conflicts) == ([], 0)
    assert rig.states.limiter("acme", "ep_01").leases == ()


def test_a_batch_beside_another_holder_reads_the_limiter_before_its_give_back() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    # Given another instance holds a lease on the endpoint
    other = rig.clock.timestamp() + 30
    assert rig.states.save_limiter("acme", "ep_01", Limiter(leases=(other,), version=1), 0)
    reads = _counting_limiter_reads(rig)
    pipe.event(ep, 0)
    pipe.run(1)
    # Then the give-back read the limiter first (a write on the grant's state would likely lose), and the other's lease stands
    assert len(pipe.sent) == 1
    assert reads == ["ep_01"]
    assert rig.states.limiter("acme", "ep_01").leases == (other,)
