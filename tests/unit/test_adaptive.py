"""Adaptive concurrency (core.adaptive): table tests of the gradient rule. Pure."""

from __future__ import annotations

import pytest

from hookline.core.adaptive import AdaptiveConfig, Concurrency, Sample, current, observe, overload, sample_of, slow
from hookline.core.ratelimit import Limiter, LimiterConfig, acquire, give_back, release

CFG = AdaptiveConfig(initial=5)  # tolerance 1.5, smoothing 0.2


def steady(in_flight: int, rtt: float = 0.1) -> Sample:
    """A batch that got half the requests in flight answered (at least 5), each in `rtt`."""
    return Sample((rtt,) * max(5, in_flight // 2), False, in_flight)


@pytest.mark.parametrize(
    ("state", "sample", "ceiling", "expected_limit"),
    [
        # a new endpoint, kept busy at a steady latency: up by smoothing * sqrt(limit)
        (Concurrency(), steady(5), 50, 5 + 0.2 * 5**0.5),
        # answers within a millisecond (a loopback receiver: durations are whole milliseconds, so they read 0), kept busy:
        # at its baseline, up as any steady receiver (a division by that 0 once failed every give-back of such an endpoint)
        (Concurrency(), Sample((0.0,) * 5, False, 5), 50, 5 + 0.2 * 5**0.5),
        (Concurrency(16.0, 0.1, 0.1), Sample((0.0,) * 16, False, 16), 50, 16 + 0.2 * 4),
        # kept busy at its baseline: it earns more
        (Concurrency(16.0, 0.1, 0.1), steady(16), 50, 16 + 0.2 * 4),
        # not kept busy (under half the limit in flight): no demonstration, no raise
        (Concurrency(16.0, 0.1, 0.1), steady(7), 50, 16.0),
        # latency twice the baseline (past the 1.5 tolerance): gradient 0.75, target 12, a fifth of the way there
        (Concurrency(16.0, 0.2, 0.1), Sample((0.2,), False, 16), 50, 16 + 0.2 * (12 - 16)),
        # an overload signal halves it
        (Concurrency(16.0, 0.1, 0.1), Sample((0.1,), True, 16), 50, 8.0),
        # never below one
        (Concurrency(1.5, 0.1, 0.1), Sample((), True, 2), 50, 1.0),
        # never above the ceiling, however steady
        (Concurrency(49.9, 0.1, 0.1), steady(50), 50, 50.0),
        # a ceiling lowered under the limit takes effect at once
        (Concurrency(40.0, 0.1, 0.1), steady(40), 10, 10.0),
        # a fast receiver's jitter (3 ms baseline, 20 ms now) is under the 50 ms floor's 75 ms: not a queue, it earns more
        (Concurrency(16.0, 0.02, 0.003), Sample((0.02,) * 4, False, 16), 50, 16 + 0.2 * 4),
        # but past 75 ms it is queueing: 100 ms against the floor is gradient 0.75, as above
        (Concurrency(16.0, 0.1, 0.003), Sample((0.1,), False, 16), 50, 16 + 0.2 * (12 - 16)),
        # the first sign of queueing (latency 1.2x its baseline: past the steady 1.15, under the 1.5 that cuts): it holds
        (Concurrency(16.0, 0.12, 0.1), steady(16, 0.12), 50, 16.0),
        # within 1.15x of its baseline it is steady: it earns more
        (Concurrency(16.0, 0.108, 0.1), steady(16, 0.108), 50, 16 + 0.2 * 4),
        # a batch of one answer says what the receiver does at that load, not at the limit: two or more earn
        (Concurrency(16.0, 0.1, 0.1), Sample((0.1,), False, 16), 50, 16.0),
        (Concurrency(16.0, 0.1, 0.1), Sample((0.1,) * 2, False, 16), 50, 16 + 0.2 * 4),
        # but a limit of 1 gets one answer a batch: that one earns, or the limit could never climb back from 1
        (Concurrency(1.0, 0.1, 0.1), Sample((0.1,), False, 1), 50, 1 + 0.2 * 1),
        # no answer to learn from (every request failed to connect): unchanged
        (Concurrency(16.0, 0.1, 0.1), Sample((), False, 16), 50, 16.0),
    ],
)
def test_the_gradient_rule(state: Concurrency, sample: Sample, ceiling: int, expected_limit: float) -> None:
    assert observe(state, sample, ceiling, CFG).limit == pytest.approx(expected_limit, abs=1e-3)


def test_the_averages_are_weighted_by_time() -> None:
    # Given a 100 ms baseline, a batch one second later at 400 ms: the short average (two round trips, 0.2 s) takes it
    s = observe(Concurrency(10.0, 0.1, 0.1, 0.0, 0.0), Sample((0.4,), False, 10, 0.5, 1.0), 50, CFG)
    assert s.rtt_short == pytest.approx(0.4, abs=0.01)
    # while the baseline rises only over most of an hour (time constant 3,000 s): a queue cannot drag it up
    assert s.rtt_long == pytest.approx(0.1 + 0.3 * (1 - 2.718281828 ** (-1 / 3000)), abs=1e-6)
    # And when the receiver gets faster, the baseline follows within seconds (time constant 10 s)
    fast = Concurrency(10.0, 1.0, 1.0, 0.0, 0.0)
    for t in range(1, 31):
        fast = observe(fast, Sample((0.1,), False, 10, t - 0.5, float(t)), 50, CFG)
    assert fast.rtt_long < 0.25


def test_the_limit_moves_at_most_once_per_round_trip() -> None:
    # Given a limit raised at t=10
    raised = observe(Concurrency(16.0, 0.1, 0.1, 0.0, 9.9), Sample((0.1,) * 8, False, 16, 9.9, 10.0), 50, CFG)
    assert raised.limit > 16 and raised.changed_at == 10.0
    # When a batch granted before that raise answers (steady, or even overloaded)
    steady_again = observe(raised, Sample((0.1,) * 8, False, 16, 9.95, 10.05), 50, CFG)
    overloaded = observe(raised, Sample((0.1,), True, 16, 9.95, 10.05), 50, CFG)
    # Then the limit stays: those answers were sent under the old one (the averages still learn from them)
    assert steady_again.limit == overloaded.limit == raised.limit
    assert steady_again.observed_at == 10.05
    # And a batch granted after it moves it again
    assert observe(raised, Sample((0.1,), True, 16, 10.01, 10.1), 50, CFG).limit == pytest.approx(raised.limit / 2)


@pytest.mark.parametrize(
    ("status", "error", "overloaded"),
    [
        (429, None, True),
        (503, None, True),
        (502, None, True),
        (504, None, True),
        (500, None, False),
        (404, None, False),
        (200, None, False),
        (None, "timeout", True),
        (None, "connection_refused", False),
    ],
)
def test_what_counts_as_overload(status: int | None, error: str | None, overloaded: bool) -> None:
    assert overload(status, error) is overloaded


def test_a_batch_sample_keeps_latencies_of_answers_only() -> None:
    s = sample_of([(0.1, 200, None), (10.0, None, "timeout"), (0.3, 500, None)], in_flight=3)
    assert s == Sample((0.1, 0.3), True, 3)


def test_current_limit_is_the_initial_one_until_adapted_and_always_within_the_ceiling() -> None:
    assert current(Concurrency(), 50, CFG) == 5
    assert current(Concurrency(), 3, CFG) == 3
    assert current(Concurrency(12.9), 50, CFG) == 12
    assert current(Concurrency(12.9), 8, CFG) == 8


def test_slow_means_a_baseline_of_half_a_second() -> None:
    assert not slow(Concurrency(5, 0.9, 0.49), CFG)
    assert slow(Concurrency(5, 0.2, 0.5), CFG)


def test_the_limiter_grants_only_the_adaptive_limit_and_learns_on_give_back() -> None:
    cfg = LimiterConfig(lease_seconds=120, adaptive=CFG, pacing_margin=0.0)
    # Given a new endpoint with a ceiling of 50: it may have 5 in flight, not 50
    grant = acquire(Limiter(), 20, 1000.0, 50, 0.0, cfg)
    assert len(grant.send_at) == 5
    # When the batch gives its 5 leases back having seen a steady 100 ms
    back = release(grant.state, grant.lease_expiry, 5, 0.2, Sample((0.1,) * 5, False, 5), 50, cfg)
    # Then the leases are free and the limit has grown: the next grant gets 5 (5.45 floors to 5), then more as it keeps up
    assert back.leases == () and back.concurrency_limit == pytest.approx(5 + 0.2 * 5**0.5, abs=1e-3)
    lim = back
    for t in range(1, 40):
        g = acquire(lim, 100, 1000.0, 50, float(t), cfg)
        lim = release(g.state, g.lease_expiry, len(g.send_at), t + 0.5, Sample((0.1,) * len(g.send_at), False, len(g.send_at)), 50, cfg)
    assert lim.concurrency_limit > 8
    # And from a limit of 8 up, one batch takes half of it, so two batches overlap instead of taking turns
    assert len(acquire(lim, 100, 1000.0, 50, 100.0, cfg).send_at) == int(lim.concurrency_limit) // 2


def test_give_back_dates_the_batch_from_its_grant_and_counts_its_leases_in_flight() -> None:
    # Given a grant of 5 at t=100 (leases expire at 100 + lease_seconds)
    cfg = LimiterConfig(lease_seconds=120, adaptive=CFG, pacing_margin=0.0)
    grant = acquire(Limiter(), 5, 1000.0, 50, 100.0, cfg)
    # When the batch gives them back at t=100.1 with five 100 ms answers
    back = give_back(grant.state, grant.lease_expiry, 5, 100.1, [(0.1, 200, None)] * 5, 50, cfg)
    # Then the leases are free, the sample counted 5 in flight (so the limit was used and rose), and it is dated
    # from the grant (100) to now (100.1): changed at the batch's end, observed then
    assert back.leases == () and back.concurrency_limit > 5
    assert back.changed_at == back.observed_at == 100.1
    # And a batch granted before that change moves nothing (its answers were sent under the old limit)
    stale = give_back(back, 100.05 + cfg.lease_seconds, 0, 100.2, [(0.1, 503, None)], 50, cfg)
    assert stale.concurrency_limit == back.concurrency_limit
