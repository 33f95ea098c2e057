"""The worker owns its batch (DeliveryWorker.run_batch): resolve, plan, deliver side by side, release; the entry point
only translates the SQS event and the answer. Over the in-memory fakes."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from hookline.core.models import DeliveryTask
from hookline.core.ratelimit import in_flight
from hookline.core.reports import DeliveryReport
from hookline.services.delivery.worker import BatchRecord
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import delivery_rig
from tests.unit.services.pipeline import Pipeline


def test_a_batch_answers_what_was_delivered_what_failed_and_what_was_set_aside_and_ends_with_its_leases_given_back() -> None:
    # Given a batch of two deliverable tasks, the first of them again, a task whose delivery is gone, poison, and a
    # task whose delivery raises (hookline itself failed on it)
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    first, second, failing = (pipe.event(ep, n) for n in range(3))
    gone = replace(first, event_id="evt_gone", delivery_id="dlv_gone")
    records = [
        BatchRecord("m1", first.to_message()),
        BatchRecord("m2", second.to_message()),
        BatchRecord("m3", first.to_message()),
        BatchRecord("m4", gone.to_message()),
        BatchRecord("m5", "not a task"),
        BatchRecord("m6", failing.to_message()),
    ]
    around: list[str] = []

    def watched(task: DeliveryTask, deliver: Callable[[], DeliveryReport]) -> DeliveryReport:
        around.append(task.delivery_id)
        if task == failing:
            raise RuntimeError("the attempt's record could not be written")
        return deliver()

    # When the worker runs it
    with ThreadPoolExecutor(max_workers=4) as tasks:
        answer = rig.worker.run_batch(records, tasks, first_lane=True, around=watched)
    # Then each task ran once, around its caller's wrapper (the twin of the first needs no delivery)
    assert sorted(around) == sorted([first.delivery_id, second.delivery_id, "dlv_gone", failing.delivery_id])
    assert sorted((r.task.delivery_id, r.outcome) for r in answer.reports if r.task.delivery_id != "dlv_gone") == [
        (first.delivery_id, "succeeded"),
        (second.delivery_id, "succeeded"),
    ]
    # And only the record hookline failed on fails; the poison and the gone delivery are set aside, never retried
    assert list(answer.failed) == ["m6"] and str(answer.failed["m6"]) == "the attempt's record could not be written"
    assert sorted(answer.poison) == [("m4", "DeliveryNotFound"), ("m5", "MalformedTask")]
    assert sorted(body for body, _ in rig.scheduler.aside) == sorted(["not a task", gone.to_message()])
    # And the batch released what it planned: no lease of the endpoint is left out
    assert in_flight(rig.states.limiter("acme", ep.id), rig.clock.timestamp()) == 0


def test_a_record_whose_task_could_not_be_resolved_fails_alone_with_its_resolutions_error() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    task, redriven = pipe.event(ep, 0), replace(pipe.event(ep, 1), dead_lettered=True)

    def down(*_: object, **__: object) -> None:
        raise ConnectionError("DynamoDB is down")

    rig.events.restart = down  # type: ignore[method-assign]  # the redrive's restart write
    with ThreadPoolExecutor(max_workers=2) as tasks:
        answer = rig.worker.run_batch([BatchRecord("m1", task.to_message()), BatchRecord("m2", redriven.to_message())], tasks)
    assert [r.outcome for r in answer.reports] == ["succeeded"]
    assert list(answer.failed) == ["m2"] and isinstance(answer.failed["m2"], ConnectionError)


def test_a_task_received_before_its_due_time_hops_again_for_the_rest_and_runs_once_due() -> None:
    # Given a retry hopping to a due time 1,000 s away (hookline.core.waits), beside a task with none
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    now = int(rig.clock.timestamp())
    hopping, plain = replace(pipe.event(ep, 0), due=now + 1000, fresh=True), pipe.event(ep, 1)
    # When it arrives early (a hop of 900 s, and half a second)
    rig.clock.advance(900.5)
    with ThreadPoolExecutor(max_workers=2) as tasks:
        answer = rig.worker.run_batch([BatchRecord("m1", hopping.to_message()), BatchRecord("m2", plain.to_message())], tasks)
    # Then it is queued again for what remains (rounded up: never early), as a copy that claims, and nothing else is
    # done with it: no request, no report; the other task is delivered
    assert rig.scheduler.hopped == [(replace(hopping, fresh=False), 100)]
    assert rig.scheduler.hopped[0][0].fresh is False
    assert [(r.task.delivery_id, r.outcome) for r in answer.reports] == [(plain.delivery_id, "succeeded")]
    assert len(rig.http.requests) == 1 and not answer.failed
    # When the copy arrives at its due time, Then it is attempted
    rig.clock.advance(100)
    with ThreadPoolExecutor(max_workers=1) as tasks:
        answer = rig.worker.run_batch([BatchRecord("m3", rig.scheduler.hopped[0][0].to_message())], tasks)
    assert [(r.task.delivery_id, r.outcome) for r in answer.reports] == [(hopping.delivery_id, "succeeded")]
    assert len(rig.scheduler.hopped) == 1


def test_a_hop_that_cannot_be_queued_fails_its_record_so_sqs_hands_it_out_again() -> None:
    # Given a task not due yet, and a retry queue refusing the send
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    early = replace(pipe.event(ep, 0), due=int(rig.clock.timestamp()) + 5000)

    def refused(tasks: list[DeliveryTask], delays: list[int]) -> None:
        raise ConnectionError("SQS is down")

    rig.scheduler.hop = refused  # type: ignore[method-assign]
    # When the batch runs
    with ThreadPoolExecutor(max_workers=1) as tasks:
        answer = rig.worker.run_batch([BatchRecord("m1", early.to_message())], tasks)
    # Then its record fails (never dropped, never attempted early)
    assert list(answer.failed) == ["m1"] and isinstance(answer.failed["m1"], ConnectionError)
    assert rig.http.requests == [] and answer.reports == []
