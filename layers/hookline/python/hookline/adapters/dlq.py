"""The operators' DLQ drain: move the delivery DLQ's messages to the retry queue at a set pace.

SQS has no move API (under moto), so each message is received, sent and then
deleted: a crash in between, or two drains at once, can leave a duplicate,
which the delivery's generation check and claim drop: a moved task is never
*fresh* (hookline.core.claims), so every copy claims before it sends. Tasks
hookline dead-lettered itself come back as manual replays (the worker restarts
them); poison messages stay where they are. `progress` hears the report after
every batch of ten.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hookline.core.models import DeliveryTask, MalformedTask

# How long one drain moves messages before it answers (`more`: run it again); the replay function's timeout
# (topology.REPLAY_TIMEOUT_SECONDS) leaves room after it, and an operator's client waits longer than both.
TIME_BUDGET_SECONDS = 90.0


@dataclass
class DrainReport:
    moved: int = 0
    skipped: int = 0
    poison: int = 0
    more: bool = False  # stopped at the message or time budget: run again for the rest

    def public(self) -> dict[str, Any]:
        return {"moved": self.moved, "skipped": self.skipped, "poison": self.poison, "more": self.more}


class DlqDrain:
    def __init__(self, sqs: Any, dlq_url: str, retry_url: str, sleep: Callable[[float], None] = time.sleep, monotonic: Callable[[], float] = time.monotonic):
        self._sqs = sqs
        self._dlq = dlq_url
        self._retry = retry_url
        self._sleep = sleep
        self._monotonic = monotonic

    def run(
        self,
        rate: float,
        tenant: str = "",
        endpoint_id: str = "",
        max_messages: int = 10_000,
        time_budget: float = TIME_BUDGET_SECONDS,
        progress: Callable[[DrainReport], None] = lambda _r: None,
    ) -> DrainReport:
        """Drain at `rate` messages per second, optionally only one tenant's or endpoint's, until the DLQ looks empty."""
        report = DrainReport()
        started = self._monotonic()
        empty = 0
        while report.moved < max_messages:
            if self._monotonic() - started > time_budget:
                report.more = True
                return report
            batch = self._sqs.receive_message(
                QueueUrl=self._dlq, MaxNumberOfMessages=10, VisibilityTimeout=60, MessageAttributeNames=["All"], WaitTimeSeconds=0
            ).get("Messages", [])
            if not batch:
                empty += 1
                if empty >= 2:
                    return report
                continue
            empty = 0
            for message in batch:
                self._one(message, rate, tenant, endpoint_id, report)
            progress(report)
        report.more = True
        return report

    def _one(self, message: dict[str, Any], rate: float, tenant: str, endpoint_id: str, report: DrainReport) -> None:
        reason = message.get("MessageAttributes", {}).get("reason", {}).get("StringValue", "")
        try:
            task = DeliveryTask.from_message(message["Body"])
        except MalformedTask:
            task = None
        if reason == "poison" or task is None:
            report.poison += 1  # stays for a human; it becomes visible again after the timeout
            return
        if (tenant and task.tenant != tenant) or (endpoint_id and task.endpoint_id != endpoint_id):
            report.skipped += 1  # left invisible for the receive's timeout, so one pass sees it once
            return
        # Send, then delete: a crash in between leaves a duplicate, which the
        # delivery's generation check and claim drop (the moved copy claims: it is not fresh).
        self._sqs.send_message(QueueUrl=self._retry, MessageBody=replace(task, fresh=False).to_message())
        self._sqs.delete_message(QueueUrl=self._dlq, ReceiptHandle=message["ReceiptHandle"])
        report.moved += 1
        self._sleep(1.0 / rate)
