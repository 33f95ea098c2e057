"""A task's plan for this invocation, as the delivery service carries it."""

from __future__ import annotations

import threading
from collections import deque
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

    A lease is a slot, not a request (hookline.core.planning.under_lease): the batch's tasks the limiter deferred
    wait for its leases (`waiters`, each on its own thread), and a task whose request under a lease ends with a 2xx
    offers that lease to the first of them (`finished` with `offer`), which takes a send time for it and sends. A
    lease ends when its request ends with no offer taken; the last lease to end hands over the give-back, and the
    tasks still waiting are deferred as planned.

    A task that fails between its claim and its lease's end still ends its lease (so no task waits for it in vain);
    one that fails before it holds one (planning, its wait) leaves the give-back to the batch's end
    (hookline.services.delivery.worker.DeliveryWorker.release), which writes one unless it was handed over."""

    tenant: str
    endpoint_id: str
    expected: int  # the tasks that hold one of the leases below
    expiry: float  # the leases' expiry, as granted
    ceiling: int  # the endpoint's max_concurrency
    granted: Limiter | None  # the grant's state, to propose the give-back from (see Plan.granted)
    answers: list[Answer] = field(default_factory=list)
    handed: bool = False  # the give-back is on its way (`given_back`): the batch's end leaves this endpoint alone
    given_back: Future[None] | None = None
    waiters: int = 0  # the batch's tasks to the endpoint waiting for one of its leases, not yet answered
    hand_on_until: float = 0.0  # epoch seconds: no lease is offered after this (the invocation must end in time)
    limiter: Limiter | None = None  # the state to propose the next hand-on from: the grant's (`granted`), then each hand-on's
    _finished: int = 0
    _last_seen: bool = False
    _offers: deque[Answer] = field(default_factory=deque)  # leases offered, by the answer their request ended with
    _changed: threading.Condition = field(default_factory=threading.Condition)  # an offer made, or the last lease ended

    def finished(self, answer: Answer | None, offer: bool = False, now: float = 0.0) -> bool:
        """One task done with its request (`answer`; None: it sent none after all, e.g. its attempt was claimed by a
        twin). With `offer` (its answer lets the lease go on) and a task waiting, before `hand_on_until`, the lease
        goes to that task and stays out. True once, for the last lease to end: its caller hands the give-back over."""
        with self._changed:
            if answer is not None:
                self.answers.append(answer)
            if offer and answer is not None and self.waiters > len(self._offers) and now < self.hand_on_until:
                self._offers.append(answer)
                self._changed.notify()
                return False
            return self._ended()

    def declined(self) -> bool:
        """A waiting task was offered a lease and could not use it (hookline.core.planning.under_lease said no): the
        lease ends. True once, for the last lease to end: its caller hands the give-back over."""
        with self._changed:
            return self._ended()

    def wait_for_lease(self, timeout: float) -> Answer | None:
        """For a waiting task: the answer of the request whose lease it is offered, once one is; None when every
        lease has ended first, or after `timeout` seconds (no offer comes after `hand_on_until`; a holder that died
        without ending its lease leaves the batch's end to give it back): the task is then deferred as planned.
        Each waiting task asks once."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._offers) or self._last_seen, timeout=max(0.0, timeout))
            self.waiters -= 1
            return self._offers.popleft() if self._offers else None

    def _ended(self) -> bool:
        self._finished += 1
        if self._finished < self.expected or self._last_seen:
            return False
        self._last_seen = True
        self._changed.notify_all()  # the tasks still waiting: no lease will come
        return True

    def hand_over(self, given_back: Future[None]) -> None:
        """The give-back is on its way: the batch's end waits for it instead of writing one."""
        self.given_back = given_back
        self.handed = True
