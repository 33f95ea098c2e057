"""What Amazon SQS allows, as hookline relies on it: one home for its limits. Pure.

The settings check their values against these (hookline.core.settings), the
queue adapters clamp and chunk by them (hookline.adapters.queues,
hookline.adapters.dlq), and the services that pace work in SQS delays keep
within them (hookline.services.jobs, hookline.services.drain).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_DELAY_SECONDS = 900  # the longest DelaySeconds of a message (15 minutes)
MAX_BATCH_ENTRIES = 10  # entries of one SendMessageBatch or DeleteMessageBatch, messages of one ReceiveMessage


def event_record(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message from ReceiveMessage (received with every attribute) as Lambda's SQS event source hands it to a
    function: the same record, so a consumer that receives by hand runs it through the same code."""
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": {
            name: {key[0].lower() + key[1:]: value for key, value in attribute.items()} for name, attribute in message.get("MessageAttributes", {}).items()
        },
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
    }
