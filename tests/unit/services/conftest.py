"""The services wired to in-memory fakes: no AWS, no network, no real time."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from hookline.core import ids
from hookline.core.config import endpoint_rules
from hookline.core.jobs import BROADCAST_JOB, DELETE_CUSTOMER_ENDPOINTS, DRAIN_DLQ, JOB_MESSAGE, REPLAY_WINDOW, REQUEUE_PAUSED
from hookline.core.models import Endpoint
from hookline.core.settings import Settings
from hookline.services.broadcast import BroadcastFanout, BroadcastService
from hookline.services.bulk import CustomerEndpointsDeletion, PausedRequeue
from hookline.services.catalog import CatalogService
from hookline.services.customers import CustomerService
from hookline.services.drain import DlqDrain
from hookline.services.endpoints import EndpointDeps, EndpointService
from hookline.services.events import EventService
from hookline.services.jobs import JobRunner, JobStepEarly
from hookline.services.ports import JobKind
from hookline.services.replay import ReplayService, WindowReplay
from hookline.services.sweeper import Sweeper
from hookline.wiring.topology import CLAIM_LEASE_SECONDS
from tests.fakes.catalog import FakeCatalog, FakeVersionUsage
from tests.fakes.clock import FakeClock
from tests.fakes.customers import FakeCustomerStore
from tests.fakes.deadletters import FakeDeadLetterQueue
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.events import FakeEventStore
from tests.fakes.jobs import FakeJobStore
from tests.fakes.outside import FakeSender, FakeStats, RecordingNotify
from tests.fakes.queues import FakeQueue, Sent
from tests.fakes.replays import FakeReplayStore
from tests.fakes.sealer import FakeSealer
from tests.fakes.state import FakeEndpointStateStore
from tests.fakes.unqueued import SHARDS, FakeUnqueuedNotes


class _NoSentTypes:
    def list(self, tenant: str) -> dict[str, list[str]]:
        return {"items": []}


@dataclass
class World:
    """One tenant's outside world, in memory, and the services over it."""

    clock: FakeClock
    settings: Settings
    endpoints: FakeEndpointStore
    states: FakeEndpointStateStore
    events: FakeEventStore
    replays: FakeReplayStore
    delivery_queue: FakeQueue
    retry_queue: FakeQueue
    jobs: FakeQueue
    sender: FakeSender
    notify: RecordingNotify
    stats: FakeStats
    customers: FakeCustomerStore
    catalog: FakeCatalog
    usage: FakeVersionUsage
    job_store: FakeJobStore
    unqueued: FakeUnqueuedNotes
    dead_letters: FakeDeadLetterQueue
    sealer: FakeSealer = field(default_factory=FakeSealer)

    def event_service(self) -> EventService:
        return EventService(
            self.events,
            self.endpoints,
            self.customers,
            self.delivery_queue,
            self.settings,
            self.clock,
            catalog=self.catalog,
            retry_queue=self.retry_queue,
            unqueued=self.unqueued,
        )

    def sweeper(self) -> Sweeper:
        return Sweeper(self.unqueued, self.event_service(), self.clock, self.settings.sweep_grace_seconds, SHARDS, self.job_runner())

    def endpoint_service(self) -> EndpointService:
        deps = EndpointDeps(states=self.states, events=self.events, sender=self.sender, jobs=self.job_runner(), notify=self.notify)
        return EndpointService(
            self.endpoints,
            self.customers,
            self.settings,
            self.clock,
            deps,
            self.catalog,
            endpoint_rules(self.settings, CLAIM_LEASE_SECONDS),
            stats_reader=self.stats,
            sealer=self.sealer,
        )

    def catalog_service(self) -> CatalogService:
        return CatalogService(self.catalog, self.endpoints, self.usage, _NoSentTypes(), self.clock)

    def customer_service(self) -> CustomerService:
        return CustomerService(self.customers, self.endpoints, self.stats, self.job_runner(), self.clock)

    def job_runner(self) -> JobRunner:
        """Bulk jobs over the fakes; their steps go on `jobs`, as the job queue (run them with `run_jobs`)."""
        kinds: dict[str, JobKind] = {
            REQUEUE_PAUSED: PausedRequeue(self.endpoints, self.events, self.retry_queue),
            DELETE_CUSTOMER_ENDPOINTS: CustomerEndpointsDeletion(self.endpoints),
            BROADCAST_JOB: BroadcastFanout(self.events, self.endpoints, self.delivery_queue, self.settings.retention_days),
            REPLAY_WINDOW: WindowReplay(self.replays, self.events, self.endpoints, self.retry_queue),
            DRAIN_DLQ: DlqDrain(self.dead_letters, self.retry_queue),
        }
        return JobRunner(self.job_store, self.jobs, kinds, self.clock, self.settings.retention_days)

    def replay_service(self) -> ReplayService:
        return ReplayService(self.replays, self.endpoints, self.job_runner(), self.settings, self.clock)

    def broadcast_service(self) -> BroadcastService:
        return BroadcastService(self.events, self.job_runner(), self.settings, self.clock, self.catalog, self.endpoints)

    def run_jobs(self, max_steps: int = 1000) -> int:
        """What the jobs function does with the job queue's bulk-job steps: run each (delays ignored), until none is left."""
        runner, ran = self.job_runner(), 0
        while self.jobs.sent and ran < max_steps:
            sent = self.jobs.sent.pop(0)
            message = json.loads(sent.body)
            assert message["kind"] == JOB_MESSAGE, message
            try:
                runner.step(message["tenant"], message["job_id"], message.get("step"))
            except JobStepEarly:
                self.jobs.sent.append(sent)  # as SQS does after the visibility timeout: handed out again later
            ran += 1
        return ran

    def run_jobs_on_clock(self, seconds: float) -> list[Sent]:
        """The job queue's consumer on the fake clock: each step when it becomes visible (one that came early goes back,
        as SQS hands it out again), second by second for `seconds`; the steps run."""
        runner, ran = self.job_runner(), []
        deadline = self.clock() + timedelta(seconds=seconds)
        while self.clock() <= deadline:
            for sent in self.jobs.take_due(self.clock()):
                message = json.loads(sent.body)
                try:
                    runner.step(message["tenant"], message["job_id"], message["step"])
                except JobStepEarly:
                    self.jobs.sent.append(sent)
                ran.append(sent)
            self.clock.advance(1)
        return ran

    def add_endpoint(self, tenant: str = "acme", **fields: object) -> Endpoint:
        """An endpoint as if created through the API at the clock's time."""
        stamp = self.clock().strftime("%Y-%m-%dT%H:%M:%S.000Z")
        ms = int(self.clock.timestamp() * 1000)
        base: dict[str, object] = {
            "url": "https://example.com/hook",
            "secret": "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0",
            "created_at": stamp,
            "updated_at": stamp,
        }
        return self.endpoints.add(Endpoint(id=ids.new_id(ids.ENDPOINT, ms), tenant=tenant, **(base | fields)))  # type: ignore[arg-type]


@pytest.fixture
def world() -> World:
    clock = FakeClock()
    endpoints = FakeEndpointStore()
    states = FakeEndpointStateStore(endpoints)
    return World(
        clock=clock,
        settings=Settings(),
        endpoints=endpoints,
        states=states,
        events=FakeEventStore(),
        replays=FakeReplayStore(),
        delivery_queue=FakeQueue(clock),
        retry_queue=FakeQueue(clock),
        jobs=FakeQueue(clock),
        sender=FakeSender(),
        notify=RecordingNotify(),
        stats=FakeStats(states),
        customers=FakeCustomerStore(),
        catalog=FakeCatalog(),
        usage=FakeVersionUsage(),
        job_store=FakeJobStore(),
        unqueued=FakeUnqueuedNotes(),
        dead_letters=FakeDeadLetterQueue(clock),
    )
