"""The delivery queue. All SQS access lives here."""

from __future__ import annotations

from typing import Any

from hookline.models import DeliveryTask


class QueueError(Exception):
    """Some tasks could not be queued; the caller may retry the whole send."""


class TaskQueue:
    def __init__(self, client: Any, queue_url: str):
        self._sqs = client
        self._url = queue_url

    def send(self, tasks: list[DeliveryTask], delay_seconds: int = 0) -> None:
        """Queue tasks in batches of ten (one SQS request each). Raises QueueError on any failure."""
        for start in range(0, len(tasks), 10):
            chunk = tasks[start : start + 10]
            entries = [{"Id": str(i), "MessageBody": t.to_message(), "DelaySeconds": delay_seconds} for i, t in enumerate(chunk)]
            result = self._sqs.send_message_batch(QueueUrl=self._url, Entries=entries)
            failed = result.get("Failed") or []
            if failed:
                raise QueueError(f"{len(failed)} of {len(chunk)} tasks were not queued: {failed[0].get('Message', '')}")
