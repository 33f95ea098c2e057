"""SQS pollers that behave like Lambda's SQS event source mapping.

Each poller receives a batch (up to the function's batch size; SQS hands out at
most 10 per call, so it asks again until the batch is full or the queue is
empty), invokes the handler with Lambda's SQS event, and deletes every message
not named in the response's `batchItemFailures`. If the handler raises, nothing
is deleted: the messages reappear after the visibility timeout and the queue's
redrive policy moves them to the dead-letter queue after maxReceiveCount.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Invoke = Callable[[dict[str, Any]], Any]
SQS_MAX_BATCH = 10


def lambda_message_attributes(attributes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """SQS ReceiveMessage's MessageAttributes in the shape Lambda puts in a record."""
    out: dict[str, dict[str, Any]] = {}
    for name, value in attributes.items():
        binary = value.get("BinaryValue")
        out[name] = {
            "stringValue": value.get("StringValue"),
            "binaryValue": base64.b64encode(binary).decode("ascii") if isinstance(binary, bytes) else binary,
            "stringListValues": list(value.get("StringListValues") or []),
            "binaryListValues": [base64.b64encode(b).decode("ascii") if isinstance(b, bytes) else b for b in value.get("BinaryListValues") or []],
            "dataType": value.get("DataType", "String"),
        }
    return out


def lambda_sqs_record(message: dict[str, Any], *, queue_arn: str, region: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message.get("Body", ""),
        "attributes": {str(k): str(v) for k, v in (message.get("Attributes") or {}).items()},
        "messageAttributes": lambda_message_attributes(message.get("MessageAttributes") or {}),
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }
    if "MD5OfMessageAttributes" in message:
        record["md5OfMessageAttributes"] = message["MD5OfMessageAttributes"]
    return record


def failed_message_ids(result: Any, batch_ids: set[str]) -> set[str]:
    """Message ids to keep, from a handler's result (partial batch responses).

    As Lambda does: no batchItemFailures means success; an entry with a missing
    or unknown identifier fails the whole batch.
    """
    if not isinstance(result, dict) or result.get("batchItemFailures") is None:
        return set()
    failures = result["batchItemFailures"]
    if not isinstance(failures, list):
        return set(batch_ids)
    ids: set[str] = set()
    for item in failures:
        identifier = item.get("itemIdentifier") if isinstance(item, dict) else None
        if not identifier or identifier not in batch_ids:
            return set(batch_ids)
        ids.add(str(identifier))
    return ids


class SqsPoller:
    """One event source mapping: a queue, a handler and a batch size, run by worker threads."""

    def __init__(
        self,
        *,
        name: str,
        sqs: Any,
        queue_url: str,
        queue_arn: str,
        invoke: Invoke,
        batch_size: int,
        region: str,
        wait_seconds: int = 1,
        max_batching_window_seconds: float = 0,
        threads: int = 1,
        yield_to: Callable[[], float] | None = None,
    ):
        self.name = name
        self.sqs = sqs
        self.queue_url = queue_url
        self.queue_arn = queue_arn
        self.invoke = invoke
        self.batch_size = max(1, batch_size)
        self.region = region
        self.wait_seconds = wait_seconds
        self.max_batching_window_seconds = max_batching_window_seconds
        self.thread_count = max(1, threads)
        self.yield_to = yield_to  # called before each batch: local mode lets an API request in flight go first
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def receive_batch(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        window_ends = time.monotonic() + self.max_batching_window_seconds
        first = True
        while len(messages) < self.batch_size and not self._stop.is_set():
            response = self.sqs.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=min(SQS_MAX_BATCH, self.batch_size - len(messages)),
                WaitTimeSeconds=self.wait_seconds if first else 0,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            first = False
            received = response.get("Messages") or []
            messages.extend(received)
            if not received:
                if not messages or time.monotonic() >= window_ends:
                    break
                time.sleep(min(0.2, max(0.0, window_ends - time.monotonic())))
        return messages

    def process(self, messages: list[dict[str, Any]]) -> tuple[int, int]:
        """Invoke the handler with one batch; return (deleted, kept)."""
        if not messages:
            return 0, 0
        event = {"Records": [lambda_sqs_record(m, queue_arn=self.queue_arn, region=self.region) for m in messages]}
        try:
            result = self.invoke(event)
        except Exception:
            log.error("%s: handler raised, the whole batch stays on the queue:\n%s", self.name, traceback.format_exc())
            return 0, len(messages)
        keep = failed_message_ids(result, {m["MessageId"] for m in messages})
        done = [m for m in messages if m["MessageId"] not in keep]
        for start in range(0, len(done), SQS_MAX_BATCH):
            chunk = done[start : start + SQS_MAX_BATCH]
            response = self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)],
            )
            for failure in response.get("Failed") or []:
                log.warning("%s: could not delete a message: %s", self.name, failure)
        return len(done), len(keep)

    def poll_once(self) -> tuple[int, int]:
        if self.yield_to is not None:
            self.yield_to()
        return self.process(self.receive_batch())

    def _run(self) -> None:
        last_error = 0.0
        while not self._stop.is_set():
            try:
                self.poll_once()
            except Exception as exc:
                if self._stop.is_set():
                    break
                if time.monotonic() - last_error > 30:  # the cause once per 30 s; the poller tries again every second
                    log.warning("%s: polling %s failed (%s: %s); trying again", self.name, self.queue_url, type(exc).__name__, exc)
                    last_error = time.monotonic()
                self._stop.wait(1)

    def start(self) -> None:
        self._stop.clear()
        for i in range(self.thread_count):
            thread = threading.Thread(target=self._run, name=f"poller-{self.name}-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def signal_stop(self) -> None:
        """Ask the workers to finish after their current receive / invocation (see stop())."""
        self._stop.set()

    def stop(self, timeout: float = 15) -> None:
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("%s: poller thread still busy in a handler; leaving it (daemon)", self.name)
        self._threads.clear()


class ScheduleTimer:
    """A scheduled invocation (topology.ScheduleSpec) every `interval_seconds`, on a daemon thread; a failed run is logged."""

    def __init__(self, name: str, invoke: Callable[[dict[str, Any]], Any], event: dict[str, Any], interval_seconds: float) -> None:
        self.name = name
        self._invoke = invoke
        self._event = event
        self._interval = interval_seconds
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"schedule-{name}", daemon=True)
        self.runs = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                self._invoke(dict(self._event))
            except Exception:  # the next run tries again, as the scheduler's would
                log.exception("scheduled %s failed", self.name)
            self.runs += 1
