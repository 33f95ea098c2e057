"""Which of a queue consumer's records are dead-lettered because of hookline itself: the `InternalFailures` a deploy's
canary rolls back on. Pure: the entry points hand in their SQS records and what became of them.

Three ways, and only these:

- poison: a message hookline set aside on the dead-letter queue itself (not a delivery task, or a task for a delivery
  that no longer exists);
- exception, dependency: a record whose processing failed (an unhandled error; a dependency such as DynamoDB or SQS
  that still failed after the SDK's retries, `DependencyFailed`) on its last receive: the queue's redrive policy moves it
  to the dead-letter queue after this failure. An earlier receive's failure is retried by SQS and is not counted.

A customer's receiver running out of attempts (max_attempts, max_age) is dead-lettered by design, as a recorded
outcome, and is never one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hookline.core.errors import DependencyFailed, error_code

Reason = Literal["poison", "exception", "dependency"]


@dataclass(frozen=True)
class InternalFailure:
    """One record dead-lettered because of hookline, for the log line beside the metric."""

    reason: Reason
    message_id: str = ""
    receive_count: int = 0
    error: str = ""  # the error's class or the dependency's error code (error_code), never its message


def receive_count(record: Mapping[str, Any]) -> int:
    """How often SQS has handed the record's message out, this time included (0 when the record does not say)."""
    try:
        return int(record.get("attributes", {}).get("ApproximateReceiveCount", 0))
    except (TypeError, ValueError):
        return 0


def classify(exc: BaseException) -> tuple[Reason, str]:
    """`dependency` for a failed dependency, itself or a cause it was raised from, named by its error code;
    `exception` for anything else, named by its class."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, DependencyFailed):
            return "dependency", error_code(seen)
        seen = seen.__cause__
    return "exception", error_code(exc)


def poison(record: Mapping[str, Any], error: str) -> InternalFailure:
    """A record whose message hookline set aside as poison."""
    return InternalFailure("poison", str(record.get("messageId", "")), receive_count(record), error)


def last_receives(records: Iterable[Mapping[str, Any]], failed: Mapping[str, BaseException], max_receive_count: int) -> list[InternalFailure]:
    """The records that failed (`failed`: by message id, why) on their last receive, which the queue's redrive policy
    (`max_receive_count`) then moves to the dead-letter queue."""
    found = []
    for record in records:
        message_id = str(record.get("messageId", ""))
        exc = failed.get(message_id)
        count = receive_count(record)
        if exc is not None and count >= max_receive_count:
            reason, error = classify(exc)
            found.append(InternalFailure(reason, message_id, count, error))
    return found
