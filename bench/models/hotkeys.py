"""Writes a second on each of one hot endpoint's keys, from the core's own rules over a simulated run.

For the scale model (the hot endpoint's goal: no item of an endpoint at 5,000 deliveries a second may take more than 500
writes a second). `hot_endpoint_writes(rate, batch_size, processes)` runs `processes` delivery instances (each with
its own token lease and statistics held in its memory, as a warm Lambda instance) taking batches of up to
`batch_size` tasks from a queue fed `rate` tasks a second, for `seconds` of virtual time: a heap of timed events, no
threads, no I/O. Each batch goes through what the delivery worker calls: `core.planning.plan_group` (token leases at
or above HOOKLINE_TOKEN_LEASE_MIN_RATE, `core.leases.take`; per-batch grants below it), then, `batch_seconds` later,
the give-back of what the batch held (`core.leases.ended`, `to_give_back`, `given_back`, `core.ratelimit.give_back`)
and the statistics written or held as `services.delivery.stats_buffer` does (`core.stats.hold_over`; the version's
use at most once every VERSION_USE_HOLD_SECONDS a process, `core.stats.version_use_due`). A deferred task
comes back when SQS would hand it out (its delay rounded up to the second). Every request succeeds in
`receiver_seconds`.

Counted in each whole second, one endpoint's keys:
- `limiter`: its limiter item (`LIM#`): lease writes, grants and give-backs (the give-back carries the statistics);
- `statistics`: its statistics hour item (`STAT#`): an ADD of counters neither carried nor held;
- `version_usage`: the version-use item (`VUSE#`) of the version its deliveries go out at (a tenant's, shared with the
  tenant's other endpoints at that version: this endpoint's share);
- `breaker`: its breaker item (`BRK#`): nothing, every request succeeds (a closed breaker's successes write nothing);
- `delivery_log_partition`: the busiest of its delivery log's `keys.DELIVERY_SHARDS` partition keys (`D#`), each
  delivery's first attempt one write of its own item, in the shard `keys.delivery_shard` gives its id;
- `delivery_item`: the most writes on one delivery item (one per attempt).
Conditional writes that lose a race (billed, and retried) are not modelled: the events run one at a time.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import bench  # noqa: F401  - puts the hookline layer on sys.path
from hookline.adapters.dynamo.keys import delivery_shard
from hookline.core import ids, leases
from hookline.core.breaker import Breaker
from hookline.core.config import endpoint_rules
from hookline.core.leases import Holding
from hookline.core.planning import Gate, Step, leases_held, plan_group
from hookline.core.ratelimit import Limiter, give_back
from hookline.core.rules import EndpointRules
from hookline.core.settings import Settings
from hookline.core.stats import hold_over, version_use_due
from hookline.wiring.topology import CLAIM_LEASE_SECONDS

EPOCH = 1_700_000_000.0  # virtual time 0, as epoch seconds
KEYS = ("limiter", "statistics", "version_usage", "breaker", "delivery_log_partition", "delivery_item")


@dataclass(frozen=True)
class HotKeyWrites:
    """The most writes in any whole second of the run on each of the endpoint's keys (KEYS), and the most sent."""

    rate: float
    batch_size: int
    processes: int
    sent: int
    limiter: int
    statistics: int
    version_usage: int
    breaker: int
    delivery_log_partition: int
    delivery_item: int
    batches: int  # the most batches that sent in a whole second: what one write per batch would put on a key
    seconds: tuple[dict[str, int], ...] = field(repr=False, default=())  # each whole second: "sent", "batches" and each key's writes

    def per_key(self) -> dict[str, int]:
        return {key: getattr(self, key) for key in KEYS}


@dataclass
class _Process:
    holder: str
    holding: Holding = field(default_factory=Holding)
    since: float | None = None  # its held statistics: the oldest attempt's time, how many, and what is held
    attempts: int = 0
    counters: bool = False
    usage: bool = False
    usage_written: float | None = None  # when it last wrote the version's use (core.stats.version_use_due)


def hot_endpoint_writes(
    rate: float,
    batch_size: int,
    processes: int,
    *,
    limit: float | None = None,
    max_concurrency: int = 100,
    batch_seconds: float = 0.02,
    receiver_seconds: float = 0.01,
    seconds: float = 12.0,
    settings: Settings | None = None,
    seed: int = 7,
) -> HotKeyWrites:
    """`rate` tasks a second offered to one endpoint allowed `limit` requests a second (default: `rate`) and
    `max_concurrency` in flight (its adaptive limit already there), taken by `processes` instances in batches of up to
    `batch_size`, each batch holding its instance for `batch_seconds`; `settings`: the stack's (HOOKLINE_TOKEN_LEASE_MIN_RATE
    decides leases or per-batch grants). Returns the most writes in any whole second on each of the endpoint's keys. The
    leases take several seconds to settle at a hot endpoint's rate (10 at 5,000/s over 10 instances): `seconds` is
    long enough for the figures to include settled seconds."""
    base = settings or Settings()
    run = _Run(
        gate=Gate(True, None, limit if limit is not None else rate, max_concurrency),
        rules=endpoint_rules(replace(base, initial_concurrency=max_concurrency), CLAIM_LEASE_SECONDS),
        rng=random.Random(seed),
        batch_size=batch_size,
        latency=receiver_seconds,
    )
    run.queue = [(EPOCH + n / rate, next(run.seq), n) for n in range(math.ceil(rate * seconds))]
    heapq.heapify(run.queue)
    people = [_Process(f"p{i}") for i in range(processes)]
    agenda: list[tuple[float, int, int, tuple[Step, ...] | None]] = [(EPOCH, next(run.seq), i, None) for i in range(processes)]
    while agenda:
        now, _, i, steps = heapq.heappop(agenda)
        if steps is not None:  # the batch ends: what it held is given back, its statistics written or held
            run.release(people[i], steps, now)
            heapq.heappush(agenda, (now, next(run.seq), i, None))
        elif now < EPOCH + seconds and run.queue:
            if run.queue[0][0] > now:  # nothing due: it comes back when something is
                heapq.heappush(agenda, (run.queue[0][0], next(run.seq), i, None))
            else:
                heapq.heappush(agenda, (now + batch_seconds, next(run.seq), i, run.take(people[i], now)))
    ordered = run.seconds()
    most = {key: max((c.get(key, 0) for c in ordered), default=0) for key in ("sent", "batches", *KEYS)}
    return HotKeyWrites(rate, batch_size, processes, seconds=ordered, **most)


@dataclass
class _Run:
    gate: Gate
    rules: EndpointRules
    rng: random.Random
    batch_size: int
    latency: float
    queue: list[tuple[float, int, int]] = field(default_factory=list)  # (due, tie-break, task number)
    seq: Iterator[int] = field(default_factory=itertools.count)
    limiter: Limiter = field(default_factory=Limiter)
    counts: dict[int, Counter[str]] = field(default_factory=dict)
    shards: Counter[tuple[int, int]] = field(default_factory=Counter)  # (second, shard) -> delivery log writes

    def count(self, at: float, key: str) -> None:
        self.counts.setdefault(math.floor(at - EPOCH), Counter())[key] += 1

    def take(self, who: _Process, now: float) -> tuple[Step, ...]:
        """A batch of what is due, planned as the worker plans it: its steps."""
        batch = [heapq.heappop(self.queue) for _ in range(self.batch_size) if self.queue and self.queue[0][0] <= now]
        planned = plan_group(self.gate, Breaker(), self.limiter, len(batch), now, self.rules, self.rng, True, who.holding, who.holder)
        if planned.limiter is not None:
            self.limiter = planned.limiter
            self.count(now, "limiter")
        if planned.holding is not None:
            who.holding = planned.holding
        sent = 0
        for (_, _, n), step in zip(batch, planned.steps, strict=True):
            if step.kind == "go":  # sent at its send time (a per-batch grant's may be up to a second ahead), then recorded
                sent += 1
                self.count(step.send_at, "sent")
                self.shards[(math.floor(step.send_at - EPOCH), delivery_shard(ids.delivery_id("t", f"evt_{n}", "ep", 0)))] += 1
            else:  # back when SQS hands it out again
                heapq.heappush(self.queue, (now + math.ceil(step.defer_seconds), next(self.seq), n))
        if sent:
            self.count(now, "batches")
            who.since = now if who.since is None else who.since
            who.attempts += sent
            who.counters = who.usage = True
        return planned.steps

    def release(self, who: _Process, steps: tuple[Step, ...], now: float) -> None:
        """A batch's end, as `DeliveryWorker.release`: its requests under the process's token lease end in its memory,
        the lease's slots are given back once it is over (one limiter write, carrying the statistics), a per-batch
        grant's leases are given back at once (the same); what is not carried is written unless the lease holds it."""
        held = leases_held(steps)
        answers = tuple((self.latency, 200, None) for step in steps if step.kind == "go")
        ceiling, cfg = self.gate.max_concurrency, self.rules.limiter
        if who.holding.lease is not None:  # the process paces the endpoint by a token lease (TokenLeaseBook.holds)
            mine = who.holding.lease.slot_expiry
            for expiry, n in held.items():
                if expiry == mine:
                    who.holding = leases.ended(who.holding, expiry, n)
            held = {expiry: n for expiry, n in held.items() if expiry != mine}
            back, lease = leases.to_give_back(who.holding, now), who.holding.lease
            if back and lease is not None:
                self.limiter = give_back(self.limiter, lease.slot_expiry, back, now, answers, ceiling, cfg, lease.start)
                self.count(now, "limiter")
                who.counters = False  # carried on that write
                who.holding = leases.given_back(who.holding)
        for expiry, n in held.items():
            self.limiter = give_back(self.limiter, expiry, n, now, answers, ceiling, cfg)
            self.count(now, "limiter")
            who.counters = False
        if who.since is not None and (who.holding.lease is None or hold_over(who.since, who.attempts, now)):
            if who.counters:
                self.count(now, "statistics")
            who.since, who.attempts, who.counters = None, 0, False
        if who.usage and version_use_due(who.usage_written, now):
            self.count(now, "version_usage")
            who.usage, who.usage_written = False, now

    def seconds(self) -> tuple[dict[str, int], ...]:
        for (second, _), n in self.shards.items():
            per = self.counts.setdefault(second, Counter())
            per["delivery_log_partition"] = max(per["delivery_log_partition"], n)
            per["delivery_item"] = 1  # each delivery's item takes one write an attempt
        return tuple(dict(self.counts[s]) for s in sorted(self.counts))
