"""API Lambda: the HTTP API's routes (hookline.api)."""

from typing import Any

from hookline.adapters.observability import get_logger, traced
from hookline.entrypoints.api import handle


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    get_logger().append_keys(request_id=(event.get("requestContext") or {}).get("requestId"))
    return traced(handle)(event, context)
