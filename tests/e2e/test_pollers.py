"""The SQS poller behaves like Lambda's event source mapping (fake handlers, a real moto server)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hookline.wiring import topology
from local.pollers import SqsPoller, failed_message_ids
from local.resources import enable_state_machine_execution, provision, queue_arn, restore_moto_config

pytestmark = pytest.mark.slow


class Recorder:
    """A fake handler: records events, fails records whose body is in `fail`, or raises."""

    def __init__(self, fail: frozenset[str] = frozenset(), raise_error: bool = False):
        self.fail = fail
        self.raise_error = raise_error
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.events.append(event)
        if self.raise_error:
            raise RuntimeError("handler crashed")
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in event["Records"] if r["body"] in self.fail]}

    def bodies(self) -> list[str]:
        with self.lock:
            return [r["body"] for e in self.events for r in e["Records"]]


def make_queue(sqs: Any, visibility: int = 30, max_receive_count: int | None = None) -> tuple[str, str | None]:
    name = f"t-{uuid.uuid4().hex[:12]}"
    dlq_url = None
    attributes = {"VisibilityTimeout": str(visibility)}
    if max_receive_count is not None:
        dlq_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
        attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": queue_arn(sqs, dlq_url), "maxReceiveCount": max_receive_count})
    return sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"], dlq_url


def poller_for(sqs: Any, url: str, handler: Recorder, batch_size: int = 10) -> SqsPoller:
    return SqsPoller(name="test", sqs=sqs, queue_url=url, queue_arn=queue_arn(sqs, url), invoke=handler, batch_size=batch_size, region="us-east-1")


def _counts(sqs: Any, url: str) -> tuple[int, int]:
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
    return int(attrs["ApproximateNumberOfMessages"]), int(attrs["ApproximateNumberOfMessagesNotVisible"])


def depth(sqs: Any, url: str) -> int:
    return sum(_counts(sqs, url))


def not_visible(sqs: Any, url: str) -> int:
    return _counts(sqs, url)[1]


def test_a_batch_larger_than_ten_is_gathered_and_shaped_like_lambdas(moto_endpoint: Any) -> None:
    # Given 15 messages, one with a message attribute, and a batch size of 15
    sqs = moto_endpoint.client("sqs")
    url, _ = make_queue(sqs)
    for i in range(15):
        extra = {"MessageAttributes": {"kind": {"DataType": "String", "StringValue": "demo"}}} if i == 0 else {}
        sqs.send_message(QueueUrl=url, MessageBody=f"m{i}", **extra)
    handler = Recorder()
    poller = poller_for(sqs, url, handler, batch_size=15)

    # When the poller runs once
    deleted, kept = poller.poll_once()

    # Then one invocation got all 15 records (SQS hands out at most 10 per call)
    assert (deleted, kept) == (15, 0)
    assert len(handler.events) == 1
    records = handler.events[0]["Records"]
    assert sorted(r["body"] for r in records) == sorted(f"m{i}" for i in range(15))
    # And each record has Lambda's SQS shape
    first = next(r for r in records if r["body"] == "m0")
    assert first["eventSource"] == "aws:sqs"
    assert first["eventSourceARN"] == queue_arn(sqs, url)
    assert first["awsRegion"] == "us-east-1"
    assert first["messageId"] and first["receiptHandle"] and first["md5OfBody"]
    assert first["attributes"]["ApproximateReceiveCount"] == "1"
    assert {"SentTimestamp", "ApproximateFirstReceiveTimestamp", "SenderId"} <= set(first["attributes"])
    assert first["messageAttributes"]["kind"]["stringValue"] == "demo"
    assert first["messageAttributes"]["kind"]["dataType"] == "String"
    # And every message was deleted
    assert depth(sqs, url) == 0


def test_failed_items_stay_and_are_redriven_to_the_dead_letter_queue(moto_endpoint: Any) -> None:
    # Given a queue with a 1 s visibility timeout that redrives after 2 receives, holding a good and a bad message
    sqs = moto_endpoint.client("sqs")
    url, dlq_url = make_queue(sqs, visibility=1, max_receive_count=2)
    assert dlq_url is not None
    sqs.send_message(QueueUrl=url, MessageBody="good")
    sqs.send_message(QueueUrl=url, MessageBody="bad")
    handler = Recorder(fail=frozenset({"bad"}))
    poller = poller_for(sqs, url, handler)

    # When the poller runs until the bad message reaches the dead-letter queue
    poller.start()
    try:
        deadline = time.monotonic() + 15
        while depth(sqs, dlq_url) == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        poller.stop()

    # Then the good message was handled once and deleted; the bad one was tried maxReceiveCount times
    assert handler.bodies().count("good") == 1
    assert handler.bodies().count("bad") == 2
    assert depth(sqs, url) == 0
    moved = sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in moved] == ["bad"]


def test_a_crashing_handler_deletes_nothing(moto_endpoint: Any) -> None:
    # Given a message and a handler that raises
    sqs = moto_endpoint.client("sqs")
    url, _ = make_queue(sqs, visibility=1)
    sqs.send_message(QueueUrl=url, MessageBody="m")
    crashing = Recorder(raise_error=True)

    # When the poller hands it over
    assert poller_for(sqs, url, crashing).poll_once() == (0, 1)

    # Then the message was not deleted: it is in flight, hidden for the visibility timeout
    assert not_visible(sqs, url) == 1
    # And it comes back once the timeout is over (each poll waits up to 1 s for it), with a higher receive count
    working = Recorder()
    poller = poller_for(sqs, url, working)
    deadline = time.monotonic() + 10
    while not working.events and time.monotonic() < deadline:
        poller.poll_once()
    assert working.bodies() == ["m"]
    assert working.events[0]["Records"][0]["attributes"]["ApproximateReceiveCount"] == "2"
    assert depth(sqs, url) == 0


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (None, set()),
        ({}, set()),
        ({"batchItemFailures": []}, set()),
        ({"batchItemFailures": [{"itemIdentifier": "a"}]}, {"a"}),
        ({"batchItemFailures": [{"itemIdentifier": "zzz"}]}, {"a", "b"}),  # unknown id: the whole batch fails
        ({"batchItemFailures": [{"itemIdentifier": ""}]}, {"a", "b"}),
        ({"batchItemFailures": "nope"}, {"a", "b"}),
    ],
)
def test_partial_batch_responses_are_read_like_lambda_does(result: Any, expected: set[str]) -> None:
    # Given a batch of messages a and b, When the handler answers `result`, Then `expected` stay on the queue
    assert failed_message_ids(result, {"a", "b"}) == expected


def test_provisioned_state_machines_really_wait_then_queue_their_task(moto_endpoint: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the topology provisioned on a moto server told to execute state machines
    monkeypatch.setenv("MOTO_PORT", moto_endpoint.url.rsplit(":", 1)[1])
    previous = enable_state_machine_execution(moto_endpoint.url)  # first: moto keeps executing machines apart
    try:
        env = provision(f"s{uuid.uuid4().hex[:8]}", session=moto_endpoint.session(), endpoint_url=moto_endpoint.url)
        sfn = moto_endpoint.client("stepfunctions")
        sqs = moto_endpoint.client("sqs")
        for machine in topology.STATE_MACHINES:
            # When an execution is started that is due in a second
            until = (datetime.now(UTC) + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
            sfn.start_execution(stateMachineArn=env[machine.env], input=json.dumps({"until": until, "task": '{"hello": 1}'}))
            # Then, after the wait, the task lands on the machine's target queue
            deadline = time.monotonic() + 15
            messages: list[dict[str, Any]] = []
            while not messages and time.monotonic() < deadline:
                messages = sqs.receive_message(QueueUrl=env[machine.target.env], WaitTimeSeconds=1).get("Messages") or []
            assert [m["Body"] for m in messages] == ['{"hello": 1}']
    finally:
        restore_moto_config(moto_endpoint.url, previous)
