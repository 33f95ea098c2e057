"""Per-endpoint pacing and concurrency: pure decisions over (limiter state, request, now).

Rate: a generic cell rate algorithm. The limiter keeps the theoretical arrival
time (`tat`) of the next request; each granted request gets a send time at
least 1/rate after the previous one, so no one-second window sees more than
`rate` requests, across every Lambda instance. A request whose send time would
fall beyond a short horizon is not granted now: it is re-scheduled, using up no
attempt.

Concurrency: each granted request holds a lease that expires, so a crashed
worker cannot leak a slot.

Adaptive rate: a 429 halves the effective rate (never below a floor); it then
recovers additively with time, back to the configured rate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LimiterConfig:
    horizon_seconds: float = 1.0  # how far ahead a grant may schedule a send
    lease_seconds: float = 120.0  # a crash-safety bound: leases are normally released when the batch ends
    busy_retry_seconds: float = 1.0  # come back after this when every concurrency slot is taken
    # Pace a little under the rate: requests leave exactly on time, but network
    # jitter on the way must not squeeze rate + 1 of them into one second at the receiver.
    pacing_margin: float = 0.10
    min_rate: float = 0.1
    decrease_factor: float = 0.5
    recovery_per_second: float = 0.05  # requests/s regained per second after a decrease


@dataclass(frozen=True)
class Limiter:
    tat: float = 0.0
    leases: tuple[float, ...] = ()  # expiry times of in-flight requests
    effective_rate: float | None = None  # None: the configured rate
    adjusted_at: float = 0.0
    version: int = 0


def current_rate(lim: Limiter, configured: float, now: float, cfg: LimiterConfig) -> float:
    if lim.effective_rate is None:
        return configured
    recovered = lim.effective_rate + max(0.0, now - lim.adjusted_at) * cfg.recovery_per_second
    return min(configured, recovered)


@dataclass(frozen=True)
class Grant:
    send_at: tuple[float, ...]  # one send time per granted request, in order
    lease_expiry: float
    retry_in: float  # for the requests not granted: when to come back
    state: Limiter  # the state to write (unchanged version means: nothing granted, nothing to write)


def acquire(lim: Limiter, wanted: int, configured_rate: float, max_concurrency: int, now: float, cfg: LimiterConfig) -> Grant:
    rate = current_rate(lim, configured_rate, now, cfg)
    interval = (1.0 + cfg.pacing_margin) / rate
    live = tuple(e for e in lim.leases if e > now)
    free = max(0, max_concurrency - len(live))
    send_at: list[float] = []
    next_slot = max(lim.tat, now)
    while len(send_at) < min(wanted, free) and next_slot <= now + cfg.horizon_seconds:
        send_at.append(next_slot)
        next_slot = round(next_slot + interval, 6)
    if free == 0:
        retry_in = max(interval, cfg.busy_retry_seconds)
    else:
        retry_in = max(interval, next_slot - now)
    if not send_at:
        return Grant((), 0.0, retry_in, lim)
    expiry = now + cfg.lease_seconds
    # Fold the recovery so far into the stored rate; back at the configured rate, forget the decrease.
    recovering = lim.effective_rate is not None and rate < configured_rate
    state = replace(
        lim,
        tat=next_slot,
        leases=live + (expiry,) * len(send_at),
        effective_rate=rate if recovering else None,
        adjusted_at=now if recovering else lim.adjusted_at,
        version=lim.version + 1,
    )
    return Grant(tuple(send_at), expiry, retry_in, state)


def release(lim: Limiter, expiry: float, count: int, now: float) -> Limiter:
    """Give back `count` leases taken with the given expiry (and drop expired ones)."""
    leases = [e for e in lim.leases if e > now]
    for _ in range(count):
        if expiry in leases:
            leases.remove(expiry)
    return replace(lim, leases=tuple(leases), version=lim.version + 1)


def slow_down(lim: Limiter, configured: float, now: float, cfg: LimiterConfig) -> Limiter:
    """A 429: multiplicative decrease of the effective rate."""
    lowered = max(cfg.min_rate, current_rate(lim, configured, now, cfg) * cfg.decrease_factor)
    return replace(lim, effective_rate=lowered, adjusted_at=now, version=lim.version + 1)
