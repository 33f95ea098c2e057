"""A DeliveryWorker wired to the in-memory fakes: the same assembly the container makes, minus AWS.

The delivery ports are served by the shared fakes (the event store is the
DeliveryLog, the endpoint store the EndpointControl, the state store the
EndpointStates); only the scheduler and replay progress are delivery's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from hookline.core.models import DeliveryTask
from hookline.core.settings import Settings
from hookline.services.delivery.assemble import assemble
from hookline.services.delivery.emails import CustomerEmails
from hookline.services.delivery.worker import DeliveryWorker
from tests.fakes.clock import FakeClock
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.events import FakeEventStore
from tests.fakes.outside import FakeSender, FakeStats, RecordingNotify
from tests.fakes.randomness import seeded_random
from tests.fakes.state import FakeEndpointStateStore

SQS_MAX_DELAY_SECONDS = 900


class FakeScheduler:
    """Scheduler: records what was scheduled, dead-lettered and set aside; the path as the adapter picks it."""

    def __init__(self, sqs_max_delay_seconds: int = SQS_MAX_DELAY_SECONDS) -> None:
        self.sqs_max_delay_seconds = sqs_max_delay_seconds
        self.scheduled: list[tuple[DeliveryTask, float, bool]] = []  # (task, delay, deferred)
        self.dead: list[tuple[DeliveryTask, str, dict[str, str]]] = []
        self.aside: list[tuple[str, str]] = []

    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str:
        self.scheduled.append((task, delay_seconds, deferred))
        return "sqs" if delay_seconds <= self.sqs_max_delay_seconds else "stepfunctions"

    def dead_letter(self, task: DeliveryTask, reason: str, attributes: dict[str, str]) -> None:
        self.dead.append((task, reason, attributes))

    def set_aside(self, body: str, reason: str) -> None:
        self.aside.append((body, reason))


@dataclass
class FakeReplayProgress:
    counted: list[tuple[str, str, str]] = field(default_factory=list)  # (tenant, replay id, delivered | failed)

    def count(self, tenant: str, replay_id: str, outcome: str) -> None:
        self.counted.append((tenant, replay_id, outcome))


@dataclass
class DeliveryRig:
    worker: DeliveryWorker
    clock: FakeClock
    endpoints: FakeEndpointStore
    states: FakeEndpointStateStore
    events: FakeEventStore
    http: FakeSender
    scheduler: FakeScheduler
    notify: RecordingNotify
    stats: FakeStats
    replays: FakeReplayProgress


def delivery_rig(
    http: FakeSender | None = None, settings: Settings | None = None, seed: int = 7, lease_seconds: int = 120, emails: CustomerEmails | None = None
) -> DeliveryRig:
    clock = FakeClock()
    endpoints = FakeEndpointStore()
    states = FakeEndpointStateStore(endpoints)
    events = FakeEventStore()
    http = http or FakeSender()
    scheduler, notify, stats, replays = FakeScheduler(), RecordingNotify(), FakeStats(), FakeReplayProgress()
    worker = assemble(
        events=events,
        endpoints=endpoints,
        states=states,
        http=http,
        scheduler=scheduler,
        notify=notify,
        settings=settings or Settings(),
        clock=clock,
        sleep=clock.sleep,
        rng=seeded_random(seed),
        lease_seconds=lease_seconds,
        replays=replays,
        stats=stats,
        emails=emails,
    )
    return DeliveryRig(worker, clock, endpoints, states, events, http, scheduler, notify, stats, replays)
