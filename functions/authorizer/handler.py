"""Authorizer Lambda: API key -> tenant, for HTTP API simple responses."""

from typing import Any

from hookline.adapters.observability import traced
from hookline.entrypoints.authorizer import handle


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return traced(handle)(event, context)
