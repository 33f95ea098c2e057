"""Per-endpoint pacing and concurrency: pure decisions over (limiter state, request, now).

Rate: a generic cell rate algorithm. The limiter keeps the theoretical arrival
time (`tat`) of the next request; each granted request gets a send time at
least 1/rate after the previous one, so no one-second window sees more than
`rate` requests, across every Lambda instance. A request whose send time would
fall beyond a short horizon is not granted now: it is re-scheduled, using up no
attempt.

Concurrency: each granted request holds a lease that expires, so a crashed
worker cannot leak a slot. A lease is a slot, not a request: at the endpoint's
ceiling, when a request under it ends, its batch's next task to the endpoint may
go under it, taking only a send time (`pace`).

Adaptive rate: a 429 halves the effective rate (never below a floor); it then
recovers additively with time, back to the configured rate.

Adaptive concurrency: the requests in flight are bounded by a limit that
`hookline.core.adaptive` moves between 1 and the endpoint's `max_concurrency`
(the ceiling), from what each batch saw; it is folded in when the batch gives
its leases back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from hookline.core.adaptive import AdaptiveConfig, Concurrency, Sample, current, observe, sample_of
from hookline.core.stats import Carried


@dataclass(frozen=True)
class LimiterConfig:
    """The limiter's rules: the lease and the adaptive start come from `Settings` (hookline.core.config.limiter_config),
    the rest are the core's own constants."""

    lease_seconds: float  # a crash-safety bound: leases are normally released when the batch ends
    adaptive: AdaptiveConfig
    horizon_seconds: float = 1.0  # how far ahead a grant may schedule a send
    busy_retry_seconds: float = 1.0  # come back after this when every concurrency slot is taken
    # Pace a little under the rate: requests leave exactly on time, but network
    # jitter on the way must not squeeze rate + 1 of them into one second at the receiver.
    pacing_margin: float = 0.10
    min_rate: float = 0.1
    decrease_factor: float = 0.5
    recovery_per_second: float = 0.05  # requests/s regained per second after a decrease
    token_leases: TokenLeaseConfig | None = None  # None: every endpoint is paced per batch


RATE_WINDOW_SECONDS = 1.0  # the window a rate is counted over: requests per second


@dataclass(frozen=True)
class TokenLeaseConfig:
    """Token leases' rules (hookline.core.leases): `min_rate` and `slot_seconds` come from `Settings`
    (hookline.core.config.limiter_config), the rest are the core's own constants."""

    min_rate: float  # an endpoint whose configured rate is at least this is paced by leases (HOOKLINE_TOKEN_LEASE_MIN_RATE)
    slot_seconds: float  # a lease's slots expire this long after it ends: the longest a request started in it can take
    seconds: float = 1.0  # how long a lease lasts
    max_share: float = 0.5  # of the endpoint's rate and concurrency one holder takes at most
    first_ask: int = 10  # a holder with no recent use asks for this many batches like the one in hand, per lease


@dataclass(frozen=True)
class TokenLease:
    """A holder's share of an endpoint's rate and concurrency, as the limiter item records it (hookline.core.leases)."""

    holder: str  # the process that holds it (hookline.services.delivery.token_leases)
    rate: float  # requests a second it may send
    slots: int  # requests it may have in flight
    start: float  # epoch seconds: its first request may leave then
    until: float  # no request leaves after it
    slot_expiry: float  # its slots' entries in `Limiter.leases` expire then, if it never gives them back

    @property
    def counted_until(self) -> float:
        """Its rate counts against the endpoint's until a second after its end, while its last sends are in the window."""
        return self.until + RATE_WINDOW_SECONDS


@dataclass(frozen=True)
class Limiter:
    tat: float = 0.0
    leases: tuple[float, ...] = ()  # expiry times of in-flight requests
    effective_rate: float | None = None  # None: the configured rate
    adjusted_at: float = 0.0
    concurrency_limit: float = 0.0  # the adaptive limit (0: not adapted yet, the initial one applies)
    rtt_short: float = 0.0  # seconds: the receiver's latency now
    rtt_long: float = 0.0  # seconds: its baseline
    changed_at: float = 0.0  # epoch seconds of the adaptive limit's last change
    observed_at: float = 0.0  # epoch seconds of its last sample
    version: int = 0
    token_leases: tuple[TokenLease, ...] = ()  # the holders' shares of a hot endpoint's rate and concurrency (hookline.core.leases)
    carried: Carried = field(default_factory=Carried)  # the endpoint's statistics of its latest hour, written with the give-back (hookline.core.stats.carry)

    @property
    def concurrency(self) -> Concurrency:
        return Concurrency(self.concurrency_limit, self.rtt_short, self.rtt_long, self.changed_at, self.observed_at)


def batch_share(limit: int, free: int | None = None) -> int:
    """The most leases one batch takes. A batch holds its leases until its last request ends, paced
    requests included, so with a limit of 8 or more one batch takes half and two overlap instead of
    taking turns, each holding every slot (seen in the retry storm: 48/s against 78/s at a limit of 10).
    `free` is given at the endpoint's ceiling (`acquire`), where leases carry a batch's tasks one after another
    (`pace`): with fewer than the limit free, other batches hold the rest, and the batch takes half of what is
    free, at least one. A few leases then carry its tasks, the batches after it find some too, and a batch's
    start (before its first send) and end (waiting for its last answer) idle few of the endpoint's slots
    (the retry storm's lease holds, bench.scenarios.sim.LeaseHolds, in docs/benchmarks.md)."""
    share = limit // 2 if limit >= 8 else limit
    if free is not None and free < limit:
        share = min(share, max(1, free // 2))
    return share


def concurrency_now(lim: Limiter, ceiling: int, cfg: LimiterConfig) -> int:
    """The requests in flight the endpoint may have now: its adaptive limit under the ceiling."""
    return current(lim.concurrency, ceiling, cfg.adaptive)


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
    """Send times for up to `wanted` requests; `max_concurrency` is the ceiling of the adaptive limit."""
    rate = current_rate(lim, configured_rate, now, cfg)
    interval = (1.0 + cfg.pacing_margin) / rate
    leased_until = max((lease.counted_until for lease in lim.token_leases), default=0.0)
    if leased_until > now:  # the endpoint was paced by token leases: per-batch grants wait until their last second has passed
        return Grant((), 0.0, max(interval, leased_until - now), lim)
    live = tuple(e for e in lim.leases if e > now)
    limit = concurrency_now(lim, max_concurrency, cfg)
    free = max(0, limit - len(live) - leased_slots(lim, now))
    send_at: list[float] = []
    next_slot = max(lim.tat, now)
    share = batch_share(limit, free if limit >= max_concurrency else None)
    while len(send_at) < min(wanted, free, share) and next_slot <= now + cfg.horizon_seconds:
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


def pace(lim: Limiter, configured_rate: float, max_concurrency: int, now: float, cfg: LimiterConfig) -> Grant:
    """A send time, and no lease, for a task that goes under a lease its batch already holds: a lease is a slot,
    not a request, so once a request under it has ended the batch's next task to the endpoint may use it
    (hookline.core.planning.under_lease) instead of being deferred while the slot sits idle until the batch ends.
    Only the pace is taken, as `acquire` takes it (the limiter's next send time moves on one interval); no lease is
    taken or given back, so the endpoint's requests in flight stay within the leases granted. Nothing is granted
    (the state unchanged) while the endpoint has more leases out than its concurrency limit now (another batch's
    answers lowered it), while token leases pace it, when the send would fall beyond the horizon, or while the
    adaptive limit is below its ceiling: it learns once per give-back, and a batch carrying tasks under its
    leases gives them back several round trips later, so below the ceiling its climb would lag (the slow
    subscriber's backlog, tried without this rule)."""
    rate = current_rate(lim, configured_rate, now, cfg)
    interval = (1.0 + cfg.pacing_margin) / rate
    leased_until = max((lease.counted_until for lease in lim.token_leases), default=0.0)
    limit = concurrency_now(lim, max_concurrency, cfg)
    if leased_until > now or limit < max_concurrency or in_flight(lim, now) > limit:
        return Grant((), 0.0, max(interval, cfg.busy_retry_seconds), lim)
    at = max(lim.tat, now)
    if at > now + cfg.horizon_seconds:
        return Grant((), 0.0, max(interval, at - now), lim)
    recovering = lim.effective_rate is not None and rate < configured_rate
    state = replace(
        lim,
        tat=round(at + interval, 6),
        effective_rate=rate if recovering else None,
        adjusted_at=now if recovering else lim.adjusted_at,
        version=lim.version + 1,
    )
    return Grant((at,), 0.0, 0.0, state)


def release(lim: Limiter, expiry: float, count: int, now: float, seen: Sample | None = None, ceiling: int = 0, cfg: LimiterConfig | None = None) -> Limiter:
    """Give back `count` leases taken with the given expiry (and drop expired ones); `seen`: what the batch saw, to adapt the concurrency limit."""
    leases = [e for e in lim.leases if e > now]
    token_leases, count = _release_leased(lim.token_leases, expiry, count, now)
    for _ in range(count):
        if expiry in leases:
            leases.remove(expiry)
    adapted = lim.concurrency
    if seen is not None and ceiling > 0:
        if cfg is None:
            raise ValueError("adapting the concurrency limit needs the limiter's config")
        adapted = observe(adapted, seen, ceiling, cfg.adaptive)
    return replace(
        lim,
        leases=tuple(leases),
        token_leases=token_leases,
        concurrency_limit=adapted.limit,
        rtt_short=adapted.rtt_short,
        rtt_long=adapted.rtt_long,
        changed_at=adapted.changed_at,
        observed_at=adapted.observed_at,
        version=lim.version + 1,
    )


def in_flight(lim: Limiter, now: float) -> int:
    """The endpoint's live leases: requests granted and not yet given back (nor expired), a token lease's slots included."""
    return sum(1 for e in lim.leases if e > now) + leased_slots(lim, now)


def leased_slots(lim: Limiter, now: float) -> int:
    """The slots the endpoint's token leases hold (hookline.core.leases): not given back, not expired."""
    return sum(lease.slots for lease in lim.token_leases if lease.slot_expiry > now)


def _release_leased(token_leases: tuple[TokenLease, ...], expiry: float, count: int, now: float) -> tuple[tuple[TokenLease, ...], int]:
    """The token leases with `count` slots of `expiry` given back (those that neither count nor hold a slot dropped),
    and how many of `count` were not theirs (a batch's leases)."""
    kept: list[TokenLease] = []
    for entry in token_leases:
        lease = entry
        if count and lease.slot_expiry == expiry and lease.slots:
            back = min(count, lease.slots)
            lease, count = replace(lease, slots=lease.slots - back), count - back
        if lease.counted_until > now or (lease.slots and lease.slot_expiry > now):
            kept.append(lease)
    return tuple(kept), count


def give_back(
    lim: Limiter,
    expiry: float,
    count: int,
    now: float,
    answers: Sequence[tuple[float | None, int | None, str | None]],
    ceiling: int,
    cfg: LimiterConfig,
    started: float | None = None,
) -> Limiter:
    """A batch ends: its `count` leases of `expiry` come back, and what its requests saw, (latency s, status, error)
    each, teaches the adaptive limit. The grant was made at expiry - lease_seconds (`acquire`): the batch's start,
    for the once-per-round-trip rule (`started`, when given: a token lease's start); `now` is its end, for the time-weighted averages."""
    began = expiry - cfg.lease_seconds if started is None else started
    seen = sample_of(answers, in_flight(lim, now), began, now) if answers else None
    return release(lim, expiry, count, now, seen, ceiling, cfg)


def paced_after(lim: Limiter, configured: float, sent_at: float, cfg: LimiterConfig) -> Limiter:
    """A request sent at `sent_at` outside a grant (a half-open probe): the next grant comes one interval after it."""
    interval = (1.0 + cfg.pacing_margin) / current_rate(lim, configured, sent_at, cfg)
    return replace(lim, tat=max(lim.tat, round(sent_at + interval, 6)), version=lim.version + 1)


def slow_down(lim: Limiter, configured: float, now: float, cfg: LimiterConfig) -> Limiter:
    """A 429: multiplicative decrease of the effective rate."""
    lowered = max(cfg.min_rate, current_rate(lim, configured, now, cfg) * cfg.decrease_factor)
    return replace(lim, effective_rate=lowered, adjusted_at=now, version=lim.version + 1)
