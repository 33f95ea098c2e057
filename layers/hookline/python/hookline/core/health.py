"""Endpoint health after an attempt: a pure function of (breaker, limiter, outcome, now, config).

The breaker hears every attempt's health verdict (timeouts, connection errors,
5xx and 429 are failures; other 4xx say nothing). A 429 also halves the
limiter's effective rate. A failed probe that reopens a breaker which has been
open for longer than the disable threshold disables the endpoint.

Nothing is written on a healthy success of a pristine endpoint: the hot path
stays free. The shell writes each new state conditionally on the version it
read and, on a conflict, reads again and asks again (see
`hookline.services.delivery.health`). The delivery worker and the benchmark
simulator both call these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from hookline.core.breaker import Breaker, BreakerConfig, Transition, health, outage_seconds, record
from hookline.core.classify import Outcome
from hookline.core.ratelimit import Limiter, LimiterConfig, slow_down


@dataclass(frozen=True)
class HealthConfig:
    breaker: BreakerConfig
    limiter: LimiterConfig
    disable_after_seconds: float = 432_000.0


def error_label(outcome: Outcome) -> str:
    """What the breaker keeps as the last error: the status code, or the error class."""
    return str(outcome.status_code) if outcome.status_code is not None else (outcome.error or "")


def breaker_after(breaker: Breaker, outcome: Outcome, now: float, cfg: HealthConfig, was_probe: bool) -> Transition | None:
    """The breaker's new state after an attempt, or None when nothing changes."""
    return record(breaker, health(outcome), now, cfg.breaker, was_probe=was_probe, error=error_label(outcome))


def slows_down(outcome: Outcome) -> bool:
    """A 429 asks the sender to slow down."""
    return outcome.status_code == 429


def limiter_after(limiter: Limiter, outcome: Outcome, configured_rate: float, now: float, cfg: HealthConfig) -> Limiter | None:
    """The limiter's new state after an attempt (a 429 slows the endpoint down), or None when nothing changes."""
    if not slows_down(outcome):
        return None
    return slow_down(limiter, configured_rate, now, cfg.limiter)


def should_disable(transition: Transition, now: float, cfg: HealthConfig) -> bool:
    """A breaker reopened after a failed probe, with the outage past the disable threshold."""
    return transition.event == "reopened" and outage_seconds(transition.state, now) >= cfg.disable_after_seconds
