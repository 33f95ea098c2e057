"""Prefixed, time-sortable ids: `evt_`, `ep_`, `dlv_`, followed by 26 base32 characters.

The first 10 characters encode the creation time in milliseconds (ULID layout),
so ids sort by creation time; the rest is random. An event id derived from a
caller's idempotency key is a hash instead, so the same key always names the
same event.

A delivery id (`delivery_id`) is its creation time and then its endpoint's
mark (`endpoint_mark`, 80 bits of a hash of the endpoint id) masked by a hash
of its tenant and event: one event has one delivery per endpoint, so it is
unique; it is the same however often it is computed, so a broadcast's fan-out
step run twice names the same deliveries; and from the event and the delivery
id alone the endpoint's mark comes back (`endpoint_mark_of`), which is where
the data table keeps the delivery (hookline.adapters.dynamo.keys). Deliveries
of events accepted before this scheme (LAYOUT_EVENT_KEYED) have random or
hashed ids, as they had then (`legacy_broadcast_delivery_id`).
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

_AS_DIGITS = str.maketrans(_ALPHABET, "0123456789abcdefghijklmnopqrstuv")  # Crockford's characters as int()'s base-32 digits
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


_MARK_BITS = 80  # the 16 characters after the time


def _hash(bits: int, *parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest(), "big") >> (256 - bits)


def endpoint_mark(endpoint_id: str) -> str:
    """16 base32 characters naming the endpoint, for keys: the same for every delivery to it."""
    return _encode(_hash(_MARK_BITS, "mark", endpoint_id), 16)


def _mask(tenant: str, event_id: str) -> int:
    return _hash(_MARK_BITS, "mask", tenant, event_id)


def delivery_id(tenant: str, event_id: str, endpoint_id: str, created_ms: int) -> str:
    """The id of the event's delivery to the endpoint, created at `created_ms` (epoch milliseconds)."""
    marked = _hash(_MARK_BITS, "mark", endpoint_id) ^ _mask(tenant, event_id)
    return f"{DELIVERY}_{_encode(created_ms, 10)}{_encode(marked, 16)}"


def endpoint_mark_of(tenant: str, event_id: str, delivery_id_: str) -> str:
    """The endpoint mark a `delivery_id` of this event carries (of an id made otherwise, a meaningless one)."""
    if not is_id(delivery_id_, DELIVERY):
        raise ValueError("not a delivery id")
    marked = int(delivery_id_[-16:].translate(_AS_DIGITS), 32)
    return _encode(marked ^ _mask(tenant, event_id), 16)


def time_bound(prefix: str, ms: int, upper: bool) -> str:
    """The least (or, `upper`, the greatest) id with this prefix created at `ms`: ids made in [a, b] sort between
    time_bound(a, upper=False) and time_bound(b, upper=True)."""
    return f"{prefix}_{_encode(min(max(0, ms), 32**10 - 1), 10)}{(_ALPHABET[-1] if upper else _ALPHABET[0]) * 16}"


def legacy_broadcast_delivery_id(tenant: str, event_id: str, endpoint_id: str) -> str:
    """A broadcast's delivery id as releases up to the event-keyed layout made them: a hash of (tenant, event, endpoint)."""
    return derived_id(DELIVERY, tenant, event_id, endpoint_id)


def event_id(tenant: str, idempotency_key: str | None, now_ms: int) -> str:
    """An accepted event's id: derived from the caller's idempotency key (the same key names the same event), else fresh."""
    return derived_id(EVENT, tenant, idempotency_key) if idempotency_key is not None else new_id(EVENT, now_ms)


def is_id(value: object, prefix: str) -> bool:
    if not isinstance(value, str):
        return False
    match = _PATTERN.fullmatch(value)
    return bool(match and match.group("prefix") == prefix)
