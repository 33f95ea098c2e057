"""The delivery DLQ as the operators' drain reads it (hookline.services.drain): receive letters, delete moved ones.

SQS has no move API (under moto), so the drain receives, sends to the retry queue, and
then deletes here.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters.failures import translate_failures
from hookline.core.deadletters import DeadLetter
from hookline.core.sqs import MAX_BATCH_ENTRIES


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
        for start in range(0, len(letters), MAX_BATCH_ENTRIES):
            chunk = letters[start : start + MAX_BATCH_ENTRIES]
            self._sqs.delete_message_batch(QueueUrl=self._url, Entries=[{"Id": str(i), "ReceiptHandle": d.handle} for i, d in enumerate(chunk)])
