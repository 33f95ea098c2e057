"""A DeliveryWorker wired to the in-memory fakes: the same assembly the container makes, minus AWS.

The delivery ports are served by the shared fakes (the event store is the
DeliveryLog, the endpoint store the EndpointControl, the state store the
EndpointStates); only the scheduler and replay progress are delivery's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime

from hookline.core.models import DeliveryTask
from hookline.core.settings import Settings
from hookline.core.waits import how_to_wait, waiting
from hookline.services.delivery.assemble import assemble
from hookline.services.delivery.emails import CustomerEmails
from hookline.services.delivery.ports import VersionUsageSink
from hookline.services.delivery.worker import DeliveryWorker
from tests.fakes.clock import FakeClock
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.events import FakeEventStore
from tests.fakes.outside import FakeSender, FakeStats, RecordingNotify
from tests.fakes.randomness import seeded_random
from tests.fakes.state import FakeEndpointStateStore
from tests.fakes.waits import FakeWaitNotes

SQS_MAX_DELAY_SECONDS = 900


class FakeScheduler:
    """Scheduler: records what was scheduled, dead-lettered and set aside; the path as the adapter picks it.

    Like the adapter, a task that waits in Step Functions is noted first (in `notes`) and carries its due
    second and claims on arrival; `waits` holds those waiting tasks, as the state machine would put them back.
    `arrived` drops their notes. (A deferral up to two hours hops through SQS, as the adapter's does; a retry up to
    `hops_up_to_seconds` hops too, carrying its due time, 0 by default here so the tests of Step Functions' waits
    see them; `hopped` holds what `hop` queued again, with its delay.)
    """

    def __init__(self, sqs_max_delay_seconds: int = SQS_MAX_DELAY_SECONDS, notes: FakeWaitNotes | None = None, hops_up_to_seconds: int = 0) -> None:
        self.sqs_max_delay_seconds = sqs_max_delay_seconds
        self.hops_up_to_seconds = hops_up_to_seconds
        self.hopped: list[tuple[DeliveryTask, int]] = []
        self.notes = notes if notes is not None else FakeWaitNotes()
        self.scheduled: list[tuple[DeliveryTask, float, bool]] = []  # (task, delay, deferred)
        self.waits: list[DeliveryTask] = []  # the tasks that went to wait in Step Functions, as they wait
        self.dead: list[tuple[DeliveryTask, str, dict[str, str]]] = []
        self.aside: list[tuple[str, str]] = []

    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str:
        self.scheduled.append((task, delay_seconds, deferred))
        plan = how_to_wait(delay_seconds, now.timestamp(), self.sqs_max_delay_seconds, self.hops_up_to_seconds, deferred)
        if plan.path != "stepfunctions":
            return plan.path
        waits = waiting(task, math.ceil(now.timestamp() + delay_seconds))
        self.notes.open(waits)
        self.waits.append(waits)
        return "stepfunctions"

    def hop(self, tasks: list[DeliveryTask], delays: list[int]) -> None:
        self.hopped += list(zip(tasks, delays, strict=True))

    def arrived(self, tasks: list[DeliveryTask]) -> None:
        self.notes.close([t for t in tasks if t.wait_until])

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
    give_backs_failed: list[int]  # one entry per count of the LeasesNotGivenBack metric


def delivery_rig(
    http: FakeSender | None = None,
    settings: Settings | None = None,
    seed: int = 7,
    lease_seconds: int = 120,
    emails: CustomerEmails | None = None,
    usage: VersionUsageSink | None = None,
    hand_on_seconds: float = 0.0,
) -> DeliveryRig:
    clock = FakeClock()
    endpoints = FakeEndpointStore()
    states = FakeEndpointStateStore(endpoints)
    events = FakeEventStore()
    http = http or FakeSender()
    scheduler, notify, stats, replays = FakeScheduler(), RecordingNotify(), FakeStats(states), FakeReplayProgress()
    give_backs_failed: list[int] = []
    if emails is not None and emails.outcomes is None:  # each email's outcome kept on the endpoint, as the container wires it
        emails = replace(emails, outcomes=endpoints, clock=clock)
    worker = assemble(
        events=events,
        endpoints=endpoints,
        states=states,
        sender=http,
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
        usage=usage,
        hand_on_seconds=hand_on_seconds,
        count_give_back_failure=lambda: give_backs_failed.append(1),
    )
    return DeliveryRig(worker, clock, endpoints, states, events, http, scheduler, notify, stats, replays, give_backs_failed)
