"""local.moto_speedups keeps moto's SQS behaviour: only the cost of a send stops growing with the backlog."""

from __future__ import annotations

import boto3
from moto import mock_aws

from local import moto_speedups


def test_sends_behave_as_moto_does_with_the_speed_up_installed() -> None:
    moto_speedups.install()
    moto_speedups.install()  # idempotent
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        standard = sqs.create_queue(QueueName="std")["QueueUrl"]
        fifo = sqs.create_queue(QueueName="f.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
        for _ in range(3):
            sqs.send_message(QueueUrl=standard, MessageBody="same")
            sqs.send_message(QueueUrl=fifo, MessageBody="same", MessageGroupId="g")
        # A standard queue keeps every copy; the FIFO queue's content-based deduplication still drops the repeats
        counts = {url: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]["ApproximateNumberOfMessages"] for url in (standard, fifo)}
        assert counts == {standard: "3", fifo: "1"}
        # And the queues' attributes read outside a send are moto's own, in full
        attrs = sqs.get_queue_attributes(QueueUrl=fifo, AttributeNames=["All"])["Attributes"]
        assert attrs["ContentBasedDeduplication"] == "true" and attrs["FifoQueue"] == "true" and "VisibilityTimeout" in attrs
