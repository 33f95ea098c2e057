"""Adaptive concurrency per endpoint: a pure function of (state, what a batch saw, ceiling).

An endpoint starts at a conservative number of requests in flight and earns
more by absorbing them: while its latency holds steady and nothing signals
overload, the limit rises by about smoothing * sqrt(limit) per round trip, as
long as at least half of it was in use and the batch got two answers or more
(one at a limit of 1);
a rising latency or an overload signal (a timeout, 429, 502, 503 or 504)
lowers it.

It stops growing at the first sign of queueing: a short-term latency more than
`steady` (1.15) times the baseline, well before the 1.5 that cuts it. Between the
two it holds. A batch of one answer says what the receiver does at that load,
not at the limit, so it earns nothing either: as a backlog thins out such
batches answer fast, and growing on them raised the limit past the receiver's
capacity just before the last burst came (the capacity-limited scenario peaked
at 21 in flight against 16, bench/scenarios/catalog.py). It never leaves [minimum,
ceiling], where the ceiling is the endpoint's `max_concurrency` (what its
producer or customer set).

The rule is the gradient of Netflix's concurrency-limits, after TCP Vegas: two
moving averages of the latency, a short one (what the receiver does now, over a
couple of round trips) and a long one (its baseline, which follows a faster
receiver within seconds and a slower one only over most of an hour, so a queue
building up at the receiver cannot drag it up). Their ratio is the gradient:

    gradient = clamp(tolerance * max(long, floor) / short, 0.5, 1)   (1 while short is 0: answers within a millisecond)
    target   = limit * gradient + sqrt(limit)   (the sqrt only when short <= steady * max(long, floor) and the limit was used)
    limit    = limit + smoothing * (target - limit)
    overload: limit = limit * backoff

Under a baseline of 50 ms (`baseline_floor_seconds`) a rise in latency is jitter, not a queue: the
round trip through the internet and a worker's thread pool varies by tens of milliseconds whatever the
receiver does, and a receiver answering in 3 ms that once answers in 20 ms is not overloaded. So the
baseline counts as at least the floor: such a receiver is cut only once its latency passes 75 ms (or it
says so: an overload signal). Without it, a fast receiver's limit fell to 1 on noise alone, and every
task past the first waited a deferral of a second or more (measured in local mode on a busy 2-core
machine: 42 attempts at an in-process receiver answering in 1-24 ms took 40 s, one or two a round).

The limit moves at most once per round trip, as TCP's window does: the answers
of a batch granted before the last change were sent under the old limit and say
nothing of the new one. The averages are weighted by time, not by batch, so a
busy endpoint (many small batches) does not forget faster than a quiet one.

The state lives in the endpoint's limiter item and is written with the lease
give-back that ends each batch, so adapting costs no write of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

OVERLOAD_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class AdaptiveConfig:
    initial: float  # where an endpoint starts: the conservative pace (HOOKLINE_INITIAL_CONCURRENCY)
    minimum: float = 1.0
    tolerance: float = 1.5  # a short-term latency this many times the baseline means the receiver is queueing: the limit is cut
    steady: float = 1.15  # up to this many times the baseline the latency is steady (noise); above it the limit stops growing
    answers: int = 2  # and only on a batch with at least this many answers (or the whole limit, under it): one request says little of the limit
    smoothing: float = 0.2  # how far one change moves the limit toward its target
    short_rtts: float = 2.0  # time constant of the latency now, in round trips (of the baseline)
    long_seconds: float = 3000.0  # time constant of the baseline, when the latency rises
    long_down_seconds: float = 10.0  # and when it falls
    backoff: float = 0.5  # the limit is multiplied by this on an overload signal
    slow_seconds: float = 0.5  # a baseline at or above this holds a worker per request: served from the retry lane
    baseline_floor_seconds: float = 0.05  # a baseline under this counts as this: below it, latency moves with jitter, not load


@dataclass(frozen=True)
class Sample:
    """What one batch saw of one endpoint, reported when it gives its leases back."""

    latencies: tuple[float, ...]  # seconds, one per request that got an answer
    overloaded: bool  # a timeout, 429, 502, 503 or 504 among them
    in_flight: int  # the endpoint's live leases when the batch ended, its own included
    started: float = 0.0  # epoch seconds: when the batch's leases were granted
    ended: float = 0.0  # epoch seconds: when it gave them back


@dataclass(frozen=True)
class Concurrency:
    limit: float = 0.0  # 0: never adapted, the initial limit applies
    rtt_short: float = 0.0  # seconds
    rtt_long: float = 0.0  # seconds
    changed_at: float = 0.0  # epoch seconds of the last change: a batch granted before it says nothing of the new limit
    observed_at: float = 0.0  # epoch seconds of the last sample, for the time-weighted averages


def overload(status_code: int | None, error: str | None) -> bool:
    """An answer (or its absence) that says the receiver has more than it can take."""
    if status_code is None:
        return error == "timeout"
    return status_code in OVERLOAD_STATUSES


def current(state: Concurrency, ceiling: int, cfg: AdaptiveConfig) -> int:
    """Requests the endpoint may have in flight now."""
    limit = state.limit or cfg.initial
    return max(1, min(ceiling, math.floor(limit + 1e-9)))


def _average(old: float, sample: float, elapsed: float, seconds: float) -> float:
    """A moving average with a time constant: `elapsed` seconds since the last sample move it by 1 - e^(-elapsed/seconds)
    (no time constant yet, every latency so far 0: the sample)."""
    if old <= 0 or seconds <= 0:
        return sample
    return old + (1.0 - math.exp(-max(0.0, elapsed) / seconds)) * (sample - old)


def observe(state: Concurrency, sample: Sample, ceiling: int, cfg: AdaptiveConfig) -> Concurrency:
    """The state after one batch's answers."""
    limit = min(float(ceiling), state.limit or cfg.initial)
    floor = min(cfg.minimum, float(ceiling))
    # The limit moves at most once per round trip, as TCP's window does: a batch granted before the last
    # change was sent under the old limit, so its answers say nothing of the new one.
    fresh = sample.started >= state.changed_at
    if not sample.latencies:
        if sample.overloaded and fresh:
            return replace(state, limit=max(floor, limit * cfg.backoff), changed_at=sample.ended)
        return replace(state, limit=limit)
    rtt = sum(sample.latencies) / len(sample.latencies)
    elapsed = sample.ended - state.observed_at
    short = _average(state.rtt_short, rtt, elapsed, cfg.short_rtts * (state.rtt_long or rtt))
    # The baseline follows the short average down within seconds and up only over minutes, so a queue building
    # up at the receiver (its latency climbing with load) does not drag the baseline up with it.
    long = _average(state.rtt_long, short, elapsed, cfg.long_down_seconds if short < state.rtt_long else cfg.long_seconds)
    observed = replace(state, limit=limit, rtt_short=round(short, 6), rtt_long=round(long, 6), observed_at=sample.ended)
    if not fresh:
        return observed
    if sample.overloaded:
        return replace(observed, limit=max(floor, limit * cfg.backoff), changed_at=sample.ended)
    # Latencies are whole milliseconds (HttpResult.duration_ms): a receiver that answers within one (on loopback) reads 0,
    # at its baseline whatever that is
    gradient = 1.0 if short <= 0 else max(0.5, min(1.0, cfg.tolerance * max(long, cfg.baseline_floor_seconds) / short))
    used = sample.in_flight >= limit / 2 and len(sample.latencies) >= min(cfg.answers, math.floor(limit))  # kept busy: a limit that was not used proves nothing
    steady = short <= cfg.steady * max(long, cfg.baseline_floor_seconds)
    growth = math.sqrt(limit) if used and steady else 0.0
    adapted = round(max(floor, min(float(ceiling), limit + cfg.smoothing * (limit * gradient + growth - limit))), 4)
    if adapted == limit:
        return observed
    return replace(observed, limit=adapted, changed_at=sample.ended)


def slow(state: Concurrency, cfg: AdaptiveConfig) -> bool:
    """The receiver's baseline latency holds a worker for half a second or more per request."""
    return state.rtt_long >= cfg.slow_seconds


def sample_of(outcomes: Sequence[tuple[float | None, int | None, str | None]], in_flight: int, started: float = 0.0, ended: float = 0.0) -> Sample:
    """A batch's (latency, status code, error) per request as a Sample."""
    latencies = tuple(lat for lat, code, _ in outcomes if lat is not None and code is not None)
    return Sample(latencies, any(overload(code, err) for _, code, err in outcomes), in_flight, started, ended)
