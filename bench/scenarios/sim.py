"""A discrete-event simulator of webhook delivery, in virtual time.

A heap of timed events; no threads, no sleeping, no I/O. Receivers answer from
a latency distribution and a failure schedule; pools of workers (Lambda
instances) take batches of up to 10 tasks from a queue and send them
concurrently; retries and deferrals come back through SQS-like delayed
re-queues (delays rounded up to the second, as `adapters.queues.TaskScheduler.schedule` does).

Two delivery modes:
- `hookline`: the core decides everything, with the stack's default settings:
  `core.planning.plan_group` before sending (pauses, breaker, probes,
  disabling, limits), `core.health` and `core.policy.decide` after; first
  attempts and retries/deferrals use separate queues and pools.
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
from itertools import pairwise
from typing import Any

import bench  # noqa: F401  - puts the hookline layer on sys.path
from hookline.core.breaker import Breaker
from hookline.core.classify import TIMEOUT, Outcome, Verdict, classify
from hookline.core.config import endpoint_rules, retry_policy
from hookline.core.health import breaker_after, endpoint_after, limiter_after
from hookline.core.models import DEFAULT_MAX_CONCURRENCY, DEFAULT_RATE_LIMIT_PER_SECOND
from hookline.core.planning import Gate, GroupPlan, Step, leases_held, plan_group, under_lease, waits_for_lease
from hookline.core.policy import Decision, decide
from hookline.core.ratelimit import Limiter, give_back
from hookline.core.settings import Settings
from hookline.wiring.topology import CLAIM_LEASE_SECONDS

EPOCH = 1_700_000_000.0  # virtual time 0, as epoch seconds (the core works in epoch seconds)
BATCH_SIZE = 10
REQUEST_TIMEOUT = Settings().request_timeout_seconds
BATCH_OVERHEAD = 0.05  # the least an invocation takes, receive to answer: a worker takes no batch sooner after the last
# The worker's AWS calls around a batch's requests (hookline.services.delivery.planner and .worker), each one round trip
# of bench.models.duration's model (Assumptions.aws_call_ms; tests/models/test_bench_scenarios.py checks they agree). They place
# an endpoint's concurrency leases in time: taken when the grant is computed, after the batch's read of its endpoints'
# states; the first request leaves once the grant's write has landed (on the retry lane also once the sending tasks'
# bodies are read, which the first lane reads beside the plan, and the task has claimed its attempt, which a first
# attempt need not); a lease handed on to a waiting task carries its next request once that task's send time is
# written (and, on the retry lane, its attempt claimed); the leases go back a write after the group's last answer
# (the give-back goes out beside that task's record). The invocation ends a write after its last answer (the record).
AWS_CALL_SECONDS = 0.005
# Before any of them: the event source mapping hands the batch over and the handler starts (no lease held yet): what
# is left of BATCH_OVERHEAD after the four calls of a sending batch (state read, grant, body read, record).
INVOKE_SECONDS = BATCH_OVERHEAD - 4 * AWS_CALL_SECONDS
BASELINE_RETRY_SECONDS = 10.0
LEASE_SECONDS = CLAIM_LEASE_SECONDS  # the stack's claim and concurrency-lease bound


@dataclass
class Receiver:
    """One subscriber's behaviour: lognormal latency, failure windows, random failures, a capacity."""

    median_s: float = 0.08
    sigma: float = 0.3
    windows: list[tuple[float, float, str]] = field(default_factory=list)  # (start, end, "timeout" | "503")
    fail_prob: float = 0.0  # chance of a 500 outside the windows
    capacity_rps: float | None = None  # beyond this many requests in one second: 429 (no Retry-After)
    # A capacity-limited receiver: it serves `knee` requests at a time and queues the rest (its latency
    # climbs with the requests in flight); past `capacity` in flight its queue overflows (503).
    knee: int | None = None
    capacity: int | None = None
    per_second: Counter[int] = field(default_factory=Counter)
    ends: list[float] = field(default_factory=list)  # a heap of the end times of requests in flight
    peak_in_flight: int = 0
    over_capacity: int = 0  # requests that arrived with the receiver already at its capacity

    def in_flight(self, t: float) -> int:
        while self.ends and self.ends[0] <= t:
            heapq.heappop(self.ends)
        return len(self.ends)

    def respond(self, t: float, rng: random.Random) -> tuple[Outcome, float]:
        outcome, duration = self._respond(t, rng)
        heapq.heappush(self.ends, t + duration)
        self.peak_in_flight = max(self.peak_in_flight, len(self.ends))
        return outcome, duration

    def _respond(self, t: float, rng: random.Random) -> tuple[Outcome, float]:
        sec = int(t)
        self.per_second[sec] += 1
        latency = self.median_s * rng.lognormvariate(0.0, self.sigma)
        if self.knee is not None:
            busy = self.in_flight(t)
            if self.capacity is not None and busy >= self.capacity:
                self.over_capacity += 1
                return Outcome(status_code=503), latency
            latency *= max(1.0, (busy + 1) / self.knee)
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
    rate: float = DEFAULT_RATE_LIMIT_PER_SECOND
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    breaker: Breaker = field(default_factory=Breaker)
    limiter: Limiter = field(default_factory=Limiter)
    paused_until: float | None = None  # epoch seconds
    active: bool = True  # disabled endpoints park their tasks

    def gate(self) -> Gate:
        return Gate(self.active, self.paused_until, self.rate, self.max_concurrency)


@dataclass
class Task:
    endpoint: Endpoint
    created: float  # virtual seconds
    attempts: int = 0
    last: Outcome = field(default_factory=Outcome)  # the latest attempt's outcome


@dataclass
class Metrics:
    done: list[tuple[float, float, int, str, bool]] = field(default_factory=list)  # created, finished, attempts, group, ok
    busy: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # request-seconds per endpoint group
    requests: Counter[str] = field(default_factory=Counter)
    failed_requests: Counter[str] = field(default_factory=Counter)  # requests that got no 2xx
    deferrals: int = 0
    samples: list[dict[str, float]] = field(default_factory=list)
    probes: list[tuple[float, str]] = field(default_factory=list)  # (send time, endpoint group) of each half-open probe


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


Finish = Callable[[float], None]  # an invocation tells its pool the virtual time it ends


@dataclass
class LeaseHolds:
    """How long an endpoint's concurrency leases were held, summed over them, in the parts of a lease's life."""

    leases: int = 0
    requests: int = 0  # the requests they carried (more than one a lease when leases were handed on)
    grant: float = 0.0  # from the grant to the moment a request may leave (its write; on the retry lane, the bodies' read and the claim)
    pacing: float = 0.0  # waiting for its first request's paced send time
    request: float = 0.0  # its requests
    hand_on: float = 0.0  # from a request's end to the next one's send under the same lease (its send time's write, its claim)
    batch: float = 0.0  # waiting for the group's slowest answer: the leases go back together
    give_back: float = 0.0  # the give-back's write

    def add(self, granted: float, ready: float, leases: list[list[tuple[float, float]]], last: float) -> None:
        """One group's leases: each the (send, end) of the requests it carried, in order."""
        for chain in leases:
            if not chain:
                continue
            self.leases += 1
            self.requests += len(chain)
            self.grant += ready - granted
            self.pacing += chain[0][0] - ready
            self.request += sum(end - send for send, end in chain)
            self.hand_on += sum(nxt[0] - prev[1] for prev, nxt in pairwise(chain))
            self.batch += last - chain[-1][1]
            self.give_back += AWS_CALL_SECONDS

    def mean_ms(self) -> dict[str, float]:
        """Each part per lease (ms), the whole, and the requests a lease carried."""
        n = max(1, self.leases)
        parts = {"grant": self.grant, "pacing": self.pacing, "request": self.request, "hand_on": self.hand_on, "batch": self.batch, "give_back": self.give_back}
        out = {k: round(v * 1000 / n, 1) for k, v in parts.items()}
        return out | {"held": round(sum(parts.values()) * 1000 / n, 1), "requests_per_lease": round(self.requests / n, 2)}


class Pool:
    """`size` concurrent workers draining one queue in batches."""

    def __init__(self, sim: Sim, queue: Queue, size: int, handler: Callable[[list[Task], Finish], None], batch_size: int = BATCH_SIZE) -> None:
        self.sim = sim
        self.queue = queue
        self.batch_size = batch_size
        self.idle = size
        self.handler = handler
        queue.pool = self

    def kick(self) -> None:
        while self.idle > 0 and self.queue.ready:
            batch = [self.queue.ready.popleft() for _ in range(min(self.batch_size, len(self.queue.ready)))]
            self.idle -= 1
            self.handler(batch, self._finish_at(self.sim.now))  # the handler says when the invocation ends, once it knows

    def _finish_at(self, started: float) -> Finish:
        def finish(end: float) -> None:
            self.sim.at(max(end, started + BATCH_OVERHEAD), self._free)

        return finish

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
        task.last = outcome
        self.metrics.busy[task.endpoint.group] += duration
        self.metrics.requests[task.endpoint.group] += 1
        if outcome.status_code is None or not 200 <= outcome.status_code <= 299:
            self.metrics.failed_requests[task.endpoint.group] += 1
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

    def _handle(self, batch: list[Task], finish: Finish) -> None:
        start = self.sim.now + BATCH_OVERHEAD
        finish(max(self.sim.send(t, start, self._done) for t in batch))

    def _done(self, task: Task, outcome: Outcome) -> None:
        verdict = classify(outcome).verdict
        if verdict is Verdict.RETRY and task.attempts < self.max_attempts:
            self.queue.put(task, BASELINE_RETRY_SECONDS)
            return
        self.pending[task.endpoint.group] -= 1
        del self.live[id(task)]
        self.sim.finish(task, verdict is Verdict.SUCCESS)


@dataclass
class _Group:
    """One endpoint's tasks of one invocation, while its requests are out."""

    done: Finish
    granted: float  # virtual seconds: its plan
    end: float  # when its last request ended (so far)
    ready: float  # when its first request could leave
    first_lane: bool
    live: int = 0  # its requests out
    waiting: deque[tuple[Task, Step]] = field(default_factory=deque)  # deferred by the limiter, waiting for one of its leases
    seen: list[tuple[float | None, int | None, str | None]] = field(default_factory=list)  # what its requests saw
    leases: list[list[tuple[float, float]]] = field(default_factory=list)  # each lease's requests, (send, end)


class Hookline(Delivery):
    """hookline's delivery worker in virtual time: every rule comes from the core.

    Each batch is grouped by endpoint and planned by `core.planning.plan_group`
    (the function `DeliveryWorker`'s planner calls); each answer goes through
    `core.health` and `core.policy.decide`. The simulator keeps the state in
    memory (no contention, so every conditional write lands) and models only
    time: queues, pools, latency and the receiver.
    """

    def __init__(self, sim: Sim, workers: int, settings: Settings | None = None) -> None:
        super().__init__(sim, workers)
        settings = settings or Settings()
        self.policy = retry_policy(settings)
        self.rules = endpoint_rules(settings, LEASE_SECONDS)
        # The two lanes split the workers as the stack's reserved concurrencies do (delivery : retry = 30 : 20),
        # and each takes the batch size its function does (10 and 20).
        first = max(1, round(workers * settings.delivery_concurrency / (settings.delivery_concurrency + settings.retry_concurrency)))
        self.first = Queue(sim, "delivery")
        self.retry = Queue(sim, "retry")
        Pool(sim, self.first, first, lambda batch, finish: self._handle(batch, finish, first_lane=True))
        Pool(sim, self.retry, max(1, workers - first), self._handle, settings.retry_batch_size)
        self.pending: Counter[str] = Counter()
        self.parked: Counter[str] = Counter()
        self.holds: dict[str, LeaseHolds] = defaultdict(LeaseHolds)  # by endpoint group: how long its leases were held, and why

    def submit(self, task: Task) -> None:
        self.pending[task.endpoint.group] += 1
        self.live[id(task)] = task
        self.first.put(task)

    def backlog(self, group: str | None = None) -> int:
        return sum(self.pending.values()) if group is None else self.pending[group]

    def _handle(self, batch: list[Task], finish: Finish, first_lane: bool = False) -> None:
        """The batch is handed over and its endpoint states read (one call); then each endpoint's tasks are planned and carried out."""
        self.sim.at(self.sim.now + INVOKE_SECONDS + AWS_CALL_SECONDS, self._plan_batch, batch, finish, first_lane)

    def _plan_batch(self, batch: list[Task], finish: Finish, first_lane: bool) -> None:
        groups: dict[int, list[Task]] = {}
        for t in batch:
            groups.setdefault(t.endpoint.id, []).append(t)
        ends: list[float] = []

        def group_done(end: float) -> None:
            ends.append(end)
            if len(ends) == len(groups):
                finish(max(ends) + AWS_CALL_SECONDS)  # the last answer's record

        for tasks in groups.values():
            self._carry_out(tasks[0].endpoint, tasks, first_lane, group_done)

    def _carry_out(self, ep: Endpoint, tasks: list[Task], first_lane: bool, done: Finish) -> None:
        """Plan one endpoint's tasks of a batch and act on the plan; `done` hears when its last request ends.

        The tasks the limiter deferred wait for the batch's own leases (`core.planning.under_lease`, as the worker
        does): a request under a lease that ends hands its lease to the next of them, which takes a send time (a
        conditional write) and leaves; those still waiting when the group's requests are all over are deferred as
        planned."""
        sim = self.sim
        now = sim.now
        plan = self.plan(ep, len(tasks), now, first_lane)
        # the grant's write lands; on the retry lane the sending tasks' bodies are read after it, and each claims its attempt
        ready = now + AWS_CALL_SECONDS * (1 if first_lane else 3)
        held = leases_held(plan.steps)
        group = _Group(done, now, now, ready, first_lane)
        for task, step in zip(tasks, plan.steps, strict=True):
            if held and waits_for_lease(step):
                group.waiting.append((task, step))
            elif step.kind == "defer":
                sim.metrics.deferrals += 1
                self.retry.put(task, step.defer_seconds)
            elif step.kind == "park":
                self.parked[ep.group] += 1
            else:
                send_at = ready if step.kind == "probe" else max(ready, step.send_at - EPOCH)
                self._send(ep, task, step, send_at, group, held)
        if group.live == 0:
            self._close(ep, group, held)

    def _send(
        self, ep: Endpoint, task: Task, step: Step, send_at: float, group: _Group, held: dict[float, int], lease: list[tuple[float, float]] | None = None
    ) -> None:
        """One request of the group; `lease`: the requests its lease carried before it (None: a lease of its own, if any)."""
        group.live += 1
        probe = step.kind == "probe"
        if probe:
            self.sim.metrics.probes.append((send_at, ep.group))
        if step.lease_expiry is not None and lease is None:
            lease = []
            group.leases.append(lease)

        def ended(task: Task, outcome: Outcome) -> None:
            group.end = max(group.end, self.sim.now)
            group.seen.append((self.sim.now - send_at, outcome.status_code, outcome.error))
            if lease is not None:
                lease.append((send_at, self.sim.now))
            self._conclude(task, outcome, probe)
            group.live -= 1
            if step.lease_expiry is not None and lease is not None and group.waiting and 200 <= (outcome.status_code or 0) <= 299:
                self._hand_on(ep, step.lease_expiry, outcome, group, held, lease)
            if group.live == 0:
                self._close(ep, group, held)

        self.sim.send(task, send_at, ended)

    def _hand_on(self, ep: Endpoint, expiry: float, outcome: Outcome, group: _Group, held: dict[float, int], lease: list[tuple[float, float]]) -> None:
        """A request under the batch's lease `expiry` ended with a 2xx: it is offered to the first waiting task, which
        goes under it if the core says so, its send time written (a conditional write) before it leaves; if the core
        says no, that task is deferred as planned and the lease ends (as the worker does: EndpointBatch)."""
        task, step = group.waiting.popleft()
        reused, limiter = under_lease(ep.gate(), ep.breaker, ep.limiter, step, expiry, outcome.status_code, EPOCH + self.sim.now, self.rules)
        if limiter is None:
            self.sim.metrics.deferrals += 1
            self.retry.put(task, step.defer_seconds)
            return
        ep.limiter = limiter
        calls = 1 if group.first_lane else 2  # its send time's write, and on the retry lane its claim
        self._send(ep, task, reused, max(self.sim.now + calls * AWS_CALL_SECONDS, reused.send_at - EPOCH), group, held, lease)

    def _close(self, ep: Endpoint, group: _Group, held: dict[float, int]) -> None:
        """The group's requests are all over: its leases go back with what it saw, and the tasks still waiting are deferred as planned."""
        while group.waiting:
            task, step = group.waiting.popleft()
            self.sim.metrics.deferrals += 1
            self.retry.put(task, step.defer_seconds)
        self.holds[ep.group].add(group.granted, group.ready, group.leases, group.end)
        for expiry, count in held.items():
            self.sim.at(group.end + AWS_CALL_SECONDS, self._release, ep, expiry, count, tuple(group.seen))  # the give-back's write
        group.done(group.end)

    def plan(self, ep: Endpoint, tasks: int, now: float, first_lane: bool = False) -> GroupPlan:
        """The core's plan for `tasks` tasks of `ep` at virtual time `now`; its state writes always land (no contention here)."""
        plan = plan_group(ep.gate(), ep.breaker, ep.limiter, tasks, EPOCH + now, self.rules, self.sim.rng, first_lane)
        if plan.breaker is not None:
            ep.breaker = plan.breaker
        if plan.limiter is not None:
            ep.limiter = plan.limiter
        if plan.disable:
            ep.active = False
        return plan

    def _release(self, ep: Endpoint, expiry: float, count: int, seen: tuple[tuple[float | None, int | None, str | None], ...] = ()) -> None:
        """The batch gives its leases back, with what it saw (the adaptive concurrency limit learns from it), as the worker does."""
        ep.limiter = give_back(ep.limiter, expiry, count, EPOCH + self.sim.now, seen, ep.max_concurrency, self.rules.limiter)

    def _on_done(self, probe: bool) -> Callable[[Task, Outcome], None]:
        def done(task: Task, outcome: Outcome) -> None:
            self._conclude(task, outcome, probe)

        return done

    def track_health(self, ep: Endpoint, outcome: Outcome, decision: Decision, now: float, probe: bool) -> None:
        """The core's breaker, limiter and endpoint changes after an answer, at epoch seconds `now`."""
        transition = breaker_after(ep.breaker, outcome, now, self.rules, was_probe=probe)
        if transition is not None:
            ep.breaker = transition.state
        slowed = limiter_after(ep.limiter, outcome, ep.rate, now, self.rules, was_probe=probe)
        if slowed is not None:
            ep.limiter = slowed
        change = endpoint_after(decision, transition, now, self.rules)
        if change.pause_until is not None:
            ep.paused_until = change.pause_until
        if change.disable:
            ep.active = False

    def _conclude(self, task: Task, outcome: Outcome, probe: bool) -> None:
        sim, ep = self.sim, task.endpoint
        decision = decide(task.attempts, sim.dt(task.created), outcome, sim.dt(), self.policy, sim.rng)
        self.track_health(ep, outcome, decision, EPOCH + sim.now, probe)
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
