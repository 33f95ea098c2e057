"""Pacing and concurrency decisions. Pure."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from hookline.core.adaptive import AdaptiveConfig
from hookline.core.ratelimit import Limiter, LimiterConfig, TokenLease, acquire, batch_share, current_rate, pace, release, slow_down

# The adaptive concurrency limit starts at the ceiling here: these tests are about pacing and leases (test_adaptive.py is about the limit).
CFG = LimiterConfig(
    horizon_seconds=1.0, lease_seconds=60, min_rate=0.5, decrease_factor=0.5, recovery_per_second=0.1, pacing_margin=0.0, adaptive=AdaptiveConfig(initial=1000)
)


def test_grants_are_paced_at_the_rate() -> None:
    g = acquire(Limiter(), 10, 5, 100, 1000.0, CFG)
    assert g.send_at == (1000.0, 1000.2, 1000.4, 1000.6, 1000.8, 1001.0)
    assert g.state.tat == 1001.2


def test_no_one_second_window_exceeds_the_rate_across_calls() -> None:
    lim, sends, now = Limiter(), [], 0.0
    for _ in range(40):
        g = acquire(lim, 3, 5, 100, now, CFG)
        sends.extend(g.send_at)
        lim = g.state if g.send_at else lim
        now += 0.13
    sends.sort()
    assert len(sends) > 20
    for i, t in enumerate(sends):
        assert len([s for s in sends[i:] if s < t + 1.0]) <= 5


def test_concurrency_leases_cap_in_flight_and_expire() -> None:
    g = acquire(Limiter(), 5, 100, 2, 0.0, CFG)
    assert len(g.send_at) == 2
    blocked = acquire(g.state, 1, 100, 2, 0.5, CFG)
    assert blocked.send_at == () and blocked.retry_in > 0
    freed = release(g.state, g.lease_expiry, 1, 0.5)
    assert len(acquire(freed, 5, 100, 2, 0.6, CFG).send_at) == 1
    # A crashed worker's leases run out on their own
    assert len(acquire(g.state, 5, 100, 2, 61.0, CFG).send_at) == 2


def test_429_halves_the_rate_then_it_recovers_additively() -> None:
    lim = slow_down(Limiter(), 10, 0.0, CFG)
    assert current_rate(lim, 10, 0.0, CFG) == 5
    assert current_rate(slow_down(lim, 10, 0.0, CFG), 10, 0.0, CFG) == 2.5
    assert current_rate(lim, 10, 10.0, CFG) == 6
    assert current_rate(lim, 10, 1000.0, CFG) == 10
    assert current_rate(slow_down(Limiter(effective_rate=0.6), 10, 0, CFG), 10, 0, CFG) == 0.5  # the floor


def test_nothing_granted_means_nothing_to_write() -> None:
    busy = Limiter(tat=100.0)
    g = acquire(busy, 1, 1, 5, 0.0, CFG)
    assert g.send_at == ()
    assert g.state is busy
    assert 99 <= g.retry_in <= 100.5


def test_pacing_margin_keeps_sends_under_the_rate() -> None:
    g = acquire(Limiter(), 10, 10, 100, 0.0, LimiterConfig(lease_seconds=120, adaptive=AdaptiveConfig(initial=5), pacing_margin=0.10))
    assert g.send_at[:3] == (0.0, 0.11, 0.22)


# --- a lease is a slot: a batch's next task goes under a lease it holds, taking only a send time (pace) ---

# name: (limiter, ceiling, now) -> the send time granted (None: nothing granted, the state unchanged)
PACES: dict[str, tuple[tuple[Limiter, int, float], float | None]] = {
    "idle pace: it leaves now": ((Limiter(tat=90.0, leases=(160.0,) * 3), 3, 100.0), 100.0),
    "paced: it leaves one interval after the last grant": ((Limiter(tat=100.4, leases=(160.0,) * 3), 3, 100.0), 100.4),
    "beyond the horizon: nothing": ((Limiter(tat=101.5, leases=(160.0,) * 3), 3, 100.0), None),
    "more leases out than the limit (it was lowered): nothing": ((Limiter(tat=90.0, leases=(160.0,) * 3), 2, 100.0), None),
    "below its ceiling the limit is still learning, once per give-back: nothing": (
        (Limiter(tat=90.0, leases=(160.0,) * 2, concurrency_limit=2), 3, 100.0),
        None,
    ),
    "token leases pace the endpoint: nothing": (
        (Limiter(tat=90.0, token_leases=(TokenLease("h", 5.0, 1, 99.5, 100.5, 130.0),)), 3, 100.0),
        None,
    ),
}


@pytest.mark.parametrize("name", list(PACES))
def test_pace_grants_a_send_time_and_no_lease(name: str) -> None:
    (lim, ceiling, now), expected = PACES[name]
    g = pace(lim, 5, ceiling, now, CFG)
    if expected is None:
        assert g.send_at == () and g.state is lim and g.retry_in > 0
        return
    assert g.send_at == (expected,)
    assert g.state.leases == lim.leases  # no lease taken, none given back
    assert g.state.tat == pytest.approx(expected + 0.2)  # the pace moves on one interval, as a grant's does
    assert g.state.version == lim.version + 1


def test_leases_carrying_tasks_one_after_another_stay_within_the_rate_and_the_leases() -> None:
    # A batch holds 3 leases of a limit of 3 and carries 60 tasks under them; each request ends after a random latency
    # and hands its lease to the next task (pace); a second batch takes per-batch grants meanwhile (acquire).
    rng = random.Random(7)
    g = acquire(Limiter(), 3, 20, 3, 0.0, CFG)
    lim, sends, out = g.state, list(g.send_at), [(t + rng.uniform(0.01, 0.3), t) for t in g.send_at]
    left = 57
    while out:
        out.sort()
        end, _ = out.pop(0)
        if left:
            nxt = pace(lim, 20, 3, end, CFG)
            assert nxt.send_at, "a free lease at the ceiling with the pace within the horizon is always reused"
            lim, left = nxt.state, left - 1
            sends.append(nxt.send_at[0])
            out.append((nxt.send_at[0] + rng.uniform(0.01, 0.3), nxt.send_at[0]))
        other = acquire(lim, 2, 20, 3, end, CFG)
        assert other.send_at == ()  # every lease is the batch's: nobody else gets one while it carries its tasks
        # in flight at any send: never more than the batch's 3 leases
        assert sum(1 for e, s in out if s <= end < e) <= 3
    sends.sort()
    assert len(sends) == 60
    for i, t in enumerate(sends):
        assert len([s for s in sends[i:] if s < t + 1.0]) <= 20


# name: (limit, free) -> the most leases one batch takes
SHARES: dict[str, tuple[tuple[int, int | None], int]] = {
    "a small limit: all of it": ((5, None), 5),
    "a limit of 8 or more: half": ((10, None), 5),
    "nothing out: half": ((10, 10), 5),
    "others hold some: half of what is free": ((10, 6), 3),
    "others hold most: at least one": ((10, 1), 1),
    "a small limit, others hold some: half of what is free": ((5, 4), 2),
}


@pytest.mark.parametrize("name", list(SHARES))
def test_batch_share(name: str) -> None:
    (limit, free), expected = SHARES[name]
    assert batch_share(limit, free) == expected


def test_at_its_ceiling_a_batch_takes_half_of_what_other_batches_left() -> None:
    busy = Limiter(leases=(160.0,) * 4)  # 4 of a ceiling of 10 out
    assert len(acquire(busy, 10, 100, 10, 100.0, CFG).send_at) == 3
    # below its ceiling (the adaptive limit still rising) a batch takes half of the limit, as before
    learning = replace(busy, concurrency_limit=8)
    assert len(acquire(learning, 10, 100, 10, 100.0, CFG).send_at) == 4
