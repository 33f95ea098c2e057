"""Delivery Lambda: drains the delivery queue, reporting batch item failures.

A record is retried by SQS only when hookline could not finish it; a failed
webhook is a recorded outcome. See hookline.consumer and hookline.delivery for
the at-least-once, single-flight contract.
"""

from typing import Any

from hookline.adapters.observability import traced
from hookline.entrypoints.delivery import handle_batch


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return traced(handle_batch)(event, context)
