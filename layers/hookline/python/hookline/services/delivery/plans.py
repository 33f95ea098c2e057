"""A task's plan for this invocation, as the delivery service carries it."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal

from hookline.core.breaker import Breaker
from hookline.core.models import Delivery, Endpoint, Event
from hookline.core.planning import PlanKind, Step
from hookline.core.ratelimit import Limiter
from hookline.services.delivery.token_leases import Answer


@dataclass(frozen=True)
class Plan:
    """What a task may do in this invocation, decided once per endpoint and batch (see `hookline.core.planning`)."""

    step: Step | None  # None: planning itself failed (see `failed`)
    endpoint: Endpoint | None = None
    breaker: Breaker | None = None  # the breaker as planned (the probe's lease when probing)
    event: Event | None = None  # read for the whole batch at planning, so a task need not read it alone
    delivery: Delivery | None = None  # a fresh task's delivery, read with the bodies (None: not found, or not read)
    delivery_read: bool = False  # whether `delivery` was read: a fresh task then checks it instead of claiming
    failed: str = ""  # planning itself failed (e.g. DynamoDB is down): the task fails and SQS redelivers it
    # The limiter as this batch's grant wrote it, when the endpoint had nothing else in flight: the batch's give-back
    # proposes from it instead of reading the item first (its write is conditional, so a stale guess costs a retry)
    granted: Limiter | None = None
    batch: EndpointBatch | None = None  # the endpoint's tasks in this batch, shared by their plans (None: given back at the batch's end)

    @property
    def kind(self) -> PlanKind | Literal["fail"]:
        return "fail" if self.step is None else self.step.kind

    @property
    def sends(self) -> bool:
        return self.kind in ("go", "probe")


@dataclass(eq=False)
class EndpointBatch:
    """One endpoint's sending tasks in one batch, as they finish. The last of them to finish hands over the
    endpoint's give-back (its concurrency leases, its adaptive limit, its statistics: one write), so it goes out
    beside that task's record instead of after every record of the batch: one AWS call fewer in a row on a task's path.

    A task that fails before it finishes never counts, and the batch's end gives the leases back then
    (hookline.services.delivery.worker.DeliveryWorker.release)."""

    tenant: str
    endpoint_id: str
    expected: int  # the tasks that hold one of the leases below
    expiry: float  # the leases' expiry, as granted
    ceiling: int  # the endpoint's max_concurrency
    granted: Limiter | None  # the grant's state, to propose the give-back from (see Plan.granted)
    answers: list[Answer] = field(default_factory=list)
    handed: bool = False  # the give-back is on its way (`given_back`): the batch's end leaves this endpoint alone
    given_back: Future[None] | None = None
    _finished: int = 0
    _last_seen: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def finished(self, answer: Answer | None) -> bool:
        """One task done with its request (`answer`; None: it sent none after all, e.g. its attempt was claimed by a
        twin). True once, for the last: its caller hands the give-back over."""
        with self._lock:
            if answer is not None:
                self.answers.append(answer)
            self._finished += 1
            if self._finished < self.expected or self._last_seen:
                return False
            self._last_seen = True
            return True

    def hand_over(self, given_back: Future[None]) -> None:
        """The give-back is on its way: the batch's end waits for it instead of writing one."""
        self.given_back = given_back
        self.handed = True
