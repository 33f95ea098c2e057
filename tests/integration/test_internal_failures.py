"""`InternalFailures`, the metric a deploy's canary rolls back on, through the real handlers over moto.

It counts a record dead-lettered because of hookline itself: poison set aside, or a record that failed on the last
receive its queue's redrive policy allows. A customer's receiver running out of attempts is not hookline's fault and
never counts. The EMF documents are read from stdout; each failure's reason from the log. Last, `ServerErrors`, what
the api function's canary rolls back on: its 5xx answers.
"""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from hookline.adapters.metrics import INTERNAL_FAILURE
from hookline.core.errors import DependencyFailed
from hookline.core.models import DeliveryTask
from hookline.services.delivery.worker import DeliveryWorker
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import Answer, running_receiver

LAST_RECEIVE = str(topology.DELIVERY_QUEUE.max_receive_count)


@pytest.fixture
def metrics_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)


def _emf(out: str, name: str) -> list[dict[str, Any]]:
    """The EMF documents on stdout that carry the metric `name`."""
    documents = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [d for d in documents if "_aws" in d and name in d]


def _internal_failures(out: str) -> float:
    """The InternalFailures written, summed over its documents as CloudWatch's Sum over the `service` dimension would."""
    documents = _emf(out, "InternalFailures")
    for d in documents:
        assert d["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]] and d["service"] == "hookline"
        assert d["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "hookline"
    return sum(sum(d["InternalFailures"]) for d in documents)


def _reasons(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(getattr(r, "reason", ""), getattr(r, "error", "")) for r in caplog.records if r.getMessage() == INTERNAL_FAILURE]


def _tasks(hookline: Hookline, receiver_url: str, count: int) -> list[dict[str, Any]]:
    """`count` delivery tasks off the delivery queue, for an endpoint at `receiver_url`."""
    assert hookline.api("POST", "/v1/endpoints", {"url": receiver_url})[0] == 201
    for i in range(count):
        assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": i}})[0] == 202
    messages = hookline.queued()
    assert len(messages) == count
    return messages


def _received(message: dict[str, Any], times: str) -> dict[str, Any]:
    return {**message, "Attributes": {**message.get("Attributes", {}), "ApproximateReceiveCount": times}}


def _failing_for(monkeypatch: pytest.MonkeyPatch, message: dict[str, Any], error: Exception) -> None:
    """The worker raises `error` for the message's task (a hookline fault), and delivers the others."""
    doomed = DeliveryTask.from_message(message["Body"]).delivery_id
    deliver = DeliveryWorker.deliver

    def failing(self: DeliveryWorker, task: DeliveryTask, plan: Any = None) -> Any:
        if task.delivery_id == doomed:
            raise error
        return deliver(self, task, plan)

    monkeypatch.setattr(DeliveryWorker, "deliver", failing)


def test_a_customers_dead_letter_is_no_internal_failure(
    hookline: Hookline, metrics_on: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given deliveries of one attempt each, to a receiver that answers 500
    monkeypatch.setenv("HOOKLINE_MAX_ATTEMPTS", "1")
    container.reset()
    with running_receiver(lambda _r: Answer(500)) as receiver:
        [message] = _tasks(hookline, receiver.url, 1)
        capsys.readouterr()
        # When the delivery function sends it, and the receiver's failure exhausts its attempts
        assert hookline.deliver([message]) == {"batchItemFailures": []}
    out = capsys.readouterr().out
    # Then it rests in the dead-letter queue, counted as DeadLettered, and no InternalFailures was written
    [dead] = hookline.queued(topology.DELIVERY_DLQ)
    assert dead["MessageAttributes"]["reason"]["StringValue"] == "max_attempts"
    assert [d["DeadLettered"] for d in _emf(out, "DeadLettered")] == [[1.0]]
    assert _emf(out, "InternalFailures") == []


def test_poison_is_one_internal_failure_each(
    hookline: Hookline, metrics_on: None, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with running_receiver() as receiver:
        [good] = _tasks(hookline, receiver.url, 1)
        capsys.readouterr()
        # When a batch holds a good task, a message that is no task, and a task for a delivery that does not exist
        ghost = DeliveryTask("acme", "evt_01m8m00000000000000000000", "dlv_01m8m00000000000000000000", "ep_01m8m00000000000000000000").to_message()
        result = hookline.deliver([good, {"MessageId": "bad-1", "Body": "not a task"}, {"MessageId": "bad-2", "Body": ghost}])
    # Then both are set aside on the dead-letter queue (the batch does not fail), and each is one InternalFailure
    assert result == {"batchItemFailures": []}
    assert len(hookline.queued(topology.DELIVERY_DLQ)) == 2
    assert _internal_failures(capsys.readouterr().out) == 2
    assert sorted(_reasons(caplog)) == [("poison", "DeliveryNotFound"), ("poison", "MalformedTask")]


@pytest.mark.parametrize(("receive_count", "counted"), [(LAST_RECEIVE, 1), ("1", 0), (str(topology.DELIVERY_QUEUE.max_receive_count - 1), 0)])
def test_a_record_failing_with_an_exception_counts_on_its_last_receive_only(
    hookline: Hookline,
    metrics_on: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    receive_count: str,
    counted: int,
) -> None:
    with running_receiver() as receiver:
        # Given two tasks, and a bug that fails one of them
        doomed, fine = _tasks(hookline, receiver.url, 2)
        _failing_for(monkeypatch, doomed, RuntimeError("a bug"))
        capsys.readouterr()
        # When SQS hands that one out for the `receive_count`th time, beside the other
        result = hookline.deliver([_received(doomed, receive_count), fine])
    # Then its record fails (SQS redelivers it, or on the last receive moves it to the dead-letter queue)
    assert result == {"batchItemFailures": [{"itemIdentifier": doomed["MessageId"]}]}
    assert len(receiver.requests) == 1
    # And InternalFailures counts it only on that last receive, with its reason in the log
    assert _internal_failures(capsys.readouterr().out) == counted
    assert _reasons(caplog) == [("exception", "RuntimeError")] * counted


def test_a_failed_dependency_on_the_last_receive_of_the_retry_queue_counts(
    hookline: Hookline, metrics_on: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with running_receiver() as receiver:
        # Given a task on the retry queue's last receive whose processing meets DynamoDB throttling, beside a good one
        doomed, fine = _tasks(hookline, receiver.url, 2)
        _failing_for(monkeypatch, doomed, DependencyFailed("throttled", cause="ProvisionedThroughputExceededException"))
        capsys.readouterr()
        event = sqs_event([_received(doomed, str(topology.RETRY_QUEUE.max_receive_count)), fine], hookline.queue_arn(topology.RETRY_QUEUE))
        result = hookline.handlers["retry"](event, None)
    # Then it is one InternalFailure, a dependency's, named by the AWS error code
    assert result == {"batchItemFailures": [{"itemIdentifier": doomed["MessageId"]}]}
    assert _internal_failures(capsys.readouterr().out) == 1
    assert _reasons(caplog) == [("dependency", "ProvisionedThroughputExceededException")]


def test_an_invocation_that_fails_as_a_whole_counts_every_record_on_its_last_receive(
    hookline: Hookline, metrics_on: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_receiver() as receiver:
        # Given two tasks that both fail (so the batch processor fails the invocation), one on its last receive
        first, second = _tasks(hookline, receiver.url, 2)
        monkeypatch.setattr(DeliveryWorker, "deliver", lambda *_a, **_k: (_ for _ in ()).throw(RuntimeError("a bug")))
        capsys.readouterr()
        # When the delivery function runs them
        with pytest.raises(BatchProcessingError):
            hookline.deliver([_received(first, LAST_RECEIVE), _received(second, "2")])
    # Then the one on its last receive is counted
    assert _internal_failures(capsys.readouterr().out) == 1


@pytest.mark.parametrize(("receive_count", "counted"), [(str(topology.JOBS_QUEUE.max_receive_count), 1), ("1", 0)])
def test_the_job_functions_failed_record_counts_on_its_last_receive_only(
    hookline: Hookline, metrics_on: None, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, receive_count: str, counted: int
) -> None:
    # Given a job queue batch holding a record the jobs function cannot read, beside one it skips
    bad = {"MessageId": "bad-job", "Body": "{not json", "Attributes": {"ApproximateReceiveCount": receive_count}}
    event = sqs_event([bad, {"MessageId": "other", "Body": json.dumps({"kind": "unknown"})}], hookline.queue_arn(topology.JOBS_QUEUE))
    capsys.readouterr()
    # When the jobs function runs it
    result = hookline.handlers["jobs"](event, None)
    # Then the bad record fails, and counts only on the job queue's last receive
    assert result == {"batchItemFailures": [{"itemIdentifier": "bad-job"}]}
    assert _internal_failures(capsys.readouterr().out) == counted
    assert _reasons(caplog) == [("exception", "JSONDecodeError")] * counted


def test_the_apis_5xx_answers_are_counted_by_version_and_its_other_answers_are_not(
    hookline: Hookline, metrics_on: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the api function as Lambda runs it (its name and version), answering a request
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "hookline-ApiFunction-AB12")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_VERSION", "12")
    capsys.readouterr()
    assert hookline.api("GET", "/v1/endpoints")[0] == 200
    assert _emf(capsys.readouterr().out, "ServerErrors") == []
    # When the table is gone, so that it answers 5xx
    boto3.client("dynamodb").delete_table(TableName=hookline.env[topology.TABLE.env])
    status, _ = hookline.api("GET", "/v1/endpoints")
    assert status >= 500
    # Then that answer is one ServerErrors, filed under the running version too: what its canary rolls back on
    [document] = _emf(capsys.readouterr().out, "ServerErrors")
    assert document["ServerErrors"] == [1.0] and (document["function"], document["version"]) == ("hookline-ApiFunction-AB12", "12")
    assert document["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"], ["service", "function", "version"]]
