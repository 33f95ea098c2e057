"""Idempotent ingest: what makes two requests that name one event `id` the same request. Pure.

A producer that repeats a request (a timeout, a retry of its client) with the
same `id` gets the first answer again; the same `id` with another body is a
409 `idempotency_conflict` (hookline.services.events). The event stores the
hash of its request, and a repeat is compared by it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def request_hash(event_type: str, data: Any, customer: str | None = None, broadcast: bool = False, versions: dict[str, Any] | None = None) -> str:
    """What makes two requests with one `id` the same request. A customer (and supplied renderings) count only when
    named, so the hashes of events stored before them still match; a broadcast never matches an ordinary event."""
    fields = {
        "type": event_type,
        "data": data,
        **({"customer": customer} if customer else {}),
        **({"broadcast": True} if broadcast else {}),
        **({"versions": versions} if versions else {}),
    }
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
