"""Backoff: how long to wait before the next attempt. Pure; randomness is injected.

Full jitter (the default) draws the delay uniformly from [0, ceiling], which
spreads a recovering receiver's backlog instead of synchronising it. Equal
jitter keeps half the ceiling as a floor. The ceiling grows ×2 per failed
attempt, ×3 for a 429 that did not say how long to wait, and is capped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Literal, Protocol

Jitter = Literal["full", "equal"]


class RandomSource(Protocol):
    def uniform(self, a: float, b: float) -> float: ...


@dataclass(frozen=True)
class BackoffPolicy:
    """The retry schedule. Its base, cap and jitter come from `Settings` (hookline.core.config.retry_policy) and have
    no default here; the multipliers and margins are the core's own constants."""

    base_seconds: float
    cap_seconds: float
    jitter: Jitter
    multiplier: float = 2.0
    rate_limited_multiplier: float = 3.0
    # Added on top of a Retry-After, so the receiver's limiter has surely reset.
    retry_after_jitter_seconds: float = 3.0
    # Never retry sooner than this, even when full jitter draws ~0.
    floor_seconds: float = 1.0

    def ceiling(self, failed_attempt: int, rate_limited: bool = False) -> float:
        """The largest wait after attempt `failed_attempt` (1-based) failed."""
        growth = self.rate_limited_multiplier if rate_limited else self.multiplier
        exponent = max(failed_attempt, 1)
        # Compare in logs' stead: stop multiplying once past the cap (no float overflow).
        value = self.base_seconds
        for _ in range(exponent):
            value *= growth
            if value >= self.cap_seconds:
                return self.cap_seconds
        return value

    def delay(self, failed_attempt: int, rng: RandomSource, rate_limited: bool = False) -> float:
        top = self.ceiling(failed_attempt, rate_limited)
        if self.jitter == "equal":
            drawn = top / 2 + rng.uniform(0.0, top / 2)
        else:
            drawn = rng.uniform(0.0, top)
        return max(self.floor_seconds, drawn)

    def honour_retry_after(self, seconds: float, rng: RandomSource) -> float:
        """The receiver's wait, clamped to [1 s, cap], plus a little jitter."""
        clamped = min(max(seconds, 1.0), self.cap_seconds)
        return clamped + rng.uniform(0.0, self.retry_after_jitter_seconds)


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP-date.

    A date in the past means "now" (0); anything unparseable is ignored (None).
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isdigit():
        return float(int(text[:12]))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())
