"""An endpoint's give-back goes out as the last of its tasks in the batch finishes, beside that task's record
(hookline.services.delivery.plans.EndpointBatch): one AWS call fewer in a row on a task's path. A task that fails
before it finishes still ends its lease, so the last to end hands the give-back over; the batch's end waits for it."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from hookline.core.conflicts import Lost
from hookline.core.models import DeliveryTask
from hookline.core.ratelimit import Limiter, in_flight
from hookline.core.reports import DeliveryReport
from hookline.core.responses import HttpResult
from hookline.services.cas import SAVE_TRIES
from hookline.services.delivery.health import LEASES_NOT_GIVEN_BACK
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.outside import Request, answering
from tests.unit.services.pipeline import Pipeline

WAIT_SECONDS = 5.0  # the longest the last record waits for the give-back: it comes at once when handed over


def _limiter_writes(rig: DeliveryRig) -> int:
    return sum(1 for kind, _, _ in rig.states.writes if kind == "limiter")


def _three_tasks(rig: DeliveryRig) -> list[DeliveryTask]:
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    return [pipe.event(ep, n) for n in range(3)]


def test_the_give_back_is_written_while_the_last_tasks_record_is_still_being_written() -> None:
    rig = delivery_rig()
    tasks = _three_tasks(rig)
    plans = rig.worker.plan(tasks)
    assert _limiter_writes(rig) == 1  # the grant
    given_back = threading.Event()
    save_limiter, record_attempt = rig.states.save_limiter, rig.events.record_attempt

    def saving(*args: object, **kwargs: object) -> bool:
        landed = save_limiter(*args, **kwargs)  # type: ignore[arg-type]
        given_back.set()
        return landed

    seen_while_recording: list[bool] = []

    def recording(*args: object, **kwargs: object) -> None:
        # The last task's record waits for the give-back: it must already be on its way, not after the batch
        if len(seen_while_recording) == len(tasks) - 1:
            seen_while_recording.append(given_back.wait(WAIT_SECONDS))
        else:
            seen_while_recording.append(given_back.is_set())
        record_attempt(*args, **kwargs)  # type: ignore[arg-type]

    rig.states.save_limiter = saving  # type: ignore[method-assign]
    rig.events.record_attempt = recording  # type: ignore[method-assign]
    reports = [rig.worker.deliver(t, plans[t]) for t in tasks]
    # Then no give-back before the last task had its answer, and it was out while that task's record was written
    assert seen_while_recording == [False, False, True]
    rig.worker.release(plans.values(), reports)
    # And the batch's end wrote nothing more: the grant and the one give-back, carrying the three attempts' statistics
    limiter = rig.states.limiter("acme", "ep_01")
    assert (_limiter_writes(rig), in_flight(limiter, rig.clock.timestamp())) == (2, 0)
    assert limiter.carried.as_dict()["attempts"] == 3
    assert all(r.outcome == "succeeded" for r in reports)


def test_a_task_that_fails_before_it_finishes_still_ends_its_lease() -> None:
    """Its lease ends as it fails (a task of the batch waiting for a lease must not wait for it in vain): the last of
    the three to end hands over the give-back, all three leases in one write with the two answers' statistics."""
    rig = delivery_rig()
    tasks = _three_tasks(rig)
    answer, calls = rig.http.answer, [0]

    def failing(request: Request) -> HttpResult:
        calls[0] += 1
        if calls[0] == 2:
            raise RuntimeError("the sender broke its contract")
        return answer(request)

    rig.http.answer = failing
    plans = rig.worker.plan(tasks)
    reports: list[DeliveryReport] = []
    for t in tasks:
        try:
            reports.append(rig.worker.deliver(t, plans[t]))
        except RuntimeError:
            pass
    assert len(reports) == 2
    rig.worker.release(plans.values(), reports)  # waits for the give-back handed over
    limiter = rig.states.limiter("acme", "ep_01")
    assert (_limiter_writes(rig), in_flight(limiter, rig.clock.timestamp())) == (2, 0)  # the grant, then one give-back
    assert limiter.carried.as_dict()["attempts"] == 2


def test_the_batchs_end_waits_for_a_give_back_still_on_its_way() -> None:
    rig = delivery_rig()
    tasks = _three_tasks(rig)
    plans = rig.worker.plan(tasks)
    save_limiter = rig.states.save_limiter
    slow = threading.Event()

    def saving(*args: object, **kwargs: object) -> bool:
        slow.wait(0.2)  # the give-back's write takes a while; nothing sets the event
        return save_limiter(*args, **kwargs)  # type: ignore[arg-type]

    rig.states.save_limiter = saving  # type: ignore[method-assign]
    reports = [rig.worker.deliver(t, plans[t]) for t in tasks]
    rig.worker.release(plans.values(), reports)
    # The invocation ends with no write in flight: the handed-over give-back had landed when release returned
    assert (_limiter_writes(rig), in_flight(rig.states.limiter("acme", "ep_01"), rig.clock.timestamp())) == (2, 0)


def test_tasks_on_threads_of_their_own_give_each_endpoints_leases_back_once_with_all_its_statistics() -> None:
    """As the handler runs a batch: every task on a thread of its own, two endpoints' tasks interleaved."""
    rig = delivery_rig()
    pipe = Pipeline(rig)
    first, second = pipe.endpoint(endpoint()), pipe.endpoint(endpoint("ep_02", url="https://example.com/other"))
    tasks = [pipe.event(first, n) for n in range(4)] + [pipe.event(second, n) for n in range(3)]
    plans = rig.worker.plan(tasks)
    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        reports = list(pool.map(lambda t: rig.worker.deliver(t, plans[t]), tasks))
    rig.worker.release(plans.values(), reports)
    now = rig.clock.timestamp()
    for ep, sent in (("ep_01", 4), ("ep_02", 3)):
        limiter = rig.states.limiter("acme", ep)
        writes = sum(1 for kind, endpoint_id, _ in rig.states.writes if kind == "limiter" and endpoint_id == ep)
        # One grant and one give-back per endpoint, every lease back, every attempt's statistics carried on it
        assert (writes, in_flight(limiter, now), limiter.carried.as_dict()["attempts"]) == (2, 0, sent)
    assert all(r.outcome == "succeeded" for r in reports) and len(rig.http.requests) == len(tasks)


def test_answers_within_a_millisecond_still_give_the_leases_back() -> None:
    """A loopback receiver answers within a millisecond, which reads 0 ms (durations are whole milliseconds): the
    give-back folds those answers into a new endpoint's adaptive limit and returns the leases (a division by that 0
    once failed every such give-back, logged and swallowed, and left the slots held to their lease's expiry)."""
    rig = delivery_rig()
    rig.http.answer = answering(200, duration_ms=0)
    tasks = _three_tasks(rig)
    plans = rig.worker.plan(tasks)
    reports = [rig.worker.deliver(t, plans[t]) for t in tasks]
    rig.worker.release(plans.values(), reports)
    limiter = rig.states.limiter("acme", "ep_01")
    assert (_limiter_writes(rig), in_flight(limiter, rig.clock.timestamp())) == (2, 0)
    assert limiter.concurrency.observed_at > 0 and limiter.carried.as_dict()["attempts"] == 3


def _leases_not_given_back(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == LEASES_NOT_GIVEN_BACK]


def test_a_give_back_that_raises_is_logged_and_counted_and_the_batch_stands(caplog: pytest.LogCaptureFixture) -> None:
    rig = delivery_rig()
    tasks = _three_tasks(rig)
    plans = rig.worker.plan(tasks)  # the grant lands
    rig.states.faults.fail("save_limiter")  # then the table refuses every limiter write
    reports = [rig.worker.deliver(t, plans[t]) for t in tasks]
    with caplog.at_level(logging.WARNING):
        rig.worker.release(plans.values(), reports)
    # Then the batch's results stand, the failure is counted once (the LeasesNotGivenBack metric) and logged as an
    # error naming the endpoint, and its three leases stay out until they expire
    assert all(r.outcome == "succeeded" for r in reports)
    assert rig.give_backs_failed == [1]
    (line,) = _leases_not_given_back(caplog)
    assert (line.levelno, line.endpoint_id, line.leases, line.exc_info is not None) == (logging.ERROR, "ep_01", 3, True)  # type: ignore[attr-defined]
    assert in_flight(rig.states.limiter("acme", "ep_01"), rig.clock.timestamp()) == 3
    # And the batch's statistics, not carried on the limiter, were added on their own
    (counted,) = [c for (_, ep, _), c in rig.stats.slots.items() if ep == "ep_01"]
    assert counted["attempts"] == 3


def test_a_give_back_that_loses_every_try_is_logged_as_contended_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    rig = delivery_rig()
    tasks = _three_tasks(rig)
    plans = rig.worker.plan(tasks)
    save_limiter, key = rig.states.save_limiter, ("acme", "ep_01")

    def another_batch_writes_first(tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool | Lost[Limiter]:
        current = rig.states.limiters[key]
        rig.states.limiters[key] = replace(current, version=current.version + 1)  # another batch's write lands just before
        return save_limiter(tenant, endpoint_id, state, expected_version)

    rig.states.save_limiter = another_batch_writes_first  # type: ignore[method-assign]
    reports = [rig.worker.deliver(t, plans[t]) for t in tasks]
    with caplog.at_level(logging.WARNING):
        rig.worker.release(plans.values(), reports)
    # Then every one of the compare-and-swap's tries lost, and that is counted once and logged as contention
    assert rig.states.conflicts == SAVE_TRIES
    assert rig.give_backs_failed == [1]
    (line,) = _leases_not_given_back(caplog)
    assert (line.levelno, line.reason, line.leases) == (logging.WARNING, "contended", 3)  # type: ignore[attr-defined]
    assert in_flight(rig.states.limiter(*key), rig.clock.timestamp()) == 3


def test_a_give_back_that_lands_counts_nothing(caplog: pytest.LogCaptureFixture) -> None:
    rig = delivery_rig()
    tasks = _three_tasks(rig)
    plans = rig.worker.plan(tasks)
    save_limiter, lost = rig.states.save_limiter, [0]

    def losing_once(tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool | Lost[Limiter]:
        if not lost[0]:
            lost[0] = 1
            current = rig.states.limiters[(tenant, endpoint_id)]
            rig.states.limiters[(tenant, endpoint_id)] = replace(current, version=current.version + 1)
        return save_limiter(tenant, endpoint_id, state, expected_version)

    rig.states.save_limiter = losing_once  # type: ignore[method-assign]
    reports = [rig.worker.deliver(t, plans[t]) for t in tasks]
    with caplog.at_level(logging.WARNING):
        rig.worker.release(plans.values(), reports)
    # A give-back that lost once and landed on its second try is not a failure
    assert (rig.states.conflicts, rig.give_backs_failed, _leases_not_given_back(caplog)) == (1, [], [])
    assert in_flight(rig.states.limiter("acme", "ep_01"), rig.clock.timestamp()) == 0
