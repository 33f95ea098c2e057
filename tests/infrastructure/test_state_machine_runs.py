"""The SYNTHESIZED retry state machine really runs: it waits until `$.until`, then puts `$.task` on the retry queue,
or, when that send keeps failing, on the delivery DLQ with the reason `retry_wait_failed`.

moto executes Wait and `arn:aws:states:::sqs:sendMessage` states (in real time) when
`execute_state_machine` is on. The definition comes from the template, with the queue URL
substitutions resolved to the moto queues, so this checks what CloudFormation would deploy.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl

from hookline.core.clock import iso
from hookline.core.deadletters import RETRY_WAIT_FAILED
from hookline.wiring.topology import DEFAULT_PREFIX, DELIVERY_DLQ, RETRY_QUEUE, RETRY_WAIT
from tests.infrastructure.conftest import Synth

# moto waits int(seconds left) when the Wait state begins, so it may queue up to a second before `until`
# (AWS waits until it): `until` falls on a whole second at least this far ahead, and the check allows that second.
# At 1 s, a Wait state that began a few tens of milliseconds late had under a second left and waited none.
WAIT_SECONDS = 2
DEADLINE_SECONDS = 10.0
ROLE_ARN = "arn:aws:iam::123456789012:role/hookline-retry-wait"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto in-process, executing state machines; nothing can reach a real or local endpoint."""
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_SFN", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        yield


def _due_time() -> datetime:
    """The first whole second at least WAIT_SECONDS from now, in UTC."""
    soon = datetime.now(UTC) + timedelta(seconds=WAIT_SECONDS)
    return soon.replace(microsecond=0) + timedelta(seconds=1)


def _machine(synth: Synth, sqs: Any, sfn: Any) -> tuple[str, str, str]:
    """The retry queue and the delivery DLQ in moto, and the synthesized state machine sending to them: their URLs and its ARN."""
    queue_url = sqs.create_queue(QueueName=RETRY_QUEUE.physical_name(DEFAULT_PREFIX))["QueueUrl"]
    dlq_url = sqs.create_queue(QueueName=DELIVERY_DLQ.physical_name(DEFAULT_PREFIX))["QueueUrl"]
    definition = synth.definition(RETRY_WAIT, {synth.queue_id(RETRY_QUEUE): queue_url, synth.queue_id(DELIVERY_DLQ): dlq_url})
    machine = sfn.create_state_machine(name=RETRY_WAIT.physical_name(DEFAULT_PREFIX), definition=json.dumps(definition), roleArn=ROLE_ARN, type="STANDARD")
    return queue_url, dlq_url, str(machine["stateMachineArn"])


def _status_once_ended(sfn: Any, execution_arn: str) -> str:
    status = str(sfn.describe_execution(executionArn=execution_arn)["status"])
    for _ in range(20):
        if status != "RUNNING":
            break
        time.sleep(0.1)
        status = str(sfn.describe_execution(executionArn=execution_arn)["status"])
    return status


def _receive_one(sqs: Any, queue_url: str, deadline: float) -> dict[str, Any] | None:
    while time.monotonic() < deadline:
        messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageAttributeNames=["All"]).get("Messages", [])
        if messages:
            assert len(messages) == 1, messages
            message: dict[str, Any] = messages[0]
            return message
    return None


def test_synthesized_retry_state_machine_queues_the_task_when_due(synth: Synth, aws: None) -> None:
    # Given the retry queue in moto, and the synthesized definition with its queue URL set to that queue
    sqs = boto3.client("sqs")
    sfn = boto3.client("stepfunctions")
    queue_url, dlq_url, machine_arn = _machine(synth, sqs, sfn)
    task = json.dumps({"delivery_id": "dlv_01TEST", "generation": 1, "attempt": 3}, separators=(",", ":"))
    due = _due_time()
    until = iso(due)
    assert until.endswith(".000Z"), until  # 2026-01-01T00:00:00.000Z, as hookline.adapters.queues sends it

    # When an execution starts with the input the delivery code sends
    started = time.monotonic()
    execution_arn = sfn.start_execution(stateMachineArn=machine_arn, name="dlv_01TEST-g1-a3", input=json.dumps({"until": until, "task": task}))["executionArn"]
    early = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])
    message = _receive_one(sqs, queue_url, started + DEADLINE_SECONDS)
    elapsed = time.monotonic() - started
    received_at = datetime.now(UTC)

    # Then the task was not queued before it was due
    assert early == []
    # And within the deadline the retry queue holds exactly one message, whose body is the task string unchanged
    assert message is not None, f"nothing on the retry queue after {DEADLINE_SECONDS}s: {sfn.describe_execution(executionArn=execution_arn)}"
    assert message["Body"] == task
    # (not before `until`, less the second moto's whole-second wait may cut short, and so at least a second after the start)
    assert received_at >= due - timedelta(seconds=1), f"queued after {elapsed:.2f}s, {(due - received_at).total_seconds():.2f}s before it was due"
    assert elapsed >= WAIT_SECONDS - 1 - 0.1, f"queued after {elapsed:.2f}s, before the wait was over"
    # And the execution succeeds, with nothing on the DLQ
    assert _status_once_ended(sfn, execution_arn) == "SUCCEEDED"
    assert sqs.receive_message(QueueUrl=dlq_url, WaitTimeSeconds=0).get("Messages", []) == []


def test_synthesized_retry_state_machine_dead_letters_the_task_when_its_send_keeps_failing(synth: Synth, aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the synthesized state machine, and its retries' pauses recorded and cut short (moto sleeps them in real
    # time: about two minutes in all)
    pauses: list[float] = []

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        time.sleep(0.01)

    monkeypatch.setattr(retrier_decl, "time", SimpleNamespace(sleep=pause))
    sqs = boto3.client("sqs")
    sfn = boto3.client("stepfunctions")
    queue_url, dlq_url, machine_arn = _machine(synth, sqs, sfn)
    task = json.dumps({"tenant": "acme", "event_id": "evt_1", "delivery_id": "dlv_01TEST", "endpoint_id": "ep_1", "attempt": 3, "generation": 1})
    until = iso(_due_time())
    # When the retry queue is gone by the time the wait ends, so every send to it fails
    started = time.monotonic()
    execution_arn = sfn.start_execution(stateMachineArn=machine_arn, name="dlv_01TEST-g1-a3", input=json.dumps({"until": until, "task": task}))["executionArn"]
    sqs.delete_queue(QueueUrl=queue_url)
    letter = _receive_one(sqs, dlq_url, started + DEADLINE_SECONDS)
    # Then the send was tried again six times, backing off from 2 s, before giving up
    assert letter is not None, f"nothing on the DLQ after {DEADLINE_SECONDS}s: {sfn.describe_execution(executionArn=execution_arn)}"
    assert pauses == [2, 4, 8, 16, 32, 64]
    # And the task is on the delivery DLQ, unchanged, saying why: the reason the drain and the operators read, and the error
    assert letter["Body"] == task
    attributes = {name: value["StringValue"] for name, value in letter["MessageAttributes"].items()}
    assert attributes["reason"] == RETRY_WAIT_FAILED
    assert attributes["error"] and json.loads(attributes["detail"])["Error"] == attributes["error"]
    assert (attributes["until"], attributes["execution"]) == (until, "dlv_01TEST-g1-a3")
    # And the execution fails all the same (RetryWaitFailed), so the state machine's failed-executions alarm sees it
    assert _status_once_ended(sfn, execution_arn) == "FAILED"
    assert sfn.describe_execution(executionArn=execution_arn).get("error") == "RetryWaitFailed"
