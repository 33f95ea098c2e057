"""A hot endpoint at 5,000 deliveries a second: no item takes more than 500 writes in any second (issue 30, item 3).

Ten delivery processes (each a worker of its own, with its own token lease book and statistics buffer, as ten warm
Lambda instances are) take batches of ten from a stream of 5,000 events a second to one endpoint allowed 5,000 a
second. Time is simulated: a process takes what is due whenever its last batch is done, its requests leave at once
and the receiver answers 200 in 10 ms; a batch keeps its process (and its requests their concurrency slots) for
`BATCH_SECONDS`, so each process sends at most 500 a second, and the ten together about the endpoint's paced rate
(5,000 / 1.1) within its 100 in flight. A deferred task comes back when SQS would hand it out again.

The token leases take several seconds to settle at the endpoint's rate (each holder grows its share from a batch's
worth, and a share given up counts a second longer), and moto spends milliseconds on each of the 500 batches of a
second. So the processes first run WARM_SECONDS over the in-memory fakes of their ports (each held to its DynamoDB
adapter's contract, tests/integration/test_port_contracts.py); then their endpoint, breaker, limiter, statistics and
version-use ports switch to the real DynamoDB adapters on moto (its item answers serialized the fast way,
tests/support/moto_fast.py), the limiter's state copied there, and the run goes on at the full rate for
MEASURED_SECONDS. A botocore hook on the table's client records the key of each write from then on (PutItem,
UpdateItem, DeleteItem, and each item of a BatchWriteItem or TransactWriteItems), in the second it was made. The
stream outruns the paced rate, so the run ends with tasks still queued: none may be lost or sent twice.

The endpoint's delivery log stays the fake of its port, each write counted at the key the DynamoDB adapter writes
(`keys.delivery`): moto spends about 20 ms of CPU on each delivery's record (an UpdateItem of some twenty clauses).
Each delivery is an item of its own, written once per attempt; the endpoint's log spreads over `keys.DELIVERY_SHARDS`
(8) partition keys, each taking about 4,450 / 8 writes a second (up to about 600 in a second). So an item's bound is
500 writes a second (the issue's), a partition key's 1,000 (DynamoDB's). The figures are also those of the scale
model (bench/models/hotkeys.py, the core's rules alone) for the same run.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

import boto3

from bench.models.hotkeys import hot_endpoint_writes
from hookline.adapters.aws import dynamodb_table
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.catalog import VersionUsageRepository
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.adapters.dynamo.stats import StatsRepository
from hookline.core import ids
from hookline.core.clock import epoch_ms, iso
from hookline.core.models import Attempt, Delivery, DeliveryTask, Event, webhook_body
from hookline.core.reports import DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from hookline.core.stats import HOLD_SECONDS, VERSION_USE_HOLD_SECONDS
from hookline.core.versions import BASE_VERSION
from hookline.services.delivery.assemble import assemble
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.worker import DeliveryWorker
from hookline.wiring import topology
from local.resources import create_table
from tests.fakes.catalog import FakeVersionUsage
from tests.fakes.clock import FakeClock
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import FakeScheduler
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.events import FakeEventStore
from tests.fakes.outside import FakeSender, FakeStats, RecordingNotify, Request
from tests.fakes.randomness import seeded_random
from tests.fakes.state import FakeEndpointStateStore
from tests.support.moto_fast import item_answers_as_json

TENANT = "acme"
RATE = 5000  # the endpoint's rate limit, and the events offered a second
PACED = RATE / 1.1  # what its limiter lets out: the pacing margin (hookline.core.ratelimit.LimiterConfig.pacing_margin)
PROCESSES = 10  # warm delivery instances
BATCH = 10
RECEIVER_MS = 10
BATCH_SECONDS = 0.02  # a batch's time in its process: the receiver's 10 ms and the AWS calls around it
WARM_SECONDS = 9  # over the fakes, until the leases have settled
MEASURED_SECONDS = 2  # then over moto, events still offered at RATE
ITEM_BOUND = 500  # writes a second on any one item: the bound
PARTITION_BOUND = 1000  # writes a second on any one partition key: DynamoDB's limit
_ONE_ITEM = {"PutItem": "Item", "UpdateItem": "Key", "DeleteItem": "Key"}


@dataclass
class WriteLog:
    """Every write's key by simulated second from `origin`: (second, pk, sk) -> writes."""

    clock: FakeClock
    origin: float
    counts: Counter[tuple[int, str, str]] = field(default_factory=Counter)

    def add(self, pk: str, sk: str) -> None:
        if self.clock.timestamp() >= self.origin:
            self.counts[(math.floor(self.clock.timestamp() - self.origin), pk, sk)] += 1

    def hook(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        """botocore's before-call on the table's client: the keys the request writes, from its JSON body."""
        body = json.loads(params["body"] or b"{}")
        operation = model.name
        if operation in _ONE_ITEM:
            written = [body[_ONE_ITEM[operation]]]
        elif operation == "BatchWriteItem":
            written = [r.get("PutRequest", {}).get("Item") or r["DeleteRequest"]["Key"] for reqs in body["RequestItems"].values() for r in reqs]
        elif operation == "TransactWriteItems":
            written = [op.get("Key") or op["Item"] for entry in body["TransactItems"] for op in entry.values()]
        else:
            return
        for key in written:
            self.add(key[keys.PK]["S"], key[keys.SK]["S"])

    def most_per_item(self) -> tuple[int, tuple[str, str]]:
        (_, pk, sk), n = self.counts.most_common(1)[0]
        return n, (pk, sk)

    def most_per_partition(self) -> tuple[int, str]:
        per: Counter[tuple[int, str]] = Counter()
        for (second, pk, _), n in self.counts.items():
            per[(second, pk)] += n
        (_, pk), n = per.most_common(1)[0]
        return n, pk

    def most_on_one_item(self, second: int, kind: str) -> int:
        """The most writes in `second` on one item whose partition key starts with `kind`#."""
        return max((n for (at, pk, _), n in self.counts.items() if at == second and pk.startswith(f"{kind}#")), default=0)

    def most_by_kind(self) -> dict[str, int]:
        """The most writes in any second on one item of each kind (its partition key's prefix)."""
        most: dict[str, int] = {}
        for (_, pk, _), n in self.counts.items():
            kind = pk.split("#", 1)[0]
            most[kind] = max(most.get(kind, 0), n)
        return most


class CountedDeliveryLog(FakeEventStore):
    """The delivery log's fake, each write counted at the key the DynamoDB adapter writes (keys.delivery): here a
    first attempt that succeeds (one UpdateItem of the delivery's item) or a claim. The test checks that nothing else
    happened (every report a success or a deferral)."""

    def __init__(self, log: Callable[[str, str], None]) -> None:
        super().__init__()
        self._log = log

    def _count(self, tenant: str, event_id: str, delivery_id: str) -> None:
        key = keys.delivery(tenant, event_id, delivery_id)
        self._log(str(key[keys.PK]), str(key[keys.SK]))

    def claim_attempt(self, tenant: str, event_id: str, delivery_id: str, *args: Any, **kwargs: Any) -> Any:
        self._count(tenant, event_id, delivery_id)
        return super().claim_attempt(tenant, event_id, delivery_id, *args, **kwargs)

    def record_attempt(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int) -> None:
        self._count(delivery.tenant, delivery.event_id, delivery.id)
        super().record_attempt(delivery, attempt, new_status, now_iso, expires_at)


class Switched:
    """A port whose calls go to `target`: its in-memory fake while the leases settle, then its DynamoDB adapter."""

    def __init__(self, target: object) -> None:
        self.target = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


@dataclass
class World:
    clock: FakeClock
    log: WriteLog
    events: CountedDeliveryLog
    states: Switched
    endpoints: Switched
    stats: Switched
    usage: Switched
    warm_stats: FakeStats
    warm_usage: FakeVersionUsage
    scheduler: FakeScheduler = field(default_factory=FakeScheduler)
    sent: list[tuple[float, str]] = field(default_factory=list)  # (when, webhook id) of each request the receiver got
    slept: list[float] = field(default_factory=list)
    workers: list[DeliveryWorker] = field(default_factory=list)

    def receiver(self, request: Request) -> HttpResult:
        self.sent.append((self.clock.timestamp(), request.headers["webhook-id"]))
        return HttpResult(200, None, RECEIVER_MS, body="ok")


def _world(settings: Settings) -> World:
    clock = FakeClock()
    log = WriteLog(clock, clock.timestamp() + WARM_SECONDS)
    endpoints = FakeEndpointStore()
    states = FakeEndpointStateStore(endpoints)
    stats, usage = FakeStats(states), FakeVersionUsage()
    world = World(clock, log, CountedDeliveryLog(log.add), Switched(states), Switched(endpoints), Switched(stats), Switched(usage), stats, usage)
    http = FakeSender(world.receiver)
    world.workers = [
        assemble(  # as the container assembles it: each its own token lease book and statistics buffer
            events=world.events,
            endpoints=cast(Any, world.endpoints),
            states=cast(Any, world.states),
            sender=http,
            scheduler=world.scheduler,
            notify=RecordingNotify(),
            settings=settings,
            clock=clock,
            sleep=world.slept.append,  # paced by leases, nothing waits: a wait would be a send time the run got wrong
            rng=seeded_random(n),
            lease_seconds=topology.CLAIM_LEASE_SECONDS,
            stats=cast(Any, world.stats),
            usage=cast(Any, world.usage),
        )
        for n in range(PROCESSES)
    ]
    return world


def _to_moto(world: World, table: Any, endpoint_id: str, settings: Settings) -> None:
    """The state ports switch to the DynamoDB adapters, the endpoint and its limiter's state as the fakes hold them."""
    ttl = topology.TABLE.ttl_attribute
    fake_states = cast(FakeEndpointStateStore, world.states.target)
    endpoint_, _breaker, limiter = fake_states.load(TENANT, endpoint_id)
    assert endpoint_ is not None
    EndpointRepository(table).create(endpoint_, most=100)
    assert EndpointStateRepository(table).save_limiter(TENANT, endpoint_id, limiter, 0)
    assert not fake_states.breakers  # nothing failed: no breaker to copy
    world.states.target, world.endpoints.target = EndpointStateRepository(table), EndpointRepository(table)
    world.stats.target = StatsRepository(table, ttl, settings.retention_days)
    world.usage.target = VersionUsageRepository(table, ttl, settings.retention_days)
    table.meta.client.meta.events.register("before-call.dynamodb.*", world.log.hook)


def _offer(events: FakeEventStore, endpoint_id: str, clock: FakeClock, count: int) -> list[tuple[float, DeliveryTask]]:
    """`count` events at RATE a second from now, each with one delivery to the endpoint at the default version; the
    tasks as ingest queues them (fresh), with when each is queued."""
    start, offered = clock.now, []
    for n in range(count):
        at = start + timedelta(seconds=n / RATE)
        created = iso(at)
        event_id = ids.derived_id(ids.EVENT, TENANT, str(n))  # ids as real ones, the same on every run
        delivery_id = ids.delivery_id(TENANT, event_id, endpoint_id, epoch_ms(at))
        body = webhook_body(event_id, "order.updated", created, {"n": n})
        event = Event(id=event_id, tenant=TENANT, type="order.updated", created_at=created, body=body, request_hash=str(n))
        events.add(event, Delivery(delivery_id, TENANT, event_id, endpoint_id, created_at=created, updated_at=created, version=BASE_VERSION))
        offered.append((at.timestamp(), DeliveryTask(TENANT, event_id, delivery_id, endpoint_id, fresh=True, version=BASE_VERSION)))
    return offered


Batch = tuple[dict[DeliveryTask, Plan], list[DeliveryReport]]


def _run(world: World, offered: list[tuple[float, DeliveryTask]], switch: Callable[[], None]) -> tuple[list[DeliveryReport], list[DeliveryTask]]:
    """Each process takes up to BATCH due tasks whenever its last batch is done, and releases the batch BATCH_SECONDS
    later; a deferred task is queued again as SQS would hand it out (a delay in whole seconds). `switch` runs
    WARM_SECONDS in; MEASURED_SECONDS later the processes take nothing more and end their batches. Returns every
    report, and the tasks still queued."""
    clock, seq = world.clock, itertools.count()
    switch_at = clock.timestamp() + WARM_SECONDS
    until = switch_at + MEASURED_SECONDS
    queue = [(at, next(seq), task) for at, task in offered]
    heapq.heapify(queue)
    agenda: list[tuple[float, int, int, Batch | None]] = [(clock.timestamp(), next(seq), n, None) for n in range(PROCESSES)]
    reports: list[DeliveryReport] = []
    requeued = 0
    while agenda:
        at, _, n, batch = heapq.heappop(agenda)
        clock.advance(max(0.0, at - clock.timestamp()))  # (the clock keeps microseconds)
        if at >= switch_at > 0:
            switch()
            switch_at = 0
        worker = world.workers[n]
        if batch is not None:  # the batch is done: it gives back what it holds and writes what is due
            worker.release(batch[0].values(), batch[1])
            heapq.heappush(agenda, (at, next(seq), n, None))
        elif at >= until or not queue:
            continue
        elif queue[0][0] <= at:
            tasks = [heapq.heappop(queue)[2] for _ in range(BATCH) if queue and queue[0][0] <= at]
            plans = worker.plan(tasks, first_lane=True)
            done = [worker.deliver(t, plans[t]) for t in tasks]
            reports += done
            for task, delay, _ in world.scheduler.scheduled[requeued:]:
                heapq.heappush(queue, (at + math.ceil(delay), next(seq), task))
            requeued = len(world.scheduler.scheduled)
            heapq.heappush(agenda, (at + BATCH_SECONDS, next(seq), n, (plans, done)))
        else:  # nothing due: come back when there is
            heapq.heappush(agenda, (queue[0][0], next(seq), n, None))
    return reports, [task for _, _, task in queue]


def test_a_hot_endpoint_at_5000_a_second_writes_no_item_more_than_500_times_a_second(aws: None) -> None:
    # Given one endpoint allowed 5,000 requests a second, and ten warm delivery processes
    settings = Settings(initial_concurrency=100)  # its adaptive limit at its ceiling already: this is about the writes
    world = _world(settings)
    ep = cast(FakeEndpointStore, world.endpoints.target).add(endpoint(rate_limit_per_second=RATE, max_concurrency=100))
    table = dynamodb_table(create_table(boto3.client("dynamodb"), topology.TABLE, "hot"))
    # And events queued at 5,000 a second
    offered = _offer(world.events, ep.id, world.clock, RATE * (WARM_SECONDS + MEASURED_SECONDS))

    # When the processes take them in batches of ten as they come, over the fakes until their leases have settled,
    # then over DynamoDB on moto
    with item_answers_as_json():
        reports, waiting = _run(world, offered, lambda: _to_moto(world, table, ep.id, settings))

    # Then no event was delivered twice and none was lost (each delivered, or still queued), with no failure and
    # nothing waiting in a process
    delivered = [webhook for _, webhook in world.sent]
    assert len(delivered) == len(set(delivered)) == sum(1 for r in reports if r.outcome == "succeeded")
    assert sorted(delivered + [task.event_id for task in waiting]) == sorted(task.event_id for _, task in offered)
    assert {r.outcome for r in reports} == {"succeeded", "deferred"}
    assert not any(world.slept)
    # And never more than 5,000 sent in a second; the seconds over moto near the paced rate: it ran hot
    per_second = Counter(math.floor(at - world.log.origin) for at, _ in world.sent)
    assert max(per_second.values()) <= RATE
    assert all(per_second[s] >= 0.95 * PACED for s in range(MEASURED_SECONDS)), sorted(per_second.items())
    # And over moto no item took more than 500 writes in any second, no partition key more than 1,000
    item_most, item = world.log.most_per_item()
    partition_most, partition = world.log.most_per_partition()
    assert item_most <= ITEM_BOUND, (item, world.log.most_by_kind())
    assert partition_most <= PARTITION_BOUND, (partition, partition_most)
    # And the seconds over moto are the scale model's for the same run (bench/models/hotkeys.py: the core's rules alone)
    model = hot_endpoint_writes(
        RATE, BATCH, PROCESSES, batch_seconds=BATCH_SECONDS, receiver_seconds=RECEIVER_MS / 1000, seconds=WARM_SECONDS + MEASURED_SECONDS
    )
    for second in range(MEASURED_SECONDS):
        modelled = model.seconds[WARM_SECONDS + second]
        assert abs(per_second[second] - modelled["sent"]) <= 0.02 * PACED, (second, per_second[second], modelled)
        for kind, key in (("LIM", "limiter"), ("STAT", "statistics"), ("VUSE", "version_usage")):
            assert abs(world.log.most_on_one_item(second, kind) - modelled.get(key, 0)) <= 0.1 * modelled.get(key, 0) + 2, (second, kind, modelled)
    # And the statistics and version use count every attempt once: what a process held when the stream ended is written
    # by its next batch once due
    world.clock.advance(max(HOLD_SECONDS, VERSION_USE_HOLD_SECONDS))
    for worker in world.workers:
        worker.release([], [])  # a batch of another endpoint's tasks, as far as this endpoint is concerned
    since, until = world.clock() - timedelta(hours=1), world.clock()
    # (those the fakes took while the leases settled: added there; what the limiter carried then was copied to moto)
    warm = sum(counts.get("attempts", 0) for counts in world.warm_stats.slots.values())
    assert warm + StatsRepository(table).window(TENANT, ep.id, since, until)["attempts"] == len(delivered)
    warm = sum(world.warm_usage.days[(TENANT, BASE_VERSION)].values())
    assert warm + VersionUsageRepository(table).usage(TENANT, BASE_VERSION, since.strftime("%Y-%m-%d"))[0] == len(delivered)
