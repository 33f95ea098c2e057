"""The outgoing request's headers (Standard Webhooks). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hookline.core.schemes import DEFAULT as DEFAULT_SIGNING
from hookline.core.schemes import Signing, redacted_headers
from hookline.core.signing import signature_header
from hookline.core.version import __version__

if TYPE_CHECKING:
    from hookline.core.models import Endpoint


def webhook_headers(event_id: str, timestamp: int, body: bytes, secrets_in_use: list[str], signatures: Mapping[str, str] | None = None) -> dict[str, str]:
    """`webhook-id` is the event id on every attempt; the timestamp is fresh per attempt. `signatures`: the signature
    headers of the endpoint's schemes (Endpoint.signatures) in place of the default `v1` of `secrets_in_use`."""
    signed = dict(signatures) if signatures is not None else {"webhook-signature": signature_header(secrets_in_use, event_id, timestamp, body)}
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        **signed,
        "content-type": "application/json",
        "user-agent": f"hookline/{__version__}",
    }


def request_headers(endpoint: Endpoint, event_id: str, now: float, body: bytes, overlap_seconds: float) -> dict[str, str]:
    """Every header of a request to the endpoint sent at `now`: its custom headers, overridden by the webhook's own
    whatever their case, signed by its schemes (hookline.core.schemes) with the secrets and keys live at `now`."""
    signed = webhook_headers(event_id, int(now), body, [], endpoint.signatures(event_id, int(now), body, now, overlap_seconds))
    # A custom header named as a signature header (in any case) would go out beside it: the signature wins.
    return {**{name: value for name, value in endpoint.headers if name.lower() not in signed}, **signed}


def sent_headers(event_id: str, sent_at_epoch: float, custom: Mapping[str, str], signing: Signing = DEFAULT_SIGNING) -> dict[str, str]:
    """The headers an attempt sent at `sent_at_epoch` carried, as a customer may see them: the signatures of the
    schemes `signing` signed with then, redacted (each is a secret's output), the endpoint's custom headers first, as
    webhook_headers overrides them."""
    return {**dict(custom), **webhook_headers(event_id, int(sent_at_epoch), b"", [], redacted_headers(signing, sent_at_epoch))}


@dataclass(frozen=True)
class Outbound:
    """One delivery as it leaves: the exact signed body and its headers, and what a non-HTTP destination files it
    under (hookline.core.destinations)."""

    body: bytes
    headers: Mapping[str, str]
    event_id: str
    event_type: str
    created_at: str  # the event's acceptance time (ISO 8601 UTC)
    customer: str | None
    endpoint_id: str
    delivery_id: str  # "" for a test event: it has no delivery
