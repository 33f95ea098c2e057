"""The delivery DLQ as the operators' drain reads it (hookline.services.drain): receive letters, delete moved ones; and a
queue's messages received by hand for the sweep (SqsReceivedMessages).

SQS has no move API (under moto), so the drain receives, sends to the retry queue, and
then deletes here.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters.failures import translate_failures
from hookline.core.deadletters import DeadLetter
from hookline.core.sqs import MAX_BATCH_ENTRIES, event_record


@translate_failures
class SqsDeadLetterQueue:
    def __init__(self, sqs: Any, queue_url: str):
        self._sqs = sqs
        self._url = queue_url

    def receive(self, max_messages: int, hide_seconds: int) -> list[DeadLetter]:
        """One receive that waits for nothing (the drain receives again when it comes back empty)."""
        messages = self._sqs.receive_message(
            QueueUrl=self._url,
            MaxNumberOfMessages=max(1, min(10, max_messages)),
            VisibilityTimeout=hide_seconds,
            MessageAttributeNames=["reason"],
            WaitTimeSeconds=0,
        ).get("Messages", [])
        return [DeadLetter(m["Body"], m.get("MessageAttributes", {}).get("reason", {}).get("StringValue", ""), m["ReceiptHandle"]) for m in messages]

    def visible(self) -> int:
        attributes = self._sqs.get_queue_attributes(QueueUrl=self._url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
        return int(attributes["ApproximateNumberOfMessages"])

    def delete(self, letters: list[DeadLetter]) -> None:
        delete_messages(self._sqs, self._url, [d.handle for d in letters])


@translate_failures
class SqsReceivedMessages:
    """A queue's messages received by hand, as Lambda's event source would hand them (the jobs function's sweep
    runs the job queue so where it has no event source: hookline.services.jobsweep)."""

    def __init__(self, sqs: Any, queue_url: str):
        self._sqs = sqs
        self._url = queue_url

    def receive(self, max_messages: int, wait_seconds: int) -> list[dict[str, Any]]:
        """Every attribute (the receive count the internal-failure count reads); the queue's own visibility timeout."""
        messages = self._sqs.receive_message(
            QueueUrl=self._url,
            MaxNumberOfMessages=max(1, min(MAX_BATCH_ENTRIES, max_messages)),
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
            WaitTimeSeconds=max(0, wait_seconds),
        ).get("Messages", [])
        return [event_record(m) for m in messages]

    def delete(self, receipt_handles: list[str]) -> None:
        delete_messages(self._sqs, self._url, receipt_handles)


def delete_messages(sqs: Any, queue_url: str, receipt_handles: list[str]) -> None:
    """Delete received messages, MAX_BATCH_ENTRIES a call."""
    for start in range(0, len(receipt_handles), MAX_BATCH_ENTRIES):
        chunk = receipt_handles[start : start + MAX_BATCH_ENTRIES]
        sqs.delete_message_batch(QueueUrl=queue_url, Entries=[{"Id": str(i), "ReceiptHandle": handle} for i, handle in enumerate(chunk)])
