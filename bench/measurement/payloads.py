"""The events the measurements send: realistic JSON of a stated size, the same for every run (seeded by size and index)."""

from __future__ import annotations

import json
import random
from typing import Any

_WORDS = [
    "invoice",
    "order",
    "customer",
    "payment",
    "refund",
    "shipment",
    "account",
    "plan",
    "seat",
    "coupon",
    "tax",
    "region",
    "warehouse",
    "carrier",
    "label",
    "status",
    "pending",
    "paid",
    "failed",
    "captured",
    "settled",
    "partial",
    "monthly",
    "annual",
    "trial",
    "premium",
    "basic",
    "blue",
    "green",
    "large",
    "small",
    "express",
    "standard",
    "priority",
    "return",
    "exchange",
    "gift",
    "card",
    "bank",
    "transfer",
    "wallet",
]


def event_body(size: int, n: int, event_type: str) -> dict[str, Any]:
    """An event whose webhook body (envelope included) is about `size` bytes of realistic JSON.

    Line items with random ids, amounts and words: it compresses about as well
    as real webhook payloads do (2-3x), not as a run of one character would.
    """
    rng = random.Random(f"{n}-{size}")
    envelope = len(json.dumps({"id": "evt_" + "0" * 26, "type": event_type, "timestamp": "2026-11-29T00:00:00.000Z", "data": {"n": n, "items": []}}))
    items: list[dict[str, Any]] = []
    used = envelope
    while True:
        item = {
            "id": f"li_{rng.getrandbits(64):016x}",
            "sku": f"SKU-{rng.randrange(10**6):06d}",
            "name": " ".join(rng.choice(_WORDS) for _ in range(3)),
            "quantity": rng.randint(1, 12),
            "unit_amount": rng.randrange(100, 100_000),
            "currency": rng.choice(("eur", "usd", "gbp")),
        }
        cost = len(json.dumps(item)) + 2
        if used + cost > size:
            break
        items.append(item)
        used += cost
    return {"type": event_type, "data": {"n": n, "items": items}}
