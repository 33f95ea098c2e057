"""A lease is a slot, not a request (hookline.core.planning.under_lease): a batch's tasks the limiter deferred wait,
each on its own thread as the handler runs them, for one of the batch's leases, and go under it once a request under
it ends with a 2xx (hookline.services.delivery.plans.EndpointBatch). The endpoint never has more requests in flight
than the leases granted, and the leases still go back in one write."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from hookline.core.models import DeliveryTask
from hookline.core.ratelimit import LimiterConfig, in_flight
from hookline.core.reports import DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from hookline.services.delivery.health import HealthTracker
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.outside import Request
from tests.unit.services.pipeline import Pipeline

LIMIT = 2  # the endpoint's max_concurrency (under 8, so one batch may take all of it)
RATE = 50.0  # its rate: under HOOKLINE_TOKEN_LEASE_MIN_RATE, so paced per batch
PACING_MARGIN = LimiterConfig.pacing_margin
TASKS = 6
DEADLINE_SECONDS = 5.0  # a task's outcome comes within milliseconds; a lease left open would hold one for the whole window
# Its adaptive limit at that ceiling from the start: a lease is handed on only there (hookline.core.ratelimit.pace)
AT_CEILING = replace(Settings(), initial_concurrency=LIMIT)


def _rig(hand_on_seconds: float) -> DeliveryRig:
    return delivery_rig(settings=AT_CEILING, hand_on_seconds=hand_on_seconds)


class Receiver:
    """Answers `status` after a short real wait, counting the requests it holds at once."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.now = self.most = self.count = 0
        self._lock = threading.Lock()

    def __call__(self, _request: Request) -> HttpResult:
        with self._lock:
            self.now += 1
            self.count += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)
        with self._lock:
            self.now -= 1
        return HttpResult(self.status, None, 20)


def _run(rig: DeliveryRig, receiver: Receiver) -> tuple[list[DeliveryTask], list[DeliveryReport]]:
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint(max_concurrency=LIMIT, rate_limit_per_second=RATE))
    tasks = [pipe.event(ep, n) for n in range(TASKS)]
    rig.http.answer = receiver
    plans = rig.worker.plan(tasks)
    assert sum(1 for p in plans.values() if p.sends) == LIMIT  # the grant: the rest deferred by the limiter
    with ThreadPoolExecutor(max_workers=TASKS) as pool:  # one thread a task, as the handler runs a batch
        reports = list(pool.map(lambda t: rig.worker.deliver(t, plans[t]), tasks))
    rig.worker.release(plans.values(), reports)
    return tasks, reports


def _limiter_writes(rig: DeliveryRig) -> int:
    return sum(1 for kind, _, _ in rig.states.writes if kind == "limiter")


def test_the_tasks_deferred_by_the_limit_go_under_the_batchs_leases() -> None:
    rig = _rig(30.0)
    receiver = Receiver()
    start = rig.clock.timestamp()
    _, reports = _run(rig, receiver)
    assert [r.outcome for r in reports] == ["succeeded"] * TASKS  # none deferred
    assert receiver.count == TASKS
    assert receiver.most <= LIMIT  # never more in flight than the leases granted
    # The grant, a send time for each task under a lease handed on, and one give-back of both leases
    assert _limiter_writes(rig) == 1 + (TASKS - LIMIT) + 1
    limiter = rig.states.limiter("acme", "ep_01")
    assert in_flight(limiter, rig.clock.timestamp()) == 0
    assert limiter.carried.as_dict()["attempts"] == TASKS
    # Each send under a lease handed on took its own send time: the pace moved on one interval a request
    assert limiter.tat >= start + TASKS * (1 + PACING_MARGIN) / RATE - 1e-6


def test_a_failed_answer_hands_no_lease_on() -> None:
    rig = _rig(30.0)
    receiver = Receiver(503)
    _, reports = _run(rig, receiver)
    assert receiver.count == LIMIT  # only the granted ones sent: a failing receiver gets no more from this batch
    assert sorted(r.outcome for r in reports) == ["deferred"] * (TASKS - LIMIT) + ["retrying"] * LIMIT
    assert in_flight(rig.states.limiter("acme", "ep_01"), rig.clock.timestamp()) == 0


def test_without_a_hand_on_window_the_limit_defers_as_before() -> None:
    rig = _rig(0.0)
    receiver = Receiver()
    _, reports = _run(rig, receiver)
    assert receiver.count == LIMIT
    assert sorted(r.outcome for r in reports) == ["deferred"] * (TASKS - LIMIT) + ["succeeded"] * LIMIT
    assert _limiter_writes(rig) == 2  # the grant and the give-back


def test_a_task_that_fails_after_its_answer_ends_its_lease_and_frees_the_waiting_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both granted tasks fail between their answer and their lease's end (here the breaker's update): their leases end
    with them, so the tasks waiting for one are deferred at once, not held until the hand-on window closes."""

    def broken(*_args: object, **_kwargs: object) -> str:
        raise RuntimeError("breaker write failed")

    monkeypatch.setattr(HealthTracker, "after_attempt", broken)
    rig = _rig(3 * DEADLINE_SECONDS)  # a window longer than the deadline: a lease left open would hold the waiting tasks past it
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint(max_concurrency=LIMIT, rate_limit_per_second=RATE))
    tasks = [pipe.event(ep, n) for n in range(TASKS)]
    rig.http.answer = Receiver()
    plans = rig.worker.plan(tasks)
    with ThreadPoolExecutor(max_workers=TASKS) as pool:
        futures = [pool.submit(rig.worker.deliver, t, plans[t]) for t in tasks]
        outcomes = []
        for f in futures:
            try:
                outcomes.append(f.result(timeout=DEADLINE_SECONDS).outcome)
            except RuntimeError:
                outcomes.append("failed")
    assert sorted(outcomes) == ["deferred"] * (TASKS - LIMIT) + ["failed"] * LIMIT
