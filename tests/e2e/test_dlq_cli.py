"""The operators' DLQ drain CLI against a running local mode's embedded AWS."""

from __future__ import annotations

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
        # Given a dead-lettered task for each of two endpoints
        for endpoint_id in ("ep_a", "ep_b"):
            task = DeliveryTask("acme", "evt_1", f"dlv_{endpoint_id}", endpoint_id, 3, dead_lettered="max_attempts")
            sqs.send_message(QueueUrl=dlq, MessageBody=task.to_message(), MessageAttributes={"reason": {"DataType": "String", "StringValue": "max_attempts"}})
        # When an operator drains one endpoint's with the CLI (`make dlq-drain ENDPOINT=ep_a LOCAL=1`)
        for name in ("AWS_ENDPOINT_URL", *(q.env for q in topology.QUEUES)):
            monkeypatch.setenv(name, "")
        args = ["--local", "--aws-endpoint", hl.aws_endpoint, "--endpoint-id", "ep_a", "--rate", "100"]
        report = run_local(drain_command(build_parser().parse_args(args)), hl.aws_endpoint)
        container.reset()
        # Then that task left for the retry queue (whose poller takes it at once) and the other is still in the DLQ
        assert (report["moved"], report["skipped"]) == (1, 1)
        assert retry
        attrs = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["All"])["Attributes"]
        assert int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"]) == 1
