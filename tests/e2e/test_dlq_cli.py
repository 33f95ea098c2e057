"""The operators' DLQ drain CLI against a running local mode's embedded AWS."""

from __future__ import annotations

import threading
import time
from typing import Any

import boto3
import pytest

from hookline.core.models import DeliveryTask
from hookline.wiring import container, topology
from local.dlq import build_parser, drain_command, run_local
from local.run import LocalHookline


@pytest.mark.slow
def test_make_dlq_drain_moves_matching_tasks_to_the_retry_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalHookline(port=0, aws_port=0, api_keys="acme:hk_cli_test_key_1234", readable_logs=False) as hl:
        sqs = boto3.client("sqs", endpoint_url=hl.aws_endpoint)
        dlq, retry = hl.resources[topology.DELIVERY_DLQ.env], hl.resources[topology.RETRY_QUEUE.env]
        arrived = _record_what_the_poller_hands_over(hl, retry)
        # Given a dead-lettered task for each of two endpoints
        tasks = {}
        for endpoint_id in ("ep_a", "ep_b"):
            tasks[endpoint_id] = task = DeliveryTask("acme", "evt_1", f"dlv_{endpoint_id}", endpoint_id, 3, dead_lettered="max_attempts")
            sqs.send_message(QueueUrl=dlq, MessageBody=task.to_message(), MessageAttributes={"reason": {"DataType": "String", "StringValue": "max_attempts"}})
        # When an operator drains one endpoint's with the CLI (`make dlq-drain ENDPOINT=ep_a LOCAL=1`)
        for name in ("AWS_ENDPOINT_URL", *(q.env for q in topology.QUEUES)):
            monkeypatch.setenv(name, "")
        args = ["--local", "--aws-endpoint", hl.aws_endpoint, "--endpoint-id", "ep_a", "--rate", "100"]
        report = run_local(drain_command(build_parser().parse_args(args)), hl.aws_endpoint)
        container.reset()
        # Then that task left for the retry queue, whose poller handed exactly it (unchanged) to the function, and the other is still in the DLQ
        assert (report["moved"], report["skipped"]) == (1, 1)
        assert arrived.wait_for(1, seconds=10) == [tasks["ep_a"].to_message()]
        attrs = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["All"])["Attributes"]
        assert int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"]) == 1


class _Arrivals:
    """Message bodies a poller handed to its function, in order."""

    def __init__(self) -> None:
        self._bodies: list[str] = []
        self._lock = threading.Lock()

    def add(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._bodies.extend(r["body"] for r in event["Records"])

    def wait_for(self, count: int, seconds: float) -> list[str]:
        """What arrived once `count` bodies did, or when `seconds` ran out (the poller long-polls for 1 s at a time)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._lock:
                if len(self._bodies) >= count:
                    break
            time.sleep(0.05)
        with self._lock:
            return list(self._bodies)


def _record_what_the_poller_hands_over(hl: LocalHookline, queue_url: str) -> _Arrivals:
    arrivals = _Arrivals()
    [poller] = [p for p in hl.pollers if p.queue_url == queue_url]
    invoke = poller.invoke

    def recording(event: dict[str, Any]) -> Any:
        arrivals.add(event)
        return invoke(event)

    poller.invoke = recording
    return arrivals
