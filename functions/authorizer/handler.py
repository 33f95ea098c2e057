"""Authorizer Lambda: API key -> tenant, for HTTP API simple responses."""

from typing import Any

from hookline.authorizer import handle
from hookline.observability import traced


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return traced(handle)(event, context)
