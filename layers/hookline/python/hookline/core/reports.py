"""What happened to one delivery task in an invocation: the log line and the metrics are made from it."""

from __future__ import annotations

from dataclasses import dataclass

from hookline.core.models import DeliveryTask

SET_ASIDE = "set_aside"  # a report's path: the task was poison, set aside on the dead-letter queue by hookline itself
HELD = "held"  # a report's path on the ordered lane: the task waits holding its own message, and its endpoint's line behind it


@dataclass(frozen=True)
class DeliveryReport:
    """What happened to one task, for the log line."""

    task: DeliveryTask
    outcome: str  # succeeded | failed | retrying | deferred | parked | skipped
    status_code: int | None = None
    error: str | None = None
    duration_ms: int = 0
    reason: str = ""
    next_in_seconds: float | None = None
    path: str = ""  # sqs | stepfunctions | held (the ordered lane) | dlq (its attempts exhausted) | set_aside (poison), where the task went next
    first_attempt: bool = False
    breaker_event: str = ""  # opened | reopened | recovered, when this attempt moved the breaker
