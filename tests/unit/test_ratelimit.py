"""Pacing and concurrency decisions. Pure."""

from __future__ import annotations

from hookline.core.adaptive import AdaptiveConfig
from hookline.core.ratelimit import Limiter, LimiterConfig, acquire, current_rate, release, slow_down

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
