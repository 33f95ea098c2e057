"""Endpoint health after an attempt: a pure function of (breaker, limiter, outcome, now, config).

The breaker hears every attempt's health verdict (timeouts, connection errors,
5xx and 429 are failures; other 4xx say nothing). A 429 also halves the
limiter's effective rate. On the endpoint itself, a Retry-After pauses it, a
410 disables it, and so does a failed probe that reopens a breaker which has
been open for longer than the disable threshold.

Nothing is written on a healthy success of a pristine endpoint: the hot path
stays free. The shell writes each new state conditionally on the version it
read and, on a conflict, reads again and asks again (see
`hookline.services.delivery.health`). The delivery worker and the benchmark
simulator both call these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from hookline.core.breaker import Breaker, Transition, health, outage_seconds, record
from hookline.core.classify import Outcome
from hookline.core.policy import Decision
from hookline.core.ratelimit import Limiter, paced_after, slow_down
from hookline.core.rules import EndpointRules


@dataclass(frozen=True)
class EndpointChange:
    """What an answer changes on the endpoint itself."""

    pause_until: float | None = None  # epoch seconds: a Retry-After pauses the whole endpoint
    disable: str = ""  # why it is disabled now: the answer's reason (hookline.core.classify: "gone", "access_denied", ...) or "failing"; "" to leave it


def error_label(outcome: Outcome) -> str:
    """What the breaker keeps as the last error: the status code, or the error class."""
    return str(outcome.status_code) if outcome.status_code is not None else (outcome.error or "")


def breaker_after(breaker: Breaker, outcome: Outcome, now: float, cfg: EndpointRules, was_probe: bool) -> Transition | None:
    """The breaker's new state after an attempt, or None when nothing changes."""
    return record(breaker, health(outcome), now, cfg.breaker, was_probe=was_probe, error=error_label(outcome))


def slows_down(outcome: Outcome, was_probe: bool = False) -> bool:
    """A 429 asks the sender to slow down; a probe was sent outside the limiter, so it takes its place in the pace."""
    return outcome.status_code == 429 or was_probe


def limiter_after(limiter: Limiter, outcome: Outcome, configured_rate: float, now: float, cfg: EndpointRules, was_probe: bool = False) -> Limiter | None:
    """The limiter's new state after an attempt (a 429 slows the endpoint down; a probe counts in the pace), or None when nothing changes."""
    if outcome.status_code == 429:
        return slow_down(limiter, configured_rate, now, cfg.limiter)
    if was_probe:
        return paced_after(limiter, configured_rate, now, cfg.limiter)
    return None


def should_disable(transition: Transition, now: float, cfg: EndpointRules) -> bool:
    """A breaker reopened after a failed probe, with the outage past the disable threshold."""
    return transition.event == "reopened" and outage_seconds(transition.state, now) >= cfg.disable_after_seconds


def endpoint_after(decision: Decision, transition: Transition | None, now: float, cfg: EndpointRules) -> EndpointChange:
    """The endpoint-wide side of an answer: a Retry-After pause, disabling a gone (410) endpoint, or one failing too long."""
    pause_until = None if decision.pause_endpoint_seconds is None else now + decision.pause_endpoint_seconds
    if decision.disable_endpoint:
        return EndpointChange(pause_until, decision.disable_endpoint)
    if transition is not None and should_disable(transition, now, cfg):
        return EndpointChange(pause_until, "failing")
    return EndpointChange(pause_until)
