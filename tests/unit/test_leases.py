"""Token leases for hot endpoints (hookline.core.leases): strict across holders, closed when a holder dies. Pure."""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field, replace

import pytest

from hookline.core import leases
from hookline.core.adaptive import AdaptiveConfig
from hookline.core.leases import Holding, take
from hookline.core.ratelimit import Limiter, LimiterConfig, TokenLeaseConfig, acquire, in_flight, release

LEASES = TokenLeaseConfig(min_rate=1000.0, slot_seconds=26.0)
# The adaptive limit starts at the ceiling: these tests are about the leases (test_adaptive.py is about the limit).
CFG = LimiterConfig(lease_seconds=120, adaptive=AdaptiveConfig(initial=10_000), token_leases=LEASES)


def most_in_any_second(times: list[float]) -> int:
    times = sorted(times)
    most, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - 1.0:
            j += 1
        most = max(most, i - j + 1)
    return most


@dataclass
class Holder:
    name: str
    holding: Holding = field(default_factory=Holding)
    dies_at: float = float("inf")


def run(holders: int, rate: float, limit: int, batch: int, latency: float, seconds: float, seed: int, dies: dict[int, float] | None = None):
    """`holders` processes each take a batch of `batch` tasks whenever the last ended, against one limiter item
    (its writes in time order, as conditional writes settle them); each request takes `latency` s.
    Returns the sends, the most in flight at once (by the limiter's own in-flight requests), and the limiter."""
    rng = random.Random(seed)
    lim = Limiter()
    people = [Holder(f"h{i}", dies_at=(dies or {}).get(i, float("inf"))) for i in range(holders)]
    agenda: list[tuple[float, int, str, int, float]] = [(rng.uniform(0, 0.05), i, "plan", 0, 0.0) for i in range(holders)]
    heapq.heapify(agenda)
    sends: list[float] = []
    running: list[float] = []  # end times of requests in flight
    most_running = 0
    while agenda:
        now, i, kind, count, expiry = heapq.heappop(agenda)
        if now > seconds:
            break
        who = people[i]
        if kind == "end":
            who.holding = leases.ended(who.holding, expiry, count)
            back = leases.to_give_back(who.holding, now)
            if back and who.holding.lease is not None:
                lim = release(lim, who.holding.lease.slot_expiry, back, now)
                who.holding = leases.given_back(who.holding)
            heapq.heappush(agenda, (now + rng.uniform(0.001, 0.02), i, "plan", 0, 0.0))
            continue
        if now >= who.dies_at:
            continue  # died: it never plans again, never ends its requests, never gives back
        grant = take(lim, who.holding, who.name, batch, rate, limit, now, CFG)
        if grant.state is not None:
            lim = grant.state
        who.holding = grant.holding
        if grant.send_at:
            running = [e for e in running if e > now]
            for at in grant.send_at:
                sends.append(at)
                running.append(at + latency)
            most_running = max(most_running, len([e for e in running if e > now]))
            assert grant.lease_expiry is not None
            heapq.heappush(agenda, (max(grant.send_at) + latency, i, "end", len(grant.send_at), grant.lease_expiry))
        else:
            heapq.heappush(agenda, (now + grant.retry_in, i, "plan", 0, 0.0))
    return sends, most_running, lim, people


@pytest.mark.parametrize(
    ("holders", "rate", "limit", "batch", "latency"),
    [
        (2, 1000, 50, 10, 0.1),  # two instances, a rate they cannot reach: bound by concurrency
        (8, 1000, 200, 10, 0.05),  # many instances sharing a rate they can exceed
        (30, 5000, 500, 10, 0.1),  # a hot endpoint at 5,000/s over 30 instances
        (5, 1200, 1000, 1, 0.005),  # single-task batches, fast receiver: the rate binds
        (40, 1000, 20, 10, 0.2),  # more instances than slots
    ],
)
def test_concurrent_holders_never_exceed_the_limit_in_flight_nor_the_rate_in_any_second(
    holders: int, rate: float, limit: int, batch: int, latency: float
) -> None:
    sends, most_running, _, _ = run(holders, rate, limit, batch, latency, seconds=20.0, seed=holders)
    # The leases do deliver: at least a third of what binds (the rate, the slots, or the holders' own pace)
    assert len(sends) > 0.3 * min(rate, limit / latency, holders * batch / (latency + 0.0105)) * 20
    assert most_running <= limit
    assert most_in_any_second(sends) <= rate


def test_a_hot_endpoints_limiter_takes_a_fraction_of_a_write_per_batch() -> None:
    # At 5,000/s over 30 instances in batches of ten, per-batch grants would write the item twice a batch: 1,000 a second
    rng = random.Random(7)
    lim, writes, batches = Limiter(), 0, 0
    people = [Holding() for _ in range(30)]
    now = 0.0
    while now < 10.0:
        i = rng.randrange(30)
        grant = take(lim, people[i], f"h{i}", 10, 5000, 1000, now, CFG)
        batches += 1
        if grant.state is not None:
            lim, writes = grant.state, writes + 1
        people[i] = leases.ended(grant.holding, grant.lease_expiry or 0.0, len(grant.send_at))
        back = leases.to_give_back(people[i], now)
        if back and people[i].lease is not None:
            lim, writes = release(lim, people[i].lease.slot_expiry, back, now), writes + 1
            people[i] = leases.given_back(people[i])
        now += 1 / 500  # 500 batches a second
    assert writes / 10.0 <= 500  # at most 500 writes a second on the one key
    assert writes / batches < 0.5


def test_a_holder_that_dies_with_tokens_unused_gives_nobody_its_tokens() -> None:
    # Given four holders, one of which dies 3 s in, holding a lease it never spends nor gives back
    sends, most_running, _lim, people = run(4, 1000, 40, 10, 0.1, seconds=40.0, seed=3, dies={0: 3.0})
    dead = people[0].holding.lease
    assert dead is not None and dead.until <= 4.5
    # Then the rate and concurrency held everywhere, the dead lease's time included, and the others went on
    assert most_in_any_second(sends) <= 1000
    assert most_running <= 40
    assert [s for s in sends if s > dead.slot_expiry]


def test_a_dead_holders_slots_stay_taken_until_they_expire_then_come_back() -> None:
    # Given a holder that takes a lease on an endpoint allowed 10 at once, sends, and dies
    a = take(Limiter(), Holding(), "a", 10, 1000, 10, 100.0, CFG)
    assert a.state is not None and a.holding.lease is not None and a.send_at
    lease = a.holding.lease
    b = take(a.state, Holding(), "b", 10, 1000, 10, 100.0, CFG)
    assert b.state is not None and b.holding.lease is not None
    lim = b.state
    # When another holder asks after the dead one's rate stopped counting, its slots are still taken
    assert lease.slots + b.holding.lease.slots == 10
    blocked = take(lim, Holding(), "c", 10, 1000, 10, lease.counted_until + 0.5, CFG)
    assert blocked.send_at == () and blocked.state is None
    # And once they expire they are free again, and the dead holder's entry is gone
    freed = take(lim, Holding(), "c", 10, 1000, 10, lease.slot_expiry + 0.01, CFG)
    assert freed.send_at and freed.state is not None
    assert [x.holder for x in freed.state.token_leases] == ["c"]
    assert in_flight(freed.state, lease.slot_expiry + 0.01) == freed.holding.lease.slots


def test_others_cannot_take_a_dead_holders_rate_while_it_counts() -> None:
    # Given a holder that takes half the rate, then dies (slots to spare: this is about the rate; its slots come back when they expire)
    first = take(Limiter(), Holding(), "a", 400, 1000, 10_000, 0.0, CFG)
    assert first.state is not None and first.holding.lease is not None
    lease = first.holding.lease
    # When others ask while its lease (and the second after it) counts
    lim, total = first.state, lease.rate
    for n, at in enumerate((0.1, 0.5, 0.9, 1.5)):
        grant = take(lim, Holding(), f"o{n}", 400, 1000, 10_000, at, CFG)
        if grant.state is not None and grant.holding.lease is not None:
            lim, total = grant.state, total + grant.holding.lease.rate
    # Then the rates handed out never add up to more than the endpoint's (less the pacing margin)
    assert total <= 1000 / (1 + CFG.pacing_margin) + 1e-6
    # And once it no longer counts, its share is free for others
    assert "a" in leases.counted_rates(lim, lease.counted_until - 0.01)
    assert "a" not in leases.counted_rates(lim, lease.counted_until + 0.01)


def test_a_live_lease_is_spent_without_a_write_and_within_its_rate() -> None:
    grant = take(Limiter(), Holding(), "a", 10, 1000, 1000, 0.0, CFG)
    assert grant.state is not None and len(grant.send_at) == 10
    holding = leases.ended(grant.holding, grant.lease_expiry or 0.0, 10)
    again = take(grant.state, holding, "a", 10, 1000, 1000, 0.2, CFG)
    assert again.state is None and len(again.send_at) == 10  # no write: the lease it holds has room
    # A holder asks for its use: a first lease is ten batches like the one in hand
    assert grant.holding.lease is not None and grant.holding.lease.rate == 100
    # Within a lease no window of a second sees more than its rate
    spent = replace(again.holding, in_flight=0)
    sends = list(grant.send_at + again.send_at)
    at = 0.3
    while at < 1.0:
        g = take(grant.state, spent, "a", 10, 1000, 1000, at, CFG)
        sends += g.send_at
        spent = replace(g.holding, in_flight=0)
        at += 0.05
    assert most_in_any_second(sends) <= 100


def test_per_batch_grants_and_leases_never_share_a_second() -> None:
    # An endpoint moved to leases (its rate raised past the minimum) right after a per-batch grant
    per_batch = acquire(Limiter(), 5, 500, 100, 0.0, CFG)
    assert per_batch.send_at
    lease = take(per_batch.state, Holding(), "a", 5, 1000, 100, 0.1, CFG)
    assert not lease.send_at or min(lease.send_at) >= per_batch.state.tat + 1.0
    # And moved back: per-batch grants wait until the last lease's second has passed
    granted = take(Limiter(), Holding(), "a", 5, 1000, 100, 0.0, CFG)
    assert granted.state is not None and granted.holding.lease is not None
    blocked = acquire(granted.state, 5, 500, 100, 0.5, CFG)
    assert blocked.send_at == () and blocked.retry_in >= granted.holding.lease.counted_until - 0.5


def test_a_holder_asks_for_twice_its_use_when_its_lease_ran_short_and_for_its_use_when_its_own_pace_bound_it() -> None:
    # Given a holder with a first lease of 100 a second on an endpoint allowed 5,000
    first = take(Limiter(), Holding(), "a", 10, 5000, 1000, 0.0, CFG)
    assert first.state is not None and first.holding.lease is not None and first.holding.lease.rate == 100
    over = first.holding.lease.until
    # When it asked to send 50 under it (a Lambda instance running a batch at a time went no faster), its next lease
    # is 50 a second: twice that would keep the rest of the rate from the other holders while it counts
    paced = take(first.state, replace(first.holding, asked=50, in_flight=0), "a", 10, 5000, 1000, over, CFG)
    assert paced.holding.lease is not None and paced.holding.lease.rate == 50
    # And when it asked for 150 (the lease ran short), its next lease is twice that: it grows fast
    short = take(first.state, replace(first.holding, asked=150, in_flight=0), "a", 10, 5000, 1000, over, CFG)
    assert short.holding.lease is not None and short.holding.lease.rate == 300
