"""Backoff and Retry-After: pure, with an injected random source."""

from __future__ import annotations

import random
import statistics
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from hookline.core.backoff import BackoffPolicy, parse_retry_after

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


class Fixed:
    """A random source that always draws the given fraction of the range."""

    def __init__(self, fraction: float):
        self.fraction = fraction

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.fraction


def test_ceiling_doubles_from_the_base_and_stops_at_the_cap() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="full")
    assert [policy.ceiling(n) for n in range(1, 12)] == [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 21600, 21600]
    assert policy.ceiling(10_000) == 21_600  # no overflow for absurd attempt numbers


def test_rate_limited_growth_is_steeper() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="full")
    assert [policy.ceiling(n, rate_limited=True) for n in range(1, 5)] == [90, 270, 810, 2430]
    assert all(policy.ceiling(n, rate_limited=True) >= policy.ceiling(n) for n in range(1, 12))


def test_full_jitter_bounds() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="full")
    assert policy.delay(3, Fixed(1.0)) == 240
    assert policy.delay(3, Fixed(0.0)) == policy.floor_seconds
    assert policy.delay(20, Fixed(1.0)) == 21_600


def test_equal_jitter_keeps_half_the_ceiling_as_a_floor() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="equal")
    assert policy.delay(3, Fixed(0.0)) == 120
    assert policy.delay(3, Fixed(1.0)) == 240


def test_full_jitter_spread_over_10000_samples() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="full", floor_seconds=0)
    rng = random.Random(7)
    for attempt in (1, 4, 9, 12):
        top = policy.ceiling(attempt)
        samples = [policy.delay(attempt, rng) for _ in range(10_000)]
        assert max(samples) <= top
        assert 0 <= min(samples) < top / 100  # full jitter with no floor reaches down to ~0
        assert statistics.fmean(samples) == pytest.approx(top / 2, rel=0.03)
        # Spread, not a spike: each tenth of the range holds roughly a tenth of the samples.
        buckets = [0] * 10
        for s in samples:
            buckets[min(int(s / top * 10), 9)] += 1
        assert all(800 < b < 1200 for b in buckets)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("5", 5.0),
        (" 120 ", 120.0),
        ("0", 0.0),
        (format_datetime(NOW + timedelta(seconds=90), usegmt=True), 90.0),
        (format_datetime(NOW - timedelta(hours=1), usegmt=True), 0.0),  # a past date means now
        ("", None),
        (None, None),
        ("soon", None),
        ("-5", None),
        ("1.5", None),
        ("Wed, 99 Foo 2026 25:61:00 GMT", None),
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header, NOW) == expected


def test_retry_after_is_clamped_and_jittered() -> None:
    policy = BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="full", retry_after_jitter_seconds=3)
    assert policy.honour_retry_after(5, Fixed(0.0)) == 5
    assert policy.honour_retry_after(5, Fixed(1.0)) == 8
    assert policy.honour_retry_after(0, Fixed(0.0)) == 1  # floor of 1 s
    assert policy.honour_retry_after(10**9, Fixed(0.0)) == 21_600  # capped
