"""Authorizer Lambda: API key -> tenant, for HTTP API simple responses."""

from typing import Any

from hookline.authorizer import authorize


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return authorize(event)
