"""Prefixed, time-sortable ids: `evt_`, `ep_`, `dlv_`, followed by 26 base32 characters.

The first 10 characters encode the creation time in milliseconds (ULID layout),
so ids sort by creation time; the rest is random. An event id derived from a
caller's idempotency key is a hash instead, so the same key always names the
same event; so is a broadcast's delivery id, of (tenant, event, endpoint), so
a fan-out step run twice names the same deliveries.
"""

from __future__ import annotations

import hashlib
import re
import secrets

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case
_BODY_LEN = 26

EVENT = "evt"
ENDPOINT = "ep"
DELIVERY = "dlv"

_PATTERN = re.compile(rf"^(?P<prefix>[a-z]+)_[{_ALPHABET}]{{{_BODY_LEN}}}$")


def _encode(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        number, rem = divmod(number, 32)
        chars.append(_ALPHABET[rem])
    return "".join(reversed(chars))


def new_id(prefix: str, now_ms: int) -> str:
    """A fresh id created at `now_ms` (epoch milliseconds, from the caller's clock)."""
    return f"{prefix}_{_encode(now_ms, 10)}{_encode(secrets.randbits(80), 16)}"


def derived_id(prefix: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return f"{prefix}_{_encode(int.from_bytes(digest[:17], 'big'), _BODY_LEN)}"


def event_id(tenant: str, idempotency_key: str | None, now_ms: int) -> str:
    """An accepted event's id: derived from the caller's idempotency key (the same key names the same event), else fresh."""
    return derived_id(EVENT, tenant, idempotency_key) if idempotency_key is not None else new_id(EVENT, now_ms)


def is_id(value: object, prefix: str) -> bool:
    if not isinstance(value, str):
        return False
    match = _PATTERN.fullmatch(value)
    return bool(match and match.group("prefix") == prefix)
