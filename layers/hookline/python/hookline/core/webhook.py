"""The outgoing request's headers (Standard Webhooks). Pure."""

from __future__ import annotations

from hookline.core.signing import signature_header
from hookline.core.version import __version__


def webhook_headers(event_id: str, timestamp: int, body: bytes, secrets_in_use: list[str]) -> dict[str, str]:
    """`webhook-id` is the event id on every attempt; the timestamp is fresh per attempt."""
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature_header(secrets_in_use, event_id, timestamp, body),
        "content-type": "application/json",
        "user-agent": f"hookline/{__version__}",
    }
