"""A discrete-event simulator of webhook delivery, in virtual time.

A heap of timed events; no threads, no sleeping, no I/O. Receivers answer from
a latency distribution and a failure schedule; pools of workers (Lambda
instances) take batches of up to 10 tasks from a queue and send them
concurrently; retries and deferrals come back through SQS-like delayed
re-queues (delays rounded up to the second, as `queues.schedule` does).

Two delivery modes:
- `hookline`: the real pure core decides everything - `policy.deferral`,
  `breaker.admit/record/health`, `ratelimit.acquire/release/slow_down`,
  `policy.decide` (which classifies via `classify`); first attempts and
  retries/deferrals use separate queues and pools.
- `baseline`: one shared queue and pool, every task is sent, any retryable
  failure comes back after a fixed 10 s (no jitter, no breaker, no limits).
"""

from __future__ import annotations

import heapq
import math
import random
from abc import ABC, abstractmethod
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import bench  # noqa: F401  - puts the hookline layer on sys.path
from hookline.core.breaker import Breaker, BreakerConfig, admit, health, record
from hookline.core.classify import TIMEOUT, Outcome, Verdict, classify
from hookline.core.policy import RetryPolicy, decide, deferral
from hookline.core.ratelimit import Limiter, LimiterConfig, acquire, release, slow_down

EPOCH = 1_700_000_000.0  # virtual time 0, as epoch seconds (the core works in epoch seconds)
BATCH_SIZE = 10
REQUEST_TIMEOUT = 10.0
BATCH_OVERHEAD = 0.05  # receive + state loads + writes of one invocation
BASELINE_RETRY_SECONDS = 10.0


@dataclass
class Receiver:
    """One subscriber's behaviour: lognormal latency, failure windows, random failures, a capacity."""

    median_s: float = 0.08
    sigma: float = 0.3
    windows: list[tuple[float, float, str]] = field(default_factory=list)  # (start, end, "timeout" | "503")
    fail_prob: float = 0.0  # chance of a 500 outside the windows
    capacity_rps: float | None = None  # beyond this many requests in one second: 429 (no Retry-After)
    per_second: Counter[int] = field(default_factory=Counter)

    def respond(self, t: float, rng: random.Random) -> tuple[Outcome, float]:
        sec = int(t)
        self.per_second[sec] += 1
        latency = self.median_s * rng.lognormvariate(0.0, self.sigma)
        for start, end, mode in self.windows:
            if start <= t < end:
                if mode == "timeout":
                    return Outcome(error=TIMEOUT), REQUEST_TIMEOUT
                return Outcome(status_code=503), latency
        if latency >= REQUEST_TIMEOUT:
            return Outcome(error=TIMEOUT), REQUEST_TIMEOUT
        if self.capacity_rps is not None and self.per_second[sec] > self.capacity_rps:
            return Outcome(status_code=429), latency
        if self.fail_prob and rng.random() < self.fail_prob:
            return Outcome(status_code=500), latency
        return Outcome(status_code=200), latency


@dataclass
class Endpoint:
    id: int
    group: str
    receiver: Receiver
    rate: float = 10.0
    max_concurrency: int = 5
    breaker: Breaker = field(default_factory=Breaker)
    limiter: Limiter = field(default_factory=Limiter)
    paused_until: float | None = None  # epoch seconds


@dataclass
class Task:
    endpoint: Endpoint
    created: float  # virtual seconds
    attempts: int = 0


@dataclass
class Metrics:
    done: list[tuple[float, float, int, str, bool]] = field(default_factory=list)  # created, finished, attempts, group, ok
    busy: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # request-seconds per endpoint group
    requests: Counter[str] = field(default_factory=Counter)
    deferrals: int = 0
    samples: list[dict[str, float]] = field(default_factory=list)


class Queue:
    def __init__(self, sim: Sim, name: str) -> None:
        self.sim = sim
        self.name = name
        self.ready: deque[Task] = deque()
        self.pool: Pool | None = None

    def put(self, task: Task, delay: float = 0.0) -> None:
        if delay <= 0:
            self._push(task)
        else:
            self.sim.at(self.sim.now + math.ceil(delay), self._push, task)

    def _push(self, task: Task) -> None:
        self.ready.append(task)
        if self.pool is not None:
            self.pool.kick()

    def __len__(self) -> int:
        return len(self.ready)


class Pool:
    """`size` concurrent workers draining one queue in batches."""

    def __init__(self, sim: Sim, queue: Queue, size: int, handler: Callable[[list[Task]], float]) -> None:
        self.sim = sim
        self.queue = queue
        self.idle = size
        self.handler = handler
        queue.pool = self

    def kick(self) -> None:
        while self.idle > 0 and self.queue.ready:
            batch = [self.queue.ready.popleft() for _ in range(min(BATCH_SIZE, len(self.queue.ready)))]
            self.idle -= 1
            end = self.handler(batch)  # the virtual time the invocation finishes
            self.sim.at(max(end, self.sim.now + BATCH_OVERHEAD), self._free)

    def _free(self) -> None:
        self.idle += 1
        self.kick()


class Sim:
    def __init__(self, seed: int) -> None:
        self.now = 0.0
        self.rng = random.Random(seed)
        self._heap: list[tuple[float, int, Callable[..., None], tuple[Any, ...]]] = []
        self._seq = 0
        self.metrics = Metrics()

    def at(self, t: float, fn: Callable[..., None], *args: Any) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, args))

    def run(self, until: float = math.inf) -> None:
        heap = self._heap
        while heap and heap[0][0] <= until:
            t, _, fn, args = heapq.heappop(heap)
            self.now = t
            fn(*args)

    def dt(self, t: float | None = None) -> datetime:
        return datetime.fromtimestamp(EPOCH + (self.now if t is None else t), UTC)

    def finish(self, task: Task, ok: bool) -> None:
        self.metrics.done.append((task.created, self.now, task.attempts, task.endpoint.group, ok))

    def send(self, task: Task, send_at: float, on_done: Callable[[Task, Outcome], None]) -> float:
        """One request leaving at `send_at`; `on_done` runs when it ends. Returns the end time."""
        outcome, duration = task.endpoint.receiver.respond(send_at, self.rng)
        task.attempts += 1
        self.metrics.busy[task.endpoint.group] += duration
        self.metrics.requests[task.endpoint.group] += 1
        self.at(send_at + duration, on_done, task, outcome)
        return send_at + duration


class Delivery(ABC):
    """The system under test: submit first attempts, it delivers them."""

    def __init__(self, sim: Sim, workers: int) -> None:
        self.sim = sim
        self.workers = workers
        self.live: dict[int, Task] = {}

    def inflight(self) -> list[Task]:
        return list(self.live.values())

    @abstractmethod
    def submit(self, task: Task) -> None:
        """Hand a new task to this delivery design."""

    @abstractmethod
    def backlog(self, group: str | None = None) -> int:
        """Tasks waiting (optionally of one endpoint group)."""


class Baseline(Delivery):
    """One shared queue and pool; fixed 10 s retries, no jitter, no breaker, no per-endpoint limits."""

    def __init__(self, sim: Sim, workers: int, max_attempts: int = 12) -> None:
        super().__init__(sim, workers)
        self.max_attempts = max_attempts
        self.queue = Queue(sim, "shared")
        self.pool = Pool(sim, self.queue, workers, self._handle)
        self.pending: Counter[str] = Counter()

    def submit(self, task: Task) -> None:
        self.pending[task.endpoint.group] += 1
        self.live[id(task)] = task
        self.queue.put(task)

    def backlog(self, group: str | None = None) -> int:
        return sum(self.pending.values()) if group is None else self.pending[group]

    def _handle(self, batch: list[Task]) -> float:
        start = self.sim.now + BATCH_OVERHEAD
        return max(self.sim.send(t, start, self._done) for t in batch)

    def _done(self, task: Task, outcome: Outcome) -> None:
        verdict = classify(outcome).verdict
        if verdict is Verdict.RETRY and task.attempts < self.max_attempts:
            self.queue.put(task, BASELINE_RETRY_SECONDS)
            return
        self.pending[task.endpoint.group] -= 1
        del self.live[id(task)]
        self.sim.finish(task, verdict is Verdict.SUCCESS)


@dataclass
class _Go:
    task: Task
    send_at: float
    probe: bool = False


class Hookline(Delivery):
    """hookline's delivery worker, re-enacted around the real pure core (see `delivery.DeliveryWorker`)."""

    def __init__(
        self,
        sim: Sim,
        workers: int,
        policy: RetryPolicy | None = None,
        breaker_cfg: BreakerConfig | None = None,
        limiter_cfg: LimiterConfig | None = None,
    ) -> None:
        super().__init__(sim, workers)
        self.policy = policy or RetryPolicy()
        self.breaker_cfg = breaker_cfg or BreakerConfig(probe_lease_seconds=2 * (3.0 + REQUEST_TIMEOUT))
        self.limiter_cfg = limiter_cfg or LimiterConfig()
        first = max(1, round(workers * 2 / 3))  # delivery : retry concurrency = 20 : 10, as the stack's defaults
        self.first = Queue(sim, "delivery")
        self.retry = Queue(sim, "retry")
        Pool(sim, self.first, first, self._handle)
        Pool(sim, self.retry, max(1, workers - first), self._handle)
        self.pending: Counter[str] = Counter()

    def submit(self, task: Task) -> None:
        self.pending[task.endpoint.group] += 1
        self.live[id(task)] = task
        self.first.put(task)

    def backlog(self, group: str | None = None) -> int:
        return sum(self.pending.values()) if group is None else self.pending[group]

    def _defer(self, task: Task, seconds: float, jitter: float) -> None:
        self.sim.metrics.deferrals += 1
        self.retry.put(task, max(seconds, 0.0) + self.sim.rng.uniform(0.0, jitter))

    def _handle(self, batch: list[Task]) -> float:
        groups: dict[int, list[Task]] = {}
        for t in batch:
            groups.setdefault(t.endpoint.id, []).append(t)
        end = self.sim.now + BATCH_OVERHEAD
        for tasks in groups.values():
            ep = tasks[0].endpoint
            gos, expiry = self._plan(ep, tasks)
            if not gos:
                continue
            leases_end = max(self.sim.send(g.task, g.send_at, self._on_done(g.probe)) for g in gos)
            if not gos[0].probe:
                self.sim.at(leases_end, self._release, ep, expiry, len(gos))
            end = max(end, leases_end)
        return end

    def _plan(self, ep: Endpoint, tasks: list[Task]) -> tuple[list[_Go], float]:
        now = self.sim.now + BATCH_OVERHEAD
        wait = deferral(ep.paused_until, self.sim.dt(now), self.policy, self.sim.rng)
        if wait is not None:
            for t in tasks:
                self._defer(t, wait, 3.0)
            return [], 0.0
        admission = admit(ep.breaker, EPOCH + now, self.breaker_cfg)
        if admission.verdict == "wait":
            spread = min(30.0, 0.1 * max(ep.breaker.cooldown_seconds, 1.0))
            for t in tasks:
                self._defer(t, admission.wait_seconds, spread)
            return [], 0.0
        if admission.verdict == "probe" and admission.state is not None:
            ep.breaker = admission.state
            for t in tasks[1:]:
                self._defer(t, 1.0, 5.0)
            return [_Go(tasks[0], now, probe=True)], 0.0
        grant = acquire(ep.limiter, len(tasks), ep.rate, ep.max_concurrency, EPOCH + now, self.limiter_cfg)
        ep.limiter = grant.state
        n = len(grant.send_at)
        for t in tasks[n:]:
            self._defer(t, grant.retry_in, 1.0)
        return [_Go(t, at - EPOCH) for t, at in zip(tasks, grant.send_at, strict=False)], grant.lease_expiry - EPOCH

    def _release(self, ep: Endpoint, expiry_virtual: float, count: int) -> None:
        ep.limiter = release(ep.limiter, EPOCH + expiry_virtual, count, EPOCH + self.sim.now)

    def _on_done(self, probe: bool) -> Callable[[Task, Outcome], None]:
        def done(task: Task, outcome: Outcome) -> None:
            self._conclude(task, outcome, probe)

        return done

    def _conclude(self, task: Task, outcome: Outcome, probe: bool) -> None:
        sim, ep = self.sim, task.endpoint
        now = EPOCH + sim.now
        change = record(ep.breaker, health(outcome), now, self.breaker_cfg, was_probe=probe, error=outcome.error or str(outcome.status_code))
        if change is not None:
            ep.breaker = change.state
        if outcome.status_code == 429:
            ep.limiter = slow_down(ep.limiter, ep.rate, now, self.limiter_cfg)
        decision = decide(task.attempts, sim.dt(task.created), outcome, sim.dt(), self.policy, sim.rng)
        if decision.pause_endpoint_seconds is not None:
            ep.paused_until = now + decision.pause_endpoint_seconds
        if decision.status == "pending" and decision.retry_in_seconds is not None:
            self.retry.put(task, decision.retry_in_seconds)
            return
        self.pending[ep.group] -= 1
        del self.live[id(task)]
        sim.finish(task, decision.status == "succeeded")


def make(mode: str, sim: Sim, workers: int) -> Delivery:
    if mode == "hookline":
        return Hookline(sim, workers)
    if mode == "baseline":
        return Baseline(sim, workers)
    raise ValueError(mode)


def poisson_arrivals(sim: Sim, system: Delivery, endpoints: list[Endpoint], rate: float, start: float, end: float) -> None:
    """Events at `rate`/s between start and end, each for a uniformly chosen endpoint."""
    if rate <= 0:
        return

    def arrive() -> None:
        system.submit(Task(sim.rng.choice(endpoints), sim.now))
        nxt = sim.now + sim.rng.expovariate(rate)
        if nxt < end:
            sim.at(nxt, arrive)

    sim.at(start + sim.rng.expovariate(rate), arrive)


def count_arrivals(sim: Sim, system: Delivery, endpoints: list[Endpoint], count: int, start: float, end: float) -> None:
    """Exactly `count` events, evenly spread over [start, end), each for a uniformly chosen endpoint."""
    step = (end - start) / max(1, count)

    def arrive(i: int) -> None:
        system.submit(Task(sim.rng.choice(endpoints), sim.now))
        if i + 1 < count:
            sim.at(start + (i + 1) * step, arrive, i + 1)

    if count > 0:
        sim.at(start, arrive, 0)


def sample_every(sim: Sim, every: float, end: float, probe: Callable[[], dict[str, float]]) -> None:
    def tick() -> None:
        sim.metrics.samples.append({"t": sim.now, **probe()})
        if sim.now + every <= end:
            sim.at(sim.now + every, tick)

    sim.at(0.0, tick)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    i = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[i]
