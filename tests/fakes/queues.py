"""An SQS queue in memory, as hookline.adapters.queues.TaskQueue sends to it: bodies with per-message delays."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core.models import DeliveryTask
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.clock import FakeClock
from tests.fakes.faults import Faults

SQS_MAX_DELAY = 900  # SQS's own limit on DelaySeconds, which the adapter clamps to


@dataclass(frozen=True)
class Sent:
    body: str
    delay: int  # DelaySeconds as SQS got it: clamped to [0, 900]
    sent_at: datetime | None = None  # by the queue's clock, if it has one

    @property
    def task(self) -> DeliveryTask:
        return DeliveryTask.from_message(self.body)

    @property
    def visible_at(self) -> datetime | None:
        return None if self.sent_at is None else self.sent_at + timedelta(seconds=self.delay)


class FakeQueue:
    """TaskQueue and JobQueue (the services' ports).

    Contract, as the adapter's: every body is queued with its own delay (all
    `delay_seconds` without `delays`), clamped to SQS's [0, 900] s; a failed
    enqueue raises DependencyFailed and queues nothing, so repeating it is safe.
    Given a clock, each message remembers when it becomes visible, and `due`
    answers what a consumer could receive by then.
    """

    def __init__(self, clock: FakeClock | None = None):
        self._clock = clock
        self.sent: list[Sent] = []
        self.faults = Faults()
        self._lock = new_lock()

    def enqueue(self, tasks: list[DeliveryTask], delay_seconds: int = 0, delays: list[int] | None = None) -> None:
        self.enqueue_bodies([t.to_message() for t in tasks], delays or [delay_seconds] * len(tasks))

    @atomic
    def enqueue_bodies(self, bodies: list[str], delays: list[int] | None = None) -> None:
        self.faults.check("enqueue")
        waits = delays or [0] * len(bodies)
        at = self._clock() if self._clock else None
        self.sent.extend(Sent(body, min(SQS_MAX_DELAY, max(0, int(wait))), at) for body, wait in zip(bodies, waits, strict=True))

    def tasks(self) -> list[DeliveryTask]:
        return [s.task for s in self.sent]

    def bodies(self) -> list[str]:
        return [s.body for s in self.sent]

    def due(self, now: datetime) -> list[Sent]:
        """The messages visible at `now` (all of them without a clock)."""
        return [s for s in self.sent if s.visible_at is None or s.visible_at <= now]

    @atomic
    def take_due(self, now: datetime) -> list[Sent]:
        """Receive and delete what is visible at `now`."""
        due = self.due(now)
        self.sent = [s for s in self.sent if s not in due]
        return due
