"""Planning a batch's tasks for one endpoint: a pure function of (endpoint, breaker, limiter, tasks, now, config, randomness).

Before any request leaves, each endpoint of a batch is looked at once:

- gone (deleted): every task goes ahead and records "endpoint deleted";
- disabled, or failing for longer than the disable threshold: tasks are parked
  (paused until the endpoint is re-enabled; the latter also disables it);
- paused by a receiver's Retry-After: tasks are deferred past the pause;
- breaker open: deferred until the cooldown ends; another task holds the
  half-open probe: deferred a few seconds, by when the probe has answered;
- breaker due for a probe: the first task probes, the rest wait a little;
- closed: the limiter hands out send times and concurrency leases; what does
  not fit is deferred until a slot frees, unless, at the endpoint's ceiling, one
  of the batch's own requests ends with a 2xx first: then the task goes under
  that request's lease (`under_lease`).

Two lanes: first attempts arrive on the delivery queue, everything else on the
retry queue, each drained by its own function. An endpoint whose answers hold
a worker for long (a streak ending in a timeout, a breaker not closed, or a
baseline latency of half a second or more, `AdaptiveConfig.slow_seconds`) is served from the retry lane only: on the first lane its
tasks are deferred to the retry queue at once, using up no attempt, so a
timing-out endpoint costs the first lane one request, not one per event until
its breaker opens (docs/benchmarks.md measures what healthy endpoints' p99 gains during an outage).

Deferring uses up no attempt and sends nothing. Every deferral is spread with
a little jitter so a waiting backlog does not return all at once.

The plan names the state it needs written (the probe's lease, or the limiter
after a grant). The shell writes it conditionally on the version it read; if
someone else wrote first, it reads again and plans again (see
`hookline.services.delivery.planner`). The delivery worker and the benchmark
simulator both call `plan_group`, so a rule changes in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from hookline.core.adaptive import AdaptiveConfig, slow
from hookline.core.backoff import RandomSource
from hookline.core.breaker import Breaker, admit, outage_seconds
from hookline.core.leases import Holding, leased, take
from hookline.core.models import Endpoint
from hookline.core.ratelimit import Limiter, acquire, pace
from hookline.core.rules import EndpointRules

PlanKind = Literal["go", "probe", "defer", "park"]

# Jitter (seconds) added to each kind of deferral.
PROBING_SPREAD = 5.0
LIMIT_SPREAD = 1.0
MAX_OPEN_SPREAD = 30.0
TO_RETRY_LANE = "endpoint slow or timing out: served from the retry lane"
LIMITED = "endpoint rate or concurrency limit"


@dataclass(frozen=True)
class Gate:
    """What planning reads of an endpoint."""

    active: bool
    paused_until: float | None  # epoch seconds, from a Retry-After
    rate_per_second: float
    max_concurrency: int


@dataclass(frozen=True)
class Step:
    """What one task may do in this invocation."""

    kind: PlanKind
    send_at: float = 0.0  # epoch seconds, for go
    lease_expiry: float | None = None  # the concurrency lease a go holds
    defer_seconds: float = 0.0
    reason: str = ""
    reused: bool = False  # a go under a lease its batch already holds (`under_lease`): it holds none of its own


@dataclass(frozen=True)
class GroupPlan:
    steps: tuple[Step, ...]  # one per task, in the tasks' order
    breaker: Breaker | None = None  # to write (conditionally) before anything is sent: the probe's lease
    limiter: Limiter | None = None  # to write (conditionally) before anything is sent: the grant
    disable: bool = False  # the endpoint has failed for too long: disable it (its tasks are parked)
    retry_in: float = 1.0  # when the limiter would have room again: how long to wait if the grant cannot be written
    holding: Holding | None = None  # a hot endpoint's: what its holder knows of its token lease after this plan (hookline.core.leases)

    @property
    def write(self) -> Breaker | Limiter | None:
        return self.breaker if self.breaker is not None else self.limiter


def spread(seconds: float, jitter: float, rng: RandomSource) -> float:
    return max(seconds, 0.0) + rng.uniform(0.0, jitter)


def _all(count: int, step: Step) -> tuple[Step, ...]:
    return (step,) * count


def _defer_each(count: int, seconds: float, jitter: float, reason: str, rng: RandomSource) -> tuple[Step, ...]:
    return tuple(Step("defer", defer_seconds=spread(seconds, jitter, rng), reason=reason) for _ in range(count))


def plan_group(
    gate: Gate | None,
    breaker: Breaker,
    limiter: Limiter,
    tasks: int,
    now: float,
    cfg: EndpointRules,
    rng: RandomSource,
    first_lane: bool = False,
    holding: Holding | None = None,
    holder: str = "",
) -> GroupPlan:
    """The plan for `tasks` tasks of one endpoint (`gate` None: the endpoint no longer exists); `first_lane`: they came from the delivery queue.
    `holding` and `holder`: what this process knows of its token lease on the endpoint, and its name, for an endpoint paced
    by token leases (hookline.core.leases); without them every endpoint is paced per batch."""
    if gate is None:
        return GroupPlan(_all(tasks, Step("go")))
    parked = Step("park", reason="endpoint disabled: delivery paused until it is re-enabled")
    if not gate.active:
        return GroupPlan(_all(tasks, parked))
    if gate.paused_until is not None and gate.paused_until > now:
        # Jitter spreads the waiting backlog over the moment the pause ends instead of releasing it all at once.
        return GroupPlan(_defer_each(tasks, gate.paused_until - now, cfg.retry_after_jitter_seconds, "endpoint paused by Retry-After", rng))
    if outage_seconds(breaker, now) >= cfg.disable_after_seconds:
        return GroupPlan(_all(tasks, parked), disable=True)
    admission = admit(breaker, now, cfg.breaker)
    if admission.verdict == "wait" and breaker.state == "half_open":
        # Another task is probing: come back shortly, and the breaker will have spoken by then (or its lease run out).
        return GroupPlan(_defer_each(tasks, cfg.busy_retry_seconds, PROBING_SPREAD, "circuit half-open: probing", rng))
    if admission.verdict == "wait":
        jitter = min(MAX_OPEN_SPREAD, 0.1 * max(breaker.cooldown_seconds, 1.0))
        return GroupPlan(_defer_each(tasks, admission.wait_seconds, jitter, "circuit open", rng))
    if first_lane and retry_lane_only(breaker, limiter, cfg.limiter.adaptive):
        # A timing-out endpoint's requests (its probe included) are made from the retry lane, so first attempts never wait behind them.
        return GroupPlan(_defer_each(tasks, 0.0, LIMIT_SPREAD, TO_RETRY_LANE, rng))
    if admission.verdict == "probe" and admission.state is not None:
        waiting = _defer_each(tasks - 1, cfg.busy_retry_seconds, PROBING_SPREAD, "circuit half-open: probing", rng)
        return GroupPlan((Step("probe"), *waiting), breaker=admission.state)
    if holding is not None and leased(gate.rate_per_second, cfg.limiter.token_leases):
        return _lease(gate, limiter, holding, holder, tasks, now, cfg, rng)
    return _grant(gate, limiter, tasks, now, cfg, rng)


def retry_lane_only(breaker: Breaker, limiter: Limiter, cfg: AdaptiveConfig) -> bool:
    """The endpoint's answers hold a worker for long (a timeout streak, a breaker not closed, or a slow baseline):
    it is served from the retry lane only."""
    return breaker.holds_workers or slow(limiter.concurrency, cfg)


def _grant(gate: Gate, limiter: Limiter, tasks: int, now: float, cfg: EndpointRules, rng: RandomSource) -> GroupPlan:
    grant = acquire(limiter, tasks, gate.rate_per_second, gate.max_concurrency, now, cfg.limiter)
    granted = tuple(Step("go", send_at=at, lease_expiry=grant.lease_expiry) for at in grant.send_at)
    rest = _defer_each(tasks - len(granted), grant.retry_in, LIMIT_SPREAD, LIMITED, rng)
    return GroupPlan(granted + rest, limiter=grant.state if granted else None, retry_in=grant.retry_in)


def _lease(gate: Gate, limiter: Limiter, holding: Holding, holder: str, tasks: int, now: float, cfg: EndpointRules, rng: RandomSource) -> GroupPlan:
    grant = take(limiter, holding, holder, tasks, gate.rate_per_second, gate.max_concurrency, now, cfg.limiter)
    granted = tuple(Step("go", send_at=at, lease_expiry=grant.lease_expiry) for at in grant.send_at)
    rest = _defer_each(tasks - len(granted), grant.retry_in, LIMIT_SPREAD, LIMITED, rng)
    return GroupPlan(granted + rest, limiter=grant.state, retry_in=grant.retry_in, holding=grant.holding)


def gave_up(last: GroupPlan, rng: RandomSource) -> GroupPlan:
    """Every task deferred as the limiter would defer it: the plan when its state write lost the race every time."""
    return GroupPlan(_defer_each(len(last.steps), last.retry_in, LIMIT_SPREAD, LIMITED, rng))


def gate(endpoint: Endpoint | None) -> Gate | None:
    """What the planner needs of an endpoint's configuration (None: it is gone)."""
    if endpoint is None:
        return None
    return Gate(endpoint.status == "active", endpoint.paused_until, endpoint.rate_limit_per_second, endpoint.max_concurrency)


def leases_held(steps: Sequence[Step]) -> dict[float, int]:
    """Concurrency leases a group's steps hold, by expiry: what the batch gives back when it ends."""
    held: dict[float, int] = {}
    for s in steps:
        if s.lease_expiry is not None and not s.reused:
            held[s.lease_expiry] = held.get(s.lease_expiry, 0) + 1
    return held


def waits_for_lease(step: Step) -> bool:
    """A task the limiter deferred (rate or concurrency): its batch may still send it under one of its own leases
    (`under_lease`); if it does not, the task is deferred as planned when the batch ends."""
    return step.kind == "defer" and step.reason == LIMITED


def under_lease(
    gate: Gate | None, breaker: Breaker, limiter: Limiter, waiting: Step, lease_expiry: float, answered: int | None, now: float, cfg: EndpointRules
) -> tuple[Step, Limiter | None]:
    """A lease is a slot, not a request. A request of the batch under its lease `lease_expiry` has ended with
    `answered` (its status code; None: no answer): the batch's next task to the endpoint that the limiter deferred
    (`waits_for_lease`) goes under that lease instead, taking only a send time (`ratelimit.pace`), if that answer
    was a 2xx and the endpoint is still active, unpaused and its breaker closed. So a batch's leases carry its
    tasks one after another, each lease idle only between a request's end and the next one's send, and the
    endpoint's requests in flight never pass the leases its batches were granted.

    Returns the step to take (a go holding no lease of its own: `reused`, not counted by `leases_held`) and the
    limiter to write (conditionally, as a grant) before it is sent; or `waiting` unchanged and None: the task is
    deferred as planned when the batch ends (so is every task after a lease's first answer that was not a 2xx:
    a failing or overloaded receiver gets no more from this batch)."""
    if not waits_for_lease(waiting) or answered is None or not 200 <= answered <= 299:
        return waiting, None
    if gate is None or not gate.active or (gate.paused_until is not None and gate.paused_until > now) or breaker.state != "closed":
        return waiting, None
    grant = pace(limiter, gate.rate_per_second, gate.max_concurrency, now, cfg.limiter)
    if not grant.send_at:
        return waiting, None
    return Step("go", send_at=grant.send_at[0], lease_expiry=lease_expiry, reused=True), grant.state
