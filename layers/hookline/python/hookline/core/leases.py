"""Token leases for hot endpoints: a pure function of (limiter state, what the holder knows, request, now).

Per batch, an endpoint's limiter item takes a grant and a give-back: two writes on one key, which at a few
thousand deliveries a second to one endpoint pass DynamoDB's 1,000 writes a second per partition key. An
endpoint whose configured rate is at least `TokenLeaseConfig.min_rate` is paced instead by token leases, after
Convoy's limiter: a holder (a warm process) reserves, in one conditional write, a share of the endpoint's rate
and of its concurrency for `TokenLeaseConfig.seconds`, deducted from the shared state before it is used, and
spends it over its batches with no write at all. The limiter is written again when the lease runs out.

Strict, and closed when in doubt:
- Rate. A holder sends at most its lease's rate in any one second: a sliding window over its own sends (its
  tokens may leave in a burst, never faster). A lease counts against the endpoint at its rate until a second
  after it ends (`TokenLease.counted_until`), and a holder counts at the highest rate of its leases that still
  count; a lease is granted only if the holders' counted rates and its own add up to at most the endpoint's
  rate (less the pacing margin). So the sends of any one second add up to at most the endpoint's rate: in a
  window, each holder sent at most the rate of the lease of its last send there, and whichever of those leases
  was granted last was granted against all the others.
- Concurrency. A lease's slots count against the endpoint's limit beside a batch's leases
  (hookline.core.ratelimit.in_flight) until they are given back, or expire `slot_seconds` after the lease ends,
  by when a request started in it has ended. A holder has at most its lease's slots in flight. (An endpoint can
  be set this fast only by this release, so no earlier release's grant ever meets a lease.)
- A holder that dies with tokens unused: nobody spends them (its rate counts until a second after the lease
  ends), and its slots come back when they expire. Nothing is handed out twice.
- An endpoint moved between per-batch grants and leases (its rate set across `min_rate`) waits a second after
  the last send the other way scheduled, so the two never share a second (hookline.core.ratelimit.acquire).

A holder asks for what it used: twice what it asked to send under its last lease when it asked for more than
that lease held (the lease bound it: grow fast), just what it asked when the lease held enough (its own pace bound
it, and a share it cannot spend would keep that rate from the others; asking for more than the lease next time
makes it grow again), or `first_ask` times the batch in hand for a first lease (or one after a pause); at most
`max_share` of the endpoint's rate, never more than is free. Its slots are the same share of the endpoint's
concurrency limit, or the batch in hand if more, at most `max_share` of the limit (at least one), never more than
are free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from hookline.core.ratelimit import RATE_WINDOW_SECONDS as WINDOW_SECONDS
from hookline.core.ratelimit import Limiter, LimiterConfig, TokenLease, TokenLeaseConfig, concurrency_now, current_rate, in_flight, release

SLOT_WAIT_SECONDS = 0.1  # a holder whose slots are all in flight comes back after this


@dataclass(frozen=True)
class Holding:
    """What a holder knows of its lease on one endpoint (kept in its memory, never written)."""

    lease: TokenLease | None = None
    sent: tuple[float, ...] = ()  # the send times it handed out, the last window's (across its leases)
    in_flight: int = 0  # its requests granted under `lease` and not yet ended
    asked: int = 0  # tasks it asked to send under `lease`, granted or not: its use, for the next lease's size


@dataclass(frozen=True)
class LeaseGrant:
    send_at: tuple[float, ...]  # one send time per granted request, in order
    holding: Holding  # the holder's knowledge after this grant
    retry_in: float  # for the requests not granted: when to come back
    state: Limiter | None  # the limiter to write (conditionally) before anything is sent; None: nothing to write

    @property
    def lease_expiry(self) -> float | None:
        """The expiry of the slots the granted requests hold."""
        return self.holding.lease.slot_expiry if self.send_at and self.holding.lease is not None else None


def leased(configured_rate: float, cfg: TokenLeaseConfig | None) -> bool:
    """Whether an endpoint is paced by token leases: its configured rate is at least the leases' minimum."""
    return cfg is not None and configured_rate >= cfg.min_rate


def counted_rates(lim: Limiter, now: float, other_than: str = "") -> dict[str, float]:
    """Each holder's counted rate (the highest of its leases that still count), `other_than`'s left out."""
    rates: dict[str, float] = {}
    for lease in lim.token_leases:
        if lease.counted_until > now and lease.holder != other_than:
            rates[lease.holder] = max(rates.get(lease.holder, 0.0), lease.rate)
    return rates


def _tokens(rate: float) -> int:
    return math.floor(rate + 1e-9)


def spend(holding: Holding, wanted: int, now: float) -> tuple[tuple[float, ...], float]:
    """Send times for up to `wanted` requests under the holder's live lease, and when to come back for the rest."""
    lease = holding.lease
    if lease is None or lease.until <= now or wanted <= 0:
        return (), 0.0
    at = max(now, lease.start)
    recent = [t for t in holding.sent if t > at - WINDOW_SECONDS]
    tokens = _tokens(lease.rate) - len(recent)
    room = min(wanted, lease.slots - holding.in_flight, tokens)
    if room > 0:
        return (at,) * room, 0.0
    # A token comes back when the window's oldest send leaves it; a slot when a request ends
    wait = WINDOW_SECONDS - (at - recent[0]) if tokens <= 0 and recent else SLOT_WAIT_SECONDS
    return (), max(at - now + wait, SLOT_WAIT_SECONDS)


def _ask(holding: Holding, wanted: int, now: float, cfg: TokenLeaseConfig) -> float:
    lease = holding.lease
    if lease is None or lease.until <= now - cfg.seconds:
        used = float(cfg.first_ask * wanted)
    elif holding.asked > _tokens(lease.rate * (lease.until - lease.start)):
        used = 2.0 * holding.asked  # the lease ran short: grow fast
    else:
        # Its own pace bound it (a Lambda instance runs one batch at a time), not the lease: twice what it could
        # spend would keep the rest from the other holders until that lease had stopped counting
        used = float(holding.asked)
    return max(used, float(wanted)) / cfg.seconds


def take(lim: Limiter, holding: Holding, holder: str, wanted: int, configured_rate: float, max_concurrency: int, now: float, cfg: LimiterConfig) -> LeaseGrant:
    """Send times for up to `wanted` requests of `holder`: from its live lease while it has room (nothing to
    write), else from a new lease, written with the slots of its last one that are not in flight given back."""
    leases = cfg.token_leases
    if leases is None:
        raise ValueError("token leases need their config (LimiterConfig.token_leases)")
    send_at, retry_in = spend(holding, wanted, now)
    asked = replace(holding, asked=holding.asked + wanted)
    if send_at:
        return LeaseGrant(send_at, _granted(asked, send_at), 0.0, None)
    if holding.lease is not None and holding.lease.until > now:
        return LeaseGrant((), asked, retry_in, None)  # its lease is live, only spent for now: wait for it, not for another
    mine = holding.lease if holding.lease in lim.token_leases else None
    base = release(lim, mine.slot_expiry if mine is not None else 0.0, max(0, mine.slots - holding.in_flight) if mine is not None else 0, now)
    rate = current_rate(base, configured_rate, now, cfg) / (1.0 + cfg.pacing_margin)
    others = counted_rates(base, now, other_than=holder)
    limit = concurrency_now(base, max_concurrency, cfg)
    free_slots = limit - in_flight(base, now)
    # The per-batch grants' last second: a lease starts a second after the last send they scheduled
    start = base.tat + WINDOW_SECONDS if base.tat > 0 and base.tat > now - WINDOW_SECONDS else now
    ask = min(_ask(holding, wanted, now, leases), rate * leases.max_share, rate - sum(others.values()))
    slots = min(free_slots, max(wanted, math.ceil(limit * ask / rate)), max(1, math.floor(limit * leases.max_share))) if ask > 0 else 0
    kept = base.token_leases  # `release` kept those that count or hold a slot
    if _tokens(ask) < 1 or slots <= 0 or start > now + cfg.horizon_seconds:
        soonest = min((lease.counted_until for lease in kept if lease.holder != holder), default=now + cfg.busy_retry_seconds)
        retry = max(soonest - now if slots > 0 else cfg.busy_retry_seconds, start - now - cfg.horizon_seconds, SLOT_WAIT_SECONDS)
        state = replace(base, version=lim.version + 1) if mine is not None else None
        return LeaseGrant((), Holding(sent=holding.sent), retry, state)
    until = start + leases.seconds
    lease = TokenLease(holder, round(ask, 6), slots, round(start, 6), round(until, 6), round(until + leases.slot_seconds, 6))
    state = replace(base, token_leases=(*kept, lease), version=lim.version + 1)
    fresh = Holding(lease=lease, sent=holding.sent, asked=wanted)
    send_at, retry_in = spend(fresh, wanted, now)
    return LeaseGrant(send_at, _granted(fresh, send_at), retry_in, state)


def _granted(holding: Holding, send_at: tuple[float, ...]) -> Holding:
    if not send_at:
        return holding
    recent = tuple(t for t in holding.sent if t > send_at[0] - WINDOW_SECONDS)
    return replace(holding, sent=recent + send_at, in_flight=holding.in_flight + len(send_at))


def ended(holding: Holding, slot_expiry: float, count: int) -> Holding:
    """`count` of the holder's requests that held slots expiring at `slot_expiry` ended (a past lease's: nothing to count)."""
    if holding.lease is None or holding.lease.slot_expiry != slot_expiry:
        return holding
    return replace(holding, in_flight=max(0, holding.in_flight - count))


def to_give_back(holding: Holding, now: float) -> int:
    """The slots a holder gives back now: all of its lease's not in flight once the lease is over; none before."""
    if holding.lease is None or holding.lease.until > now:
        return 0
    return max(0, holding.lease.slots - holding.in_flight)


def given_back(holding: Holding) -> Holding:
    """The holder after giving its lease's free slots back: it remembers the lease only for its use and its window."""
    if holding.lease is None:
        return holding
    spent = replace(holding.lease, slots=holding.in_flight)
    return replace(holding, lease=spent)
