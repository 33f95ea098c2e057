"""The sweeper through the real handlers against moto: a stored event whose queueing failed reaches its receiver once,
and so does a retry whose wait in Step Functions was stopped."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from freezegun import freeze_time
from standardwebhooks.webhooks import Webhook

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.core.clock import parse_iso
from hookline.core.deadletters import RETRY_WAIT_FAILED
from hookline.core.errors import DependencyFailed
from hookline.core.jobs import JOB_KINDS
from hookline.core.models import DeliveryTask
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import Answer, running_receiver


def test_a_stored_event_whose_queueing_failed_is_swept_and_delivered_once(hookline: Hookline) -> None:
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock, running_receiver() as receiver:
        ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})[1]
        # Given an event (no id) stored while SQS refused its task: the producer gets a 503 and never repeats it
        queue = container.event_service()._queue
        real_enqueue = queue.enqueue

        def refusing(*args: object, **kwargs: object) -> None:
            queue.enqueue = real_enqueue  # type: ignore[method-assign]
            raise DependencyFailed("SQS said no", cause="ServiceUnavailable")

        queue.enqueue = refusing  # type: ignore[method-assign]
        status, refused = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": 1}})
        assert (status, refused["error"]["code"]) == (503, "unavailable")
        assert hookline.queued() == []
        table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
        [stored] = [i for i in table.scan()["Items"] if i[keys.SK] == keys.EVENT_SK]
        # When the scheduled sweep runs before the grace period, Then it leaves the request alone
        assert hookline.handlers["jobs"]({"kind": "sweep"}, None)["unqueued_events"] == 0
        # When it runs after the grace period, Then it queues the delivery, once
        clock.tick(container.get_settings().sweep_grace_seconds + 60)
        report = hookline.handlers["jobs"]({"kind": "sweep"}, None)
        assert (report["unqueued_events"], report["queued_deliveries"]) == (1, 1)
        assert hookline.handlers["jobs"]({"kind": "sweep"}, None)["unqueued_events"] == 0
        assert hookline.drain() == 1
        # And the receiver got the event once, signed
        [got] = receiver.requests
        assert Webhook(ep["secret"]).verify(got.body, got.headers)["id"] == stored["id"]
        assert json.loads(got.body)["data"] == {"n": 1}
        _, event = hookline.api("GET", f"/v1/events/{stored['id']}")
        assert event["deliveries"][0]["status"] == "succeeded"


def test_the_replay_function_runs_its_jobs_and_the_sweep_with_only_its_own_resources(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    """As Lambda runs it: the jobs function's environment names only the resources it is granted (topology), so a
    job or the sweep that queues first attempts finds the delivery queue there, or fails here as it would in the cloud."""
    with running_receiver() as receiver:
        hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        assert hookline.api("POST", "/v1/events/broadcast", {"type": "a.b", "data": {}})[0] == 202
        own = {spec.env for spec in topology.JOBS.env_resources}
        for spec in (*topology.QUEUES, *topology.TABLES, *topology.STATE_MACHINES, *topology.TOPICS):
            if spec.env not in own:
                monkeypatch.delenv(spec.env, raising=False)
        container.reset()
        messages = hookline.queued(topology.JOBS_QUEUE)
        result = hookline.handlers["jobs"](sqs_event(messages, hookline.queue_arn(topology.JOBS_QUEUE)), None)
        assert result == {"batchItemFailures": []}
        assert hookline.handlers["jobs"]({"kind": "sweep"}, None)["unqueued_events"] == 0
        # The fan-out's first attempt is on the delivery queue
        assert len(hookline.queued()) == 1


def test_the_sweep_resumes_a_job_whose_step_messages_were_lost(hookline: Hookline) -> None:
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock:
        assert hookline.api("PUT", "/v1/customers/gone", {"name": "Gone"})[0] == 201
        for i in range(3):
            hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}", "customer": "gone"})
        job = hookline.api("DELETE", "/v1/customers/gone")[1]["job"]
        assert len(hookline.queued(topology.JOBS_QUEUE)) == 1  # its first step, taken off the queue and lost
        clock.tick(21 * 60)
        assert hookline.handlers["jobs"]({"kind": "sweep"}, None)["stalled_jobs_resumed"] == 1
        hookline.drain(topology.JOBS_QUEUE)
        shown = hookline.api("GET", f"/v1/jobs/{job['id']}")[1]
        assert (shown["status"], shown["counts"]) == ("done", {"endpoints_deleted": 3})
        assert hookline.handlers["jobs"]({"kind": "sweep"}, None)["stalled_jobs_resumed"] == 0
        table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
        assert [i for i in table.scan()["Items"] if i[keys.PK] == keys.RUNNING_JOBS] == []


# -- retries whose wait in Step Functions never ended ---------------------------------------------------------------
# moto's executions here never run (no `execute_state_machine`): each wait lasts until it is stopped, as a real one
# that is stopped, fails or never starts. The sweeper must then queue the retry again once it is overdue.


def _notes(hookline: Hookline) -> list[dict[str, Any]]:
    """The retry-wait notes in the table (a scan: the test's view, never the code's)."""
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    return [i for i in table.scan()["Items"] if str(i[keys.PK]).startswith("WAIT#")]


def _stop_the_wait(hookline: Hookline) -> tuple[DeliveryTask, str]:
    """The one retry waiting in Step Functions, stopped: its task as it waits, and its due time."""
    sfn = boto3.client("stepfunctions")
    [execution] = sfn.list_executions(stateMachineArn=hookline.env[topology.RETRY_WAIT.env])["executions"]
    waiting = json.loads(sfn.describe_execution(executionArn=execution["executionArn"])["input"])
    sfn.stop_execution(executionArn=execution["executionArn"], error="Operator", cause="stopped by hand")
    assert sfn.describe_execution(executionArn=execution["executionArn"])["status"] == "ABORTED"
    return DeliveryTask.from_message(waiting["task"]), str(waiting["until"])


@pytest.fixture
def long_waits(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> Hookline:
    """Every retry waits in Step Functions: a delay over 1 s, and 30 to 60 s after the first attempt (equal jitter)."""
    monkeypatch.setenv("HOOKLINE_SQS_MAX_DELAY_SECONDS", "1")
    monkeypatch.setenv("HOOKLINE_SQS_HOPS_UP_TO_SECONDS", "0")  # every wait over the second in Step Functions, none hopping
    monkeypatch.setenv("HOOKLINE_RETRY_JITTER", "equal")
    container.reset()
    return hookline


def _past_the_margin(clock: Any, task: DeliveryTask) -> None:
    """Move the clock past the margin after the end of the minute the task's note is kept under: the sweep settles a
    minute's notes only once all of them are overdue (a task due 10:00:59.5 waits till 10:01:00, noted under 10:01)."""
    minute_ends = (task.wait_until // 60 + 1) * 60
    # move_to, not tick: a ticking clock's tick() adds to the time it was frozen at, dropping the seconds it has run since
    clock.move_to(datetime.fromtimestamp(minute_ends + container.get_settings().sweep_wait_margin_seconds + 5, UTC))


def _sweep(hookline: Hookline) -> dict[str, Any]:
    report: dict[str, Any] = hookline.handlers["jobs"]({"kind": "sweep"}, None)
    return report


def test_a_retry_whose_wait_in_step_functions_was_stopped_is_queued_again_and_delivered_once(long_waits: Hookline) -> None:
    hookline = long_waits
    answers = iter([Answer(status=500), Answer(status=200)])
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock, running_receiver(lambda _r: next(answers)) as receiver:
        hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        event_id = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": 1}})[1]["id"]
        # Given attempt 1 failed, and its retry went to wait in Step Functions, noted under the minute it is due
        hookline.pump()
        assert len(_notes(hookline)) == 1
        # When that wait is stopped
        task, until = _stop_the_wait(hookline)
        assert (task.attempt, task.fresh, task.wait_until) == (2, False, int(parse_iso(until).timestamp()))
        # And the sweep runs before the margin past the due time has passed, Then it leaves the note alone
        assert _sweep(hookline)["overdue_retries_requeued"] == 0 and hookline.queued(topology.RETRY_QUEUE) == []
        # When it runs after the due time and the margin, Then it queues the retry again, once
        _past_the_margin(clock, task)
        report = _sweep(hookline)
        table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
        checkpoint = table.get_item(Key=keys.wait_checkpoint()).get("Item")
        seen = f"report {report}, checkpoint {checkpoint}, notes {[n[keys.PK] for n in _notes(hookline)]}, now {datetime.now(UTC)}"
        assert (report["overdue_retries_requeued"], report["wait_notes"]) == (1, 1), seen
        assert _sweep(hookline)["overdue_retries_requeued"] == 0 and _notes(hookline) == []
        # And the retry function delivers it: the receiver got the event twice, as one webhook, and the delivery succeeded
        assert hookline.drain(topology.RETRY_QUEUE) == 1
        _, event = hookline.api("GET", f"/v1/events/{event_id}")
        [delivery] = event["deliveries"]
        assert delivery["status"] == "succeeded"
        assert [a["status_code"] for a in delivery["attempts"]] == [500, 200]
        assert [r.headers["webhook-id"] for r in receiver.requests] == [event_id, event_id]


def test_a_retry_whose_wait_was_stopped_and_whose_attempts_then_run_out_is_dead_lettered(long_waits: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    hookline = long_waits
    monkeypatch.setenv("HOOKLINE_MAX_ATTEMPTS", "2")
    container.reset()
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock, running_receiver(lambda _r: Answer(status=500)) as receiver:
        hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        event_id = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[1]["id"]
        hookline.pump()
        # Given the last retry's wait stopped
        task, _ = _stop_the_wait(hookline)
        # When the sweep queues it again once overdue, and it fails too
        _past_the_margin(clock, task)
        assert _sweep(hookline)["overdue_retries_requeued"] == 1
        assert hookline.drain(topology.RETRY_QUEUE) == 1
        # Then the delivery failed after its two attempts, and its task rests on the DLQ saying so: never nowhere
        _, event = hookline.api("GET", f"/v1/events/{event_id}")
        assert (event["deliveries"][0]["status"], len(event["deliveries"][0]["attempts"]), len(receiver.requests)) == ("failed", 2, 2)
        [dead] = hookline.queued(topology.DELIVERY_DLQ)
        assert dead["MessageAttributes"]["reason"]["StringValue"] == "max_attempts"


def test_a_retry_the_state_machine_dead_lettered_and_the_sweep_queued_again_reaches_the_receiver_once(long_waits: Hookline) -> None:
    hookline = long_waits
    answers = iter([Answer(status=500), Answer(status=200)])
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock, running_receiver(lambda _r: next(answers)) as receiver:
        hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        event_id = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[1]["id"]
        hookline.pump()
        # Given the wait ended in its Catch: the state machine put the task on the DLQ with `retry_wait_failed`, as its
        # definition does (tests/infrastructure/test_state_machine_runs.py runs that path in moto)
        task, _ = _stop_the_wait(hookline)
        boto3.client("sqs").send_message(
            QueueUrl=hookline.env[topology.DELIVERY_DLQ.env],
            MessageBody=task.to_message(),
            MessageAttributes={
                "reason": {"DataType": "String", "StringValue": RETRY_WAIT_FAILED},
                "error": {"DataType": "String", "StringValue": "SQS.AmazonSQSException"},
            },
        )
        # When the sweep queues the retry again once overdue, and the retry function delivers it
        _past_the_margin(clock, task)
        assert _sweep(hookline)["overdue_retries_requeued"] == 1
        hookline.drain(topology.RETRY_QUEUE)
        # And an operator then drains the DLQ as usual
        job = hookline.drain_dlq()
        assert job["counts"]["moved"] == 1
        assert hookline.drain(topology.RETRY_QUEUE) == 1
        # Then the letter was moved like any other, found its attempt made and sent nothing: the receiver got the event twice in all
        _, event = hookline.api("GET", f"/v1/events/{event_id}")
        assert event["deliveries"][0]["status"] == "succeeded"
        assert [a["status_code"] for a in event["deliveries"][0]["attempts"]] == [500, 200]
        assert len(receiver.requests) == 2
        assert hookline.queued(topology.DELIVERY_DLQ) == []


def test_every_job_kind_of_the_registry_has_its_runner_and_no_other(hookline: Hookline) -> None:
    # The one registry of job kinds (hookline.core.jobs.JOB_KINDS) is what the wiring runs: a kind added there without
    # its JobKind, or wired without being registered, fails here
    assert sorted(container.job_runner().kinds) == sorted(JOB_KINDS)


def test_at_small_a_queued_job_is_run_by_the_scheduled_sweep(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOOKLINE_SIZE=small gives the jobs function no event source on the job queue (infra/sizing.py) and tells it
    HOOKLINE_SWEEP_RUNS_JOBS: its every-minute sweep receives the jobs and runs them through the same handler."""
    monkeypatch.setenv("HOOKLINE_SWEEP_RUNS_JOBS", "true")
    container.reset()
    # Given a customer's deletion: a job whose first step waits on the job queue, and nothing polling it
    assert hookline.api("PUT", "/v1/customers/gone", {"name": "Gone"})[0] == 201
    for i in range(3):
        hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}", "customer": "gone"})
    job = hookline.api("DELETE", "/v1/customers/gone")[1]["job"]
    # And a message whose run fails (its body is no JSON)
    hookline.sqs.send_message(QueueUrl=hookline.env[topology.JOBS_QUEUE.env], MessageBody="not json")
    # When the schedule invokes the jobs function, as EventBridge Scheduler does
    report = hookline.handlers["jobs"]({"kind": "sweep"}, None)
    # Then the job ran to its end (each next step, queued a second ahead, taken in the same sweep), its messages deleted
    shown = hookline.api("GET", f"/v1/jobs/{job['id']}")[1]
    assert (shown["status"], shown["counts"]) == ("done", {"endpoints_deleted": 3})
    assert report["jobs_run"] >= 1 and report["jobs_failed"] == 1
    # And the failed message is not deleted: in flight until its visibility timeout, when SQS hands it out again
    attributes = hookline.sqs.get_queue_attributes(QueueUrl=hookline.env[topology.JOBS_QUEUE.env], AttributeNames=["All"])["Attributes"]
    assert (attributes["ApproximateNumberOfMessages"], attributes["ApproximateNumberOfMessagesNotVisible"]) == ("0", "1")


def test_where_the_event_source_runs_the_jobs_the_sweep_leaves_them(hookline: Hookline) -> None:
    # Given a queued job, at every size but small (HOOKLINE_SWEEP_RUNS_JOBS off)
    assert hookline.api("PUT", "/v1/customers/gone", {"name": "Gone"})[0] == 201
    hookline.api("DELETE", "/v1/customers/gone")
    # When the sweep runs, its report says nothing of jobs, and the job's step is still queued for the event source
    assert "jobs_run" not in hookline.handlers["jobs"]({"kind": "sweep"}, None)
    assert len(hookline.queued(topology.JOBS_QUEUE)) == 1
